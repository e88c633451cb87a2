"""The fusion table and its section of bench/RESULTS.md.

The section sits between `report.FUSION_BEGIN` and `report.FUSION_END`: this script replaces
it (or appends it) and never touches the rest of the file, and the main suite's rewrite keeps
it (`report.kept_sections`), so both scripts can run in either order.
"""

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

from bench.driver import Cell, RowResult
from bench.fusion_rows import CONFIGS, PLAN_STEP, Buffers
from bench.machine import _isa, cpu_name
from bench.report import FUSION_BEGIN, FUSION_END, _Footnotes, _ms, write_marked

HEAD = [
    "row",
    "bytes unfused",
    "bytes fused",
    "O0 ms",
    "unfused ms",
    "fused ms",
    "fused vs O0",
    "fused vs unfused",
    "eager ms",
    "eager / fused",
    "samples",
]


@dataclass
class Measured:
    result: RowResult
    buffers: dict[str, Buffers | None]  # configuration name → its function's buffers


def _size(n: int) -> str:
    if n == 0:
        return "0"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"


def _bytes(b: Buffers | None) -> str:
    if b is None:
        return "n/a"
    text = _size(b.allocated) + ("*" if b.in_regions else "")
    text += f" + {b.dynamic} dynamic" if b.dynamic else ""
    return f"{text} (arena {_size(b.arena)})"


def _time(cell: Cell | None, system: str, notes: _Footnotes) -> str:
    if cell is None or cell.status == "-":
        return "—"
    if cell.status != "ok":
        return f"{cell.status} {notes.ref(system, cell.note)}"
    return _ms(cell.median_s)


def _ratio(cells: dict[str, Cell], slow: str, fast: str) -> str:
    a, b = cells.get(slow), cells.get(fast)
    if a is None or b is None or a.status != "ok" or b.status != "ok":
        return ""
    return f"{a.median_s / b.median_s:.2f}x"


def table(measured: list[Measured], notes: _Footnotes) -> list[str]:
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for m in measured:
        cells = m.result.cells
        row = [m.result.name, _bytes(m.buffers.get("unfused")), _bytes(m.buffers.get("fused"))]
        row += [_time(cells.get(c.name), c.name, notes) for c in CONFIGS]
        row += [_ratio(cells, "O0", "fused"), _ratio(cells, "unfused", "fused")]
        row += [_time(cells.get("torch"), "torch eager", notes), _ratio(cells, "torch", "fused")]
        reduced = [f"{name} {c.note}" for name, c in cells.items() if c.status == "ok" and c.note]
        row.append(", ".join(reduced) or "all R")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _load(load: tuple[float, ...]) -> str:
    return " / ".join(f"{x:.2f}" for x in load)


def section(
    measured: list[Measured],
    command: str,
    threads: int,
    load: tuple[float, ...],
    repeat: int,
    elapsed: float,
) -> str:
    notes = _Footnotes()
    rows = table(measured, notes)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    configs = "; ".join(
        f'{c.name} = `JitFunction(pipeline="{c.pipeline}", llvm_opt_level={c.llvm_opt_level})`'
        for c in CONFIGS
    )
    text = [
        FUSION_BEGIN,
        "## Fusion: O0, unfused and fused Versa against torch eager (`bench/fusion.py`)",
        "",
        f"Command: `{command}`  ",
        f"Date: {now}; the run took {elapsed:.0f} s.  ",
        f"Machine: {cpu_name()} ({_isa()}), {cores} logical cores available; **{threads} thread(s)** "
        f"for Versa and torch; load average (1/5/15 min) at the start {_load(load)}, at the end "
        f"{_load(os.getloadavg())}.",
        "",
        f"Configurations: {configs}; eager = torch eager, same threads.",
        "",
        "Bytes: the intermediate buffers of the compiled function, i.e. the static `memref.alloc`s "
        f"left after bufferization (the pipeline run up to `{PLAN_STEP}`: results are the "
        "caller's out-params by then), each counted once, which is what the function would "
        "malloc per call without the plan; in parentheses the arena `versa-plan-buffers` packs "
        "them into (`JitFunction.memory.arena`, allocated once per compiled function). `*`: "
        "some allocs sit inside a loop (allocated per iteration, counted once).",
        "",
        f"Times: median of R = {repeat} interleaved rounds (as the main suite, `bench/driver.py`), "
        "Python call overhead included; every output was checked against torch in float64 first "
        "(`WRONG` was not timed). A configuration gets at most 5 s of timed calls per row, and one "
        "whose checking call took over 2 s (O0 on big rows: scalar loops) has that call as its "
        "only sample; `samples` names them. Ratios > 1: fused is faster.",
        "",
        *rows,
        "",
    ]
    if notes.items:
        text += [*(f"{i + 1}. {item}" for i, item in enumerate(notes.items)), ""]
    return "\n".join([*text, FUSION_END])


def write_section(path: Path, section: str) -> None:
    """Replace the fusion section in `path`, or append it; nothing else changes."""
    write_marked(path, FUSION_BEGIN, FUSION_END, section)
