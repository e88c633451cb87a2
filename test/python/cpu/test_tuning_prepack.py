"""The tuner's `prepack` knob (versa-pack-weights: a constant f32 B packed at compile time): the
kernel of a linear layer keeps its weight as a constant (a seeded placeholder in its text), so
pre-packing is a knob of its space; a database entry for the matmul's signature decides whether
a compile packs it, and the numerics stay NumPy's either way.

The target is named (`x86-64-v3`: AVX2, 32 KB L1); a host that cannot run it skips the runs.
Tolerances as test_packed_weights.py's: f32 sums of K products in another order than NumPy's
float64 reference, 2e-5·sqrt(K) absolute.
"""

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.options import CompileOptions
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.strategies.packed_matmul import MARK
from versa.passes.cpu.strategies.space import as_json
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint
from versa.tuning.extract import RANDOM, codegen_threads, distinct_kernels, materialize

TARGET = "x86-64-v3"
RNG = np.random.default_rng(45)


def _linear(m: int, k: int, n: int) -> tuple[str, np.ndarray, np.ndarray]:
    """A linear layer (matmul + bias) of constant weights: its text, the weight and the bias."""
    weight = RNG.uniform(-1, 1, (k, n)).astype(np.float32)
    bias = RNG.uniform(-1, 1, (n,)).astype(np.float32)
    w, b, x, y = f"tensor<{k}x{n}xf32>", f"tensor<{n}xf32>", f"tensor<{m}x{k}xf32>", f"tensor<{m}x{n}xf32>"
    text = f"""func.func @main(%a: {x}) -> {y} {{
  %w = "versa.constant"() {{value = dense<"0x{weight.tobytes().hex().upper()}"> : {w}}} : () -> {w}
  %b = "versa.constant"() {{value = dense<"0x{bias.tobytes().hex().upper()}"> : {b}}} : () -> {b}
  %0 = "versa.matmul"(%a, %w) : ({x}, {w}) -> {y}
  %1 = "versa.add"(%0, %b) : ({y}, {b}) -> {y}
  return %1 : {y}
}}"""
    return text, weight, bias


def _parse(text: str) -> ir.Module:
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def _matmul_kernel(text: str, options: CompileOptions):
    (kernel,) = (
        k for k in distinct_kernels(text, options) if k.signature.summary.startswith("linalg.matmul")
    )
    return kernel


def test_the_kernel_keeps_its_constant_weight_and_its_space_has_prepack() -> None:
    text, _, _ = _linear(64, 256, 256)  # B 256 KB: the analytic choice pre-packs it
    options = CompileOptions.create(TARGET, threads=2)
    kernels = distinct_kernels(text, options)
    kernel = _matmul_kernel(text, options)
    knob = next(k for k in kernel.space.knobs if k.name == "prepack")
    assert knob.values == (True, False)
    # B is a constant of the kernel, as a placeholder (no weights in the text), A and the bias
    # are its arguments
    assert len(kernel.text) < 5000 and "0x" not in kernel.text
    assert f"{RANDOM} = 0 : i64}} dense<0.000000e+00> : tensor<256x256xf32>" in kernel.text
    assert "func.func @kernel(%arg0: tensor<64x256xf32>, %arg1: tensor<256xf32>)" in kernel.text
    # where the kernel is parsed, the placeholder becomes the same random values every time
    values = []
    for _ in range(2):
        module = _parse(kernel.text)
        with module.context:
            materialize(module)
        assert RANDOM not in str(module)
        (constant,) = (
            op
            for op in module.body.operations[0].regions[0].blocks[0].operations
            if op.name == "arith.constant" and str(op.results[0].type) == "tensor<256x256xf32>"
        )
        values.append(np.array(ir.DenseElementsAttr(constant.attributes["value"])))
    np.testing.assert_array_equal(values[0], values[1])
    assert values[0].std() > 0.5  # random, not the splat
    # the contraction the analytic choice pre-packed is a kernel too, its panels an argument
    (packed,) = (k for k in kernels if MARK in k.text)
    assert "prepack" not in {k.name for k in packed.space.knobs}
    (header,) = (line for line in packed.text.splitlines() if "func.func @kernel(" in line)
    assert "0x" not in packed.text and "x256x" in header


def _compiled_ir(text: str, options: CompileOptions) -> str:
    """The module right before versa-codegen (versa-pack-weights has run)."""
    steps = options.passes()
    cut = next(i for i, s in enumerate(steps) if isinstance(s, VersaCodegen))
    module = _parse(text)
    with module.context:
        compiler.run_passes(module, steps[:cut])
    return str(module)


@pytest.mark.parametrize(
    "k,n,forced",
    [
        (256, 256, False),  # B 256 KB: pre-packed analytically, the entry turns it off
        (32, 64, True),  # B 8 KB (fits L1): read in place analytically, the entry packs it
    ],
)
def test_a_database_entry_decides_whether_the_weight_is_packed(
    tmp_path, k: int, n: int, forced: bool
) -> None:
    text, weight, bias = _linear(64, k, n)
    options = CompileOptions.create(TARGET, threads=2)
    kernel = _matmul_kernel(text, options)
    default = kernel.space.default()
    assert default["prepack"] != forced
    assert (MARK in _compiled_ir(text, options)) == default["prepack"]

    database = tmp_path / "tuned.json"
    point = {name: as_json(value) for name, value in {**default, "prepack": forced}.items()}
    key = (fingerprint(options.target), codegen_threads(options), kernel.signature.key, code_digest())
    TuningDb(database).save([Entry(*key, kernel.signature.summary, kernel.strategy, point, 1.0, 1.0, 1)])
    tuned = CompileOptions.create(TARGET, threads=2, tuning_db=str(database))
    compiled = _compiled_ir(text, tuned)
    assert (MARK in compiled) == forced and ("linalg.matmul" in compiled) != forced

    if not options.target.is_host:
        pytest.skip(f"this CPU cannot run {TARGET} code")
    jit = JitFunction(_parse(text), pipeline=tuned.passes(), cache=False)
    a = RNG.uniform(-1, 1, (64, k)).astype(np.float32)
    want = a.astype(np.float64) @ weight + bias
    np.testing.assert_allclose(jit(a)[0], want, rtol=1e-5, atol=2e-5 * k**0.5)


def test_a_constant_b_and_an_activation_b_of_one_shape_are_two_signatures() -> None:
    """A point with `prepack` fits only a matmul of a constant B: the signature tells them apart."""
    from versa.passes.cpu.strategies import select
    from versa.passes.cpu.strategies.signature import Signature

    weight = RNG.uniform(-1, 1, (64, 48)).astype(np.float32)
    w, x, y = "tensor<64x48xf32>", "tensor<16x64xf32>", "tensor<16x48xf32>"
    text = f"""func.func @main(%a: {x}, %b: {w}) -> ({y}, {y}) {{
  %w = "versa.constant"() {{value = dense<"0x{weight.tobytes().hex().upper()}"> : {w}}} : () -> {w}
  %0 = "versa.matmul"(%a, %w) : ({x}, {w}) -> {y}
  %1 = "versa.matmul"(%a, %b) : ({x}, {w}) -> {y}
  return %0, %1 : {y}, {y}
}}"""
    options = CompileOptions.create(TARGET, threads=1)
    module = _parse(text)
    with module.context:
        compiler.run_passes(module, compiler.parse_pipeline("convert-versa-to-linalg", TARGET))
        ops = []
        module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
        matmuls = [op for op in ops if op.name == "linalg.matmul"]
        assert len(matmuls) == 2
        keys = {Signature.of(op, select(op, options.target, 1)).key for op in matmuls}
    assert len(keys) == 2
