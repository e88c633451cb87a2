"""versa-codegen never fails a module on a valid op: where a strategy's transform script does
not apply, that op is put back as it was and left to the later passes (plain loops), the other
ops keep their strategies. And the case that found it: a conv whose filters are packed
(codegen/conv.py), split into register-tile pieces, one of which is a single tile (59 output
columns = 7 rows of 8 + 3; 48 filters = 32 + 16): there is no loop to hoist the packing above,
and `hoist_pad ... by 0 loops` failed the whole module (Wav2Vec2's positional conv).

Numerics against NumPy in float64: f32 sums of 32 products of values in [-1, 1), rtol/atol
1e-5 (rounding is ~32 * 2^-24 at worst; a skipped or doubled product is off by ~0.1)."""

from dataclasses import dataclass

import numpy as np
import pytest
from conftest import Compiled
from versa import targets
from versa.context import make_context
from versa.environment import CODEGEN_STRICT as STRICT_ENV
from versa.mlir import ir
from versa.passes.cpu import strategies as codegen
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.strategies.strategy import Strategy

# a tile of the packed conv that is one register tile: rows 59 = 56 + 3, vec 48 = 32 + 16
PACKED_CONV = """
func.func @f(%x: tensor<1x1x186x48xf32>, %w: tensor<1x128x48x48xf32>) -> tensor<1x1x59x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x59x48xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x59x48xf32>) -> tensor<1x1x59x48xf32>
  %0 = linalg.conv_2d_nhwc_hwcf
    {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x1x186x48xf32>, tensor<1x128x48x48xf32>)
    outs(%o : tensor<1x1x59x48xf32>) -> tensor<1x1x59x48xf32>
  return %0 : tensor<1x1x59x48xf32>
}
"""

# three matmuls: %a (fill init: outlined into a kernel), %b (accumulates into an argument: left
# in the function), %c (fill init, 48 columns: the strategy that fails takes only 40-column ones)
MATMULS = """
func.func @f(%x: tensor<16x32xf32>, %y: tensor<32x40xf32>, %acc: tensor<16x40xf32>,
             %z: tensor<32x48xf32>) -> (tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x40xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %a = linalg.matmul ins(%x, %y : tensor<16x32xf32>, tensor<32x40xf32>)
      outs(%fill : tensor<16x40xf32>) -> tensor<16x40xf32>
  %b = linalg.matmul ins(%x, %y : tensor<16x32xf32>, tensor<32x40xf32>)
      outs(%acc : tensor<16x40xf32>) -> tensor<16x40xf32>
  %e2 = tensor.empty() : tensor<16x48xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %c = linalg.matmul ins(%x, %z : tensor<16x32xf32>, tensor<32x48xf32>)
      outs(%fill2 : tensor<16x48xf32>) -> tensor<16x48xf32>
  return %a, %b, %c : tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x48xf32>
}
"""


@dataclass(frozen=True)
class _Failing(Strategy):
    """Tiles its op, then hoists a pad that is none (the op itself): fails to apply, half way."""

    def emit(self, s, op, tag):
        tiled, _ = s.tile(op, [8, 0, 0])
        s.hoist_pad(tiled, 1)

    @staticmethod
    def for_op(op, target, threads):
        forty = op.name == "linalg.matmul" and ir.RankedTensorType(op.results[0].type).shape[1] == 40
        return _Failing() if forty else None


def _ops(module: ir.Module) -> list[str]:
    names: list[str] = []

    def visit(op):
        names.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def test_a_packed_conv_piece_of_one_register_tile_applies(monkeypatch):
    """Strict (a failing script raises): the conv's pieces all apply, the one-tile leftover
    unpacked. x86-64-v4's 1 MB L2 makes its 1.2 MB of filters packed, on any host."""
    monkeypatch.delenv(STRICT_ENV, raising=False)
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(PACKED_CONV)
        conv = module.body.operations[0].regions[0].blocks[0].operations[3]
        assert codegen.select(conv.operation, targets.resolve("x86-64-v4"), 1).pack_filters
        VersaCodegen(threads=1, target="x86-64-v4", strict=True).run(module.operation)
        names = _ops(module)
        assert "linalg.conv_2d_nhwc_hwcf" not in names and "vector.fma" in names


def test_a_script_that_fails_leaves_its_op_untransformed(monkeypatch):
    monkeypatch.delenv(STRICT_ENV, raising=False)
    monkeypatch.setattr(codegen, "FAMILIES", (_Failing.for_op, *codegen.FAMILIES))
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(MATMULS)
        VersaCodegen(threads=1, target="x86-64-v4").run(module.operation)
        module.operation.verify()
        names = _ops(module)
        # %a and %b as they were (no tag left), %c tiled and vectorized by its own strategy
        assert names.count("linalg.matmul") == 2 and "vector.fma" in names
        assert "versa.codegen" not in str(module) and "__versa_kernel" not in str(module)
        with pytest.raises(ValueError, match="Failed to apply"):
            VersaCodegen(threads=1, target="x86-64-v4", strict=True).run(ir.Module.parse(MATMULS).operation)


def test_a_module_with_a_failing_script_compiles_and_matches(monkeypatch):
    monkeypatch.delenv(STRICT_ENV, raising=False)
    monkeypatch.setattr(codegen, "FAMILIES", (_Failing.for_op, *codegen.FAMILIES))
    compiled = Compiled(MATMULS, pipeline="lower-to-llvm{opt-level=3 threads=2}")
    x, y, acc, z = compiled.random_inputs(3)
    a, b, c = compiled.jit(x, y, acc, z)
    wide = [v.astype(np.float64) for v in (x, y, acc, z)]
    wants = (wide[0] @ wide[1], wide[2] + wide[0] @ wide[1], wide[0] @ wide[3])
    for got, want in zip((a, b, c), wants, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
