"""`versa optimize` end to end: ONNX, torch.export (.pt2), versa IR and factory models through
the command (a subprocess, as users run it) and `versa.optimize`; many models at once; bad
input. Reports are checked against the schema and for what they must say, not for speed."""

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import versa
from versa.optimizer import report as reports

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import zoo  # noqa: E402

ROUNDS = "3"


def run_optimize(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "versa.tools.versa_cli", "optimize", "--rounds", ROUNDS, *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)


def test_onnx_model_gets_a_checked_profiled_report_and_a_library(tmp_path):
    model = zoo.write_onnx(tmp_path / "cnn.onnx")
    out = tmp_path / "out"
    done = run_optimize(str(model), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "accuracy   PASS vs onnxruntime" in done.stdout
    report = reports.load(out / "report.json")
    assert report["model"]["format"] == "onnx" and not report["errors"]
    assert report["accuracy"]["verdict"] == "pass"
    assert report["timing"]["reference"] == "onnxruntime" and report["timing"]["speedup"] > 0
    assert [s["status"] for s in report["steps"]] == ["ok"] * 7
    layers = report["profile"]["layers"]
    assert sum(layer["percent"] for layer in layers) == pytest.approx(100)
    convs = [layer for layer in layers if "conv2d" in layer["family"] and layer["flops"]]
    assert len(convs) == 2  # conv1 and conv2, each credited once, named by their ONNX nodes
    assert all(any("Conv" in s for s in layer["sources"]) for layer in convs)
    assert report["memory"]["weights_bytes"] > 0 and report["memory"]["arena_bytes"] >= 0
    assert report["memory"]["reference_peak_bytes"] > 0  # ONNX Runtime's, in a fresh process
    library = ctypes.CDLL(str(out / report["artifact"]["library"]))
    assert library._mlir_ciface_main_graph  # the ONNX graph's entry, which the header declares
    assert "void _mlir_ciface_main_graph(" in (out / report["artifact"]["header"]).read_text()
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_torch_model_layers_are_named_by_module_path(tmp_path):
    model, inputs = zoo.resnet_basic()
    report = versa.optimize(model, example_inputs=inputs, rounds=3)
    assert report["accuracy"]["reference"] == "torch" and report["accuracy"]["verdict"] == "pass"
    sources = {s for layer in report["profile"]["layers"] for s in layer["sources"]}
    assert {"conv1", "conv2", "shortcut.0"} <= sources
    assert any(d["kind"] == "fusion" for d in report["decisions"])
    assert report["artifact"] is None  # no --out, no files
    assert report["memory"]["reference_peak_bytes"] is None  # a module object: not re-created


class DictOutputs(torch.nn.Module):
    """Outputs in a container, as transformers' models return them (a ModelOutput dict)."""

    def forward(self, x):
        return {"hidden": torch.tanh(x), "pooled": {"sum": x.sum(dim=1)}}


def test_outputs_in_containers_are_flattened_as_torch_export_does():
    x = torch.randn(4, 8)
    report = versa.optimize(DictOutputs(), example_inputs=(x,), rounds=3)
    assert not report["errors"], report["errors"]
    outputs = report["accuracy"]["outputs"]
    assert [o["shape"] for o in outputs] == [[4, 8], [4]] and report["accuracy"]["verdict"] == "pass"


def test_many_models_in_parallel_with_one_failing(tmp_path):
    mlir = tmp_path / "relu.mlir"
    mlir.write_text(zoo.MLIR)
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf")
    models = [str(zoo.write_pt2(tmp_path / "mlp.pt2")), "zoo:cnn", str(mlir), str(broken)]
    out = tmp_path / "batch"
    done = run_optimize(*models, "--out", str(out), "--jobs", "2", "--no-artifact")
    assert done.returncode == 1  # one model failed: said on stderr, the others done
    assert "broken: import" in done.stderr
    index = json.loads((out / "index.json").read_text())
    rows = {row["name"]: row for row in index["models"]}
    assert [rows[n]["status"] for n in ("mlp", "cnn", "relu")] == ["ok"] * 3
    assert rows["broken"]["status"] == "failed" and rows["broken"]["error"]["step"] == "import"
    assert "ONNX" in rows["broken"]["error"]["message"]
    for name in ("mlp", "cnn", "relu"):
        assert reports.load(out / name / "report.json")["accuracy"]["verdict"] == "pass"
    assert reports.load(out / "mlp" / "report.json")["model"]["format"] == "pt2"
    assert (out / "index.html").exists()


def test_ray_local_mode_gives_the_same_reports(tmp_path):
    pytest.importorskip("ray")
    mlir = tmp_path / "relu.mlir"
    mlir.write_text(zoo.MLIR)
    out = tmp_path / "ray"
    done = run_optimize(str(mlir), "zoo:cnn", "--out", str(out), "--ray", "local", "--no-artifact")
    assert done.returncode == 0, done.stderr
    report = reports.load(out / "relu" / "report.json")
    assert report["accuracy"]["verdict"] == "pass" and report["profile"]["layers"]


def test_bad_input_is_a_clear_error_and_writes_nothing(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    for args, message in [
        ((str(text),), "not a model Versa takes"),
        ((str(tmp_path / "missing.onnx"),), "no such file"),
    ]:
        done = run_optimize(*args, "--out", str(tmp_path / "o"))
        assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()
    mlir = tmp_path / "relu.mlir"
    mlir.write_text(zoo.MLIR)
    blocked = tmp_path / "file"
    blocked.write_text("")
    done = run_optimize(str(mlir), "--out", str(blocked))
    assert done.returncode == 1 and "is not a directory" in done.stderr


def test_an_op_versa_cannot_take_is_reported_with_its_source_line(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(zoo.MLIR.replace('"versa.relu"(%0)', '"versa.relu"(%0, %0)'))
    out = tmp_path / "out"
    done = run_optimize(str(bad), "--out", str(out))
    assert done.returncode == 1
    report = reports.load(out / "report.json")
    assert report["errors"][0]["step"] == "import"
    assert "bad.mlir:3:" in report["errors"][0]["message"]
    assert report["steps"][1:] == [
        {"name": n, "seconds": 0.0, "status": "skipped", "detail": "an earlier step failed"}
        for n in ("compile", "validate", "benchmark", "profile", "memory", "artifact")
    ]


def test_an_existing_report_is_kept_without_force(tmp_path):
    mlir = tmp_path / "relu.mlir"
    mlir.write_text(zoo.MLIR)
    out = tmp_path / "out"
    assert run_optimize(str(mlir), "--out", str(out), "--no-artifact").returncode == 0
    before = (out / "report.json").read_bytes()
    done = run_optimize(str(mlir), "--out", str(out))
    assert done.returncode == 1 and "--force" in done.stderr
    assert (out / "report.json").read_bytes() == before
    assert run_optimize(str(mlir), "--out", str(out), "--force", "-q").returncode == 0


def test_symbolic_dims_must_be_pinned(tmp_path):
    """The profile and the library are of one shape: a dynamic ONNX input is pinned, or refused."""
    from onnx import TensorProto, helper

    dims = ["batch", 4]
    x, y = (helper.make_tensor_value_info(n, TensorProto.FLOAT, dims) for n in "xy")
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    model = tmp_path / "relu.onnx"
    model.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    )
    done = run_optimize(str(model), "--out", str(tmp_path / "dynamic"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        "input(s) x have symbolic dims" in done.stderr + done.stdout
        and "--input-shape" in done.stderr + done.stdout
    )
    done = run_optimize(str(model), "--input-shape", "x=3,4", "--out", str(tmp_path / "pinned"))
    assert done.returncode == 0, done.stderr


def test_a_library_of_a_model_whose_layers_share_a_kernel(tmp_path):
    """Two layer norms of one shape share one kernel function (versa-share-functions), private
    to the module: the artifact's object must still be written (it once was not: the engine's
    dump compiled every function by a wrapper the private kernel does not have)."""
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(
        torch.nn.LayerNorm(32), torch.nn.Linear(32, 32), torch.nn.GELU(), torch.nn.LayerNorm(32)
    ).eval()
    out = tmp_path / "out"
    report = versa.optimize(model, out=str(out), example_inputs=(torch.randn(4, 8, 32),), rounds=3)
    assert report["artifact"] is not None, report["errors"]
    library = ctypes.CDLL(str(out / report["artifact"]["library"]))
    assert library._mlir_ciface_main
