"""What the outputs say: the console summary, report.html's text (self-contained, escaped, whole
with null sections), and the index of a batch with a failed model."""

import json
import re

import pytest
from optimizer_reports import full_report, import_failed_report, validation_failed_report
from versa.optimizer import html, index, report
from versa.optimizer.index import ModelResult
from versa.optimizer.summary import summary


def test_summary_of_a_full_report(tmp_path):
    text = summary(full_report(), tmp_path)
    lines = text.splitlines()
    assert len(lines) <= 25
    assert lines[0] == "versa optimize: resnet18: PASS"
    assert "PASS vs onnxruntime, max |err| 3.10e-06" in text
    assert "onnxruntime 14.8 ms -> Versa 7.40 ms: 2.00× faster" in text
    assert "11.4 s (cache miss)" in text
    assert "peak 48.6 MiB vs onnxruntime 93.5 MiB" in text
    top = [line.split()[3:5] for line in lines if re.match(r"\s+\d+\.\d%", line)]
    slowest = sorted(full_report()["profile"]["layers"], key=lambda layer: -layer["ms"])[:5]
    assert top == [[layer["family"], layer["sources"][0]] for layer in slowest]  # family, first source
    assert "127.6 GFLOP/s (5.3% of limit)" in text
    assert f"{tmp_path / 'report.html'}" in lines[-1]
    assert f"{tmp_path / 'libresnet18.so'}" in text


def test_summary_of_failures():
    text = summary(validation_failed_report())
    assert text.splitlines()[0] == "versa optimize: bert-tiny: ACCURACY FAIL"
    assert "FAIL vs onnxruntime, max |err| not finite; outside tolerance: logits, pooled" in text
    assert "top layers" not in text and "report " not in text
    text = summary(import_failed_report())
    assert text.splitlines()[0] == "versa optimize: weird<model>: FAILED"
    assert "error      import: models/weird.onnx:1:1: error: no rule for onnx op 'Weird'" in text
    assert "The benchmark step was skipped: the import failed." in text


@pytest.mark.parametrize("make", [full_report, validation_failed_report, import_failed_report])
def test_the_page_is_self_contained_and_escaped(make):
    page = html.render(make())
    assert not re.search(r"https?://|<link rel=\"stylesheet|<script src|@import|url\(", page)
    assert page.count("<script>") == 1  # the sorting script, nothing from the report
    assert "&lt;& " not in page and "<dynamic>" not in page and "<model>" not in page
    for section in "summary speed accuracy partitioning profile memory compiler passes steps".split():
        assert f'<section id="{section}">' in page


def test_null_sections_say_why():
    page = html.render(import_failed_report())
    assert "The benchmark step was skipped: the import failed." in page
    assert "no rule for onnx op &#x27;Weird&#x27; &lt;script&gt;x&lt;/script&gt;" in page
    assert "<img" not in page
    page = html.render(validation_failed_report())
    assert "The profile step was skipped: --no-profile." in page
    assert page.count("<img") == 1  # before/after only


def test_index_of_a_batch_with_failures(tmp_path):
    models = []
    for make in (full_report, validation_failed_report, import_failed_report):
        r = make()
        folder = tmp_path / r["model"]["name"]
        report.write_outputs(r, folder)
        models.append(ModelResult(r["model"]["name"], r, folder))
    models.append(ModelResult("missing", step="import", message="could not open 'missing.onnx'"))
    half = full_report()
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "report.html").write_text("<html></html>")  # no report.json: incomplete
    models.append(ModelResult("half", half, tmp_path / "half", step="report", message="disk full"))
    paths = index.write_index(models, tmp_path)

    data = json.loads(paths.json.read_text())
    report.validate(data, "index_schema.json")
    rows = {row["name"]: row for row in data["models"]}
    assert [row["name"] for row in data["models"]] == [
        "resnet18",
        "bert-tiny",
        "weird<model>",
        "missing",
        "half",
    ]
    assert rows["resnet18"] == {
        "name": "resnet18",
        "status": "ok",
        "verdict": "pass",
        "speedup": 2.0,
        "reference": "onnxruntime",
        "reference_ms": 14.8,
        "versa_ms": 7.4,
        "report": "resnet18/report.html",
        "error": None,
    }
    assert rows["bert-tiny"]["status"] == "ok" and rows["bert-tiny"]["verdict"] == "fail"
    assert rows["weird<model>"]["status"] == "failed"
    assert rows["weird<model>"]["report"] == "weird%3Cmodel%3E/report.html"
    assert rows["weird<model>"]["error"]["step"] == "import"
    assert rows["missing"]["error"] == {"step": "import", "message": "could not open 'missing.onnx'"}
    assert rows["missing"]["report"] is None
    assert rows["half"]["report"] is None and rows["half"]["error"]["message"] == "disk full"

    page = paths.html.read_text()
    assert "2 ok, 3 failed" in page
    assert "could not open &#x27;missing.onnx&#x27;" in page
    assert 'href="weird%3Cmodel%3E/report.html"' in page
    with pytest.raises(report.ReportError, match="index.html' already exists: use --force"):
        index.write_index(models, tmp_path)
    index.write_index(models[:1], tmp_path, force=True)
    assert len(json.loads(paths.json.read_text())["models"]) == 1
