"""nn.EmbeddingBag trains through torch.compile(backend="versa") with nothing eager (DLRM's
sparse features): the forward's auxiliary results are PyTorch's CPU values and the backward
(`_embedding_bag_backward`, `_embedding_bag_per_sample_weights_backward`) has rules
(rules/bags.py). Gradients and three SGD steps against eager; rtol 1e-4, atol 1e-5 (f32)."""

import pytest
import torch
import versa
from torch_helpers import versa_warnings

INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 4])
OFFSETS = torch.tensor([0, 2, 2, 6])  # bag 1 is empty
TOL = {"rtol": 1e-4, "atol": 1e-5}


def train(bag: torch.nn.Module, compiled, steps: int = 3, **call):
    """Three SGD steps of sum((bag(...) * w)^2) with w = sin(0), sin(1), ..., the loss each step."""
    optimizer = torch.optim.SGD(bag.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        out = compiled(**call)
        loss = (out * torch.arange(out.numel()).reshape(out.shape).sin()).pow(2).sum()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


@pytest.mark.parametrize("padding_idx", [None, 4], ids=["plain", "padding"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_trains_like_eager(mode, padding_idx):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(12, 6, mode=mode, padding_idx=padding_idx)
    twin = torch.nn.EmbeddingBag(12, 6, mode=mode, padding_idx=padding_idx)
    twin.load_state_dict(bag.state_dict())
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = train(twin, torch.compile(twin, backend="versa"), input=INDICES, offsets=OFFSETS)
    want = train(bag, bag, input=INDICES, offsets=OFFSETS)
    assert messages == []
    torch.testing.assert_close(torch.stack(got), torch.stack(want), **TOL)
    torch.testing.assert_close(twin.weight, bag.weight, **TOL)


def test_per_sample_weights_and_last_offset_train_like_eager():
    torch.manual_seed(1)
    bag = torch.nn.EmbeddingBag(12, 6, mode="sum", include_last_offset=True)
    weights = torch.rand(len(INDICES), requires_grad=True)
    twin_weights = weights.detach().clone().requires_grad_(True)
    offsets = torch.tensor([0, 3, 3, 7, 10])
    fn = lambda w: bag(INDICES, offsets, per_sample_weights=w)  # noqa: E731
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = torch.compile(fn, backend="versa")(twin_weights)
        (got * torch.arange(got.numel()).reshape(got.shape).cos()).sum().backward()
    twin_grad = bag.weight.grad.clone()
    bag.weight.grad = None
    want = fn(weights)
    (want * torch.arange(want.numel()).reshape(want.shape).cos()).sum().backward()
    assert messages == []
    torch.testing.assert_close(got, want, **TOL)
    torch.testing.assert_close(twin_weights.grad, weights.grad, **TOL)
    torch.testing.assert_close(twin_grad, bag.weight.grad, **TOL)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [-1, 4])
def test_auxiliary_results_are_pytorchs(mode, padding_idx):
    """offset2bag, bag sizes and maximum rows as PyTorch's CPU kernel returns them."""
    weight = torch.randn(12, 6)

    class Bag(torch.nn.Module):
        def forward(self, weight, indices, offsets):
            return torch.ops.aten._embedding_bag(
                weight, indices, offsets, False, mode, False, None, False, padding_idx
            )

    with torch.no_grad():
        got = versa.compile(Bag(), (weight, INDICES, OFFSETS))(weight, INDICES, OFFSETS)
    want = Bag()(weight, INDICES, OFFSETS)
    torch.testing.assert_close(got[0], want[0], **TOL)
    for g, w in zip(got[1:], want[1:], strict=True):
        assert g.shape == w.shape and torch.equal(g, w), (g, w)
