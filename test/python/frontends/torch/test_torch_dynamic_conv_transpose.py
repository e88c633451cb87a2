"""conv_transpose2d over dynamic image sizes (issue 46): one compile serves every H and W, each
matching torch eager and ONNX Runtime. The lowering keeps the static one's phases, whose row
counts are the input's size plus a constant (`lower_conv_transpose.dynamic_phases`), down to
sizes where a phase has no rows at all (k3 s2 p1 at H = 1: 2H - 1 output rows). A size whose
output would be empty is refused per call, naming the op. Warnings are errors here: an op that
ran eagerly (a partition) fails the test. Tolerance: f32 sums of a few dozen products,
reassociated: 1e-4."""

import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch
import versa
from onnx import TensorProto, helper
from torch import nn
from torch.export import Dim
from versa.call_shapes import ShapeError
from versa.cpu.runtime import JitFunction

pytestmark = pytest.mark.filterwarnings("error")

ATOL, RTOL = 1e-4, 1e-4
H, W = Dim("h", min=1, max=64), Dim("w", min=1, max=64)
SIZES = ((5, 7), (1, 1), (2, 3), (13, 40), (33, 20))  # the first compiles; 1: empty phases

LAYERS = {
    "k2s2": lambda: nn.ConvTranspose2d(8, 4, 2, stride=2),
    "k4s2p1": lambda: nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1),
    "k3s2p1_out1": lambda: nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1),
    "k3s2p1": lambda: nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1),
    "k3s1p1": lambda: nn.ConvTranspose2d(8, 6, 3, padding=1),
    "k1s3": lambda: nn.ConvTranspose2d(8, 4, 1, stride=3),  # phases without taps: zeros
    "mixed": lambda: nn.ConvTranspose2d(
        8, 6, (3, 5), stride=(2, 3), padding=(1, 2), output_padding=(1, 2), dilation=(1, 2)
    ),
    "grouped": lambda: nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_conv_transpose2d_over_dynamic_images(name: str) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(LAYERS[name](), nn.ReLU()).eval()
    compiled = versa.compile(model, (torch.randn(2, 8, *SIZES[0]),), dynamic_shapes=({2: H, 3: W},))
    with torch.no_grad():
        for h, w in SIZES:
            x = torch.randn(2, 8, h, w)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


class Decoder(nn.Module):
    """A U-Net-style upsampling step over a dynamic batch, height and width: a strided conv
    down, a transposed conv back up, the skip connection added."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return torch.relu(self.up(torch.relu(self.down(x)))) + x


def test_an_upsampling_block_at_several_sizes_from_one_compile() -> None:
    torch.manual_seed(0)
    model = Decoder().eval()
    dims = {0: Dim("batch", min=1, max=4), 2: 2 * Dim("hh", min=2, max=32), 3: 2 * Dim("ww", min=2, max=32)}
    compiled = versa.compile(model, (torch.randn(2, 3, 16, 16),), dynamic_shapes=(dims,))
    with torch.no_grad():
        for n, h, w in ((2, 16, 16), (1, 4, 30), (3, 34, 8)):
            x = torch.randn(n, 3, h, w)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1
    with pytest.raises(ShapeError, match="multiple of 2"):  # the export's constraint, per call
        compiled(torch.randn(1, 3, 15, 16))


def _onnx_conv_transpose(pad: int, extra: int = 0) -> bytes:
    """ConvTranspose k3 s2 over [1, 2, h, w], its weight an initializer."""
    weight = helper.make_tensor(
        "w", TensorProto.FLOAT, [2, 3, 3, 3], np.random.default_rng(0).standard_normal(54).tolist()
    )
    node = helper.make_node(
        "ConvTranspose",
        ["x", "w"],
        ["y"],
        strides=[2, 2],
        pads=[pad] * 4,
        output_padding=[extra] * 2,
        name="up",
    )
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [weight],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_onnx_conv_transpose_with_symbolic_dims_matches_onnxruntime() -> None:
    data = _onnx_conv_transpose(1, 1)
    module = versa.import_onnx(data)
    assert "tensor<1x2x?x?xf32>" in str(module)
    compiled = JitFunction(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for h, w in ((4, 4), (1, 3), (9, 2)):
        x = np.random.default_rng(h).standard_normal((1, 2, h, w)).astype(np.float32)
        (got,) = compiled(x)
        np.testing.assert_allclose(got, session.run(None, {"x": x})[0], atol=ATOL, rtol=RTOL)


def test_a_size_whose_output_would_be_empty_is_refused_per_call() -> None:
    """k3 s2 with 2 rows cropped each side: (H - 1) * 2 - 4 + 3 rows, none at H = 1."""
    compiled = JitFunction(versa.import_onnx(_onnx_conv_transpose(2)))
    assert compiled(np.zeros((1, 2, 2, 2), np.float32))[0].shape == (1, 3, 1, 1)
    with pytest.raises(ShapeError, match="conv_transpose2d.*output height -1 is not positive"):
        compiled(np.zeros((1, 2, 1, 2), np.float32))
