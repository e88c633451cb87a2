"""Safety of the JIT (SECURITY.md): machine code only from IR the verifier accepted, a Python
error (never a segfault) for wrong arguments, and shared libraries only from the allowlist."""

import os

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.cpu import openmp, runtime
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError
from versa.mlir import ir

SOURCE = """func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "versa.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
"""


def parse(text: str = SOURCE) -> ir.Module:
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


@pytest.fixture(scope="module")
def jit() -> JitFunction:
    return JitFunction(parse(), pipeline="lower-to-llvm{opt-level=1}")


def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 8), np.float32), rng.standard_normal(8, np.float32)


def expected(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(a + b, 0)


# ----------------------------------------------------------------------------- verified IR only


def broken_module() -> ir.Module:
    """IR changed through the API after it parsed: softmax's axis is now out of range."""
    module = parse(SOURCE.replace('"versa.relu"(%0)', '"versa.softmax"(%0) {axis = 1 : i64}'))
    body = module.body.operations[0].regions[0].blocks[0]
    softmax = next(op for op in body.operations if op.name == "versa.softmax")
    softmax.attributes["axis"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, module.context), 5)
    return module


def test_ir_broken_after_parsing_is_never_compiled(monkeypatch):
    engines = []
    monkeypatch.setattr(runtime, "ExecutionEngine", lambda *a, **k: engines.append(a))
    with pytest.raises(CompileError, match="axis 5 is out of range"):
        JitFunction(broken_module())
    assert not engines


def test_unverified_ir_never_reaches_the_passes(monkeypatch):
    ran = []
    monkeypatch.setattr(compiler, "build_pass_manager", lambda *a, **k: ran.append(a))
    with pytest.raises(CompileError, match="axis 5 is out of range"):
        compiler.run_passes(broken_module(), ["cse"])
    assert not ran


# ----------------------------------------------------------------------------- wrong arguments


def test_correct_call(jit):
    a, b = inputs()
    np.testing.assert_allclose(jit(a, b)[0], expected(a, b), rtol=1e-6)


@pytest.mark.parametrize(
    "args",
    [
        (),
        (np.zeros((4, 8), np.float32),),
        (np.zeros((4, 8), np.float32), np.zeros(8, np.float32), np.zeros(8, np.float32)),
    ],
    ids=["none", "too-few", "too-many"],
)
def test_wrong_argument_count(jit, args):
    with pytest.raises(ValueError, match="takes 2 inputs"):
        jit(*args)


@pytest.mark.parametrize(
    "a",
    [
        np.zeros((8, 4), np.float32),
        np.zeros((4, 8, 1), np.float32),
        np.zeros(32, np.float32),
        np.zeros((0, 8), np.float32),
        np.zeros((4, 8), np.float64),
        np.zeros((4, 8), np.int32),
        np.zeros((4, 8), np.float16),
        np.zeros((4, 8), bool),
        np.zeros((4, 8), np.complex64),
        np.float32(1.0),
        [[0.0] * 8] * 4,  # a list: float64
        "tensor",
        None,
        np.zeros((4, 8), dtype=[("x", np.float32)]),
        np.array([object()] * 32).reshape(4, 8),
    ],
    ids=lambda a: type(a).__name__ + str(getattr(a, "dtype", "")) + str(getattr(a, "shape", "")),
)
def test_wrong_shape_dtype_or_type_is_a_value_error(jit, a):
    with pytest.raises(ValueError, match="argument 0 must be float32"):
        jit(a, np.zeros(8, np.float32))


def test_non_contiguous_inputs_are_copied_not_misread(jit):
    a, b = inputs()
    wide = np.zeros((8, 16), np.float32)
    wide[::2, ::2] = a
    b_strided = np.repeat(b, 2)[::2]
    for view in (wide[::2, ::2], np.asfortranarray(a), a.T.copy().T):
        np.testing.assert_allclose(jit(view, b_strided)[0], expected(a, b), rtol=1e-6)


def test_unaligned_input(jit):
    a, b = inputs()
    raw = np.zeros(4 * 8 * 4 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32).reshape(4, 8)
    unaligned[...] = a
    assert not unaligned.flags.aligned or unaligned.ctypes.data % 4
    np.testing.assert_allclose(jit(unaligned, b)[0], expected(a, b), rtol=1e-6)


@pytest.mark.parametrize(
    "out",
    [
        np.zeros((8, 4), np.float32),
        np.zeros((4, 8), np.float64),
        np.zeros((8, 16), np.float32)[::2, ::2],
        [np.zeros((4, 8), np.float32)] * 2,
        "out",
    ],
    ids=["shape", "dtype", "strided", "count", "type"],
)
def test_wrong_out_is_a_value_error(jit, out):
    a, b = inputs()
    with pytest.raises(ValueError):
        jit(a, b, out=out)


def test_read_only_out_and_aliasing_are_refused(jit):
    a, b = inputs()
    frozen = np.zeros((4, 8), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        jit(a, b, out=frozen)
    with pytest.raises(ValueError, match="overlaps"):
        jit(a, b, out=a)


# ----------------------------------------------------------------------------- shared libraries


def test_allowlist_is_one_place_and_holds_only_openmp():
    assert set(openmp.ALLOWED_NAMES) <= {"libiomp5.so", "libomp.so", "libomp.so.5"}
    for path in openmp.shared_libraries():
        assert openmp.is_allowed(path), path
    assert not openmp.is_allowed("/tmp/libiomp5.so")
    assert not openmp.is_allowed(str(openmp.ALLOWED_DIRS[0] / "libevil.so"))


def test_the_engine_gets_only_allowlisted_libraries(monkeypatch):
    given = []

    def engine(module, *, opt_level, shared_libs, enable_pic=False):
        given.extend(shared_libs)
        raise RuntimeError("stop after recording")

    monkeypatch.setattr(runtime, "ExecutionEngine", engine)
    with pytest.raises(CompileError, match="stop after recording"):
        JitFunction(parse(), pipeline="lower-to-llvm{opt-level=0}")
    assert given == openmp.shared_libraries()
    assert all(openmp.is_allowed(p) for p in given)


def test_library_search_ignores_environment_and_working_directory(tmp_path, monkeypatch):
    """A planted libiomp5.so in the working directory or on LD_LIBRARY_PATH is never chosen."""
    planted = tmp_path / "libiomp5.so"
    planted.write_bytes(b"\x7fELF not really")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    openmp.runtime_library.cache_clear()
    try:
        found = openmp.runtime_library()
    finally:
        openmp.runtime_library.cache_clear()
    assert found is None or (openmp.is_allowed(found) and not os.path.samefile(found, planted))
