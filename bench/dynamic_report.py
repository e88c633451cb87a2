"""The dynamic-shapes section of bench/RESULTS.md (bench/dynamic_shapes.py), between the
`report.DYNAMIC_BEGIN`/`DYNAMIC_END` markers; the suite's rewrite of the file keeps it."""

import statistics
import time
from pathlib import Path

from bench.dynamic_systems import SYSTEMS, Measured
from bench.report import DYNAMIC_BEGIN, DYNAMIC_END, ms_cell, write_marked


def _ratio(times: dict, over: str, under: str) -> str:
    a, b = times.get(over), times.get(under)
    return f"{a / b:.2f}x" if isinstance(a, float) and isinstance(b, float) else "—"


def _times(value) -> str:
    return f"{value:.2f}x" if isinstance(value, float) else "—"


def table(measured: Measured) -> list[str]:
    head = ["batch × seq", *(f"{s} ms" for s in SYSTEMS), "dynamic / static", "dynamic / Inductor dyn."]
    head += ["Versa hot ms", "hot / static", "slowest call while compiling"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios = []
    for (batch, seq), times in measured.times.items():
        cells = [f"{batch} × {seq}", *(ms_cell(times.get(s)) for s in SYSTEMS)]
        cells += [
            _ratio(times, "Versa dynamic", "Versa static"),
            _ratio(times, "Versa dynamic", "Inductor dynamic"),
            ms_cell(times.get("Versa hot")),
            _times(times.get("hot / static")),
            _times(times.get("stall")),
        ]
        lines.append("| " + " | ".join(cells) + " |")
        if isinstance(times.get("Versa dynamic"), float) and isinstance(times.get("Versa static"), float):
            ratios.append(times["Versa dynamic"] / times["Versa static"])
    if ratios:
        lines += ["", f"Dynamic / static: median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x."]
    return lines


def _compiles(measured: Measured) -> str:
    parts = []
    for name in ("Versa dynamic", "Versa static", "Versa hot"):
        seconds = measured.compiles.get(name, [])
        if seconds:
            parts.append(f"{name}: {len(seconds)} compile(s), {sum(seconds):.1f} s")
    inductor = measured.compiles.get("Inductor dynamic", [])
    if inductor:
        parts.append(
            f"Inductor dynamic: {measured.graphs} graph(s) compiled, first calls {sum(inductor):.1f} s "
            "beyond steady state"
        )
    return "Compiles over the grid: " + "; ".join(parts) + "."


def section(
    measured: list[Measured], command: str, cpu: str, threads: int, repeat: int, elapsed: float
) -> str:
    stamp = time.strftime("%Y-%m-%d")
    text = [
        DYNAMIC_BEGIN,
        "## Dynamic shapes: one compile for every batch and sequence",
        "",
        f"`{command}` · {cpu}, {threads} thread(s) · {stamp} · R = {repeat}, medians · {elapsed:.0f} s",
        "",
        "Milliseconds per call; every output checked against a float64 eager reference first. "
        "Versa dynamic: one `versa.compile(..., dynamic_shapes=...)` (batch 1–64, sequence 2–max "
        "positions) for the whole grid; Versa static: a compile for each shape; Inductor dynamic: "
        "`torch.compile(dynamic=True)` with freezing; ONNX Runtime: one export with dynamic axes. "
        "Versa hot: the dynamic compile's static version of the shape once it is hot (made hot "
        "after the timed rounds, compiled in the background: bench/dynamic_hot.py), timed "
        "interleaved with Versa static (hot / static); the slowest call while it compiled, over "
        "the dynamic median.",
        "",
    ]
    for m in measured:
        text += [f"### {m.model}", "", *table(m), "", _compiles(m), ""]
        text += [f"- {note}" for note in m.notes] + ([""] if m.notes else [])
    return "\n".join([*text, DYNAMIC_END])


def write(path: Path, text: str) -> None:
    write_marked(path, DYNAMIC_BEGIN, DYNAMIC_END, text)
