#!/usr/bin/env python3
"""Plots of the benchmark JSON files (matplotlib, headless).

  plot.py RESULTS.json [OUT.png]

benchmark.py's JSON (rows of hdim x causal x seqlen): TFLOP/s against
sequence length for ours, FA2 and cuDNN, one panel per head dim and mask.
decode.py's JSON ("speed" rows of batch x KV length): TB/s and µs per shape
for ours, FA2 and cuDNN. The PNG goes next to the JSON (same name, .png)
unless OUT.png is given. benchmark.py and decode.py call write_png() after
writing their JSON (plot_next_to); without matplotlib it says so and
returns None.
"""
import json
import os
import sys

SERIES = (("ours", "FlashMLIR", "C0"), ("fa2", "FA2 (SDPA)", "C1"), ("cudnn", "cuDNN (SDPA)", "C2"))


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def _title(data, what):
    gpu = data.get("gpu") or "GPU"
    return f"{what} on {gpu} (torch {data.get('torch', '?')}, {data.get('date', '')})"


def plot_benchmark(data, out, plt):
    rows = [r for r in data.get("rows", []) if r.get("hdim") is not None]
    panels = sorted({(r["hdim"], bool(r["causal"])) for r in rows})
    if not panels:
        raise ValueError("no benchmark rows")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, (hdim, causal) in zip(axes[0], panels):
        sel = sorted((r for r in rows if r["hdim"] == hdim and bool(r["causal"]) == causal),
                     key=lambda r: r["seqlen"])
        for key, label, color in SERIES:
            pts = [(r["seqlen"], r[key]) for r in sel if isinstance(r.get(key), (int, float))]
            if pts:
                ax.plot(*zip(*pts), marker="o", ms=3, label=label, color=color)
        ax.set_xscale("log", base=2)
        ax.set_title(f"head dim {hdim}, {'causal' if causal else 'no mask'}", fontsize=10)
        ax.set_xlabel("sequence length")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("TFLOP/s (forward, bf16)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(_title(data, f"Attention forward, {data.get('tokens', '?')} tokens"),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_decode(data, out, plt):
    rows = (data.get("speed") or {}).get("rows") or []
    rows = [r for r in rows if r.get("batch") is not None]
    if not rows:
        raise ValueError("no decode speed rows")
    labels = [f"{r['batch']}x{r['kv_len'] // 1024}k" if r["kv_len"] >= 1024 else
              f"{r['batch']}x{r['kv_len']}" for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8))
    width = 0.27
    for i, (key, label, color) in enumerate(SERIES):
        xs = [j + (i - 1) * width for j in range(len(rows))]
        for ax, suffix in ((a1, "_tbps"), (a2, "_us")):
            ys = [r.get(key + suffix) if isinstance(r.get(key + suffix), (int, float)) else 0
                  for r in rows]
            ax.bar(xs, ys, width, label=label, color=color)
    for ax, what in ((a1, "TB/s (KV bytes / time)"), (a2, "µs per call (median)")):
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, rotation=30, fontsize=8)
        ax.set_xlabel("batch x KV length")
        ax.set_ylabel(what)
        ax.grid(axis="y", alpha=0.3)
    a2.set_yscale("log")
    a1.legend(fontsize=8)
    r0 = rows[0]
    fig.suptitle(_title(data, f"Decode, {r0.get('dtype')} Hq {r0.get('hq')} Hkv {r0.get('hkv')} "
                              f"D {r0.get('head_dim')}"), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def write_png(json_path, out=None, log=print):
    """Plots `json_path` (benchmark or decode JSON) into `out` (default: the
    JSON's path with .png). Returns the PNG path, or None (and says why)
    without matplotlib or plottable rows."""
    plt = _pyplot()
    if plt is None:
        log(f"# plot: matplotlib is not installed; no PNG for {json_path} "
            f"(re-plot later: python3 bench/plot.py {json_path})")
        return None
    with open(json_path) as f:
        data = json.load(f)
    out = out or os.path.splitext(json_path)[0] + ".png"
    try:
        if "speed" in data:
            plot_decode(data, out, plt)
        else:
            plot_benchmark(data, out, plt)
    except (ValueError, KeyError, TypeError) as ex:
        log(f"# plot: nothing plotted for {json_path}: {ex}")
        return None
    log(f"# plot written {out}")
    return out


def plot_next_to(json_path):
    """write_png for benchmark.py and decode.py: a plotting failure only
    says so, the measurements are already written."""
    try:
        return write_png(json_path)
    except Exception as ex:  # noqa: BLE001
        print(f"# plot failed: {type(ex).__name__}: {ex}")
        return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or len(argv) > 2:
        print(__doc__.strip())
        return 2
    if not os.path.isfile(argv[0]):
        print(f"error: no such file {argv[0]}", file=sys.stderr)
        return 2
    return 0 if write_png(argv[0], argv[1] if len(argv) > 1 else None) else 1


if __name__ == "__main__":
    sys.exit(main())
