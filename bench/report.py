"""Write bench/RESULTS.md: one section per Versa target (machine, command, tables, plot).

Peers appear as ratios peer time / Versa time, so >1 reads "Versa is faster" at a glance and the
numbers survive a change of machine better than absolute times; the absolute medians follow in a
second table. Why a system has no number (failed to install, to compile, or gave a wrong answer)
goes to numbered footnotes, so the table stays narrow.

Each Versa target (`--target`, `--both-isas`) has its own section between
`<!-- target:NAME:begin -->` and `<!-- target:NAME:end -->`, carrying its own command, date and
machine figures: a run replaces the sections of the targets it measured, in place, and keeps the
others, so `--target x86-64-v3` after a host run adds the AVX2 section beside the host's rather
than overwriting it. bench/fusion.py's section is kept the same way.
"""

import datetime
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from versa import clock

from bench.driver import RowResult
from bench.machine import Limits

PEERS = ["torch", "torch.compile", "IREE", "ONNX Runtime", "OpenVINO", "NumPy"]
# bench/fusion.py's section of RESULTS.md: that script rewrites it, this one keeps it.
FUSION_BEGIN, FUSION_END = "<!-- fusion:begin -->", "<!-- fusion:end -->"
DYNAMIC_BEGIN, DYNAMIC_END = "<!-- dynamic-shapes:begin -->", "<!-- dynamic-shapes:end -->"
INT8_BEGIN, INT8_END = "<!-- int8:begin -->", "<!-- int8:end -->"
TARGET_BEGIN, TARGET_END = "<!-- target:{}:begin -->", "<!-- target:{}:end -->"
_TARGET_SECTION = re.compile(r"<!-- target:(?P<name>\S+?):begin -->.*?<!-- target:(?P=name):end -->", re.S)
TITLE = [
    "# Versa benchmark results",
    "",
    "One section per target Versa compiled for (`bash bench/run.sh --target NAME`, `--both-isas`); "
    "a run rewrites the sections of the targets it measured and keeps the others, each with its "
    "own command and date (bench/README.md).",
    "",
]


@dataclass(frozen=True)
class RunInfo:
    command: str
    repeat: int
    elapsed: float
    date: str = ""

    @staticmethod
    def now(command: str, repeat: int, elapsed: float) -> "RunInfo":
        date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        return RunInfo(command, repeat, elapsed, date)


class _Footnotes:
    def __init__(self):
        self.items: list[str] = []

    def ref(self, system: str, note: str) -> str:
        text = f"{system}: {note}"
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"


@dataclass(frozen=True)
class Section:
    """One Versa target's part of the report: its tables, its plot, its FMA peak."""

    target: str  # the name it was asked for (`host`, `x86-64-v3`): the section's marker
    system: str  # the Versa system's name in the results ("Versa", "Versa x86-64-v3")
    description: str  # the CPU and ISA the code is for, e.g. "emeraldrapids (x86-64-v4), 512-bit vectors"
    lanes: int  # f32 lanes of the target's vectors: the FMA peak's width
    plot: Path


def _rate(r: RowResult, seconds: float, limits: Limits, lanes: int) -> tuple[str, str, str]:
    """(rate, % of the measured SGEMM or triad, % of the FMA peak: compute rows only)."""
    if r.kind == "memory":
        gbs = r.bytes / seconds / 1e9
        return f"{gbs:.1f} GB/s", f"{100 * gbs / limits.triad_gbs:.0f}%", ""
    gflops = r.flops / seconds / 1e9
    peak = limits.fma_peak_gflops(lanes)
    of_peak = "" if peak is None else f"{100 * gflops / peak:.1f}%"
    return f"{gflops:.1f} GFLOP/s", f"{100 * gflops / limits.gemm_gflops:.1f}%", of_peak


def _load(load: tuple[float, ...]) -> str:
    return " / ".join(f"{x:.2f}" for x in load)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else f"{ms:.0f}"


RATIO_HEAD = ["row", "Versa ms", "Versa rate", "% of measured SGEMM/triad", "% of FMA peak"]


def ratio_table(results: list[RowResult], limits: Limits, notes: _Footnotes, section: Section) -> list[str]:
    head = [*RATIO_HEAD, *PEERS, "Versa compile s", "samples"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        versa = r.cells.get(section.system)
        ok = versa is not None and versa.status == "ok"
        if ok:
            cells = [r.name, _ms(versa.median_s), *_rate(r, versa.median_s, limits, section.lanes)]
        elif versa is None:
            cells = [r.name, "—", "", "", ""]
        else:
            cells = [r.name, f"{versa.status} {notes.ref('Versa', versa.note)}", "", "", ""]
        for peer in PEERS:
            cell = r.cells.get(peer)
            if cell is None or cell.status == "-":
                cells.append("—")
            elif cell.status != "ok":
                cells.append(f"{cell.status} {notes.ref(peer, cell.note)}")
            elif ok:
                cells.append(f"{cell.median_s / versa.median_s:.2f}x")
            else:
                cells.append(f"{_ms(cell.median_s)} ms")
        compile_s = r.compile_s.get(section.system)
        cells.append("" if compile_s is None else f"{compile_s:.2f}")
        reduced = [f"{n} {c.note}" for n, c in r.cells.items() if c.status == "ok" and c.note]
        cells.append(", ".join(reduced) or "all R")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def time_table(results: list[RowResult], system: str = "Versa") -> list[str]:
    systems = [system, *PEERS]
    head = ["Versa ms", *(f"{s} ms" for s in PEERS)]
    lines = ["| row | " + " | ".join(head) + " |", "|" + "---|" * (len(systems) + 1)]
    for r in results:
        cells = [r.name]
        for s in systems:
            c = r.cells.get(s)
            cells.append(_ms(c.median_s) if c is not None and c.status == "ok" else "")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _machine(limits: Limits, section: Section) -> list[str]:
    peak = limits.fma_peak_gflops(section.lanes)
    if peak is None:
        clock_lines = [f"- Clock: not measured ({limits.clock_note}), so no FMA peak"]
    else:
        used = min(limits.threads, limits.cores)
        clock_lines = [
            f"- Clock, measured (a chain of dependent integer adds, 1 a cycle, on {limits.threads} "
            f"thread(s) at once, best of N; `versa/clock.py`): **{limits.clock_ghz:.2f} GHz**",
            f"- f32 FMA peak of this target's code: {used} core(s) × {section.lanes} lanes × "
            f"{clock.FMA_PIPES} FMA pipes × 2 flops × {limits.clock_ghz:.2f} GHz = **{peak:.1f} GFLOP/s**",
        ]
    return [
        f"- CPU: {limits.cpu} ({limits.isa}), {limits.cores} logical cores available; "
        f"**{limits.threads} thread(s)** used by every system",
        f"- Triad bandwidth (a = b + s·c, 3 × 128 MiB, best of N): **{limits.triad_gbs:.1f} GB/s**",
        f"- Library GEMM 2048³ f32 (best of torch.mm and numpy.matmul, {limits.gemm_source} won): "
        f"**{limits.gemm_gflops:.1f} GFLOP/s**",
        *clock_lines,
        f"- Load average (1/5/15 min) at the start: {_load(limits.load_before)}; at the end: "
        f"{_load(os.getloadavg())} (other work on the machine shows here: multi-threaded systems "
        "suffer most from it)",
        *([f"- **Warning**: {limits.scaling_warning()}"] if limits.scaling_warning() else []),
    ]


def _tuning_line() -> str:
    """Which strategy choices Versa's code took: the analytic ones, or a tuning database's."""
    path = os.environ.get("VERSA_TUNING_DB", "")
    if not path:
        return "Versa's strategy choices: the analytic ones (no tuning database)."
    try:
        entries = len(json.loads(Path(path).read_text())["entries"])
    except (OSError, ValueError, KeyError, TypeError):
        entries = 0
    return f"Versa's strategy choices: tuned where `{os.path.basename(path)}` has them ({entries} kernels)."


def _memory_lines(results: list[RowResult]) -> list[str]:
    """Peak resident memory of each row's own process, for runs with `--isolate`; else nothing."""
    peaks = [f"{r.name} {r.peak_rss_bytes / 1e9:.2f} GB" for r in results if r.peak_rss_bytes is not None]
    if not peaks:
        return []
    intro = "Each row ran in a fresh process of its own (`--isolate`); their peak resident memory"
    return [f"{intro}: {'; '.join(peaks)}.", ""]


def section_text(path: Path, section: Section, results: list[RowResult], limits: Limits, run: RunInfo) -> str:
    """One target's section, between its markers: machine, both tables, the plot."""
    notes = _Footnotes()
    table = ratio_table(results, limits, notes, section)
    plot = os.path.relpath(section.plot, path.parent)
    text = [
        TARGET_BEGIN.format(section.target),
        f"## Versa compiled for `{section.target}`: {section.description}",
        "",
        f"Command: `{run.command}`  ",
        f"Date: {run.date}; the run took {run.elapsed:.0f} s.",
        _tuning_line(),
        "",
        "### Machine",
        "",
        *_machine(limits, section),
        "",
        "### Peer time / Versa time (>1: Versa is faster)",
        "",
        "Median over R interleaved rounds (R = "
        f"{run.repeat}); `samples` lists systems timed fewer times because a call exceeded the per-row "
        "time budget. Rates: GFLOP/s for contractions and models (% of the measured library SGEMM "
        "and % of the FMA peak above), GB/s of the bytes that must move for memory-bound rows (% of "
        "triad). Only Versa's code is for this section's target; every peer runs what it picks for "
        "this CPU. torch.compile is inductor with freezing. Every output was checked against torch "
        "in float64 before timing; `WRONG` was not timed.",
        "",
        *table,
        "",
    ]
    if notes.items:
        text += [*(f"{i + 1}. {item}" for i, item in enumerate(notes.items)), ""]
    text += _memory_lines(results)
    text += [
        "### Median times (ms)",
        "",
        *time_table(results, section.system),
        "",
        f"![peer/Versa ratios]({plot})",
    ]
    return "\n".join([*text, TARGET_END.format(section.target)])


def write_markdown(
    path: Path, results: list[RowResult], limits: Limits, run: RunInfo, sections: list[Section]
) -> None:
    """Write this run's sections into `path`, keeping the other targets' and `kept_sections`."""
    old = path.read_text() if path.exists() else ""
    new = {s.target: section_text(path, s, results, limits, run) for s in sections}
    parts: dict[str, str] = {}
    for match in _TARGET_SECTION.finditer(old):  # in the file's order, ours replacing theirs
        parts.setdefault(match["name"], new.pop(match["name"], match[0]))
    parts.update(new)
    body = [text + "\n" for text in parts.values()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([*TITLE, *body, *kept_sections(path)]))


def kept_sections(path: Path) -> list[str]:
    """The sections other scripts write into the file being replaced (fusion, dynamic shapes,
    INT8), each with a trailing empty line."""
    old = path.read_text() if path.exists() else ""
    kept = []
    for begin, end in ((FUSION_BEGIN, FUSION_END), (DYNAMIC_BEGIN, DYNAMIC_END), (INT8_BEGIN, INT8_END)):
        start, stop = old.find(begin), old.find(end)
        kept += [old[start : stop + len(end)], ""] if 0 <= start < stop else []
    return kept


def ms_cell(value: float | str | None) -> str:
    """A table cell of a time in seconds as milliseconds, or the reason there is none (— for
    nothing): the dynamic-shapes and INT8 sections' cells."""
    if value is None:
        return "—"
    return f"{value * 1e3:.1f}" if isinstance(value, float) else value


def write_marked(path: Path, begin: str, end: str, section: str) -> None:
    """Replace the section between `begin` and `end` in `path`, or append it; nothing else changes."""
    old = path.read_text() if path.exists() else ""
    start, stop = old.find(begin), old.find(end)
    if 0 <= start < stop:
        path.write_text(old[:start] + section + old[stop + len(end) :])
        return
    gap = "" if not old else "\n" if old.endswith("\n") else "\n\n"
    path.write_text(old + gap + section + "\n")
