"""Write bench/RESULTS.md (machine, command, tables) and bench/ratios.png (peer/Versa, log scale).

Peers appear as ratios peer time / Versa time, so >1 reads "Versa is faster" at a glance and the
numbers survive a change of machine better than absolute times; the absolute medians follow in a
second table. Why a system has no number (failed to install, to compile, or gave a wrong answer)
goes to numbered footnotes, so the table stays narrow.
"""

import datetime
import os
import textwrap
from pathlib import Path

from bench.driver import RowResult
from bench.machine import Limits

PEERS = ["torch", "torch.compile", "IREE", "ONNX Runtime", "OpenVINO", "NumPy"]
# bench/fusion.py's section of RESULTS.md: that script rewrites it, this one keeps it.
FUSION_BEGIN, FUSION_END = "<!-- fusion:begin -->", "<!-- fusion:end -->"


class _Footnotes:
    def __init__(self):
        self.items: list[str] = []

    def ref(self, system: str, note: str) -> str:
        text = f"{system}: {note}"
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"


def _rate(r: RowResult, seconds: float, limits: Limits) -> tuple[str, str]:
    if r.kind == "memory":
        gbs = r.bytes / seconds / 1e9
        return f"{gbs:.1f} GB/s", f"{100 * gbs / limits.triad_gbs:.0f}%"
    gflops = r.flops / seconds / 1e9
    return f"{gflops:.1f} GFLOP/s", f"{100 * gflops / limits.gemm_gflops:.1f}%"


def _load(load: tuple[float, ...]) -> str:
    return " / ".join(f"{x:.2f}" for x in load)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else f"{ms:.0f}"


def ratio_table(results: list[RowResult], limits: Limits, notes: _Footnotes) -> list[str]:
    head = ["row", "Versa ms", "Versa rate", "% of limit", *PEERS, "Versa compile s", "samples"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        versa = r.cells["Versa"]
        ok = versa.status == "ok"
        if ok:
            cells = [r.name, _ms(versa.median_s), *_rate(r, versa.median_s, limits)]
        else:
            cells = [r.name, f"{versa.status} {notes.ref('Versa', versa.note)}", "", ""]
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
        cells.append("" if r.versa_compile_s is None else f"{r.versa_compile_s:.2f}")
        reduced = [f"{n} {c.note}" for n, c in r.cells.items() if c.status == "ok" and c.note]
        cells.append(", ".join(reduced) or "all R")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def time_table(results: list[RowResult]) -> list[str]:
    systems = ["Versa", *PEERS]
    lines = ["| row | " + " | ".join(f"{s} ms" for s in systems) + " |", "|" + "---|" * (len(systems) + 1)]
    for r in results:
        cells = [r.name]
        for s in systems:
            c = r.cells.get(s)
            cells.append(_ms(c.median_s) if c is not None and c.status == "ok" else "")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_markdown(
    path: Path, results: list[RowResult], limits: Limits, command: str, repeat: int, elapsed: float
) -> None:
    notes = _Footnotes()
    table = ratio_table(results, limits, notes)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    text = [
        "# Versa benchmark results",
        "",
        f"Command: `{command}`  ",
        f"Date: {now}; the run took {elapsed:.0f} s.",
        "",
        "## Machine",
        "",
        f"- CPU: {limits.cpu} ({limits.isa}), {limits.cores} logical cores available; "
        f"**{limits.threads} thread(s)** used by every system",
        f"- Triad bandwidth (a = b + s·c, 3 × 128 MiB, best of N): **{limits.triad_gbs:.1f} GB/s**",
        f"- Library GEMM 2048³ f32 (best of torch.mm and numpy.matmul, {limits.gemm_source} won): "
        f"**{limits.gemm_gflops:.1f} GFLOP/s**",
        f"- Load average (1/5/15 min) at the start: {_load(limits.load_before)}; at the end: "
        f"{_load(os.getloadavg())} (other work on the machine shows here: multi-threaded systems "
        "suffer most from it)",
        *([f"- **Warning**: {limits.scaling_warning()}"] if limits.scaling_warning() else []),
        "",
        "## Peer time / Versa time (>1: Versa is faster)",
        "",
        "Median over R interleaved rounds (R = "
        f"{repeat}); `samples` lists systems timed fewer times because a call exceeded the per-row time "
        "budget. Rates: GFLOP/s for contractions and models (% of the GEMM limit), GB/s of the "
        "bytes that must move for memory-bound rows (% of triad). Every output was checked against "
        "torch in float64 before timing; `WRONG` was not timed.",
        "",
        *table,
        "",
    ]
    if notes.items:
        text += [*(f"{i + 1}. {item}" for i, item in enumerate(notes.items)), ""]
    text += ["## Median times (ms)", "", *time_table(results), "", "![peer/Versa ratios](ratios.png)", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([*text, *kept_fusion_section(path)]))


def kept_fusion_section(path: Path) -> list[str]:
    """The fusion section of the file being replaced (with a trailing empty line), if any."""
    old = path.read_text() if path.exists() else ""
    start, end = old.find(FUSION_BEGIN), old.find(FUSION_END)
    return [old[start : end + len(FUSION_END)], ""] if 0 <= start < end else []


def write_plot(path: Path, results: list[RowResult], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results if r.cells["Versa"].status == "ok"]
    height = 0.8 / len(PEERS)
    fig, ax = plt.subplots(figsize=(10, 1.8 + 0.5 * max(len(rows), 1)))
    for j, peer in enumerate(PEERS):
        ys, values = [], []
        for i, r in enumerate(rows):
            c = r.cells.get(peer)
            if c is not None and c.status == "ok":
                ys.append(i + (j - (len(PEERS) - 1) / 2) * height)
                values.append(c.median_s / r.cells["Versa"].median_s)
        # bars grow from 1 (parity) towards the ratio, left when the peer is faster
        ax.barh(ys, [v - 1 for v in values], height=height, label=peer, left=1)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(rows)), [r.name for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("peer time / Versa time (log scale; >1: Versa is faster)")
    fig.suptitle(textwrap.fill(title, 110), fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=len(PEERS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
