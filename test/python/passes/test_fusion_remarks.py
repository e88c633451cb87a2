"""versa-fuse's remarks beyond the lit files (test/Transforms/versa-fuse-remarks.mlir,
versa-fuse-dynamic.mlir): the values of a refusal for a dynamic dim (DYNAMIC: an expensive
producer whose 1 faces a `?` of the nest), a dynamic chain that fuses, and no remark work while
nobody listens."""

from versa import compiler
from versa.context import make_context
from versa.diagnostics import location_line_col
from versa.passes.common import remarks
from versa.passes.optimize import fuse

DYNAMIC = """func.func @dynamic(%a: tensor<1x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.exp"(%a) : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = "versa.add"(%0, %b) : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""
SAME_SHAPE = """func.func @same(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.exp"(%a) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "versa.relu"(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""


def _fuse(text: str) -> None:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, compiler.parse_pipeline("versa-fuse", None))


def test_a_one_facing_a_dynamic_dim_is_a_missed_fusion_at_the_consumer():
    with remarks.collected() as said:
        _fuse(DYNAMIC)
    (remark,) = said
    assert (remark.kind, remark.pass_name, remark.category) == (remarks.MISSED, "versa-fuse", "fusion")
    assert remark.reason.startswith("the producer (or its group) is not cheap and has a size-1 dim")
    assert location_line_col(remark.location) == (3, 8)
    want = {
        "producer": "versa.exp",
        "consumer": "versa.add",
        "producer_at": "line 2:8",
        "producer_shape": "1x8",
        "nest_shape": "?x8",
    }
    assert dict(remark.values) == want


def test_a_dynamic_chain_of_one_shape_fuses():
    with remarks.collected() as said:
        _fuse(SAME_SHAPE)
    (remark,) = said
    assert (remark.kind, remark.reason) == (remarks.APPLIED, "2 ops fused (elementwise)")
    assert dict(remark.values) == {"ops": "exp+relu"}


def test_no_remark_work_while_nobody_listens(monkeypatch):
    def refuse(*args):
        raise AssertionError("remarks computed with nobody listening")

    monkeypatch.setattr(fuse.fusion_remarks, "emit", refuse)
    assert not remarks.enabled()
    _fuse(DYNAMIC)  # no listener: emit is never called
