"""The report's plots, drawn with matplotlib's Agg canvas into PNG bytes that the page inlines.

Figures are built without pyplot: no global figure registry, no GUI backend chosen behind the
caller's back, nothing to close, so a long `versa optimize` batch does not accumulate figures.
"""

import io
from collections.abc import Sequence

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from versa.optimizer import units

VERSA = "#1d4ed8"
REFERENCE = "#9aa5b1"
GOOD = "#059669"
BAD = "#dc2626"
# One colour per kernel family and memory part, in order of first appearance.
PALETTE = ("#1d4ed8", "#f59e0b", "#10b981", "#8b5cf6", "#ef4444", "#06b6d4", "#84cc16", "#ec4899", "#64748b")
STYLE = {
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#9aa5b1",
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "xtick.color": "#52606d",
    "ytick.color": "#1f2933",
    "axes.grid": True,
    "axes.grid.axis": "x",
    "grid.color": "#e4e7eb",
    "axes.axisbelow": True,
}
DPI = 110
TOP_LAYERS = 15


def before_after(timing: dict) -> bytes:
    """The reference's and Versa's time per call, side by side, with the speed-up as title."""
    with rc_context(STYLE):
        fig = Figure(figsize=(7.0, 1.9))
        ax = fig.add_subplot()
        names = [timing["reference"], "Versa"]
        values = [timing["reference_ms"], timing["versa_ms"]]
        ax.barh(names, values, color=[REFERENCE, VERSA], height=0.55)
        ax.invert_yaxis()
        for y, value in enumerate(values):
            ax.text(value, y, f"  {units.ms(value)}", va="center", fontsize=9)
        ax.set_xlim(0, max(values) * 1.22)
        ax.set_xlabel("time per call (ms, lower is better)")
        verb = "faster" if timing["speedup"] >= 1 else "slower"
        factor = timing["speedup"] if timing["speedup"] >= 1 else 1 / timing["speedup"]
        ax.set_title(f"Versa is {units.speedup(factor)} {verb} than {timing['reference']}", loc="left")
        return _png(fig)


def layer_times(layers: Sequence[dict], top: int = TOP_LAYERS) -> bytes:
    """The `top` slowest kernels as horizontal bars, coloured by family, slowest on top."""
    shown = sorted(layers, key=lambda layer: layer["ms"], reverse=True)[:top]
    families = list(dict.fromkeys(layer["family"] for layer in shown))
    colour = {family: PALETTE[i % len(PALETTE)] for i, family in enumerate(families)}
    with rc_context(STYLE):
        fig = Figure(figsize=(7.6, 0.9 + 0.3 * len(shown)))
        ax = fig.add_subplot()
        labels = [_short(layer["kernel"], 38) for layer in shown]
        values = [layer["ms"] for layer in shown]
        ax.barh(range(len(shown)), values, color=[colour[layer["family"]] for layer in shown], height=0.7)
        ax.set_yticks(range(len(shown)), labels, fontfamily="monospace", fontsize=8)
        ax.invert_yaxis()
        for y, layer in enumerate(shown):
            ax.text(
                layer["ms"], y, f"  {units.ms(layer['ms'])} · {units.percent(layer['percent'])}", va="center"
            )
        ax.set_xlim(0, max(values, default=1) * 1.3 or 1)
        ax.set_xlabel("time per model call (ms)")
        ax.set_title(f"Time per kernel (top {len(shown)} of {len(layers)})", loc="left")
        handles = [Patch(color=colour[f]) for f in families]
        ax.legend(handles, families, loc="lower right", frameon=False, fontsize=8, title="family")
        return _png(fig)


def memory(memory: dict, reference: str | None) -> bytes:
    """Versa's peak split into its parts, beside the reference's peak when it was measured."""
    parts = [
        ("weights", memory["weights_bytes"]),
        ("arena", memory["arena_bytes"]),
        ("inputs", memory["inputs_bytes"]),
        ("outputs", memory["outputs_bytes"]),
    ]
    rest = memory["peak_bytes"] - sum(value for _, value in parts)
    if rest > 0:
        parts.append(("other", rest))
    rows = ["Versa"] + ([reference or "reference"] if memory["reference_peak_bytes"] is not None else [])
    with rc_context(STYLE):
        fig = Figure(figsize=(7.0, 1.2 + 0.45 * len(rows)))
        ax = fig.add_subplot()
        left = 0.0
        for i, (name, value) in enumerate(parts):
            ax.barh(0, value / units.MIB, left=left, color=PALETTE[i], height=0.55, label=name)
            left += value / units.MIB
        peak = max(memory["peak_bytes"], left * units.MIB)
        ax.text(peak / units.MIB, 0, f"  {units.size(memory['peak_bytes'])}", va="center")
        if len(rows) == 2:
            ax.barh(1, memory["reference_peak_bytes"] / units.MIB, color=REFERENCE, height=0.55)
            peak = max(peak, memory["reference_peak_bytes"])
            ax.text(
                memory["reference_peak_bytes"] / units.MIB,
                1,
                f"  {units.size(memory['reference_peak_bytes'])}",
                va="center",
            )
        ax.set_yticks(range(len(rows)), rows)
        ax.invert_yaxis()
        ax.set_xlim(0, peak / units.MIB * 1.25 or 1)
        ax.set_xlabel("peak memory of one call (MiB)")
        ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.45 if len(rows) == 1 else -0.3),
            ncols=len(parts),
            frameon=False,
            fontsize=8,
        )
        return _png(fig)


def speedups(names: Sequence[str], values: Sequence[float]) -> bytes:
    """A batch's speed-ups, one bar per model, with the line where Versa breaks even."""
    with rc_context(STYLE):
        fig = Figure(figsize=(7.6, 0.9 + 0.32 * len(names)))
        ax = fig.add_subplot()
        ax.barh(range(len(names)), values, color=[GOOD if v >= 1 else BAD for v in values], height=0.65)
        ax.set_yticks(range(len(names)), [_short(n, 32) for n in names])
        ax.invert_yaxis()
        ax.axvline(1.0, color="#52606d", linewidth=1, linestyle="--")
        for y, value in enumerate(values):
            ax.text(value, y, f"  {units.speedup(value)}", va="center")
        ax.set_xlim(0, max([*values, 1.0]) * 1.2)
        ax.set_xlabel("speed-up over the framework (× , higher is better; dashed: break-even)")
        ax.set_title("Speed-up per model", loc="left")
        return _png(fig)


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    return out.getvalue()


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
