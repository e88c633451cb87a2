"""Edge padding (reflect, replicate, circular) and torch.cat of many tensors: the forms that
copy each element once (rules/unfold.py `pad_edges`; convert-versa-to-linalg's concat chains).

Padding of several dims is one gather through a table of source positions; padding of one
dim is a concat. Numerics against eager PyTorch (exact: both only move elements)."""

import pytest
import torch
import versa
from torch.nn import functional as F
from torch_helpers import compiled_quietly, torch_compile_with_gradients
from versa.frontends.torch.rules import unfold

EXACT = {"rtol": 0.0, "atol": 0.0}


def r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


PADS = [
    # (padding, input shape): pairs from the last dim backwards
    ((3, 3, 3, 3), (1, 4, 9, 10)),
    ((2, 0, 0, 5), (2, 3, 6, 7)),  # one side only, per dim
    ((0, 0, 1, 2), (2, 3, 4, 5)),  # the last dim unpadded: one dim padded (a concat)
    ((4, 1), (2, 3, 5)),  # 1-d
    ((1, 2, 0, 0, 2, 1), (1, 2, 3, 4, 5)),  # 3-d, the middle dim unpadded
    ((1, 1, 2, 2, 1, 0), (2, 2, 3, 4, 5)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(("padding", "dims"), PADS, ids=[str(p) for p, _ in PADS])
def test_edge_padding_matches_eager(mode, padding, dims):
    x = r(*dims)
    fn = lambda x: F.pad(x, padding, mode=mode)  # noqa: E731
    torch.testing.assert_close(compiled_quietly(fn, x), fn(x), **EXACT)


@pytest.mark.parametrize("mode", ["reflect", "circular"])
def test_padding_as_wide_as_allowed(mode):
    """Reflect may pad size-1, circular size (each end reads the other)."""
    x = r(2, 3, 4, 5)
    widest = 3 if mode == "reflect" else 4
    fn = lambda x: F.pad(x, (widest + 1, widest + 1, widest, widest), mode=mode)  # noqa: E731
    torch.testing.assert_close(compiled_quietly(fn, x), fn(x), **EXACT)


def test_padding_two_dims_is_one_gather():
    """No concat (each one copied the whole tensor again) and no slice: one gather of x."""
    module = versa.import_torch(Pad((3, 3, 3, 3), "reflect"), (r(1, 4, 9, 10),))
    names = [op.operation.name for op in module.body.operations[0].regions[0].blocks[0].operations]
    assert names.count("versa.gather") == 1
    assert "versa.concat" not in names and "versa.slice" not in names


def test_a_larger_table_falls_back_to_concats(monkeypatch):
    monkeypatch.setattr(unfold, "GATHER_TABLE_LIMIT", 10)
    x = r(1, 2, 5, 6)
    fn = lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect")  # noqa: E731
    torch.testing.assert_close(compiled_quietly(fn, x), fn(x), **EXACT)


class Pad(torch.nn.Module):
    def __init__(self, padding, mode):
        super().__init__()
        self.padding, self.mode = padding, mode

    def forward(self, x):
        return F.pad(x, self.padding, mode=self.mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_edge_padding_trains(mode):
    """The backward (a scatter-add of the borders) through torch.compile."""
    fn = lambda x: torch.tanh(F.pad(x, (2, 1, 1, 2), mode=mode))  # noqa: E731
    got, want, grads = torch_compile_with_gradients(fn, [r(2, 3, 5, 6)])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    for grad, eager in grads:
        torch.testing.assert_close(grad, eager, rtol=1e-4, atol=1e-5)


def dense_block(x, w1, w2, w3):
    """DenseNet's concatenations: each layer reads the concat of every feature before it."""
    features = [x]
    for w in (w1, w2, w3):
        features.append(torch.relu(F.conv2d(torch.cat(features, 1), w, padding=1)))
    return torch.cat(features, 1)


def test_dense_block_concatenations():
    x, weights = r(2, 5, 8, 8), [r(3, 5 + 3 * i, 3, 3, seed=i + 1) * 0.2 for i in range(3)]
    got = compiled_quietly(dense_block, x, *weights)
    torch.testing.assert_close(got, dense_block(x, *weights), rtol=1e-4, atol=1e-5)


def test_cat_of_many_odd_sizes_and_a_shared_part():
    """Seven inputs of different channel counts; one of them also returned alone."""
    parts = [r(2, c, 3, 5, seed=c) for c in (1, 4, 2, 7, 3, 1, 5)]

    def fn(*xs):
        inner = torch.cat(xs[:3], 1)
        return torch.cat([inner, *xs[3:]], 1), inner * 2

    got, want = compiled_quietly(fn, *parts), fn(*parts)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, **EXACT)
