"""The report of `versa optimize`: its schema, its validation, and writing it to `--out DIR`.

The report is one dict whose shape is `report_schema.json` (JSON Schema 2020-12; its top-level
description holds the versioning rule). It is checked before anything is written, so a report
on disk always has that shape.

Writing never leaves something that looks complete but is not. Both files are rendered in
memory first (a failure there writes nothing); then, with --force, an old
report.json is removed; then report.html is written, and report.json last, each to a hidden
temporary file renamed over its name (versa.files.atomic_write). report.json is the commit
mark: a folder with report.json holds a complete report of one run, and a crash at any point
leaves at most a report.html without its report.json, never a report.json next to a page of
another run. The pipeline writes its artifact before calling `write_outputs`, so that the mark
covers it too.
"""

import functools
import json
import math
import os
import tempfile
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema

from versa.files import atomic_write

SCHEMA_NAME = "versa-optimize-report"
SCHEMA_VERSION = 1
# The report's files, in the order they are committed: the last one marks a complete report.
REPORT_FILES = ("report.html", "report.json")


class ReportError(Exception):
    """Outputs that cannot be written: an existing report without --force, an unwritable folder,
    an invalid report. The message is a whole sentence for `versa optimize: error: ...` (exit 1)."""


class InvalidReport(ReportError):
    """A document that does not match its schema; the message names the bad field's path."""


class ReportPaths(NamedTuple):
    html: Path
    json: Path


@functools.cache
def schema(name: str = "report_schema.json") -> dict:
    """One of the optimizer's JSON Schemas, shipped beside this module (package data)."""
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


def validate(report: dict, schema_name: str = "report_schema.json") -> None:
    """Raise InvalidReport naming the path of the first bad field (`$.timing.versa_ms: ...`)."""
    validator = jsonschema.Draft202012Validator(schema(schema_name))
    errors = list(validator.iter_errors(report))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidReport(f"invalid {_kind(schema_name)} at {error.json_path}: {message}{more}")
    for path in _non_finite(report, "$"):  # JSON has no NaN: a reader's parser would refuse it
        raise InvalidReport(f"invalid {_kind(schema_name)} at {path}: not a finite number (use null)")


def load(path: str | os.PathLike) -> dict:
    """Read and validate a report.json (the index page reads reports back this way too)."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ReportError(f"could not read '{path}': {err.strerror}") from None
    except ValueError as err:
        raise InvalidReport(f"'{path}' is not JSON: {err}") from None
    validate(report)
    return report


def check_out_dir(
    out_dir: str | os.PathLike, force: bool = False, names: Sequence[str] = REPORT_FILES
) -> Path:
    """Make `out_dir` if needed and make sure the outputs can go there: call it before the work
    that takes minutes, so a report that would be refused is refused at once. Returns the path."""
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise ReportError(f"'{folder}' is not a directory")
    if not force:
        for name in names:
            if (folder / name).exists():
                raise ReportError(f"'{folder / name}' already exists: use --force to overwrite it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        raise ReportError(f"cannot write to the output directory '{folder}': {err.strerror}") from None
    return folder


def write_outputs(
    report: dict, out_dir: str | os.PathLike, force: bool = False, formats: Sequence[str] = ("html", "json")
) -> ReportPaths:
    """Validate `report` and write report.html and report.json (those of `formats`) into
    `out_dir` (made if needed). Refuses to replace an existing report unless `force`. See the
    module docstring for the order that keeps a crash from leaving a report that looks complete."""
    validate(report)
    folder = check_out_dir(out_dir, force)
    files = []
    if "html" in formats:
        from versa.optimizer import html  # matplotlib is imported only by a caller that draws

        files.append((REPORT_FILES[0], html.render(report)))
    if "json" in formats:
        files.append((REPORT_FILES[1], json.dumps(report, indent=2, allow_nan=False) + "\n"))
    for stale in set(REPORT_FILES) - {name for name, _ in files}:  # from an earlier run (--force)
        (folder / stale).unlink(missing_ok=True)
    write_atomically(folder, files)
    return ReportPaths(folder / REPORT_FILES[0], folder / REPORT_FILES[1])


def write_atomically(folder: Path, files: Sequence[tuple[str, str]]) -> None:
    """Write (name, text) files into `folder` in order, the last one being the commit mark: the
    old mark goes first, then each file replaces its name atomically (versa.files)."""
    target = folder / files[-1][0]
    try:
        if target.exists():
            os.unlink(target)
        for name, text in files:
            target = folder / name
            atomic_write(target, text.encode("utf-8"), durable=True)
    except OSError as err:
        raise ReportError(f"could not write '{target}': {err.strerror}") from None


def _non_finite(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, float) and not math.isfinite(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _non_finite(item, f"{path}[{i}]")


def _kind(schema_name: str) -> str:
    return schema_name.removesuffix("_schema.json")
