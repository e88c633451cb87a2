"""Tensors with a zero-size dim (issue 17) through every pipeline: -O0 to -O3, fused and
unfused, one thread and two. Each program must compile and match the NumPy reference (the
fuzz oracle's verdict), and ops without elements get no row kernel, codegen strategy or
out-of-bounds slice. The fuzzer's pipelines run the regression cases under lit; this adds
the single-threaded -O3 pipelines and a program per op family the fuzzer rarely reaches."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SERIAL = {
    "O3-serial": "lower-to-llvm{opt-level=3 threads=1}",
    "fused-serial": "versa-optimize,lower-to-llvm{opt-level=3 threads=1}",
}
# The oracle in a subprocess (a crash in the compiler or the JIT code must fail one case, not
# end the test run), with the fuzzer's pipelines and the serial ones.
CHILD = f"""
import json, sys
from versa.fuzz import oracle
oracle.PIPELINES.update({SERIAL!r})
verdicts = oracle.judge(sys.stdin.read(), list(oracle.PIPELINES), on_stage=lambda _: None)
print(json.dumps([[v.status, v.kind, v.pipeline, v.message] for v in verdicts]))
"""

# name: (argument types, body whose last result %N is returned, result type)
PROGRAMS = {
    "matmul_m0": (
        "tensor<0x3xf32>, tensor<3x4xf32>",
        '%0 = "versa.matmul"(%a0, %a1) : (tensor<0x3xf32>, tensor<3x4xf32>) -> tensor<0x4xf32>',
        "tensor<0x4xf32>",
    ),
    "matmul_k0_bias_relu": (  # a zero result through the epilogue's consumer
        "tensor<32x0xf32>, tensor<0x64xf32>, tensor<32x64xf32>",
        '%0 = "versa.matmul"(%a0, %a1) : (tensor<32x0xf32>, tensor<0x64xf32>) -> tensor<32x64xf32>\n'
        '%1 = "versa.add"(%0, %a2) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>\n'
        '%2 = "versa.relu"(%1) : (tensor<32x64xf32>) -> tensor<32x64xf32>',
        "tensor<32x64xf32>",
    ),
    "batch_matmul_k0": (
        "tensor<4x16x0xf32>, tensor<4x0x32xf32>",
        '%0 = "versa.matmul"(%a0, %a1) : (tensor<4x16x0xf32>, tensor<4x0x32xf32>) -> tensor<4x16x32xf32>',
        "tensor<4x16x32xf32>",
    ),
    "conv2d_channels0": (  # C = 0: a zero result
        "tensor<1x0x5x5xf32>, tensor<3x0x3x3xf32>",
        '%0 = "versa.conv2d"(%a0, %a1) : (tensor<1x0x5x5xf32>, tensor<3x0x3x3xf32>) -> tensor<1x3x3x3xf32>',
        "tensor<1x3x3x3xf32>",
    ),
    "conv2d_nhwc_batch0_bias_relu": (
        "tensor<0x8x8x8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>",
        '%0 = "versa.conv2d"(%a0, %a1) {padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} '
        ": (tensor<0x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<0x8x8x8xf32>\n"
        '%1 = "versa.add"(%0, %a2) : (tensor<0x8x8x8xf32>, tensor<8xf32>) -> tensor<0x8x8x8xf32>\n'
        '%2 = "versa.relu"(%1) : (tensor<0x8x8x8xf32>) -> tensor<0x8x8x8xf32>',
        "tensor<0x8x8x8xf32>",
    ),
    "conv_transpose2d_batch0": (
        "tensor<0x4x5x5xf32>, tensor<4x3x3x3xf32>",
        '%0 = "versa.conv_transpose2d"(%a0, %a1) {strides = array<i64: 2, 2>} '
        ": (tensor<0x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<0x3x11x11xf32>",
        "tensor<0x3x11x11xf32>",
    ),
    "max_pool2d_channels0": (
        "tensor<2x0x16x16xf32>",
        '%0 = "versa.max_pool2d"(%a0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} '
        ": (tensor<2x0x16x16xf32>) -> tensor<2x0x8x8xf32>",
        "tensor<2x0x8x8xf32>",
    ),
    "reduce_sum_empty_axis": (  # zeros
        "tensor<64x0xf32>",
        '%0 = "versa.reduce_sum"(%a0) {axes = array<i64: 1>} : (tensor<64x0xf32>) -> tensor<64xf32>',
        "tensor<64xf32>",
    ),
    "softmax_rows0_layer_norm_rows0": (
        "tensor<0x16xf32>, tensor<16xf32>",
        '%0 = "versa.softmax"(%a0) {axis = -1 : i64} : (tensor<0x16xf32>) -> tensor<0x16xf32>\n'
        '%1 = "versa.layer_norm"(%0, %a1, %a1) {axis = -1 : i64, epsilon = 1.0e-05 : f32} '
        ": (tensor<0x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<0x16xf32>",
        "tensor<0x16xf32>",
    ),
    "layer_norm_empty_rows_then_matmul": (  # 64 rows of length 0, then a K = 0 matmul: zeros
        "tensor<64x0xf32>, tensor<0xf32>, tensor<0x8xf32>",
        '%0 = "versa.layer_norm"(%a0, %a1, %a1) {axis = -1 : i64, epsilon = 1.0e-05 : f32} '
        ": (tensor<64x0xf32>, tensor<0xf32>, tensor<0xf32>) -> tensor<64x0xf32>\n"
        '%1 = "versa.matmul"(%0, %a2) : (tensor<64x0xf32>, tensor<0x8xf32>) -> tensor<64x8xf32>',
        "tensor<64x8xf32>",
    ),
    "slice_at_end_concat": (  # starts = limits = 4: an empty piece at the end of a concat
        "tensor<4x3xf32>",
        '%0 = "versa.slice"(%a0) {starts = array<i64: 4, 0>, limits = array<i64: 4, 3>} '
        ": (tensor<4x3xf32>) -> tensor<0x3xf32>\n"
        '%1 = "versa.concat"(%a0, %0) {axis = 0 : i64} '
        ": (tensor<4x3xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>",
        "tensor<4x3xf32>",
    ),
    "pad_of_empty": (
        "tensor<0x3xf32>",
        '%0 = "versa.pad"(%a0) {low = array<i64: 1, 1>, high = array<i64: 1, 1>, value = 1.5 : f32} '
        ": (tensor<0x3xf32>) -> tensor<2x5xf32>",
        "tensor<2x5xf32>",
    ),
}


def program(arguments: str, body: str, result: str) -> str:
    types = re.findall(r"tensor<[^>]*>", arguments)
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    last = re.findall(r"^(%\d+) =", body, re.M)[-1]
    lines = "\n".join(f"  {line}" for line in body.splitlines())
    return f"func.func @main({params}) -> {result} {{\n{lines}\n  return {last} : {result}\n}}\n"


def regressions() -> dict[str, str]:
    """The saved fuzz cases on empty tensors (a dim of size 0 in the function's signature)."""
    cases = sorted((ROOT / "test/Fuzz/regressions").glob("*.mlir"))
    texts = {path.stem: path.read_text() for path in cases}
    return {name: text for name, text in texts.items() if re.search(r"func\.func[^\n]*[<x]0x", text)}


CASES = {**regressions(), **{name: program(*spec) for name, spec in PROGRAMS.items()}}


def test_the_empty_tensor_regressions_are_found():
    assert len(regressions()) >= 7


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_tensors_in_every_pipeline(name):
    child = subprocess.run(
        [sys.executable, "-c", CHILD], input=CASES[name], capture_output=True, text=True, timeout=300
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert json.loads(child.stdout.splitlines()[-1]) == [["ok", "", "", ""]]
