"""torch.onnx exports whose ONNX forms torch-mlir's conversion got wrong or refused, against eager.

Data movement (PixelShuffle, pads) must match exactly; logsumexp and nan_to_num to rtol 1e-5,
atol 1e-6 (and onnxruntime, where installed, to the same). Before `prepare` rewrote them:
PixelShuffle was silently wrong (DepthToSpace CRD), pads had no static shape (Transpose was not
folded), logsumexp and nan_to_num were refused (f64 intermediates), EmbeddingBag's Loop
failed with a misleading importer error, ceil-mode average pools divided partial windows by the
whole kernel and ceil-mode max pools failed to lower (uneven kernel and stride), and
local_response_norm's If was refused.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
import versa
from test_onnx_import import export_onnx
from torch import nn
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError


class _Pad(nn.Module):
    def __init__(self, pad: tuple[int, ...], mode: str) -> None:
        super().__init__()
        self.pad, self.mode = pad, mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, self.pad, mode=self.mode)


class _LogSumExp(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.logsumexp(x, -1)


class _NanToNum(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nan_to_num(torch.log(x), neginf=-9.0)


def _run(model: nn.Module, x: torch.Tensor) -> tuple[bytes, np.ndarray, np.ndarray]:
    """The export, versa's output and eager's."""
    data = export_onnx(model.eval(), (x,))
    got = JitFunction(versa.import_onnx(data), pipeline="versa-canonicalize,versa-fuse,lower-to-llvm")(
        x.numpy()
    )
    with torch.no_grad():
        return data, got[0], model(x).numpy()


@pytest.mark.parametrize(
    ("model", "shape"),
    [
        (nn.PixelShuffle(2), (1, 12, 3, 5)),  # DepthToSpace CRD, C / b² = 3 != b
        (nn.PixelShuffle(3), (2, 18, 2, 3)),
        (nn.ReflectionPad2d(2), (1, 3, 6, 6)),  # pads: Slice -> Transpose -> Reshape -> Cast
        (_Pad((1, 2, 3, 0), "reflect"), (1, 3, 6, 6)),
        (nn.ReflectionPad1d((2, 1)), (2, 3, 7)),
        (nn.ReplicationPad2d((2, 0, 1, 3)), (1, 2, 5, 4)),
        (_Pad((1, 0, 0, 2, 1, 1), "replicate"), (1, 2, 3, 4, 5)),
    ],
    ids=[
        "shuffle2",
        "shuffle3",
        "reflection_pad2d",
        "reflect",
        "reflection_pad1d",
        "replication_pad2d",
        "replicate",
    ],
)
def test_data_movement_matches_eager(model: nn.Module, shape: tuple[int, ...]) -> None:
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    _, got, want = _run(model, x)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("model", "x"),
    [
        (_LogSumExp(), [[1.0, 2.0, 3.0, -4.0], [100.0, 95.0, 0.0, 1.0], [-np.inf] * 4]),
        (_NanToNum(), [[1.0, 0.0, -1.0, 2.5], [np.inf, np.nan, 1e-30, 7.0]]),
    ],
    ids=["logsumexp", "nan_to_num"],
)
def test_f64_intermediates_stay_f32(model: nn.Module, x: list) -> None:
    """torch-mlir casts logsumexp to f64; nan_to_num exports Cast(to=DOUBLE) -> IsInf."""
    x = torch.tensor(x, dtype=torch.float32)
    data, got, want = _run(model, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    try:
        import onnxruntime
    except ImportError:
        return
    session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    reference = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-6)


def test_embedding_bag_loop_is_named() -> None:
    """EmbeddingBag with offsets exports as a Loop over data-dependent slices, which the importer
    cannot take; its body reads a Constant outside it, which folding once dropped."""
    model = nn.EmbeddingBag(13, 4, mode="sum").eval()
    data = export_onnx(model, (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4])))
    with pytest.raises(CompileError, match=r"does not take Loop .* node '/Loop'"):
        versa.import_onnx(data)


class _Fn(nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


@pytest.mark.parametrize(
    ("model", "shape"),
    [
        (nn.AvgPool2d(2, 2, ceil_mode=True), (1, 1, 7, 9)),  # AveragePool: the overhang was counted
        (nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 8, 9)),
        (nn.MaxPool2d((3, 2), (2, 3), (1, 0), ceil_mode=True), (1, 2, 7, 9)),  # failed to lower
        (nn.MaxPool2d(3, 2, 1, dilation=2, ceil_mode=True), (1, 2, 7, 9)),
        (_Fn(lambda x: F.local_response_norm(x, 5)), (1, 8, 5, 5)),  # an If on a static size
        (_Fn(lambda x: F.local_response_norm(x, 3, alpha=0.1)), (2, 6, 4)),
        # WaveNet's gate: chunk's split points are a Shape of the padded tensor, static only
        # once the Pad's pads fold (one folding pass left them as aten.item: refused)
        (_Fn(lambda x: (lambda a, b: a.tanh() * b.sigmoid())(*F.pad(x, (1, 0)).chunk(2, 1))), (2, 4, 10)),
    ],
    ids=["avg_ceil", "avg_ceil_pads", "max_ceil_uneven", "max_ceil_dilated", "lrn", "lrn_1d", "pad_chunk"],
)
def test_pool_and_norm_exports_match_eager(model: nn.Module, shape: tuple[int, ...]) -> None:
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    _, got, want = _run(model, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
