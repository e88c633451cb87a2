"""The hand-written GPU kernels: softmax / layer_norm as one block per row (versa-gpu-rows) and
f32 matmul on TF32 tensor cores, opt-in (versa-gpu-mma's mma.sync on sm_80, versa-gpu-wgmma's
warpgroup MMAs on sm_90). Their PTX must assemble for sm_80 and sm_90 without a GPU; with one,
the results match NumPy (TF32: to the output's scale)."""

import re
import subprocess
import sys

import numpy as np
import pytest
from test_gpu import GPUS, compile_program, needs_toolkit
from versa import translate
from versa.diagnostics import CompileError
from versa.gpu import driver
from versa.gpu.plan import Tensor

ROWS = """func.func @main(%x: tensor<64x1000xf32>, %g: tensor<1000xf32>, %b: tensor<1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %0 = "versa.softmax"(%x) {axis = 1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %1 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<64x1000xf32>, tensor<1000xf32>, tensor<1000xf32>) -> tensor<64x1000xf32>
  return %0, %1 : tensor<64x1000xf32>, tensor<64x1000xf32>
}"""


def matmul(m: int, k: int, n: int) -> str:
    ta, tb, tc = (f"tensor<{r}x{c}xf32>" for r, c in ((m, k), (k, n), (m, n)))
    body = f'%0 = "versa.matmul"(%a, %b) : ({ta}, {tb}) -> {tc}'
    return f"func.func @main(%a: {ta}, %b: {tb}) -> {tc} {{\n  {body}\n  return %0 : {tc}\n}}"


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
def test_softmax_and_layer_norm_are_one_kernel_each(target) -> None:
    program = compile_program(ROWS, target)
    assert [step.kernel for step in program.steps] == ["main_kernel", "main_kernel_0"]
    assert all(step.grid == (64, 1, 1) and step.block == (256, 1, 1) for step in program.steps)
    assert "ld.global.v4.b32" in program.ptx  # 16-byte loads: 1000 is a multiple of 4
    assert translate.assemble_ptx(program.ptx, target)
    if target.chip == "sm_90" and driver.available():
        rng = np.random.default_rng(0)
        x, g, b = (rng.standard_normal(s).astype(np.float32) for s in ((64, 1000), (1000,), (1000,)))
        softmax, norm = driver.GpuFunction(program)(x, g, b)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(softmax, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
        want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g + b
        np.testing.assert_allclose(norm, want, rtol=1e-4, atol=1e-5)


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize(("m", "k", "n"), [(200, 132, 260), (64, 40, 96), (300, 520, 264), (4096, 64, 64)])
def test_tf32_matmul_uses_tensor_cores(m, k, n, target) -> None:
    program = compile_program(matmul(m, k, n), target, matmul_precision="high")
    if target.chip == "sm_90":  # Hopper: warpgroup MMAs reading 128-byte-swizzled shared memory
        assert re.search(r"wgmma.mma_async.sync.aligned.m64n(64|128|256)k8.f32.tf32.tf32", program.ptx)
        assert "fence.proxy.async.shared::cta" in program.ptx  # cp.async's writes, then the MMAs
        assert re.search(r"wgmma.wait_group.sync.aligned\s+1;", program.ptx)  # a group in flight
        kernels = [step.kernel for step in program.steps]
        assert kernels[-3:] == ["versa_gpu_wgmma_0_bt", "versa_gpu_wgmma_0_ar", "versa_gpu_wgmma_0"]
        assert program.steps[-1].shared_bytes > 48 << 10  # opted into by the driver
    else:
        assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in program.ptx
    assert "cp.async.cg.shared.global" in program.ptx
    assert "cvt.rna.tf32.f32" in program.ptx  # rounded, not truncated
    assert translate.assemble_ptx(program.ptx, target)
    if target.chip == "sm_90" and driver.available():
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        (got,) = driver.GpuFunction(program)(a, b)
        want = a.astype(np.float64) @ b
        assert np.abs(got - want).max() <= 5e-3 * np.abs(want).max()


@needs_toolkit
def test_f32_matmul_stays_exact_unless_asked() -> None:
    program = compile_program(matmul(128, 64, 128), GPUS[-1])
    assert "mma.sync" not in program.ptx
    ragged = compile_program(matmul(128, 66, 128), GPUS[-1], matmul_precision="high")
    assert "mma.sync" not in ragged.ptx  # rows of A are not whole 16-byte vectors: CUDA cores
    assert "mma_async" not in ragged.ptx
    for m, k, n in ((1, 4, 4), (12, 8, 12), (4096, 8, 64), (4096, 64, 32)):  # tiles mostly padding
        small = compile_program(matmul(m, k, n), GPUS[-1], matmul_precision="high")
        assert "mma_async" not in small.ptx, (m, k, n)


def test_matmul_precision_is_checked() -> None:
    with pytest.raises(CompileError, match="matmul-precision must be highest or high"):
        compile_program(matmul(8, 8, 8), GPUS[-1], matmul_precision="medium")


def test_misaligned_device_arguments_are_refused() -> None:
    """The kernels read rows as 16-byte vectors: a tensor view at an odd offset must not reach them."""
    spec = Tensor((4,), "float32")

    class View:  # what torch.cuda tensors expose; no GPU needed to check the pointer
        def __init__(self, address: int):
            self.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (address, False)}

    assert driver._cuda_pointer(View(4096), spec, 0) == 4096
    with pytest.raises(ValueError, match="argument 0 must be 16-byte aligned"):
        driver._cuda_pointer(View(4100), spec, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("--versa-gpu-wgmma=block-m=96", "block_m must be"),
        ("--versa-gpu-wgmma=block-n=260", "block_n must be"),
        ("--versa-gpu-wgmma=stages=2", "at least two stages"),
        ("--versa-gpu-wgmma=stages=8", "bytes of shared memory per block"),
        ("--versa-gpu-mma=stages=1", "at least two stages"),
        ("--versa-gpu-mma=stages=6 shared-limit=100000", "bytes of shared memory per block"),
    ],
)
def test_tensor_core_tiles_are_checked(options, message, tmp_path) -> None:
    """Tiles the kernels cannot use are refused with a located error, not miscompiled."""
    source = tmp_path / "matmul.mlir"
    source.write_text(
        "func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {\n"
        "  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)\n"
        "  return\n}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "versa.tools.versa_opt", str(source), options], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr


def test_compile_time_tf32_rounding_is_cvt_rna() -> None:
    """Constant weights are rounded on the host as cvt.rna rounds on the device: to nearest,
    ties away from zero; infinities and NaN stay."""
    from versa.passes.gpu.kernels.operands import round_tf32  # noqa: PLC0415

    half, quarter = 2.0**-11, 2.0**-12  # of TF32's unit (2^-10) at 1
    values = [1 + half, -(1 + half), 1 + quarter, 1 + 3 * quarter, 0.0, -0.0, np.inf, -np.inf, np.nan]
    got = round_tf32(np.array(values, dtype=np.float32))
    want = [1 + 2 * half, -(1 + 2 * half), 1.0, 1 + 2 * half, 0.0, -0.0, np.inf, -np.inf, np.nan]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float32))
    assert np.signbit(got[5])
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000).astype(np.float32) * 1e3
    assert (round_tf32(x).view(np.uint32) & 0x1FFF == 0).all()  # 10 mantissa bits left
    assert np.abs(round_tf32(x) - x).max() <= np.abs(x).max() * 2.0**-11


@needs_toolkit
def test_constant_weights_are_transposed_and_rounded_once() -> None:
    """A constant B reaches the device as Bᵀ rounded to TF32 (a constant of the Program), and
    no transpose kernel runs."""
    rng = np.random.default_rng(0)
    b = rng.standard_normal((96, 128)).astype(np.float32)
    dense = "dense<" + np.array2string(b, separator=", ", threshold=b.size, floatmode="unique") + ">"
    text = (
        "func.func @main(%a: tensor<256x96xf32>) -> tensor<256x128xf32> {\n"
        f'  %b = "versa.constant"() {{value = {dense} : tensor<96x128xf32>}} : () -> tensor<96x128xf32>\n'
        '  %0 = "versa.matmul"(%a, %b) : (tensor<256x96xf32>, tensor<96x128xf32>) -> tensor<256x128xf32>\n'
        "  return %0 : tensor<256x128xf32>\n}"
    )
    program = compile_program(text, GPUS[-1], matmul_precision="high")
    from versa.passes.gpu.kernels.operands import round_tf32  # noqa: PLC0415

    assert round_tf32(b.T).tobytes() in program.constants.values()
    assert not any(step.kernel.endswith("_bt") for step in program.steps)


def bf16_matmul(m: int, k: int, n: int, batch: int = 0) -> str:
    """f32 in and out, the product of the inputs rounded to bf16 (f32 accumulation); also the
    GPU suite's bf16 cases (bench/gpu/export.py)."""
    lead = [batch] if batch else []
    shapes = {x: "x".join(map(str, lead + s)) for x, s in (("a", [m, k]), ("b", [k, n]), ("c", [m, n]))}
    f32, half = ({x: f"tensor<{v}x{t}>" for x, v in shapes.items()} for t in ("f32", "bf16"))
    return "\n".join([
        f"func.func @main(%a: {f32['a']}, %b: {f32['b']}) -> {f32['c']} {{",
        f'  %ha = "versa.cast"(%a) : ({f32["a"]}) -> {half["a"]}',
        f'  %hb = "versa.cast"(%b) : ({f32["b"]}) -> {half["b"]}',
        f'  %0 = "versa.matmul"(%ha, %hb) : ({half["a"]}, {half["b"]}) -> {half["c"]}',
        f'  %1 = "versa.cast"(%0) : ({half["c"]}) -> {f32["c"]}',
        f"  return %1 : {f32['c']}",
        "}",
    ])  # fmt: skip


@needs_toolkit
@pytest.mark.parametrize(("m", "k", "n"), [(200, 136, 260), (128, 64, 128), (4096, 1024, 512)])
def test_bf16_matmul_on_hopper_warpgroup_mmas(m, k, n) -> None:
    """bf16 matmuls (f32 accumulation) take the warpgroup MMAs on sm_90 without being asked:
    they are exact in bf16 inputs. bf16 buffers inside a program are sized by their width."""
    program = compile_program(bf16_matmul(m, k, n), GPUS[-1])
    assert re.search(r"wgmma.mma_async.sync.aligned.m64n(64|128|256)k16.f32.bf16.bf16", program.ptx)
    assert "cvt.rna.tf32" not in program.ptx  # nothing to round
    assert 2 * k * n in program.buffer_bytes.values()  # Bᵀ in bf16
    assert translate.assemble_ptx(program.ptx, GPUS[-1])
    if driver.available():
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        (got,) = driver.GpuFunction(program)(a, b)
        want = a.astype(np.float64) @ b
        assert np.abs(got - want).max() <= 2e-2 * np.abs(want).max()


def transpose(shape: tuple, permutation: tuple, element: str = "f32") -> str:
    result = tuple(shape[p] for p in permutation)
    t_in, t_out = (f"tensor<{'x'.join(map(str, s))}x{element}>" for s in (shape, result))
    perm = ", ".join(map(str, permutation))
    return (
        f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
        f'  %0 = "versa.transpose"(%a) {{perm = array<i64: {perm}>}} : ({t_in}) -> {t_out}\n'
        f"  return %0 : {t_out}\n}}"
    )


NUMPY = {"f32": np.float32, "i64": np.int64}
TRANSPOSES = [
    ((4, 64, 20, 30), (0, 2, 3, 1), "f32"),
    ((130, 100), (1, 0), "f32"),
    ((3, 33, 70), (0, 2, 1), "i64"),
]


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize(("shape", "permutation", "element"), TRANSPOSES)
def test_transposes_of_the_innermost_dimension_are_tiled(shape, permutation, element, target) -> None:
    """Transposes that move the innermost dimension go through shared-memory tiles (whole rows
    read and written), collapsed to a batch of 2-D transposes; they match NumPy on a GPU."""
    program = compile_program(transpose(shape, permutation, element), target)
    assert [step.kernel for step in program.steps] == ["versa_gpu_transpose_0"]
    assert translate.assemble_ptx(program.ptx, target)
    if target.chip == "sm_90" and driver.available():
        x = (np.random.default_rng(0).standard_normal(shape) * 100).astype(NUMPY[element])
        (got,) = driver.GpuFunction(program)(x)
        np.testing.assert_array_equal(got, np.transpose(x, permutation))
