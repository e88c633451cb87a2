"""versa-fuse: the kinds of group it makes, their numerics through the real pipelines at every
optimisation level, and the pass's semantics on every example program and on random programs
(the NumPy reference before and after the pass, the verifier after every pass).

Tolerance: the reference interprets a fused region op by op, so before/after agree exactly;
the JIT's results are compared with `versa.tolerance` (scaled with the reduction length)."""

from pathlib import Path

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.fuzz.generate import generate
from versa.fuzz.mutate import load_corpus
from versa.fuzz.program import Program
from versa.mlir import ir
from versa.passes.common.base import collect
from versa.reference import interpret

ROOT = Path(__file__).resolve().parents[3]
PIPELINES = [
    "versa-fuse,lower-to-llvm{opt-level=0}",
    "versa-fuse,lower-to-llvm{opt-level=1}",
    "versa-fuse,lower-to-llvm{opt-level=3 threads=1}",
    "versa-fuse,lower-to-llvm{opt-level=3 threads=2}",
]

EPILOGUE = """
func.func @main(%a: tensor<37x70xf32>, %w: tensor<70x45xf32>, %bias: tensor<45xf32>, %r: tensor<37x45xf32>)
    -> tensor<37x45xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<37x70xf32>, tensor<70x45xf32>) -> tensor<37x45xf32>
  %1 = "versa.add"(%0, %bias) : (tensor<37x45xf32>, tensor<45xf32>) -> tensor<37x45xf32>
  %2 = "versa.gelu"(%1) {approximate = "tanh"} : (tensor<37x45xf32>) -> tensor<37x45xf32>
  %3 = "versa.add"(%2, %r) : (tensor<37x45xf32>, tensor<37x45xf32>) -> tensor<37x45xf32>
  return %3 : tensor<37x45xf32>
}"""


def _conv_epilogue(layout: str) -> str:
    x, w, y, b = (
        ("1x8x13x13", "16x8x3x3", "1x16x13x13", "16x1x1")
        if layout == "NCHW"
        else ("1x13x13x8", "3x3x8x16", "1x13x13x16", "16")
    )
    return f"""
func.func @main(%x: tensor<{x}xf32>, %w: tensor<{w}xf32>, %b: tensor<{b}xf32>) -> tensor<{y}xf32> {{
  %0 = "versa.conv2d"(%x, %w) {{padding = array<i64: 1, 1, 1, 1>, layout = "{layout}"}}
      : (tensor<{x}xf32>, tensor<{w}xf32>) -> tensor<{y}xf32>
  %1 = "versa.add"(%0, %b) : (tensor<{y}xf32>, tensor<{b}xf32>) -> tensor<{y}xf32>
  %2 = "versa.clamp"(%1) {{min = 0.0 : f32, max = 6.0 : f32}} : (tensor<{y}xf32>) -> tensor<{y}xf32>
  return %2 : tensor<{y}xf32>
}}"""


def _reduction(op: str, axes: str, keepdims: str, out: str) -> str:
    return f"""
func.func @main(%x: tensor<6x33x17xf32>, %s: tensor<17xf32>) -> tensor<{out}xf32> {{
  %0 = "versa.mul"(%x, %s) : (tensor<6x33x17xf32>, tensor<17xf32>) -> tensor<6x33x17xf32>
  %1 = "versa.abs"(%0) : (tensor<6x33x17xf32>) -> tensor<6x33x17xf32>
  %2 = "versa.{op}"(%1) {{axes = array<i64: {axes}>, keepdims = {keepdims}}}
      : (tensor<6x33x17xf32>) -> tensor<{out}xf32>
  return %2 : tensor<{out}xf32>
}}"""


def _batch_norm(layout: str) -> str:
    t, c = ("2x5x7x9", "5x1x1") if layout == "NCHW" else ("2x7x9x5", "5")
    return f"""
func.func @main(%x: tensor<{t}xf32>, %r: tensor<{t}xf32>, %s: tensor<5xf32>, %b: tensor<5xf32>,
                %m: tensor<5xf32>, %v: tensor<5xf32>, %c: tensor<{c}xf32>) -> tensor<{t}xf32> {{
  %0 = "versa.add"(%x, %r) : (tensor<{t}xf32>, tensor<{t}xf32>) -> tensor<{t}xf32>
  %1 = "versa.abs"(%v) : (tensor<5xf32>) -> tensor<5xf32>
  %2 = "versa.batch_norm"(%0, %s, %b, %m, %1) {{epsilon = 1.0e-03 : f32, layout = "{layout}"}}
      : (tensor<{t}xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<{t}xf32>
  %3 = "versa.add"(%2, %c) : (tensor<{t}xf32>, tensor<{c}xf32>) -> tensor<{t}xf32>
  %4 = "versa.relu"(%3) : (tensor<{t}xf32>) -> tensor<{t}xf32>
  return %4 : tensor<{t}xf32>
}}"""


SHARED_PRODUCER = """
func.func @main(%x: tensor<8x40xf32>, %b: tensor<40xf32>) -> (tensor<8x40xf32>, tensor<8xf32>) {
  %0 = "versa.mul"(%b, %b) : (tensor<40xf32>, tensor<40xf32>) -> tensor<40xf32>
  %1 = "versa.add"(%x, %0) : (tensor<8x40xf32>, tensor<40xf32>) -> tensor<8x40xf32>
  %2 = "versa.exp"(%1) : (tensor<8x40xf32>) -> tensor<8x40xf32>
  %3 = "versa.reduce_max"(%1) {axes = array<i64: 1>} : (tensor<8x40xf32>) -> tensor<8xf32>
  return %2, %3 : tensor<8x40xf32>, tensor<8xf32>
}"""

# SiLU on a depthwise convolution, read by a mean and by the scale it yields (squeeze-excite):
# the convolution's result is read twice inside its epilogue (x * sigmoid(x)).
SQUEEZE_EXCITE = """
func.func @main(%x: tensor<2x9x9x16xf32>, %w: tensor<3x3x1x16xf32>, %b: tensor<16xf32>)
    -> tensor<2x9x9x16xf32> {
  %0 = "versa.conv2d"(%x, %w) {padding = array<i64: 1, 1, 1, 1>, groups = 16 : i64, layout = "NHWC"}
      : (tensor<2x9x9x16xf32>, tensor<3x3x1x16xf32>) -> tensor<2x9x9x16xf32>
  %1 = "versa.add"(%0, %b) : (tensor<2x9x9x16xf32>, tensor<16xf32>) -> tensor<2x9x9x16xf32>
  %2 = "versa.sigmoid"(%1) : (tensor<2x9x9x16xf32>) -> tensor<2x9x9x16xf32>
  %3 = "versa.mul"(%1, %2) : (tensor<2x9x9x16xf32>, tensor<2x9x9x16xf32>) -> tensor<2x9x9x16xf32>
  %4 = "versa.reduce_mean"(%3) {axes = array<i64: 1, 2>, keepdims = true}
      : (tensor<2x9x9x16xf32>) -> tensor<2x1x1x16xf32>
  %5 = "versa.sigmoid"(%4) : (tensor<2x1x1x16xf32>) -> tensor<2x1x1x16xf32>
  %6 = "versa.mul"(%3, %5) : (tensor<2x9x9x16xf32>, tensor<2x1x1x16xf32>) -> tensor<2x9x9x16xf32>
  return %6 : tensor<2x9x9x16xf32>
}"""

PROGRAMS = {
    "epilogue_matmul": (EPILOGUE, ["epilogue"]),
    "epilogue_conv_nchw": (_conv_epilogue("NCHW"), ["epilogue"]),
    "epilogue_conv_nhwc": (_conv_epilogue("NHWC"), ["epilogue"]),
    "reduce_sum_inner": (_reduction("reduce_sum", "2", "false", "6x33"), ["reduction"]),
    "reduce_mean_outer_keep": (_reduction("reduce_mean", "0, 1", "true", "1x1x17"), ["reduction"]),
    "reduce_max_middle": (_reduction("reduce_max", "1", "false", "6x17"), ["reduction"]),
    "batch_norm_nchw": (_batch_norm("NCHW"), ["reduction"]),
    "batch_norm_nhwc": (_batch_norm("NHWC"), ["reduction"]),
    "shared_cheap_producer": (SHARED_PRODUCER, ["elementwise", "reduction"]),
    "squeeze_excite": (SQUEEZE_EXCITE, ["epilogue"]),
}


def _fused_kinds(text: str) -> list[str]:
    module = compiler.compile_text(text, "versa-fuse")
    groups = collect(module.operation, lambda o: o.name == "versa.fused")
    return [op.attributes["kind"].value for op in groups]


@pytest.mark.parametrize("name", PROGRAMS)
def test_groups_have_the_expected_kinds(name: str) -> None:
    text, kinds = PROGRAMS[name]
    assert _fused_kinds(text) == kinds


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", PROGRAMS)
def test_fused_groups_run(name: str, pipeline: str) -> None:
    text = PROGRAMS[name][0]
    compiled = Compiled(text, pipeline)
    inputs = compiled.random_inputs()
    got = compiled.jit(*inputs)
    got = got if isinstance(got, tuple | list) else [got]
    for value, want in zip(got, reference(text, inputs), strict=True):
        tol = tolerance.for_op("matmul", "f32", reduction=128)
        assert tolerance.check(value, want, tol) is None


def test_bundled_mlp_gets_its_epilogues() -> None:
    kinds = _fused_kinds((ROOT / "examples" / "mlp.mlir").read_text())
    assert kinds and set(kinds) == {"epilogue"}


def _programs() -> list[Program]:
    corpus = load_corpus([ROOT / "test" / "Transforms", ROOT / "test" / "Conversion", ROOT / "examples"])
    return corpus[:80] + [generate(seed) for seed in range(120)]


@pytest.mark.parametrize("passes", ["versa-fuse", "versa-canonicalize,versa-fuse", "versa-fuse{max-ops=2}"])
def test_fuse_preserves_semantics(passes: str) -> None:
    """The NumPy reference gives the same results before and after the pass, on the examples
    and on random programs; the pass manager verifies the IR after every pass."""
    rng = np.random.default_rng(0)
    grouped = 0
    for program in _programs():
        text = program.text()
        before = compiler.parse_module(compiler.Chunk(text, 1), make_context())
        function = find_function(before, None)
        inputs = [_random(t, rng) for t in function.type.inputs]
        want = interpret(function, inputs)
        after = compiler.compile_text(text, passes)
        grouped += len(collect(after.operation, lambda o: o.name == "versa.fused"))
        got = interpret(find_function(after, None), inputs)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=text)
    assert grouped > 50


def _random(t: ir.Type, rng: np.random.Generator) -> np.ndarray:
    from versa.cpu.runtime import TensorSpec

    spec = TensorSpec.of(t)
    if np.issubdtype(spec.dtype, np.floating):
        return rng.uniform(-2, 2, spec.shape).astype(spec.dtype)
    if spec.dtype == np.bool_:
        return rng.integers(0, 2, spec.shape).astype(np.bool_)
    return rng.integers(-5, 6, spec.shape).astype(spec.dtype)
