"""Training-graph ops under torch.compile(backend="versa") that a model-zoo probe found wrong or
slow: backward ops torch-mlir lowered wrongly or not at all (leaky_relu's gave 0.8 for 0.2),
`new_full` filled with its size, depthwise weight gradients compiled one conv per channel, and
a random op (stochastic depth) took its whole partition to eager. Gradients against eager's,
f32, rtol 1e-4, atol 1e-5 (1e-4 for convolution weights: sums of a few hundred products)."""

import warnings

import pytest
import torch
import torch.nn.functional as F
import versa
from torch import nn


class _Scaled(nn.Module):
    """x · w, then the activation under test (not in place: its backward op is in the graph)."""

    def __init__(self, activation=None):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-2.0, 2.0, 8))
        self.activation = activation

    def forward(self, x):
        return self.activation(x * self.w)


@pytest.mark.parametrize(
    "activation",
    [
        lambda y: F.leaky_relu(y, 0.2),
        F.hardsigmoid,
        lambda y: F.glu(y, dim=-1),
        lambda y: F.binary_cross_entropy(torch.sigmoid(y), torch.full_like(y, 0.25)),
    ],
    ids=["leaky_relu", "hardsigmoid", "glu", "binary_cross_entropy"],
)
def test_activation_gradients_match_eager(activation) -> None:
    torch.manual_seed(0)
    model = _Scaled(activation)
    x = torch.randn(3, 8) * 2
    torch._dynamo.reset()
    xs = [x.clone().requires_grad_(), x.clone().requires_grad_()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.compile(model, backend="versa")(xs[0]).pow(2).sum().backward()
    got = model.w.grad.clone()
    model.zero_grad()
    model(xs[1]).pow(2).sum().backward()
    torch.testing.assert_close(got, model.w.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(xs[0].grad, xs[1].grad, rtol=1e-4, atol=1e-5)


def test_new_full_fills_with_its_value() -> None:
    class NewFull(nn.Module):
        def forward(self, x):
            return x + x.new_full((3,), 7.0) - x.new_full((), -100.0)

    x = torch.zeros(2, 3)
    torch.testing.assert_close(versa.compile(NewFull(), (x,))(x), NewFull()(x))


@pytest.mark.parametrize(
    "conv",
    [
        dict(kernel_size=3, padding=1),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=5, padding=4, dilation=2),
        dict(kernel_size=(3, 1), padding=(1, 0), bias=False),
    ],
    ids=["3x3", "3x3s2", "5x5d2", "3x1-nobias"],
)
def test_depthwise_weight_gradients_match_eager(conv: dict) -> None:
    """A depthwise conv's weight gradient is one grouped conv (the batch as each group's
    channels), not a conv per channel: seconds to compile, not minutes."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(16, 16, groups=16, **conv), nn.ReLU())
    torch._dynamo.reset()
    x = torch.randn(2, 16, 9, 11)
    twin = nn.Sequential(nn.Conv2d(16, 16, groups=16, **conv), nn.ReLU())
    twin.load_state_dict(model.state_dict())
    xs = [x.clone().requires_grad_(), x.clone().requires_grad_()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.compile(twin, backend="versa")(xs[0]).pow(2).sum().backward()
    model(xs[1]).pow(2).sum().backward()
    torch.testing.assert_close(xs[0].grad, xs[1].grad, rtol=1e-4, atol=1e-5)
    for mine, theirs in zip(twin.parameters(), model.parameters(), strict=True):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-4)


def test_a_random_op_runs_eagerly_alone() -> None:
    """Stochastic depth (torch.empty().bernoulli_(), as in timm's DropPath): the random op runs
    eagerly, drawing from torch's generator; the linear layers around it still compile."""

    class DropPath(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x):
            keep = torch.empty(x.shape[0], 1, dtype=x.dtype).bernoulli_(0.8)
            return torch.relu(self.lin(x)) * keep / 0.8 + x

    torch._dynamo.reset()
    compiled = r"versa: .* ran eagerly around [1-9]\d* compiled partition"
    with pytest.warns(UserWarning, match=compiled) as caught:
        torch.compile(DropPath().train(), backend="versa")(torch.randn(4, 8)).sum().backward()
    assert not any("failed to compile" in str(w.message) for w in caught)
