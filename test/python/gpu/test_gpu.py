"""NVIDIA targets: every op of the dialect, the fused kinds and the example model become PTX
that ptxas accepts for sm_80 and sm_90 (no GPU needed); with a GPU, they also run and match
the NumPy reference (skipped where no CUDA driver exists, as in CI)."""

import json
from pathlib import Path

import numpy as np
import pytest
from test_lowering_numerics import (
    DATA_MOVEMENT,
    DTYPES,
    ELEMENTWISE,
    FUSED_ELEMENTWISE,
    FUSED_EPILOGUE,
    FUSED_REDUCTION,
    INDEXING,
    LOGICAL,
    MATH,
    RNG_SEED,
    STRUCTURED,
    WIDE_TYPES,
    case,
    check,
    element_name,
    make_input,
    single_op,
)
from versa import compiler, targets, translate
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.diagnostics import CompileError
from versa.dialects.semantics import evaluate
from versa.gpu import Program, compile_gpu, driver
from versa.reference import interpret

GPUS = [targets.resolve("nvptx-sm80"), targets.resolve("nvptx-sm90")]
ROOT = Path(__file__).resolve().parents[3]
# Reductions long enough for a thread block per result (versa-gpu-reduce), tiled matmuls.
LONG_REDUCTIONS = [
    case("softmax", (64, 1000), axis=-1, id="long"),
    case("softmax", (7, 30522), axis=-1, id="very_long_lanes2"),
    case("softmax", (2, 3, 1027), axis=-1, id="rank3_lanes1"),
    case("softmax", (40, 12), axis=-1, id="short_rows"),
    case("layer_norm", (33, 300), (300,), (300,), axis=-1, epsilon=1e-5, id="long"),
    case("layer_norm", (5, 4, 2050), (4, 2050), (4, 2050), axis=1, epsilon=1e-5, id="two_axes_long"),
    case("reduce_sum", (17, 4096), kinds="small", axes=[1], id="long"),
    case("reduce_sum", (9, 5000), kinds="i32", axes=[1], id="long_i32"),
    case("reduce_max", (4, 3, 200), axes=[-1], id="long"),
    case("reduce_mean", (5, 8, 40), kinds="small", axes=[1, 2], id="long_two_axes"),
    case("reduce_sum", (300, 70), kinds="small", axes=[0], id="long_outer"),
    case("matmul", (100, 70), (70, 130), kinds="small", id="tiled_ragged"),
    case("matmul", (3, 33, 65), (3, 65, 47), kinds="small", id="tiled_batch"),
    case("matmul", (2, 64, 32), (32, 128), kinds="small", id="tiled_rank_broadcast"),
]

needs_toolkit = pytest.mark.skipif(translate.cuda_toolkit() is None, reason="nvidia-cuda-nvcc-cu12 missing")


def compile_program(
    text: str, target: targets.Target, pipeline: str = "", matmul_precision: str = "highest"
) -> Program:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return compile_gpu(module, target, None, pipeline, matmul_precision)


def reference(text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return interpret(find_function(module, None), inputs)


def assemble_and_maybe_run(program: Program, target, inputs, want, op: str = "") -> None:
    if program.ptx:
        assert f".target {target.chip}" in program.ptx
        assert translate.assemble_ptx(program.ptx, target)  # a cubin: ptxas accepted it
    if target.chip == "sm_90" and driver.available():
        got = driver.GpuFunction(program)(*inputs)
        for g, w in zip(got, want, strict=True):
            check(op, g, np.asarray(w))


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize(
    ("op", "shapes", "kinds", "out", "shape", "attrs"),
    ELEMENTWISE + STRUCTURED + DATA_MOVEMENT + LONG_REDUCTIONS + WIDE_TYPES + LOGICAL + INDEXING + MATH,
)
def test_every_op_assembles(op, shapes, kinds, out, shape, attrs, target) -> None:
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
    out = out or element_name(inputs[0].dtype)
    text, parsed, result_shape = single_op(op, inputs, attrs, out, shape)
    want = evaluate(op, inputs, parsed, result_shape, DTYPES[out])
    assemble_and_maybe_run(compile_program(text, target), target, inputs, [want], op)


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize(
    "text", [FUSED_ELEMENTWISE, FUSED_EPILOGUE, FUSED_REDUCTION], ids=["elementwise", "epilogue", "reduction"]
)
def test_fused_kinds_assemble(text: str, target) -> None:
    program = compile_program(text, target)
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(t.shape, "small", rng) for t in program.inputs]
    assemble_and_maybe_run(program, target, inputs, reference(text, inputs))


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.mlir")), ids=lambda p: p.stem)
@pytest.mark.parametrize("pipeline", ["", "versa-fuse"], ids=["unfused", "fused"])
def test_examples_assemble(example: Path, target, pipeline: str) -> None:
    text = example.read_text()
    program = compile_program(text, target, pipeline)
    assert len(program.steps) > 1
    rng = np.random.default_rng(RNG_SEED)
    inputs = [rng.uniform(-1, 1, t.shape).astype(t.dtype) for t in program.inputs]
    assemble_and_maybe_run(program, target, inputs, reference(text, inputs))


def test_program_round_trips_through_json() -> None:
    program = compile_program(FUSED_REDUCTION, GPUS[1])
    again = Program.from_json(program.to_json())
    assert again == program
    assert json.loads(again.to_json()) == json.loads(program.to_json())


def test_constants_travel_with_the_program() -> None:
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    with make_context():
        from versa.mlir import ir  # noqa: PLC0415

        attr = str(ir.DenseElementsAttr.get(value))
    text = (
        "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        f'  %c = "versa.constant"() {{value = {attr}}} : () -> tensor<2x3xf32>\n'
        '  %0 = "versa.add"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n'
        "  return %0 : tensor<2x3xf32>\n}\n"
    )
    program = compile_program(text, GPUS[1])
    assert [np.frombuffer(b, np.float32).tolist() for b in program.constants.values()] == [
        value.ravel().tolist()
    ]


def test_kernels_are_one_thread_per_element_and_guarded() -> None:
    text = (
        "func.func @main(%x: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {\n"
        '  %0 = "versa.exp"(%x) : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>\n'
        "  return %0 : tensor<3x5x7xf32>\n}\n"
    )
    program = compile_program(text, GPUS[1])
    (launch,) = program.steps
    assert launch.grid == (1, 1, 1) and launch.block == (105, 1, 1)
    assert "__nv_expf" not in program.ptx or "ex2.approx" in program.ptx  # libdevice linked, inlined
    assert ".extern" not in program.ptx  # nothing left unresolved


def test_gpu_run_without_a_gpu_is_a_clear_error() -> None:
    if driver.available():
        pytest.skip("this machine has a GPU")
    program = compile_program(FUSED_EPILOGUE, GPUS[1])
    with pytest.raises(driver.GpuUnavailable, match="no CUDA device"):
        driver.GpuFunction(program)


def test_dynamic_dims_are_refused_clearly() -> None:
    """The GPU's kernels and launch plan are sized at compile time: a `?` dim is an error."""
    text = """func.func @f(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.relu"(%a) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}"""
    with pytest.raises(CompileError, match=r"the GPU target takes static shapes only, got float32\[\?, 8\]"):
        compile_program(text, GPUS[1])
