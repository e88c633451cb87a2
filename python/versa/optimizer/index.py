"""The index of a batch (`versa optimize A B C --out DIR`): DIR/index.json (shape:
index_schema.json) and DIR/index.html, one row per model with its status, speed-up, verdict,
a link to its report and, for a model that failed, the step and the message. A model that
fails is a row like the others: the pipeline goes on with the next model and lists them all.

Written like a report (report.write_atomically): index.html first, index.json last as the
mark of a complete index, both refused over an existing index without force.
"""

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from versa.optimizer import facts, plots, report, units
from versa.optimizer.page import Cell, Column, badge, card, cell, document, empty, esc, figure, table

INDEX_FILES = ("index.html", "index.json")
SCHEMA = "index_schema.json"


@dataclass(frozen=True)
class ModelResult:
    """One model of a batch as the pipeline ends it. `report` is its report dict (None when the
    model failed before one could be made); `report_dir` the folder its report was written to
    (None when none was); `step` and `message` say why it failed when the report cannot say it
    (no report, or writing the report failed), and win over the report's own first error."""

    name: str
    report: dict | None = None
    report_dir: str | os.PathLike | None = None
    step: str | None = None
    message: str | None = None


class IndexPaths(NamedTuple):
    html: Path
    json: Path


def rows(models: Sequence[ModelResult], out_dir: str | os.PathLike) -> list[dict]:
    """index.json's rows, with report links relative to `out_dir`."""
    found = []
    for model in models:
        r = model.report
        timing = r["timing"] if r else None
        if model.step is not None:
            error = {"step": model.step, "message": model.message or "no message"}
        elif r is not None:
            error = facts.failure(r)
        else:
            error = {"step": "report", "message": "no report was made"}
        found.append(
            {
                "name": model.name,
                "status": "failed" if error else "ok",
                "verdict": r["accuracy"]["verdict"] if r and r["accuracy"] else None,
                "speedup": timing["speedup"] if timing else None,
                "reference": timing["reference"] if timing else None,
                "reference_ms": timing["reference_ms"] if timing else None,
                "versa_ms": timing["versa_ms"] if timing else None,
                "report": _link(model.report_dir, out_dir),
                "error": error,
            }
        )
    return found


def write_index(models: Sequence[ModelResult], out_dir: str | os.PathLike, force: bool = False) -> IndexPaths:
    """Write index.html and index.json for `models` into `out_dir` (refused over an existing
    index unless `force`; errors are report.ReportError)."""
    folder = report.check_out_dir(out_dir, force, INDEX_FILES)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    index = {
        "schema": "versa-optimize-index",
        "version": 1,
        "created": created,
        "models": rows(models, folder),
    }
    report.validate(index, SCHEMA)
    text = json.dumps(index, indent=2, allow_nan=False) + "\n"
    report.write_atomically(folder, [(INDEX_FILES[0], render_index(index)), (INDEX_FILES[1], text)])
    return IndexPaths(folder / INDEX_FILES[0], folder / INDEX_FILES[1])


def render_index(index: dict) -> str:
    """index.html's text for an index.json document."""
    models = index["models"]
    ok = [m for m in models if m["status"] == "ok"]
    failed = len(models) - len(ok)
    timed = [m for m in models if m["speedup"] is not None]
    body = [
        f'<header class="top"><h1>Versa optimize: {len(models)} model{"s" if len(models) != 1 else ""}</h1>'
        f'<div class="sub">{len(ok)} ok, {failed} failed · {esc(index["created"])}</div></header>'
    ]
    cards = [
        card("Models", str(len(models)), f"{len(ok)} ok"),
        card(
            "Failed", f'<span class="{"bad" if failed else "good"}">{failed}</span>', "reasons in the table"
        ),
    ]
    if timed:
        geomean = 1.0
        for m in timed:
            geomean *= m["speedup"] ** (1 / len(timed))
        cards.append(
            card("Geometric mean speed-up", units.speedup(geomean), f"over {len(timed)} timed models")
        )
    body.append(f'<div class="cards">{"".join(cards)}</div>')
    if timed:
        png = plots.speedups([m["name"] for m in timed], [m["speedup"] for m in timed])
        body.append(
            figure(png, "speed-up per model bar plot", "Speed-up of each timed model.", "plot-speedups")
        )
    columns = [Column("Model"), Column("Status"), Column("Verdict"), Column("Speed-up", True)]
    columns += [Column("Framework", True), Column("Versa", True), Column("Why it failed")]
    table_rows = [
        [
            Cell(f'<a href="{esc(m["report"])}">{esc(m["name"])}</a>' if m["report"] else esc(m["name"])),
            Cell(badge(m["status"], "good" if m["status"] == "ok" else "bad")),
            _verdict(m["verdict"]),
            cell(units.speedup(m["speedup"]), m["speedup"]),
            cell(_timed(m["reference_ms"], m["reference"]), m["reference_ms"]),
            cell(units.ms(m["versa_ms"]), m["versa_ms"]),
            _reason(m["error"]),
        ]
        for m in models
    ]
    body.append("<h2>Models</h2>")
    body.append(
        table(columns, table_rows, "models", sortable=True) if models else empty("No model was given.")
    )
    body.append(
        "<footer>Each model's report.json holds its data; index.json beside this page holds"
        " these rows.</footer>"
    )
    return document("Versa optimize index", "".join(body))


def _link(report_dir: str | os.PathLike | None, out_dir: str | os.PathLike) -> str | None:
    """A link to a complete report only: one whose report.json (the commit mark) exists."""
    if report_dir is None or not (Path(report_dir) / report.REPORT_FILES[1]).exists():
        return None
    page = Path(os.path.relpath(Path(report_dir) / report.REPORT_FILES[0], out_dir))
    return quote(page.as_posix())


def _verdict(verdict: str | None) -> Cell:
    if verdict is None:
        return Cell('<span class="empty">—</span>')
    return Cell(badge(verdict, "good" if verdict == "pass" else "bad"))


def _timed(value: float | None, reference: str | None) -> str:
    return f"{units.ms(value)} ({reference})" if value is not None else "—"


def _reason(error: dict | None) -> Cell:
    if not error:
        return Cell("")
    return Cell(f"<b>{esc(error['step'])}</b>: <pre>{esc(error['message'])}</pre>")
