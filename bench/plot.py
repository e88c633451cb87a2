"""bench/ratios.png: every peer's time over Versa's, one bar per row and peer, log scale.

A log scale makes 2x faster and 2x slower the same length, and bars grow from parity (1), so
the plot reads like the ratio table. One plot per Versa target (the host's is ratios.png, another
target's ratios-NAME.png), drawn against that target's Versa.
"""

import textwrap
from pathlib import Path

from bench.driver import RowResult
from bench.report import PEERS


def plot_path(default: Path, target: str) -> Path:
    """Where the plot of `target` goes: `default` for the host, `<stem>-<target>.png` for another."""
    return default if target == "host" else default.with_name(f"{default.stem}-{target}{default.suffix}")


def write_plot(path: Path, results: list[RowResult], title: str, system: str = "Versa") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results if system in r.cells and r.cells[system].status == "ok"]
    height = 0.8 / len(PEERS)
    fig, ax = plt.subplots(figsize=(10, 1.8 + 0.5 * max(len(rows), 1)))
    for j, peer in enumerate(PEERS):
        ys, values = [], []
        for i, r in enumerate(rows):
            c = r.cells.get(peer)
            if c is not None and c.status == "ok":
                ys.append(i + (j - (len(PEERS) - 1) / 2) * height)
                values.append(c.median_s / r.cells[system].median_s)
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
