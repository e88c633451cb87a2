"""versa-fuse on tensors with dynamic dims (issue 46): the groups a Llama or BERT layer's
elementwise ops form under `?` sizes, and their numerics, each program compiled once and
called at sizes 1, 7 (odd), 37 (more than a vector) and 64 (the static dims' size), through
the full pipeline at O3 (one thread and two) and through versa-fuse alone at O1.

Tolerance: `versa.tolerance`'s policy for each result (the sum over its cone, as versa-run
--check judges), against the NumPy reference interpreting the unfused program.
The grouping itself is pinned in test/Transforms/versa-fuse-dynamic.mlir."""

import numpy as np
import pytest
from test_fusion import _fused_kinds  # one definition of "the kinds of the groups versa-fuse makes"
from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.reference import interpret
from versa.signature import find_function

PIPELINES = [
    "versa-optimize,lower-to-llvm{opt-level=3 threads=1}",
    "versa-optimize,lower-to-llvm{opt-level=3 threads=2}",
    "versa-fuse,lower-to-llvm{opt-level=1}",
]
SIZES = (1, 7, 37, 64)

# A Llama layer's elementwise part: residual add, RMSNorm, SiLU(gate) * norm, residual add.
LAYER = """
func.func @layer(%x: tensor<?x?x64xf32>, %r: tensor<?x?x64xf32>, %w: tensor<64xf32>,
                 %g: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %eps = "versa.constant"() {value = dense<1.0e-06> : tensor<f32>} : () -> tensor<f32>
  %h = "versa.add"(%x, %r) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %sq = "versa.mul"(%h, %h) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %m = "versa.reduce_mean"(%sq) {axes = array<i64: 2>, keepdims = true}
      : (tensor<?x?x64xf32>) -> tensor<?x?x1xf32>
  %a = "versa.add"(%m, %eps) : (tensor<?x?x1xf32>, tensor<f32>) -> tensor<?x?x1xf32>
  %s = "versa.rsqrt"(%a) : (tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %n = "versa.mul"(%h, %s) : (tensor<?x?x64xf32>, tensor<?x?x1xf32>) -> tensor<?x?x64xf32>
  %y = "versa.mul"(%n, %w) : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %sg = "versa.sigmoid"(%g) : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %t = "versa.mul"(%g, %sg) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %o = "versa.mul"(%t, %y) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %z = "versa.add"(%o, %h) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %z : tensor<?x?x64xf32>
}"""

# RoPE's products: cos and sin of [1, 1, S, 16] broadcast over batch and heads (stored: they
# are not cheap), the products and their sum one group over [B, 4, S, 16].
ROPE = """
func.func @rope(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %p: tensor<1x1x?x16xf32>)
    -> tensor<?x4x?x16xf32> {
  %c = "versa.cos"(%p) : (tensor<1x1x?x16xf32>) -> tensor<1x1x?x16xf32>
  %s = "versa.sin"(%p) : (tensor<1x1x?x16xf32>) -> tensor<1x1x?x16xf32>
  %a = "versa.mul"(%q, %c) : (tensor<?x4x?x16xf32>, tensor<1x1x?x16xf32>) -> tensor<?x4x?x16xf32>
  %b = "versa.mul"(%k, %s) : (tensor<?x4x?x16xf32>, tensor<1x1x?x16xf32>) -> tensor<?x4x?x16xf32>
  %y = "versa.add"(%a, %b) : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %y : tensor<?x4x?x16xf32>
}"""

# A 1 facing a `?`: the expensive exp is stored (DYNAMIC), the cheap neg fuses and is
# recomputed per row; both dims of the nest dynamic.
ONE_AGAINST_DYNAMIC = """
func.func @one(%a: tensor<1x?xf32>, %x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = "versa.exp"(%a) : (tensor<1x?xf32>) -> tensor<1x?xf32>
  %1 = "versa.add"(%0, %x) : (tensor<1x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = "versa.relu"(%1) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = "versa.neg"(%a) : (tensor<1x?xf32>) -> tensor<1x?xf32>
  %4 = "versa.mul"(%3, %x) : (tensor<1x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %5 = "versa.tanh"(%4) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %2, %5 : tensor<?x?xf32>, tensor<?x?xf32>
}"""

# A BERT linear's epilogue under dynamic rows: bias, GELU, residual.
EPILOGUE = """
func.func @linear(%a: tensor<?x64xf32>, %w: tensor<64x48xf32>, %b: tensor<48xf32>,
                  %r: tensor<?x48xf32>) -> tensor<?x48xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<?x64xf32>, tensor<64x48xf32>) -> tensor<?x48xf32>
  %1 = "versa.add"(%0, %b) : (tensor<?x48xf32>, tensor<48xf32>) -> tensor<?x48xf32>
  %2 = "versa.gelu"(%1) {approximate = "none"} : (tensor<?x48xf32>) -> tensor<?x48xf32>
  %3 = "versa.add"(%2, %r) : (tensor<?x48xf32>, tensor<?x48xf32>) -> tensor<?x48xf32>
  return %3 : tensor<?x48xf32>
}"""

# batch_norm with dynamic batch and channels: its per-channel parameters are reshaped to
# [C, 1, 1] in the group's generic with C read at run time.
BATCH_NORM = """
func.func @bn(%x: tensor<?x?x5x5xf32>, %r: tensor<?x?x5x5xf32>, %s: tensor<?xf32>, %b: tensor<?xf32>,
              %m: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?x?x5x5xf32> {
  %0 = "versa.add"(%x, %r) : (tensor<?x?x5x5xf32>, tensor<?x?x5x5xf32>) -> tensor<?x?x5x5xf32>
  %1 = "versa.abs"(%v) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = "versa.batch_norm"(%0, %s, %b, %m, %1) {epsilon = 1.0e-03 : f32, layout = "NCHW"}
      : (tensor<?x?x5x5xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?x5x5xf32>
  %3 = "versa.relu"(%2) : (tensor<?x?x5x5xf32>) -> tensor<?x?x5x5xf32>
  return %3 : tensor<?x?x5x5xf32>
}"""


def _batch(n: int) -> int:
    return 3 if n == 7 else 1  # a batch above 1 at one size: `?` batch dims vary too


PROGRAMS = {  # name: (text, its groups' kinds after versa-fuse, the argument shapes at size n)
    "layer": (
        LAYER,
        ["reduction", "elementwise", "elementwise"],
        lambda n: [(_batch(n), n, 64), (_batch(n), n, 64), (64,), (_batch(n), n, 64)],
    ),
    "rope": (ROPE, ["elementwise"], lambda n: [(_batch(n), 4, n, 16)] * 2 + [(1, 1, n, 16)]),
    "one_against_dynamic": (
        ONE_AGAINST_DYNAMIC,
        ["elementwise", "elementwise"],
        lambda n: [(1, n), (_batch(n) + n, n)],
    ),
    "epilogue": (EPILOGUE, ["epilogue"], lambda n: [(n, 64), (64, 48), (48,), (n, 48)]),
    "batch_norm": (BATCH_NORM, ["reduction"], lambda n: [(2, n, 5, 5)] * 2 + [(n,)] * 4),
}


def _parse(text: str):
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


@pytest.mark.parametrize("name", PROGRAMS)
def test_dynamic_ops_form_the_groups_static_ones_do(name: str) -> None:
    text, kinds, _ = PROGRAMS[name]
    assert _fused_kinds(text) == kinds


def test_the_layer_leaves_no_elementwise_op_outside_a_group() -> None:
    """Every op of the Llama layer is in a group (the constant aside): RMSNorm, SiLU * norm and
    the residual adds are 3 loop nests (as in a static compile), not 12 ops of their own."""
    module = compiler.compile_text(LAYER, "versa-fuse")
    body = find_function(module, None).regions[0].blocks[0].operations
    names = [op.operation.name for op in body]
    assert names.count("versa.fused") == 3
    assert set(names) == {"versa.fused", "versa.constant", "func.return"}


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", PROGRAMS)
def test_one_compile_matches_the_reference_at_every_size(name: str, pipeline: str) -> None:
    text, _, shapes = PROGRAMS[name]
    compiled = JitFunction(_parse(text), pipeline=pipeline, cache=False)
    module = _parse(text)  # the reference function lives as long as its module
    function = find_function(module, None)
    allowed = tolerance.for_function(function)
    rng = np.random.default_rng(0)
    for n in SIZES:
        inputs = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes(n)]
        want = interpret(function, inputs)
        got = compiled(*inputs)
        for index, (g, w, tol) in enumerate(zip(got, want, allowed, strict=True)):
            assert g.shape == w.shape, f"{name} result {index} at size {n}"
            failure = tolerance.check(np.asarray(g), w, tol)
            assert failure is None, f"{name} result {index} at size {n}: {failure}"
