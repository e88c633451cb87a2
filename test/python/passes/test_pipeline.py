"""The CPU pipeline end to end: llvm-only output, the verifier after every step, fused ==
unfused, and the bundled example model against NumPy."""

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler
from versa.context import make_context
from versa.passes.common.base import Pass

ROOT = Path(__file__).resolve().parents[3]
MLP = (ROOT / "examples" / "mlp.mlir").read_text()

CHAIN = """
func.func @chain(%a: tensor<6x37xf32>, %b: tensor<37xf32>, %c: tensor<6x1xf32>) -> tensor<6x37xf32> {
  %0 = "versa.mul"(%a, %b) : (tensor<6x37xf32>, tensor<37xf32>) -> tensor<6x37xf32>
  %1 = "versa.add"(%0, %c) : (tensor<6x37xf32>, tensor<6x1xf32>) -> tensor<6x37xf32>
  %2 = "versa.sigmoid"(%1) : (tensor<6x37xf32>) -> tensor<6x37xf32>
  %3 = "versa.exp"(%2) : (tensor<6x37xf32>) -> tensor<6x37xf32>
  %4 = "versa.sub"(%3, %a) : (tensor<6x37xf32>, tensor<6x37xf32>) -> tensor<6x37xf32>
  %5 = "versa.relu"(%4) : (tensor<6x37xf32>) -> tensor<6x37xf32>
  %6 = "versa.reduce_sum"(%5) {axes = array<i64: 1>, keepdims = true} : (tensor<6x37xf32>) -> tensor<6x1xf32>
  %7 = "versa.div"(%5, %6) : (tensor<6x37xf32>, tensor<6x1xf32>) -> tensor<6x37xf32>
  return %7 : tensor<6x37xf32>
}
"""


def lowered_op_names(text: str, pipeline: str) -> set[str]:
    module = compiler.compile_text(text, pipeline)
    names: set[str] = set()

    def visit(op):
        names.add(op.name)
        return __import__("versa.mlir", fromlist=["ir"]).ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


@pytest.mark.parametrize(
    "pipeline", ["lower-to-llvm", "versa-fuse,lower-to-llvm", "lower-to-llvm{opt-level=0}"]
)
def test_output_is_llvm_only(pipeline):
    names = lowered_op_names(MLP, pipeline) - {"builtin.module"}
    # OpenMP regions (threads at O3) stay `omp.*` ops on llvm types until LLVM IR translation.
    assert names and all(n.startswith(("llvm.", "omp.")) for n in names), sorted(names)


@pytest.mark.parametrize("text", [MLP, CHAIN], ids=["mlp", "chain"])
def test_verifier_passes_after_every_step(text):
    """Run the pipeline one step at a time and verify the IR between steps."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    steps = compiler.parse_pipeline("versa-canonicalize,versa-fuse,lower-to-llvm")
    for step in steps:
        compiler.run_passes(module, [step])
        label = step.name if isinstance(step, Pass) else step
        assert module.operation.verify(), f"IR invalid after {label}"


@pytest.mark.parametrize("text", [MLP, CHAIN], ids=["mlp", "chain"])
def test_fused_agrees_with_unfused_and_numpy(text):
    unfused = Compiled(text, "lower-to-llvm")
    fused = Compiled(text, "versa-fuse,lower-to-llvm")
    inputs = unfused.random_inputs(seed=1)
    want = reference(text, inputs)
    got_unfused, got_fused = unfused.jit(*inputs), fused.jit(*inputs)
    for a, b, w in zip(got_unfused, got_fused, want, strict=True):
        np.testing.assert_allclose(a, w, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(b, w, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fuse_groups_the_chain_up_to_the_shared_producer():
    """mul..sub is one group: exp is expensive, and copying the cheap sub into both users of
    relu would give exp two users, stored on its own; sub is stored instead. The cheap relu is
    copied into the reduction and into the division, which are groups of their own."""
    text = str(compiler.compile_text(CHAIN, "versa-fuse"))
    regions = [text[i : text.index('"versa.yield"', i)] for i in _starts(text, '"versa.fused"')]
    ops = [[op for op in NAMES if f'"versa.{op}"' in region] for region in regions]
    assert ops == [["mul", "add", "sigmoid", "exp", "sub"], ["relu", "reduce_sum"], ["relu", "div"]]
    assert re.findall(r'kind = "(\w+)"', text) == ["elementwise", "reduction", "elementwise"]


NAMES = ("mul", "add", "sigmoid", "exp", "sub", "relu", "reduce_sum", "div")


def _starts(text: str, needle: str) -> list[int]:
    found, i = [], text.find(needle)
    while i >= 0:
        found.append(i)
        i = text.find(needle, i + 1)
    return found


def test_canonicalize_then_lower_matches_numpy():
    text = CHAIN.replace("func.func @chain", "func.func @chain_c")
    compiled = Compiled(text, "versa-canonicalize,versa-fuse,lower-to-llvm")
    inputs = compiled.random_inputs(seed=2)
    np.testing.assert_allclose(compiled.jit(*inputs)[0], reference(text, inputs)[0], rtol=1e-4, atol=1e-6)


def test_results_that_repeat_or_forward_inputs():
    """A value returned twice, an argument returned as is, and a rank-0 reduction."""
    text = """
func.func @edge(%a: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>) {
  %0 = "versa.mul"(%a, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "versa.reduce_sum"(%a) {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %a, %0, %1, %0 : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>
}
"""
    compiled = Compiled(text)
    inputs = compiled.random_inputs(seed=3)
    for got, want in zip(compiled.jit(*inputs), reference(text, inputs), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_threads_come_from_the_option_then_the_environment(monkeypatch):
    from versa.cpu import openmp
    from versa.passes.cpu.pipeline import LowerToLLVM

    if openmp.runtime_library() is None:
        assert LowerToLLVM(opt_level=3, threads=2).thread_count() == 1  # serial without a runtime
        return

    monkeypatch.setenv("VERSA_NUM_THREADS", "3")
    assert LowerToLLVM(opt_level=3, threads=2).thread_count() == 2
    assert LowerToLLVM(opt_level=3).thread_count() == 3
    assert LowerToLLVM(opt_level=2).thread_count() == 1  # threads are O3's
    monkeypatch.delenv("VERSA_NUM_THREADS")
    from versa.targets import available_cores

    assert LowerToLLVM(opt_level=3).thread_count() == available_cores()


@pytest.mark.parametrize(
    "environment, dynamic",
    [
        ({}, 0),
        ({"VERSA_FOLLOW_LOAD": "1"}, 1),
        ({"VERSA_FOLLOW_LOAD": "1", "OMP_DYNAMIC": "false"}, 0),
        ({"OMP_DYNAMIC": "true"}, 1),
    ],
)
def test_openmp_teams_are_fixed_unless_asked_to_follow_the_load(environment, dynamic):
    """A fixed team by default; with VERSA_FOLLOW_LOAD team sizes shrink while other jobs hold
    the cores (openmp.DYNAMIC_DEFAULTS, set in libiomp alone); a user's OMP_DYNAMIC wins. A fresh
    process: the runtime reads it once."""
    import os
    import subprocess
    import sys

    from versa.cpu import openmp

    if openmp.runtime_library() is None:
        pytest.skip("no OpenMP runtime: code is serial")
    probe = (
        "import ctypes; from versa.cpu import openmp; "
        "print(ctypes.CDLL(openmp.runtime_library()).omp_get_dynamic())"
    )
    unset = ("OMP_DYNAMIC", "KMP_DYNAMIC_MODE", "VERSA_FOLLOW_LOAD")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env | environment, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == str(dynamic)


def test_opt_level_out_of_range_is_an_error():
    from versa.diagnostics import CompileError

    with pytest.raises(CompileError, match="opt-level 7 is not one of 0, 1, 2, 3"):
        compiler.compile_text(MLP, "lower-to-llvm{opt-level=7}")
