"""PyTorch models for NVIDIA GPUs: `versa.compile(..., target="cuda")` and
`torch.compile(backend="versa", options={"target": ...})` build PTX that ptxas accepts for sm_80
and sm_90 and a Program that runs without MLIR; calls run on a GPU where one exists (skipped
elsewhere) and raise GpuUnavailable where none does.

Runs compare with eager under the torch frontend's tolerance (test_torch_models.assert_close).
The PTX is assembled directly: test_gpu's assemble_and_maybe_run would also run it under the
per-op tolerance, which is too tight for whole models against eager.
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import versa
from test_gpu import GPUS, needs_toolkit
from test_torch_models import TwoHeads, assert_close, models
from torch.utils import _pytree as pytree
from versa import translate
from versa.gpu import Program, driver
from versa.gpu.plan import Tensor

ROOT = Path(__file__).resolve().parents[3]
needs_gpu = pytest.mark.skipif(not driver.available(), reason="no CUDA driver or device here")


def eager(model, inputs) -> list[torch.Tensor]:
    with torch.no_grad():
        return pytree.tree_leaves(model(*inputs))


def specs(tensors) -> list[Tensor]:
    return [Tensor(tuple(t.shape), str(t.dtype).removeprefix("torch.")) for t in tensors]


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize("name", models.NAMES)
def test_model_compiles_to_ptx_that_assembles(name: str, target) -> None:
    model, inputs = models.build(name, 2)
    program = versa.compile(model, inputs, target=target.name).program()
    assert f".target {target.chip}" in program.ptx
    assert translate.assemble_ptx(program.ptx, target)  # a cubin: ptxas accepted it
    assert program.inputs == specs(inputs)
    assert program.outputs == specs(eager(model, inputs))  # eager's outputs, flattened


class FakeGpu:
    """Stands in for driver.GpuFunction where no GPU exists: zeros of the program's outputs."""

    def __init__(self, program: Program):
        self.program = program

    def __call__(self, *arrays):
        assert all(isinstance(a, np.ndarray) for a in arrays)  # CPU tensors travel as NumPy
        return [np.zeros(t.shape, t.dtype) for t in self.program.outputs]


def test_outputs_have_eagers_structure(monkeypatch) -> None:
    monkeypatch.setattr(driver, "GpuFunction", FakeGpu)
    torch.manual_seed(0)
    model = TwoHeads().eval()
    x, y = torch.randn(3, 8), torch.randn(3, 4)
    compiled = versa.compile(model, (x, y), target="nvptx-sm80")
    got, want = compiled(x, y), model(x, y)
    assert pytree.tree_structure(got) == pytree.tree_structure(want)
    assert all(
        isinstance(g, torch.Tensor) and g.shape == w.shape
        for g, w in zip(pytree.tree_leaves(got), pytree.tree_leaves(want), strict=True)
    )
    assert all(isinstance(g, np.ndarray) for g in pytree.tree_leaves(compiled(x.numpy(), y.numpy())))


def test_torch_compile_takes_the_target_option(monkeypatch) -> None:
    monkeypatch.setattr(driver, "GpuFunction", FakeGpu)
    model, (x,) = models.build("mlp", 2)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="versa", options={"target": "cuda"})
    with torch.no_grad():  # -W error: falling back to eager would warn
        assert compiled(x).shape == model(x).shape


def test_unknown_targets_are_compile_errors() -> None:
    model, inputs = models.build("mlp", 1)
    with pytest.raises(versa.CompileError, match="unknown target 'nvptx-sm70'.*'cuda'"):
        versa.compile(model, inputs, target="nvptx-sm70")
    torch._dynamo.reset()
    with pytest.raises(Exception, match="unknown target 'rocm'"):
        torch.compile(model, backend="versa", options={"target": "rocm"})(*inputs)


def test_calling_without_a_gpu_is_a_clear_error() -> None:
    if driver.available():
        pytest.skip("this machine has a GPU")
    model, inputs = models.build("cnn", 1)
    compiled = versa.compile(model, inputs, target="cuda")
    assert compiled.target.name == "nvptx-sm90"  # "cuda" without a GPU to ask
    with pytest.raises(driver.GpuUnavailable, match="no CUDA device|cuda-bindings"):
        compiled(*inputs)
    torch._dynamo.reset()
    with pytest.raises(driver.GpuUnavailable, match="no CUDA device|cuda-bindings"):
        torch.compile(model, backend="versa", options={"target": "cuda"})(*inputs)


def test_saved_program_loads_without_mlir(tmp_path: Path) -> None:
    model, inputs = models.build("resnet_bottleneck", 1)
    compiled = versa.compile(model, inputs, target="nvptx-sm90")
    compiled.save(tmp_path / "program.json")
    script = (
        "import sys; sys.path.insert(0, 'bench/gpu'); from device import load_gpu_package\n"
        "plan, driver = load_gpu_package()\n"
        "program = plan.Program.from_json(open(sys.argv[1]).read())\n"
        "assert not [m for m in sys.modules if 'mlir' in m or m == 'llvmlite'], 'MLIR was imported'\n"
        "print(len(program.steps))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "program.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(compiled.program().steps)
    assert Program.from_json((tmp_path / "program.json").read_text()) == compiled.program()


@needs_gpu
@pytest.mark.parametrize("name", models.NAMES)
def test_model_runs_on_the_gpu(name: str) -> None:
    model, inputs = models.build(name, 4)
    compiled = versa.compile(model, inputs, target="cuda")
    device = "cuda" if torch.cuda.is_available() else "cpu"  # a CPU-only torch: via NumPy
    got = compiled(*[x.to(device) for x in inputs])
    assert all(g.device.type == device for g in pytree.tree_leaves(got))
    for g, w in zip(pytree.tree_leaves(got), eager(model, inputs), strict=True):
        assert_close(g.cpu(), w)


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
def test_tf32_follows_torchs_matmul_precision(target) -> None:
    """torch.set_float32_matmul_precision("high") lets f32 matmuls use TF32 tensor cores, as on
    CUDA in torch; "highest" (the default) keeps them exact. A compiled graph is cached per setting."""
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 32))
    x = torch.randn(256, 64)
    tensor_cores = "wgmma.mma_async" if target.chip == "sm_90" else "mma.sync"
    before = torch.get_float32_matmul_precision()
    try:
        for precision, expected in (("highest", False), ("high", True), ("highest", False)):
            torch.set_float32_matmul_precision(precision)
            program = versa.compile(model, [x], target=target.name).program()
            assert (tensor_cores in program.ptx) == expected, precision
    finally:
        torch.set_float32_matmul_precision(before)


def test_bf16_weights_reach_the_gpu() -> None:
    """torch-mlir imports bf16 weights as resource blobs, which the bindings cannot read: their
    bytes are taken from the printed module. The matmul runs on the warpgroup MMAs in bf16."""
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 64))
    model = model.to(torch.bfloat16)
    x = torch.randn(256, 64, dtype=torch.bfloat16)
    program = versa.compile(model, [x], target="nvptx-sm90").program()
    constants = list(program.constants.values())
    for parameter in model.parameters():
        assert parameter.detach().view(torch.int16).numpy().tobytes() in constants
    assert "wgmma.mma_async.sync.aligned" in program.ptx and ".bf16.bf16" in program.ptx
    if driver.available():
        got = versa.compile(model, [x.cuda()], target="nvptx-sm90")(x.cuda())
        torch.testing.assert_close(got.cpu().float(), model(x).float(), rtol=2e-2, atol=2e-2)
