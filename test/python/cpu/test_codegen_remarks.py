"""versa-codegen's remarks through `versa.passes.common.remarks`: a strategy whose transform
script fails says so at its op (non-strict: the op is left to plain loops), and nothing is
computed for remarks while nobody listens."""

from dataclasses import dataclass

import pytest
from versa.context import make_context
from versa.diagnostics import location_line_col
from versa.environment import CODEGEN_STRICT as STRICT_ENV
from versa.mlir import ir
from versa.passes.common import remarks
from versa.passes.cpu import codegen as codegen_pass
from versa.passes.cpu import strategies
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.strategies.strategy import Strategy

# %a (line 6) is outlined into a kernel, %b (line 8: accumulates into an argument) stays in the
# function: a failing script is reported at both, from the kernel's and the module's script
MATMULS = """func.func @f(%x: tensor<16x32xf32>, %y: tensor<32x40xf32>,
    %acc: tensor<16x40xf32>) -> (tensor<16x40xf32>, tensor<16x40xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x40xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %a = linalg.matmul ins(%x, %y : tensor<16x32xf32>, tensor<32x40xf32>)
      outs(%fill : tensor<16x40xf32>) -> tensor<16x40xf32>
  %b = linalg.matmul ins(%x, %y : tensor<16x32xf32>, tensor<32x40xf32>)
      outs(%acc : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %a, %b : tensor<16x40xf32>, tensor<16x40xf32>
}
"""


@dataclass(frozen=True)
class _Failing(Strategy):
    """Tiles its op, then hoists a pad that is none (the op itself): fails to apply."""

    def emit(self, s, op, tag):
        tiled, _ = s.tile(op, [8, 0, 0])
        s.hoist_pad(tiled, 1)

    @staticmethod
    def for_op(op, target, threads):
        return _Failing() if op.name == "linalg.matmul" else None


def test_a_failing_script_is_a_fallback_remark_at_its_op(monkeypatch):
    monkeypatch.delenv(STRICT_ENV, raising=False)
    monkeypatch.setattr(strategies, "FAMILIES", (_Failing.for_op, *strategies.FAMILIES))
    with make_context(), ir.Location.unknown(), remarks.collected() as said:
        module = ir.Module.parse(MATMULS)
        VersaCodegen(threads=1, target="x86-64-v4").run(module.operation)
    missed = [r for r in said if r.kind == remarks.MISSED]
    assert sorted(location_line_col(r.location)[0] for r in missed) == [6, 8]
    assert {r.category for r in missed} == {"fallback"}
    assert all("script failed" in r.reason and "Failed to apply" in dict(r.values)["error"] for r in missed)
    applied = [r for r in said if r.kind == remarks.APPLIED]
    assert [r.reason for r in applied] == ["tiled by _Failing"] * 2


def test_nothing_is_computed_for_remarks_while_nobody_listens(monkeypatch):
    def refuse(*args):
        raise AssertionError("a remark was computed with nobody listening")

    monkeypatch.delenv(STRICT_ENV, raising=False)  # %b's matmul strategy fails (no fill to fuse)
    monkeypatch.setattr(codegen_pass, "declined", refuse)
    assert not remarks.enabled()
    with make_context(), ir.Location.unknown():
        VersaCodegen(threads=2, target="x86-64-v4").run(ir.Module.parse(MATMULS).operation)
        with remarks.collected(), pytest.raises(RuntimeError, match="nobody listening"):  # from the walk
            VersaCodegen(threads=2, target="x86-64-v4").run(ir.Module.parse(MATMULS).operation)
    assert not remarks.enabled()  # the listener is gone with its block
