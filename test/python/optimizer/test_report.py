"""report.json: the schema accepts what the pipeline writes and names the bad field of what it
must not; write_outputs refuses to overwrite, reports an unwritable folder as a ReportError,
and a failure at any point leaves no report.json (the mark of a complete report)."""

import json
import math
import os

import pytest
from optimizer_reports import full_report, import_failed_report, validation_failed_report
from versa.optimizer import html, report
from versa.optimizer.report import InvalidReport, ReportError


@pytest.mark.parametrize("make", [full_report, validation_failed_report, import_failed_report])
def test_good_reports_pass(make):
    report.validate(make())


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda r: r["timing"].update(versa_ms="fast"), "$.timing.versa_ms"),
        (lambda r: r["profile"]["layers"][3].pop("rate_unit"), "$.profile.layers[3]"),
        (lambda r: r["steps"][1].update(status="done"), "$.steps[1].status"),
        (lambda r: r["model"].update(format="tflite"), "$.model.format"),
        (lambda r: r["memory"]["buffers"][0].update(kind="stack"), "$.memory.buffers[0].kind"),
        (lambda r: r.update(version=2), "$.version"),
        (lambda r: r["accuracy"].update(extra=1), "$.accuracy"),
        (lambda r: r["accuracy"]["outputs"][0].update(max_abs=math.nan), "$.accuracy.outputs[0].max_abs"),
    ],
)
def test_a_bad_report_fails_naming_the_field(change, path):
    bad = full_report()
    change(bad)
    with pytest.raises(
        InvalidReport, match=r"invalid report at " + path.replace("$", r"\$").replace("[", r"\[")
    ):
        report.validate(bad)


def test_every_schema_field_is_described():
    missing = []

    def visit(node, where):
        if isinstance(node, dict):
            for name, child in node.get("properties", {}).items():
                if "description" not in child:
                    missing.append(f"{where}.{name}")
            for key, child in node.items():
                visit(child, f"{where}.{key}")
        elif isinstance(node, list):
            for child in node:
                visit(child, where)

    assert report.schema()["properties"]["version"]["const"] == report.SCHEMA_VERSION
    assert report.schema()["properties"]["schema"]["const"] == report.SCHEMA_NAME
    for name in ("report_schema.json", "index_schema.json"):
        schema = report.schema(name)
        assert schema["description"] and schema["properties"]["version"]["const"] >= 1
        visit(schema, name)
    assert not missing, missing


def test_write_outputs_writes_both_and_refuses_to_overwrite_without_force(tmp_path):
    out = tmp_path / "out"
    paths = report.write_outputs(full_report(), out)
    assert json.loads(paths.json.read_text()) == full_report()
    assert report.load(paths.json) == full_report()
    assert paths.html.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(ReportError, match=r"report.html' already exists: use --force"):
        report.write_outputs(import_failed_report(), out)
    assert report.load(paths.json) == full_report()
    report.write_outputs(import_failed_report(), out, force=True)
    assert report.load(paths.json) == import_failed_report()
    assert sorted(os.listdir(out)) == ["report.html", "report.json"]


def test_an_invalid_report_writes_nothing(tmp_path):
    bad = full_report()
    bad["timing"]["speedup"] = -1
    with pytest.raises(InvalidReport, match=r"\$\.timing\.speedup"):
        report.write_outputs(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_failed_render_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    def broken(_):
        raise RuntimeError("render failed")

    monkeypatch.setattr(html, "render", broken)
    with pytest.raises(RuntimeError):
        report.write_outputs(full_report(), tmp_path)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("failing_call", [1, 2])
def test_a_crash_while_moving_leaves_no_report_json(tmp_path, monkeypatch, failing_call):
    """Over an old report (--force): whichever move fails, no report.json is left beside a
    page of another run, and no temporary file is left behind."""
    report.write_outputs(import_failed_report(), tmp_path)
    calls = []
    replace = os.replace

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == failing_call:
            raise OSError(28, "No space left on device", str(dst))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(ReportError, match="No space left on device"):
        report.write_outputs(full_report(), tmp_path, force=True)
    assert not (tmp_path / "report.json").exists()
    assert [name for name in os.listdir(tmp_path) if name != "report.html"] == []


def test_an_unwritable_folder_is_a_report_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ReportError, match="is not a directory"):
        report.write_outputs(full_report(), blocker)
    with pytest.raises(ReportError, match="cannot write to the output directory .*file/out"):
        report.write_outputs(full_report(), blocker / "out")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_a_report_error(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(ReportError, match="Permission denied"):
            report.check_out_dir(tmp_path)
    finally:
        tmp_path.chmod(0o700)


def test_check_out_dir_refuses_early_and_makes_the_folder(tmp_path):
    assert report.check_out_dir(tmp_path / "a" / "b").is_dir()
    (tmp_path / "report.json").write_text("{}")
    with pytest.raises(ReportError, match="report.json' already exists: use --force"):
        report.check_out_dir(tmp_path)
    assert report.check_out_dir(tmp_path, force=True) == tmp_path
