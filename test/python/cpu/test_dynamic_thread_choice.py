"""A dynamic elementwise op decides per call whether to split across threads, as a static
compile of the call's size would (`versa-outline-dynamic`: a serial copy below
MIN_PARALLEL_ELEMENTS): both paths give the reference's values, for the host and for
x86-64-v3 (AVX2) code, at sizes on either side of the threshold and with ragged rows."""

import numpy as np
import pytest
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.passes.cpu.strategies.strategy import MIN_PARALLEL_ELEMENTS
from versa.reference import interpret

# Unfused (the pipelines here run no versa-fuse): each op is a function of its own.
CHAIN = """
func.func @chain(%a: tensor<?x?x64xf32>, %b: tensor<?x?x64xf32>, %c: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %1 = "versa.mul"(%0, %c) : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %2 = "versa.tanh"(%1) : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %2 : tensor<?x?x64xf32>
}"""
ROWS = MIN_PARALLEL_ELEMENTS // 64  # batch x sequence where a call starts to split
SHAPES = [(1, 16), (3, 7), (1, ROWS - 1), (1, ROWS), (2, ROWS // 2 + 3), (5, 333)]


@pytest.mark.parametrize("target", ["host", "x86-64-v3"])
def test_every_size_either_side_of_the_split(target):
    pipeline = f"lower-to-llvm{{threads=2 target={target}}}"
    with make_context(), ir.Location.unknown():
        compiled = JitFunction(ir.Module.parse(CHAIN), pipeline=pipeline, cache=False)
        kept = ir.Module.parse(CHAIN)  # the reference function lives as long as its module
        rng = np.random.default_rng(3)
        for b, s in SHAPES:
            a, x = (rng.standard_normal((b, s, 64)).astype(np.float32) for _ in range(2))
            c = rng.standard_normal(64).astype(np.float32)
            (want,) = interpret(kept.body.operations[0], [a, x, c])
            (got,) = compiled(a, x, c)
            np.testing.assert_allclose(got, np.tanh((a + x) * c), rtol=2e-6, atol=2e-6)
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
