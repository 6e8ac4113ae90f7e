"""FlashError, the package's one exception type: its bottom layer, which
imports nothing of flashmlir (see test/Integration/Python/import-layers.test for the
layers above it)."""

__all__ = ["FlashError"]


class FlashError(RuntimeError):
    """An error reported by libflashrt (or found before calling it)."""

    # Public as flashmlir.FlashError: tracebacks and reprs name it so.
    __module__ = "flashmlir"
