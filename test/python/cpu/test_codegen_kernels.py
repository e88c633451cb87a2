"""versa-codegen's kernel functions (passes/codegen/kernels.py): each tagged op is outlined with
what its script reaches (its init's fill, its epilogue consumer, and for strategies that run
`structured.fuse` the producers that fuse into its tiles) and inlined back unchanged; producers
that other ops also use are copied in, never moved away from those ops."""

import numpy as np
from conftest import Compiled
from versa.context import make_context
from versa.mlir import PassManager, ir
from versa.passes.cpu.strategies import kernels

# Two matmuls sharing one zero fill; the first has an epilogue whose other operand is computed.
TENSOR_IR = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %bias: tensor<64x48xf32>)
    -> (tensor<64x48xf32>, tensor<64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<64x48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>)
      outs(%fill : tensor<64x48xf32>) -> tensor<64x48xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %twice : tensor<64x48xf32>, tensor<64x48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %y = arith.addf %x, %t : f32
    linalg.yield %y : f32
  } -> tensor<64x48xf32>
  %mm2 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>)
      outs(%fill : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %sum, %mm2 : tensor<64x48xf32>, tensor<64x48xf32>
}
"""


def _ops(block: ir.Block) -> list[str]:
    return [op.operation.name for op in block.operations]


def _module():
    ctx = make_context()
    with ctx, ir.Location.unknown():
        return ctx, ir.Module.parse(TENSOR_IR)


def test_outline_and_inline_round_trip():
    ctx, module = _module()
    with ctx, ir.Location.unknown():
        body = module.body.operations[0].regions[0].blocks[0]
        matmuls = [op.operation for op in body.operations if op.operation.name == "linalg.matmul"]
        outlined = kernels.outline([(matmuls[0], True), (matmuls[1], False)])
        module.operation.verify()
        assert len(outlined) == 2
        first = outlined[0].function.regions[0].blocks[0]
        # the fill, shared with the second matmul, is copied in; the epilogue and its other
        # producer (structured.fuse reaches it) move in; constants and empties are copied
        assert _ops(first).count("linalg.fill") == 1
        assert _ops(first).count("linalg.generic") == 2
        assert _ops(first)[-1] == "func.return"
        # the second kernel then takes the fill (nobody else uses it by now): moved in
        second = outlined[1].function.regions[0].blocks[0]
        assert "linalg.fill" in _ops(second)
        assert _ops(body) == ["arith.constant", "tensor.empty", "func.call", "func.call", "func.return"]
        for kernel in outlined:
            kernel.inline()
        module.operation.verify()
        assert len(module.body.operations) == 1
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        names = _ops(body)
        assert names.count("linalg.matmul") == 2 and names.count("linalg.generic") == 2
        assert "func.call" not in names


def test_init_from_another_kernel_stays_in_place():
    """An accumulation into another tagged op's result: the script's `get_producer_of_operand`
    needs that producer, so the op is not outlined."""
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(
            """
func.func @f(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}"""
        )
        body = module.body.operations[0].regions[0].blocks[0]
        matmuls = [op.operation for op in body.operations if op.operation.name == "linalg.matmul"]
        assert kernels.outline([(m, False) for m in matmuls]) == []
        module.operation.verify()


MODEL = """
func.func @main(%x: tensor<3x37x40xf32>, %w: tensor<40x40xf32>, %b: tensor<40xf32>) -> tensor<3x37x40xf32> {
  %h = "versa.reshape"(%x) : (tensor<3x37x40xf32>) -> tensor<111x40xf32>
  %m = "versa.matmul"(%h, %w) : (tensor<111x40xf32>, tensor<40x40xf32>) -> tensor<111x40xf32>
  %bb = "versa.broadcast_to"(%b) : (tensor<40xf32>) -> tensor<111x40xf32>
  %s = "versa.add"(%m, %bb) : (tensor<111x40xf32>, tensor<111x40xf32>) -> tensor<111x40xf32>
  %r = "versa.relu"(%s) : (tensor<111x40xf32>) -> tensor<111x40xf32>
  %m2 = "versa.matmul"(%r, %w) : (tensor<111x40xf32>, tensor<40x40xf32>) -> tensor<111x40xf32>
  %s2 = "versa.add"(%m2, %h) : (tensor<111x40xf32>, tensor<111x40xf32>) -> tensor<111x40xf32>
  %m3 = "versa.matmul"(%s2, %w) : (tensor<111x40xf32>, tensor<40x40xf32>) -> tensor<111x40xf32>
  %y = "versa.reshape"(%m3) : (tensor<111x40xf32>) -> tensor<3x37x40xf32>
  return %y : tensor<3x37x40xf32>
}
"""


def test_chained_kernels_match_numpy():
    """Three matmul kernels with epilogues and a residual through the whole pipeline (tolerance:
    f32 sums of 40 products of values in [-1, 1], atol 1e-4)."""
    rng = np.random.default_rng(0)
    x, w, b = (rng.uniform(-1, 1, s).astype(np.float32) for s in ((3, 37, 40), (40, 40), (40,)))
    for pipeline in ("lower-to-llvm", "lower-to-llvm{threads=2}"):
        (y,) = Compiled(MODEL, pipeline).jit(x, w, b)
        h = x.reshape(111, 40).astype(np.float64)
        r = np.maximum(h @ w + b, 0)
        expected = ((r @ w + h) @ w).reshape(3, 37, 40)
        np.testing.assert_allclose(y, expected, atol=1e-4, rtol=1e-4)
