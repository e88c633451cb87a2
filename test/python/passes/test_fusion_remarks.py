"""versa-fuse's remarks beyond the lit file (test/Transforms/versa-fuse-remarks.mlir): a
dynamic shape (kept out of test/Transforms, whose programs the fusion fuzz corpus reads as
static ones), and no remark work while nobody listens."""

from versa import compiler
from versa.context import make_context
from versa.diagnostics import location_line_col
from versa.passes.common import remarks
from versa.passes.optimize import fuse

DYNAMIC = """func.func @dynamic(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.exp"(%a) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "versa.relu"(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""


def _fuse(text: str) -> None:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, compiler.parse_pipeline("versa-fuse", None))


def test_a_dynamic_shape_is_a_missed_fusion_at_the_consumer():
    with remarks.collected() as said:
        _fuse(DYNAMIC)
    (remark,) = said
    assert (remark.kind, remark.pass_name, remark.category) == (remarks.MISSED, "versa-fuse", "fusion")
    assert remark.reason == "a dynamic shape: versa-fuse groups statically shaped tensors only"
    assert location_line_col(remark.location) == (3, 8)
    want = {"producer": "versa.exp", "consumer": "versa.relu", "producer_at": "line 2:8"}
    assert dict(remark.values) == want


def test_no_remark_work_while_nobody_listens(monkeypatch):
    def refuse(*args):
        raise AssertionError("remarks computed with nobody listening")

    monkeypatch.setattr(fuse.fusion_remarks, "emit", refuse)
    assert not remarks.enabled()
    _fuse(DYNAMIC)  # no listener: emit is never called
