"""The README's main job: compile an example model without and with versa-fuse, run both,
and report agreement (with each other and with the NumPy reference) and median times.

    python -m versa.example examples/mlp.mlir
"""

import statistics
import sys
from dataclasses import dataclass

import numpy as np

from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction, TensorSpec, find_function
from versa.diagnostics import CompileError
from versa.reference import interpret

REPEAT = 20
RTOL, ATOL = 1e-4, 1e-5


@dataclass
class Variant:
    label: str
    pipeline: str
    outputs: list[np.ndarray]
    median_ms: float
    fused_groups: int


def _parse(text: str):
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def run_variant(text: str, label: str, fuse: bool, inputs: list[np.ndarray]) -> Variant:
    """Compile (fusing first if asked), run, and time one variant of the model."""
    module = _parse(text)
    if fuse:
        compiler.run_passes(module, compiler.parse_pipeline("versa-fuse"))
    groups = str(module).count('"versa.fused"')
    jit = JitFunction(module, pipeline="lower-to-llvm")
    outputs = jit(*inputs)
    times = jit.time(inputs, REPEAT)
    pipeline = "versa-fuse,lower-to-llvm" if fuse else "lower-to-llvm"
    return Variant(label, pipeline, outputs, statistics.median(times) * 1e3, groups)


def agreement(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[bool, float]:
    ok = all(np.allclose(x, y, rtol=RTOL, atol=ATOL) for x, y in zip(a, b, strict=True))
    worst = max(float(np.max(np.abs(x.astype(np.float64) - y))) for x, y in zip(a, b, strict=True))
    return ok, worst


def main(argv: list[str]) -> int:
    path = argv[0] if argv else "examples/mlp.mlir"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        module = _parse(text)
        function = find_function(module, None)
        specs = [TensorSpec.of(t) for t in function.type.inputs]
        rng = np.random.default_rng(0)
        inputs = [rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in specs]
        reference = interpret(function, inputs)
        variants = [
            run_variant(text, "unfused", False, inputs),
            run_variant(text, "fused", True, inputs),
        ]
    except CompileError as err:
        sys.stderr.write(err.format(path) + "\n")
        return 1
    print(f"Versa example: {path} (@{function.attributes['sym_name'].value}, {len(specs)} inputs, seed 0)")
    print(f"{'variant':<10} {'pipeline':<28} {'fused groups':>12} {'median ms':>10} {'vs NumPy':>22}")
    status = 0
    for v in variants:
        ok, worst = agreement(v.outputs, reference)
        status |= 0 if ok else 1
        print(
            f"{v.label:<10} {v.pipeline:<28} {v.fused_groups:>12} {v.median_ms:>10.3f} "
            f"{('OK' if ok else 'MISMATCH') + f' (max {worst:.2g})':>22}"
        )
    ok, worst = agreement(variants[0].outputs, variants[1].outputs)
    status |= 0 if ok else 1
    print(
        f"fused vs unfused: {'agree' if ok else 'DISAGREE'} (max abs difference {worst:.3g}, "
        f"rtol {RTOL}, atol {ATOL}); median of {REPEAT} runs each; "
        f"speed-up {variants[0].median_ms / variants[1].median_ms:.2f}x"
    )
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
