"""bench/isolate.py: a row measured in a spawned process of its own comes back as a `RowResult`
with every system checked and timed, and the child's peak memory; a process that dies becomes the
row's table entry and the next row still runs; the parent's environment and stdout reach the
child. Two children, each importing torch and Versa: ~15 s."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from isolation_rows import PROBE, ROWS  # noqa: E402

from bench.driver import Budget  # noqa: E402
from bench.isolate import Isolated, death_reason  # noqa: E402

BUDGET = Budget(repeat=2, per_system_s=0.2, long_s=3.0)


def test_rows_each_in_a_process_of_their_own(monkeypatch, capfd):
    monkeypatch.setenv(PROBE, "inherited")
    lines = []
    isolated = Isolated(
        ["Versa", "torch"], 1, BUDGET, "lower-to-llvm", ["host"], lines.append, table="isolation_rows"
    )
    killed, small = (isolated.measure(row) for row in reversed(ROWS))

    assert killed.name == "killed row" and killed.kind == "compute"
    assert {name: (c.status, c.note) for name, c in killed.cells.items()} == {
        name: ("n/a", "row process killed by SIGKILL (out of memory?)") for name in ("Versa", "torch")
    }
    assert lines[0] == "killed row: row process killed by SIGKILL (out of memory?)"

    assert small.name == "relu 4K" and small.bytes == 4.0 * 2 * 4096
    for name in ("Versa", "torch"):
        cell = small.cells[name]
        assert (cell.status, cell.samples) == ("ok", 2), cell.note
        assert 0 < cell.median_s < 1.0
    assert small.compile_s["Versa"] > 0
    assert small.peak_rss_bytes > 50e6  # a whole interpreter with torch: well over 50 MB
    assert lines[-1].startswith("  peak resident memory of the row's process: ")
    # The child's own log line (measure_row's summary) went to the parent's stdout.
    assert "relu 4K: Versa " in capfd.readouterr().out


@pytest.mark.parametrize(
    "code, text",
    [
        (-11, "row process killed by SIGSEGV"),
        (-9, "row process killed by SIGKILL (out of memory?)"),
        (1, "row process exited with status 1 and no result (its error is on stderr)"),
    ],
)
def test_death_reasons(code, text):
    assert death_reason(code) == text
