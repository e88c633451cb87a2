"""versa-plan-buffers: programs whose intermediates live in one static arena match NumPy at every
opt-level, on repeated calls, and the arena is smaller than the buffers it replaces."""

from pathlib import Path

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.mlir import ir
from versa.passes.bufferize.plan_buffers import VersaPlanBuffers, arena_bytes
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.gpu.pipeline import LowerToNVVM

MLP = (Path(__file__).resolve().parents[3] / "examples" / "mlp.mlir").read_text()

# Elementwise ops in a row, an i1 mask among them: each value dies at the next op.
CHAIN = """
func.func @main(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = "versa.add"(%x, %y) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %1 = "versa.tanh"(%0) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %2 = "versa.mul"(%1, %y) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %3 = "versa.sigmoid"(%2) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %4 = "versa.sub"(%3, %x) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %5 = "versa.compare"(%4, %y) {predicate = "gt"}
      : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xi1>
  %6 = "versa.select"(%5, %4, %y)
      : (tensor<64x128xi1>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %7 = "versa.exp"(%6) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %8 = "versa.abs"(%7) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %9 = "versa.relu"(%8) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %10 = "versa.neg"(%9) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %11 = "versa.add"(%10, %x) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  return %11 : tensor<64x128xf32>
}
"""

TRANSFORMER_BITS = """
func.func @main(%x: tensor<32x64xf32>, %w: tensor<64x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>,
                %w2: tensor<64x32xf32>) -> tensor<32x32xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %1 = "versa.layer_norm"(%0, %g, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %2 = "versa.softmax"(%1) {axis = -1 : i64} : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %3 = "versa.add"(%2, %x) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %4 = "versa.matmul"(%3, %w2) : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
  return %4 : tensor<32x32xf32>
}
"""

CONV_NET = """
func.func @main(%x: tensor<1x4x16x16xf32>, %w1: tensor<8x4x3x3xf32>, %w2: tensor<8x8x3x3xf32>,
                %fc: tensor<8x10xf32>) -> tensor<1x10xf32> {
  %0 = "versa.conv2d"(%x, %w1) {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
  %1 = "versa.relu"(%0) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %2 = "versa.max_pool2d"(%1) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
  %3 = "versa.conv2d"(%2, %w2) {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %4 = "versa.add"(%3, %2) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %5 = "versa.relu"(%4) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %6 = "versa.reduce_mean"(%5) {axes = array<i64: 2, 3>} : (tensor<1x8x8x8xf32>) -> tensor<1x8xf32>
  %7 = "versa.matmul"(%6, %fc) : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
  return %7 : tensor<1x10xf32>
}
"""

PROGRAMS = {"mlp": MLP, "chain": CHAIN, "transformer": TRANSFORMER_BITS, "conv_net": CONV_NET}


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_planned_programs_match_numpy_on_every_call(name: str, opt_level: int) -> None:
    text = PROGRAMS[name]
    compiled = Compiled(text, f"lower-to-llvm{{opt-level={opt_level}}}")
    for seed in (0, 1):  # a second call reuses the arena the first one left dirty
        inputs = compiled.random_inputs(seed)
        for got, want in zip(compiled.jit(*inputs), reference(text, inputs), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def planned(text: str, opt_level: int) -> tuple[int, int]:
    """(sum of the bytes of the static top-level allocs before planning, the arena's bytes)."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    steps = list(LowerToLLVM(opt_level=opt_level).steps())
    plan = next(i for i, s in enumerate(steps) if isinstance(s, VersaPlanBuffers))
    compiler.run_passes(module, steps[:plan])
    function = find_function(module, None)
    allocs = [op for op in function.regions[0].blocks[0].operations if op.operation.name == "memref.alloc"]
    total = sum(buffer_bytes(ir.MemRefType(op.result.type)) for op in allocs)
    compiler.run_passes(module, [steps[plan]])
    return total, arena_bytes(module)[function.attributes["sym_name"].value]


def buffer_bytes(t: ir.MemRefType) -> int:
    assert t.has_static_shape
    return int(np.prod(t.shape)) * max(1, t.element_type.width // 8)


# The chain's peak: the select reads the i1 mask and an f32 value while it writes its result.
CHAIN_PEAK = 2 * 64 * 128 * 4 + 64 * 128


@pytest.mark.parametrize("opt_level", [0, 3])
def test_chain_arena_is_its_peak_not_its_sum(opt_level: int) -> None:
    total, arena = planned(CHAIN, opt_level)
    assert total >= 10 * 64 * 128 * 4
    assert arena == CHAIN_PEAK


def test_mlp_arena_is_smaller_than_its_buffers() -> None:
    total, arena = planned(MLP, 3)
    assert 0 < arena < total


def test_arena_bytes_survive_lowering() -> None:
    module = compiler.compile_text(CHAIN, "lower-to-llvm")
    arenas = arena_bytes(module)  # the two adds are one function (versa-share-ops), no arena of its own
    assert arenas["main"] == CHAIN_PEAK and sum(arenas.values()) == CHAIN_PEAK
    assert "memref" not in str(module)


def test_only_the_cpu_pipeline_plans_buffers() -> None:
    assert any(isinstance(s, VersaPlanBuffers) for s in LowerToLLVM().steps())
    assert not any(isinstance(s, VersaPlanBuffers) for s in LowerToNVVM().steps())
