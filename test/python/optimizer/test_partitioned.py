"""`versa optimize` on torch models with an op Versa cannot take (`opaque_ops.reverse`, a custom
op of a test-only library): run partitioned as versa.compile runs them, checked against eager
with the tolerance policy chained through the partitions, and each op left to PyTorch reported
with its module path, source line and reason. A model of which nothing compiles is a located
error, exit code 1."""

import sys
from pathlib import Path

import pytest
import torch
import versa
from test_optimize import run_optimize
from versa import tolerance
from versa.optimizer import report as reports
from versa.signature import find_function

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import zoo  # noqa: E402

REVERSE = "torch.versa_test.reverse"
OPAQUE_LINE = next(
    i for i, text in enumerate((HERE / "zoo.py").read_text().splitlines(), 1) if "# OPAQUE_LINE" in text
)


def test_a_model_with_an_op_versa_cannot_take_runs_partitioned(tmp_path):
    out = tmp_path / "out"
    done = run_optimize("zoo:opaque", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "partitions 2 compiled, 4 of 5 ops (80.0%); 1 op(s) left to PyTorch" in done.stdout
    assert f"  {REVERSE} in flip at zoo.py:{OPAQUE_LINE}: neither a versa rule" in done.stdout
    report = reports.load(out / "report.json")
    assert not report["errors"] and report["accuracy"]["verdict"] == "pass"
    assert report["accuracy"]["outputs"][0]["atol"] > 0  # the compiled partitions' cones
    assert report["timing"]["versa_ms"] > 0 and report["compile"]["passes"]
    (fallback,) = report["fallbacks"]
    assert fallback["op"] == REVERSE and fallback["module"] == "flip"
    assert fallback["source"] == f"{HERE / 'zoo.py'}:{OPAQUE_LINE}"
    assert fallback["reason"].startswith("neither a versa rule nor torch-mlir's linalg lowering")
    assert report["partitioning"] == {
        "partitions": 2,
        "failed_partitions": 0,
        "ops": 5,  # linear, relu | reverse | tanh, linear
        "compiled_ops": 4,
        "compiled_percent": 80.0,
        "reason": report["partitioning"]["reason"],
    }
    assert f"1x {REVERSE}" in report["partitioning"]["reason"]
    assert {d["location"] for d in report["decisions"] if d["kind"] == "fusion"} >= {"fc2, linear_1"}
    statuses = {s["name"]: (s["status"], s["detail"] or "") for s in report["steps"]}
    assert [statuses[n][0] for n in ("import", "compile", "validate", "benchmark")] == ["ok"] * 4
    for name in ("profile", "memory", "artifact"):
        assert statuses[name][0] == "skipped" and "runs partitioned" in statuses[name][1]
    assert report["profile"] is report["memory"] is report["artifact"] is None
    page = (out / "report.html").read_text()
    assert 'id="left-to-pytorch"' in page and f"zoo.py:{OPAQUE_LINE}</code>" in page


def test_a_model_of_which_nothing_compiles_is_a_located_error(tmp_path):
    out = tmp_path / "out"
    done = run_optimize("zoo:only_opaque", "--out", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no part of the model compiles" in done.stderr
    assert f"{REVERSE}" in done.stderr and f"zoo.py:{OPAQUE_LINE})" in done.stderr
    report = reports.load(out / "report.json")
    assert report["errors"][0]["step"] == "compile" and report["compile"] is None
    assert report["partitioning"]["compiled_ops"] == 0 and report["fallbacks"][0]["op"] == REVERSE


class TwoOutputs(torch.nn.Module):
    """One output through both partitions and the op between them, one through that op alone."""

    def __init__(self, opaque: bool = True):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)
        self.opaque = opaque

    def flip(self, y):
        return zoo.reverse(y) if self.opaque else y.flip(-1)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(torch.tanh(self.flip(h))), self.flip(x)


def test_an_outputs_tolerance_sums_the_compiled_partitions_in_its_cone():
    """The tolerance of the output through both partitions is the whole model's (the same ops
    imported whole, torch.flip, which is exact, in the custom op's place); the output that only
    eager ops made is held to eager's bits."""
    torch.manual_seed(0)
    model, x = TwoOutputs().eval(), torch.randn(4, 16)
    report = versa.optimize(model, example_inputs=(x,), rounds=2)
    assert not report["errors"] and report["accuracy"]["verdict"] == "pass"
    through, alone = report["accuracy"]["outputs"]
    whole = TwoOutputs(opaque=False).eval()
    whole.load_state_dict(model.state_dict())
    module = versa.import_torch(whole, (x,))  # kept: its function lives as long as it does
    want, exact = tolerance.for_function(find_function(module, None))
    assert exact == tolerance.EXACT and want.atol > 0
    assert (through["atol"], through["rtol"]) == pytest.approx((want.atol, want.rtol), rel=1e-9)
    assert (alone["atol"], alone["rtol"], alone["max_abs"]) == (0.0, 0.0, 0.0)
    assert [f["op"] for f in report["fallbacks"]] == [REVERSE, REVERSE]
    assert report["partitioning"]["partitions"] == 2
