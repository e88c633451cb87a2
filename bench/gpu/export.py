"""Compile the GPU check suite and benchmarks to Programs (PTX + launch plans), here.

A GPU machine may lack MLIR (and this Python): what runs there is `device.py`, which needs only
NumPy, cuda-bindings and torch. This script writes `<out>/cases.json` (every op of the numeric
suite, the fused kinds and the example model, with NumPy-reference outputs in `cases.npz`) and
`<out>/bench.json` (the benchmark kernels; their references are computed by torch there).

    .venv/bin/python bench/gpu/export.py build/gpu --target nvptx-sm90
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# The GPU test cases and the op cases they build on (as pytest's `pythonpath` finds them)
sys.path[:0] = [str(ROOT / "test" / "python" / folder) for folder in ("", "gpu", "passes")]

from test_gpu import LONG_REDUCTIONS  # noqa: E402
from test_gpu_conv import CONV_CASES  # noqa: E402
from test_gpu_kernels import NUMPY, TRANSPOSES, bf16_matmul, transpose  # noqa: E402
from test_lowering_numerics import (  # noqa: E402
    DATA_MOVEMENT,
    DTYPES,
    ELEMENTWISE,
    RNG_SEED,
    STRUCTURED,
    TRANSCENDENTAL,
    element_name,
    make_input,
    single_op,
)
from versa import compiler, reference, targets  # noqa: E402
from versa.context import make_context  # noqa: E402
from versa.dialects.semantics import evaluate  # noqa: E402
from versa.gpu import compile_gpu  # noqa: E402

BENCH = {
    # name: (versa IR, {torch expression over inputs x0, x1, ...}, bytes moved, flops)
    "fused_elementwise_16M": (
        """func.func @main(%x: tensor<16777216xf32>, %a: tensor<16777216xf32>, %b: tensor<16777216xf32>)
    -> tensor<16777216xf32> {
  %0 = "versa.mul"(%x, %a) : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  %1 = "versa.add"(%0, %b) : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  %2 = "versa.relu"(%1) : (tensor<16777216xf32>) -> tensor<16777216xf32>
  %3 = "versa.sigmoid"(%x) : (tensor<16777216xf32>) -> tensor<16777216xf32>
  %4 = "versa.mul"(%2, %3) : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  return %4 : tensor<16777216xf32>
}""",
        "torch.relu(x0 * x1 + x2) * torch.sigmoid(x0)",
        4 * 4 * 16777216,
        0,
    ),
    "matmul_4096": (
        """func.func @main(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}""",
        "x0 @ x1",
        3 * 4 * 4096 * 4096,
        2 * 4096**3,
    ),
    "matmul_4096_tf32": (
        """func.func @main(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}""",
        "x0 @ x1",
        3 * 4 * 4096 * 4096,
        2 * 4096**3,
    ),
    "matmul_8192x768x3072_tf32": (  # a transformer's FFN up-projection, 8192 tokens
        """func.func @main(%a: tensor<8192x768xf32>, %b: tensor<768x3072xf32>) -> tensor<8192x3072xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<8192x768xf32>, tensor<768x3072xf32>) -> tensor<8192x3072xf32>
  return %0 : tensor<8192x3072xf32>
}""",
        "x0 @ x1",
        4 * (8192 * 768 + 768 * 3072 + 8192 * 3072),
        2 * 8192 * 768 * 3072,
    ),
    "bmm_32x1024x64x1024_tf32": (  # attention scores: 32 heads, K = 64
        """func.func @main(%a: tensor<32x1024x64xf32>, %b: tensor<32x64x1024xf32>)
    -> tensor<32x1024x1024xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<32x1024x64xf32>, tensor<32x64x1024xf32>) -> tensor<32x1024x1024xf32>
  return %0 : tensor<32x1024x1024xf32>
}""",
        "x0 @ x1",
        4 * 32 * (2 * 1024 * 64 + 1024 * 1024),
        2 * 32 * 1024 * 1024 * 64,
    ),
    "matmul_4096_bf16": (  # bf16 inputs (cast from f32 in the program, as torch does here), f32 accumulation
        """func.func @main(%a32: tensor<4096x4096xf32>, %b32: tensor<4096x4096xf32>)
    -> tensor<4096x4096xf32> {
  %a = "versa.cast"(%a32) : (tensor<4096x4096xf32>) -> tensor<4096x4096xbf16>
  %b = "versa.cast"(%b32) : (tensor<4096x4096xf32>) -> tensor<4096x4096xbf16>
  %0 = "versa.matmul"(%a, %b) : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  %1 = "versa.cast"(%0) : (tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %1 : tensor<4096x4096xf32>
}""",
        "(x0.bfloat16() @ x1.bfloat16()).float()",
        3 * 4 * 4096 * 4096,
        2 * 4096**3,
    ),
    "transpose_4096": (  # tiled through shared memory (versa-gpu-transpose)
        """func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = "versa.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}""",
        "x0.t().contiguous()",
        2 * 4 * 4096 * 4096,
        0,
    ),
    "nchw_to_nhwc_64x256x56x56": (
        """func.func @main(%x: tensor<64x256x56x56xf32>) -> tensor<64x56x56x256xf32> {
  %0 = "versa.transpose"(%x) {perm = array<i64: 0, 2, 3, 1>}
      : (tensor<64x256x56x56xf32>) -> tensor<64x56x56x256xf32>
  return %0 : tensor<64x56x56x256xf32>
}""",
        "x0.permute(0, 2, 3, 1).contiguous()",
        2 * 4 * 64 * 256 * 56 * 56,
        0,
    ),
    "softmax_4096x1024": (
        """func.func @main(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = "versa.softmax"(%x) {axis = 1 : i64} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}""",
        "torch.softmax(x0, dim=1)",
        2 * 4 * 4096 * 1024,
        0,
    ),
    "layer_norm_4096x1024": (
        """func.func @main(%x: tensor<4096x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>)
    -> tensor<4096x1024xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<4096x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}""",
        "torch.nn.functional.layer_norm(x0, (1024,), x1, x2, 1e-5)",
        2 * 4 * 4096 * 1024,
        0,
    ),
    "conv3x3_nhwc_32x56x56x64": (
        """func.func @main(%x: tensor<32x56x56x64xf32>, %w: tensor<3x3x64x64xf32>)
    -> tensor<32x56x56x64xf32> {
  %0 = "versa.conv2d"(%x, %w) {padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"}
      : (tensor<32x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<32x56x56x64xf32>
  return %0 : tensor<32x56x56x64xf32>
}""",
        "torch.nn.functional.conv2d(x0.permute(0, 3, 1, 2), x1.permute(3, 2, 0, 1), padding=1)"
        ".permute(0, 2, 3, 1)",
        4 * (2 * 32 * 56 * 56 * 64 + 3 * 3 * 64 * 64),
        2 * 32 * 56 * 56 * 64 * 64 * 9,
    ),
    "reduce_sum_rows_4096x4096": (
        """func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<4096x4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}""",
        "x0.sum(dim=1)",
        4 * 4096 * 4096,
        0,
    ),
}


TF32 = "high"  # lower-to-nvvm's matmul precision for TF32 tensor cores; torch: allow_tf32


def compile_text(
    text: str, target: targets.Target, pipeline: str = "", matmul_precision: str = "highest"
) -> dict:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return json.loads(compile_gpu(module, target, None, pipeline, matmul_precision).to_json())


def tf32_cases(target: targets.Target, cases: list, arrays: dict) -> None:
    """Matmuls on TF32 tensor cores: ragged tiles, batches, K not a multiple of the K step. TF32
    rounds inputs to 10 mantissa bits, so errors are checked against the output's scale."""
    rng = np.random.default_rng(RNG_SEED)
    for batch, m, k, n in (
        (0, 200, 132, 260),
        (0, 128, 32, 128),
        (3, 64, 40, 96),
        (0, 1, 4, 4),
        (2, 130, 516, 68),
    ):
        lead = [batch] if batch else []
        a, b = (rng.standard_normal(lead + s).astype(np.float32) for s in ([m, k], [k, n]))
        ta, tb, tc = (f"tensor<{'x'.join(map(str, lead + s))}xf32>" for s in ([m, k], [k, n], [m, n]))
        text = (
            f"func.func @main(%a: {ta}, %b: {tb}) -> {tc} {{\n"
            f'  %0 = "versa.matmul"(%a, %b) : ({ta}, {tb}) -> {tc}\n  return %0 : {tc}\n}}'
        )
        want = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
        name = f"tf32-matmul-{'x'.join(map(str, lead + [m, k, n]))}"
        add_case(cases, arrays, name, compile_text(text, target, "", TF32), [a, b], [want], 0.0)
        cases[-1]["atol"] = float(5e-3 * np.abs(want).max())


def bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16 (to nearest even), as versa.cast (arith.truncf) does."""
    bits = x.astype(np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return rounded.view(np.float32)


def bf16_cases(target: targets.Target, cases: list, arrays: dict) -> None:
    """bf16 matmuls (f32 accumulation; on sm_90 warpgroup MMAs): inputs cast from f32 in the
    program, the result rounded to bf16 and back. Checked to 1e-2 of the output's scale."""
    rng = np.random.default_rng(RNG_SEED)
    for batch, m, k, n in ((0, 200, 136, 260), (0, 128, 64, 128), (3, 64, 40, 96), (2, 130, 520, 68)):
        lead = [batch] if batch else []
        a, b = (rng.standard_normal(lead + s).astype(np.float32) for s in ([m, k], [k, n]))
        text = bf16_matmul(m, k, n, batch)
        want = np.matmul(bf16(a).astype(np.float64), bf16(b)).astype(np.float32)
        name = f"bf16-matmul-{'x'.join(map(str, lead + [m, k, n]))}"
        add_case(cases, arrays, name, compile_text(text, target), [a, b], [want], 0.0)
        cases[-1]["atol"] = float(1e-2 * np.abs(want).max())


def suite(target: targets.Target, arrays: dict) -> list[dict]:
    cases = []
    for param in ELEMENTWISE + STRUCTURED + DATA_MOVEMENT + LONG_REDUCTIONS + CONV_CASES:
        op, shapes, kinds, out, shape, attrs = param.values
        rng = np.random.default_rng(RNG_SEED)
        inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
        out = out or element_name(inputs[0].dtype)
        text, parsed, result_shape = single_op(op, inputs, attrs, out, shape)
        want = evaluate(op, inputs, parsed, result_shape, DTYPES[out])
        rtol = 1e-2 if want.dtype == np.float16 else 1e-4 if op in TRANSCENDENTAL else 1e-5
        add_case(cases, arrays, param.id, compile_text(text, target), inputs, [want], rtol)
    example = (ROOT / "examples" / "mlp.mlir").read_text()
    rng = np.random.default_rng(RNG_SEED)
    module = compiler.parse_module(compiler.Chunk(example, 1), make_context())
    function = [op for op in module.body.operations if op.operation.name == "func.func"][-1]
    inputs = [rng.standard_normal(t.shape).astype(np.float32) * 0.1 for t in function.type.inputs]
    want = reference.interpret(function, inputs)
    add_case(cases, arrays, "example-mlp", compile_text(example, target), inputs, want, 1e-4)
    fused = compile_text(example, target, "versa-fuse")
    add_case(cases, arrays, "example-mlp-fused", fused, inputs, want, 1e-4)
    return cases


def add_case(cases, arrays, name, program, inputs, outputs, rtol) -> None:
    for i, x in enumerate(inputs):
        arrays[f"{name}/in{i}"] = x
    for i, y in enumerate(outputs):
        arrays[f"{name}/out{i}"] = np.asarray(y)
    cases.append({"name": name, "program": program, "rtol": rtol, "atol": 1e-5 if rtol < 1e-2 else 1e-3})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--target", default="nvptx-sm90")
    args = parser.parse_args()
    target = targets.resolve(args.target)
    args.out.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, np.ndarray] = {}
    cases = suite(target, arrays)
    tf32_cases(target, cases, arrays)
    bf16_cases(target, cases, arrays)
    rng = np.random.default_rng(RNG_SEED)
    for shape, permutation, element in TRANSPOSES:  # tiled through shared memory (versa-gpu-transpose)
        x = (rng.standard_normal(shape) * 100).astype(NUMPY[element])
        name = f"tiled-transpose-{'x'.join(map(str, shape))}-{''.join(map(str, permutation))}-{element}"
        program = compile_text(transpose(shape, permutation, element), target)
        add_case(cases, arrays, name, program, [x], [np.transpose(x, permutation)], 0.0)
    (args.out / "cases.json").write_text(json.dumps(cases))
    np.savez(args.out / "cases.npz", **arrays)
    bench = [
        {
            "name": n,
            "torch": e,
            "bytes": b,
            "flops": f,
            "tf32": n.endswith("_tf32"),
            "program": compile_text(t, target, "versa-fuse", TF32 if n.endswith("_tf32") else ""),
        }
        for n, (t, e, b, f) in BENCH.items()
    ]
    (args.out / "bench.json").write_text(json.dumps(bench))
    print(f"{len(cases)} cases, {len(bench)} benchmarks → {args.out}")


if __name__ == "__main__":
    main()
