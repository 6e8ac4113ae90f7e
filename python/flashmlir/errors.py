"""FlashError, the package's one exception type (FlashTypeError and
FlashValueError are the FlashErrors that are also TypeError and
ValueError): its bottom layer, which imports nothing of flashmlir (see
test/Integration/Python/import-layers.test for the layers above it)."""

__all__ = ["FlashError", "FlashTypeError", "FlashValueError"]


class FlashError(RuntimeError):
    """An error reported by libflashrt (or found before calling it)."""

    # Public as flashmlir.FlashError: tracebacks and reprs name it so.
    __module__ = "flashmlir"


class FlashTypeError(FlashError, TypeError):
    """An argument of the wrong type: a FlashError that `except TypeError`
    catches too, as Python code expects of a type check."""

    __module__ = "flashmlir"


class FlashValueError(FlashError, ValueError):
    """An argument of the right type but a value the package refuses."""

    __module__ = "flashmlir"
