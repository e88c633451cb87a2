"""Model forms a probe of 33 new models (bench/scratch/zoo3) found running eagerly, each fixed:
a transpose folded on a splat constant (DETR's zeros through nn.MultiheadAttention) made an f64
constant that sank the whole graph; a weight inside a tensor list (cat, stack, einsum) failed
the import; weight_norm had no conversion; dropout in eval and attention without dropout were
refused in partitioned graphs as if they drew random numbers; meshgrid (a list of tensors)
did not import. Every test asserts that nothing
ran eagerly (or only the op Versa cannot take) and compares with eager (f32: rtol 1e-4,
atol 1e-5)."""

import pytest
import torch
import versa
from opaque_ops import REVERSE, reverse
from torch import nn
from torch_helpers import versa_warnings

TOL = {"rtol": 1e-4, "atol": 1e-5}


class ZerosThroughAttention(nn.Module):
    """DETR's decoder input: zeros_like(queries) through batch-first attention, beside a sine."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        zeros = torch.zeros_like(x)
        return torch.sin(x) + self.attention(zeros, zeros, zeros)[0]


class WeightsInLists(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.Parameter(torch.randn(4, 8, 6))
        self.extra = nn.Parameter(torch.randn(3, 8))

    def forward(self, x):
        mixed = torch.einsum("td,edf->tef", x, self.experts).sum(1)
        rows = torch.cat([x, self.extra], 0)
        return mixed, rows, torch.stack([x[:3], self.extra])


def weight_norm_conv() -> nn.Module:
    conv = nn.Conv1d(8, 16, 5, padding=2, groups=2)
    return nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)


class OpaqueThenEncoder(nn.Module):
    """An op Versa cannot take before a transformer layer, whose dropouts and attention are then
    in a partitioned graph."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True, norm_first=True)

    def forward(self, x):
        return self.encoder(reverse(x))


class Grids(nn.Module):
    """A YOLO head's cell offsets: meshgrid both ways (returns a list of tensors)."""

    def forward(self, x):
        ny, nx = x.shape[-2:]
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        a, b, c = torch.meshgrid(torch.arange(3.0), torch.arange(nx * 1.0), torch.arange(2.0), indexing="xy")
        return x + torch.stack((xv, yv), 0).float(), a + b * c


MODELS = {
    "meshgrid": (Grids, (2, 2, 6, 5)),
    "zeros_through_attention": (ZerosThroughAttention, (2, 5, 8)),
    "weights_in_lists": (WeightsInLists, (5, 8)),
    "weight_norm": (weight_norm_conv, (2, 8, 11)),
}


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("route", ["versa.compile", "torch.compile"])
def test_compiles_whole(name: str, route: str) -> None:
    build, shape = MODELS[name]
    torch.manual_seed(0)
    model, x = build().eval(), torch.randn(*shape)
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        compiled = (
            versa.compile(model, (x,)) if route == "versa.compile" else torch.compile(model, backend="versa")
        )
        got = compiled(x)
    assert messages == []
    torch.testing.assert_close(got, model(x), **TOL)


def test_weight_norm_trains() -> None:
    torch.manual_seed(0)
    model, x = weight_norm_conv(), torch.randn(2, 8, 11)
    twin = weight_norm_conv()
    twin.load_state_dict(model.state_dict())
    torch._dynamo.reset()
    with versa_warnings() as messages:
        torch.compile(twin, backend="versa")(x).square().sum().backward()
    model(x).square().sum().backward()
    assert messages == []
    for (name, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got.grad, want.grad, **TOL, msg=name)


def test_dropout_in_eval_is_no_random_op_in_partitions() -> None:
    torch.manual_seed(0)
    model, x = OpaqueThenEncoder().eval(), torch.randn(2, 9, 16)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, (x,))(x)
    assert len(messages) == 1 and messages[0].startswith("versa: 1 op(s) ran eagerly around 1 compiled")
    assert REVERSE in messages[0]
    torch.testing.assert_close(got, model(x), **TOL)
