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

import warnings

import numpy as np
import pytest
import torch
import versa
from torch import nn
from torch_helpers import versa_warnings
from versa.frontends.torch import api

pytest.importorskip("torchao")
with warnings.catch_warnings():  # torch._inductor, which the quantizer imports, uses torch.jit
    warnings.simplefilter("ignore", DeprecationWarning)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer,
        get_default_x86_inductor_quantization_config,
    )

QD = torch.ops.quantized_decomposed
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


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


MODELS = {"convnet": (ConvNet, (2, 3, 16, 16)), "mlp": (_mlp, (8, 64))}


def _quantized(name: str) -> tuple[torch.fx.GraphModule, torch.Tensor, nn.Module]:
    """(the converted model, an input, the float model), calibrated on random data."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    g = torch.Generator().manual_seed(0)
    exported = torch.export.export(model, (torch.randn(shape, generator=g),)).module()
    quantizer = X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(exported, quantizer)
    for _ in range(4):
        prepared(torch.randn(shape, generator=g))
    return convert_pt2e(prepared), torch.randn(shape, generator=g), model


def _with_activations(converted: torch.fx.GraphModule) -> tuple[torch.fx.GraphModule, list[float]]:
    """The converted graph returning each dequantized activation too, and their scales."""
    graph, env, taps = torch.fx.Graph(), {}, []
    for node in converted.graph.nodes:
        if node.op == "output":
            outputs = [env[n] for n in node.args[0]]
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
        if node.target == QD.dequantize_per_tensor.default:
            taps.append(node)
    graph.output((*outputs, *(env[n] for n in taps)))
    return torch.fx.GraphModule(converted, graph), [n.args[1] for n in taps]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_pt2e_model_compiles_whole_and_matches_torchao(name):
    converted, x, model = _quantized(name)
    probed, scales = _with_activations(converted)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(probed, (x,))(x)
        want = probed(x)
    assert messages == []  # nothing ran eagerly
    steps = [((g - w) / s).round() for g, w, s in zip(got[1:], want[1:], scales, strict=True)]
    assert all(d.abs().max() <= 1 for d in steps)
    assert sum(int((d != 0).sum()) for d in steps) <= 0.02 * sum(d.numel() for d in steps)
    head = model.fc if name == "convnet" else model[-1]  # it reads the last tap, scales[-1]
    l1 = float(head.weight.detach().abs().sum(1).max()) * 1.05  # its quantized values: < 1% off
    bound = scales[-1] * l1 + 1e-5
    assert float((got[0] - want[0]).abs().max()) <= bound


@pytest.mark.parametrize("name", sorted(MODELS))
def test_contractions_are_integer_with_int8_weights(name):
    converted, x, _ = _quantized(name)
    text = str(api.import_torch(converted, (x,)))
    counts = {op: text.count(f'"versa.{op}"') for op in ("qconv2d", "qmatmul", "requantize")}
    assert counts == (
        {"qconv2d": 3, "qmatmul": 1, "requantize": 2}
        if name == "convnet"
        else {"qconv2d": 0, "qmatmul": 3, "requantize": 2}
    )
    assert '"versa.conv2d"' not in text and '"versa.matmul"' not in text
    defined = {line.split(" = ")[0].strip(): line for line in text.splitlines() if " = " in line}
    for line in defined.values():  # each contraction reads its weights as an 8-bit constant
        if '"versa.qconv2d"' in line or '"versa.qmatmul"' in line:
            weights = defined[line.split("(")[1].split(", ")[1]]
            assert '"versa.constant"' in weights and weights.endswith("xi8>")
