"""INT8 models from PyTorch 2 export quantization (PT2E, torchao's `prepare_pt2e` /
`convert_pt2e` with the X86 Inductor quantizer) compile whole, with integer contractions.

Tolerances, and why:
- The quantize/dequantize rules are bit-exact with torch (`quantized_decomposed.*`), ties and
  values where x * (1/s) and x / s round apart included: compared with `torch.equal`.
- Folded layers (versa.qconv2d / qmatmul + requantize) sum integers exactly where torch sums
  dequantized floats, and round the bias to the accumulator's unit (sx * sw): a quantized
  activation can differ by one step where torch's float value lies within ~1e-3 steps of a
  rounding midpoint. Checked: every quantized activation within one step, at most 2% of them
  off (measured: 0 to 1%, the larger share downstream of an earlier difference).
- The float output: its layer reads activations each within one step, so it is within
  s_in * max_j sum_k |W_jk| (every input one step off) of torch's, plus float rounding.
"""

import numpy as np
import pytest
import torch
import versa
from torch import nn
from torch_helpers import versa_warnings
from versa.call_shapes import ShapeError
from versa.frontends.torch import api

pytest.importorskip("torchao")
from pt2e_helpers import QD, assert_within_one_step, quantized  # noqa: E402  (needs torchao)

SCALE = 0.0123  # 1 / SCALE is not a power of two: x * (1/s) and x / s round apart near ties


class QuantizeForms(nn.Module):
    """Each PT2E quantize/dequantize form; int8 results are returned as they are, uint8 ones
    dequantized (no uint8 tensor crosses a Versa function's boundary)."""

    def __init__(self, channels: int):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.register_buffer("scales", torch.rand(channels, generator=g) * 0.05 + 0.01)
        self.register_buffer("zeros", torch.randint(-5, 6, (channels,), generator=g))
        self.register_buffer("scale", torch.tensor(0.021))
        self.register_buffer("zero", torch.tensor(-7))

    def forward(self, x, scale, zero):
        u = QD.quantize_per_tensor(x, SCALE, 131, 0, 255, torch.uint8)
        per_channel = QD.quantize_per_channel(x, self.scales, self.zeros, 1, -128, 127, torch.int8)
        computed = QD.quantize_per_tensor.tensor(x, scale, zero, -128, 127, torch.int8)
        return (
            QD.quantize_per_tensor(x, SCALE, 3, -128, 127, torch.int8),
            QD.quantize_per_tensor(x, SCALE, 3, -100, 50, torch.int8),  # a narrower range
            QD.quantize_per_tensor.tensor(x, self.scale, self.zero, -128, 127, torch.int8),
            per_channel,
            computed,
            QD.dequantize_per_tensor(u, SCALE, 131, 0, 255, torch.uint8),
            QD.dequantize_per_channel(per_channel, self.scales, self.zeros, 1, -128, 127, torch.int8),
            QD.dequantize_per_tensor.tensor(computed, scale, zero, -128, 127, torch.int8),
        )


def _near_ties() -> np.ndarray:
    """Values at and one ulp beside (k + 1/2) * SCALE, where rounding decides."""
    ties = ((np.arange(-150, 150) + 0.5) * SCALE).astype(np.float32)
    return np.concatenate([ties, *(np.nextafter(ties, np.float32(d)) for d in (np.inf, -np.inf))])


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_quantize_and_dequantize_rules_match_torch_bit_for_bit(dynamic):
    near = _near_ties()
    s, inv = np.float32(SCALE), np.float32(1.0 / SCALE)
    assert np.sum(np.rint(near / s) != np.rint(near * inv)) > 100  # versa.quantize alone would differ
    g = torch.Generator().manual_seed(0)
    x = torch.cat([torch.from_numpy(near), torch.randn(3 * 5 * 64 - near.size, generator=g) * 2])
    args = (x.reshape(3, 5, 64), torch.tensor(0.0173), torch.tensor(4))
    model = QuantizeForms(5)
    dims = ({0: torch.export.Dim("batch", max=16)}, None, None) if dynamic else None
    with versa_warnings() as messages:
        compiled = versa.compile(model, args, dynamic_shapes=dims)
        got = compiled(*args)
    assert messages == []
    for g_, want in zip(got, model(*args), strict=True):
        assert g_.dtype == want.dtype and torch.equal(g_, want)
    if dynamic:  # another batch size, the same compiled function
        smaller = (args[0][:2], *args[1:])
        assert all(torch.equal(a, b) for a, b in zip(compiled(*smaller), model(*smaller), strict=True))


class ConvNet(nn.Module):
    """conv-bn-relu, a grouped conv-relu, a conv with a residual add, a linear head."""

    def __init__(self):
        super().__init__()
        self.c1, self.bn = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1, groups=4)
        self.c3 = nn.Conv2d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)
        with torch.no_grad():  # statistics that are no identity
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        z = torch.relu(self.c2(y))
        z = torch.relu(self.c3(z) + y)
        return self.fc(z.mean((2, 3)))


class PadNet(nn.Module):
    """MobileNetV2 as Hugging Face writes it: TensorFlow "same" padding by hand (`F.pad`, one
    row and column after) between a ReLU6 and a stride-2 depthwise conv, so PT2E's quantize of
    the depthwise conv's input follows the pad (quantized_pads.py moves it into the conv)."""

    def __init__(self):
        super().__init__()
        self.expand, self.depthwise = nn.Conv2d(3, 16, 1), nn.Conv2d(16, 16, 3, stride=2, groups=16)
        self.reduce, self.fc = nn.Conv2d(16, 8, 1), nn.Linear(8, 10)

    def forward(self, x):
        y = nn.functional.pad(torch.clamp(self.expand(x), 0, 6), (0, 1, 0, 1))
        z = self.reduce(torch.clamp(self.depthwise(y), 0, 6))
        return self.fc(z.mean((2, 3)))


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


MODELS = {"convnet": (ConvNet, (2, 3, 16, 16)), "mlp": (_mlp, (8, 64)), "padnet": (PadNet, (2, 3, 16, 16))}


def _quantized(name: str) -> tuple[torch.fx.GraphModule, torch.Tensor, nn.Module]:
    """(the converted model, an input, the float model), calibrated on random data."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    return (*quantized(model, shape), model)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_pt2e_model_compiles_whole_and_matches_torchao(name):
    converted, x, model = _quantized(name)
    head = model[-1] if name == "mlp" else model.fc  # it reads the last tap
    assert_within_one_step(converted, x, head)


@pytest.mark.parametrize("dims", ["batch", "batch_h_w"])
def test_pt2e_convnet_with_dynamic_dims_compiles_once_with_integer_convs(dims):
    """Exported with a dynamic batch (and image size) before prepare_pt2e: every conv folds to
    versa.qconv2d, one compile serves each size within one step of torch's, and a batch
    past the export's range is refused per call."""
    torch.manual_seed(0)
    model = ConvNet().eval()
    spec = {0: torch.export.Dim("batch", min=1, max=8)}
    if dims == "batch_h_w":
        spec |= {2: torch.export.Dim("h", min=4, max=64), 3: torch.export.Dim("w", min=4, max=64)}
    converted, x = quantized(model, (2, 3, 16, 16), dynamic_shapes=(spec,))
    g = torch.Generator().manual_seed(1)
    sizes = [(1, 16, 16), (5, 16, 16)] + ([(3, 9, 21), (1, 32, 4)] if dims == "batch_h_w" else [])
    more = [torch.randn(n, 3, h, w, generator=g) for n, h, w in sizes]
    assert_within_one_step(converted, x, model.fc, dynamic_shapes=(spec,), more=more)
    text = str(api.import_torch(converted, (x,), dynamic_shapes=(spec,)))
    assert text.count('"versa.qconv2d"') == 3 and '"versa.conv2d"' not in text
    assert ("tensor<?x3x?x?xf32>" if dims == "batch_h_w" else "tensor<?x3x16x16xf32>") in text
    compiled = versa.compile(converted, (x,), dynamic_shapes=(spec,))
    with pytest.raises(ShapeError, match="exceeds the maximum 8"):
        compiled(torch.randn(9, 3, 16, 16))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_contractions_are_integer_with_int8_weights(name):
    converted, x, _ = _quantized(name)
    text = str(api.import_torch(converted, (x,)))
    counts = {op: text.count(f'"versa.{op}"') for op in ("qconv2d", "qmatmul", "requantize")}
    assert (
        counts
        == {
            "convnet": {"qconv2d": 3, "qmatmul": 1, "requantize": 2},
            "mlp": {"qconv2d": 0, "qmatmul": 3, "requantize": 2},
            "padnet": {"qconv2d": 3, "qmatmul": 1, "requantize": 2},  # the expand conv's too
        }[name]
    )
    assert '"versa.conv2d"' not in text and '"versa.matmul"' not in text
    if name == "padnet":  # the pad is the depthwise conv's own (bottom, right) padding
        assert '"versa.pad"' not in text and "padding = array<i64: 0, 0, 1, 1>" in text
    defined = {line.split(" = ")[0].strip(): line for line in text.splitlines() if " = " in line}
    for line in defined.values():  # each contraction reads its weights as an 8-bit constant
        if '"versa.qconv2d"' in line or '"versa.qmatmul"' in line:
            weights = defined[line.split("(")[1].split(", ")[1]]
            assert '"versa.constant"' in weights and weights.endswith("xi8>")
