"""PyTorch's scatter-type ops through versa.scatter (rules/scatter.py, rules/backward.py):
forward against eager under torch.compile(backend="versa"), training of an embedding model, a
GCN layer (index_add) and advanced indexing with gradients against eager's, and nothing run
eagerly: warnings are errors, so the partition warning ("... ran eagerly ...") fails a test.
Tolerances: exact-valued cases compare exactly; float sums rtol 1e-5 / atol 1e-6 (forward),
rtol 1e-4 / atol 1e-5 (gradients, as test_torch_training_ops)."""

import warnings

import pytest
import torch
import torch.nn.functional as F
import versa
from torch import nn
from versa.frontends.torch.convert import convert_module
from versa.frontends.torch.importer import import_graph, make_torch_context

aten = torch.ops.aten
IDX = torch.tensor([0, 1, 1, 4, 2, 0, 4])  # duplicates: 0, 1 and 4 twice
UNIQUE = torch.tensor([[0, 2], [1, 3], [3, 0], [2, 1], [0, 3], [1, 0], [3, 2]])  # distinct per row


def _x(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


# name -> (function, its arguments): index tensors and values are graph inputs
FORWARD = {
    "index_add_dim0": (lambda x, i: torch.zeros(5, 3).index_add(0, i, x), (_x(7, 3), IDX)),
    "index_add_dim1_alpha": (
        lambda x, i, s: x.index_add(1, i, s, alpha=2.5),
        (_x(2, 6, 3), IDX[:4], _x(2, 4, 3)),
    ),
    "scatter_src": (lambda i, s: torch.zeros(7, 4).scatter(1, i, s), (UNIQUE, _x(7, 2))),
    "scatter_src_larger": (lambda i, s: torch.zeros(4, 7).scatter(0, i, s), (UNIQUE.T[:, :5], _x(3, 6))),
    "scatter_value": (lambda i: torch.ones(7, 4).scatter(1, i, -3.0), (UNIQUE,)),
    "scatter_add_3d": (
        lambda x, i, s: x.scatter_add(1, i, s),
        (_x(3, 5, 2), torch.tensor([[[4, 0]] * 3] * 3), _x(3, 3, 2)),
    ),
    "scatter_add_i64": (lambda i: torch.arange(8).scatter_add(0, i, torch.arange(7) * 10), (IDX,)),
    "index_put": (lambda x, i, v: x.index_put((i,), v), (_x(5, 3), torch.tensor([4, -2, 0]), _x(3, 3))),
    "index_put_acc": (lambda i, v: torch.zeros(5, 3).index_put((i,), v, accumulate=True), (IDX, _x(7, 3))),
    "index_put_two_adjacent": (
        lambda x, i, j, v: x.index_put((i, j), v, accumulate=True),
        (_x(2, 5, 4), torch.tensor([0, 1]), torch.tensor([[1], [3]]), _x(2, 2, 4)),
    ),
    "index_put_after_none": (
        lambda x, i, j: aten.index_put(x, [None, i, j], torch.tensor(7.0)),
        (_x(2, 5, 4), torch.tensor([[1, 4]]), torch.tensor([2, 3])),
    ),
    "index_put_non_adjacent": (
        lambda x, i, j, v: aten.index_put(x, [i, None, j], v, True),
        (_x(5, 3, 4), torch.tensor([1, 3]), torch.tensor([0, 3]), _x(2, 3)),
    ),
    "unsafe_index_put": (
        lambda i, j, v: aten._unsafe_index_put(torch.zeros(4, 5), [i, j], v, True),
        (torch.tensor([0, 1, 1, 3]), IDX[3:], _x(4)),
    ),
}
for _reduce in ("sum", "amax", "amin", "mean"):
    for _self in (True, False):
        FORWARD[f"scatter_reduce_{_reduce}_{'self' if _self else 'noself'}"] = (
            lambda i, s, r=_reduce, with_self=_self: torch.full((7, 4), 0.5).scatter_reduce(
                1, i, s, r, include_self=with_self
            ),
            (torch.tensor([[0, 0], [1, 3], [3, 3]] * 2 + [[2, 2]]), _x(7, 2)),
        )


@pytest.mark.parametrize("key", sorted(FORWARD))
def test_forward_matches_eager_without_eager_ops(key: str) -> None:
    fn, args = FORWARD[key]
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = torch.compile(fn, backend="versa")(*args)
    torch.testing.assert_close(got, fn(*args), rtol=1e-5, atol=1e-6)


def test_index_add_and_scatter_as_versa_compile_inputs() -> None:
    """Index tensors as inputs (not constants), through versa.compile (torch.export)."""

    class M(nn.Module):
        def forward(self, x, idx, sel, w):
            return torch.zeros(5, x.shape[1]).index_add(0, idx, x), torch.zeros(7, 4).scatter(1, sel, w)

    args = (_x(7, 3), IDX, UNIQUE, _x(7, 2))
    for got, want in zip(versa.compile(M(), args)(*args), M()(*args), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- training


class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = nn.Embedding(50, 16, padding_idx=3)
        self.freq = nn.Embedding(50, 16, scale_grad_by_freq=True)
        self.head = nn.Linear(16, 4)

    def forward(self, ids):
        return self.head(self.plain(ids) + self.freq(ids)).pow(2).mean()


class GCN(nn.Module):
    """bench/scratch/zoo2's gcn_index_add: normalised message passing with index_add."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(16, 32), nn.Linear(32, 4)

    def prop(self, x, edges, deg):
        src, dst = edges[0], edges[1]
        msg = x.index_select(0, src) / deg.index_select(0, src).sqrt().unsqueeze(-1)
        return torch.zeros_like(x).index_add(0, dst, msg) / deg.sqrt().unsqueeze(-1) + x / deg.unsqueeze(-1)

    def forward(self, x, edges):
        deg = torch.ones(x.shape[0]).index_add(0, edges[1], torch.ones(edges.shape[1]))
        return self.prop(self.l2(F.relu(self.prop(self.l1(x), edges, deg))), edges, deg).pow(2).mean()


class AdvancedIndex(nn.Module):
    """A relative-position-bias style lookup: the backward is index_put with accumulate."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(6, 5, 4))

    def forward(self, i, j):
        return (self.table[:, i, j] * torch.arange(6.0).unsqueeze(-1)).pow(2).sum()


class Upsample(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return F.interpolate(self.conv(x), scale_factor=2, mode="bilinear").pow(2).mean()


def _gradients_match(model: nn.Module, args: tuple) -> None:
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.compile(model, backend="versa")(*args).backward()
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(*args).backward()
    for g, p in zip(got, model.parameters(), strict=True):
        torch.testing.assert_close(g, p.grad, rtol=1e-4, atol=1e-5)


def test_embedding_training_matches_eager() -> None:
    """padding_idx (3 appears twice: its row stays zero) and scale_grad_by_freq (1 appears 3x)."""
    torch.manual_seed(0)
    _gradients_match(Embeddings(), (torch.tensor([[1, 3, 5, 1], [7, 3, 1, 49]]),))


def test_gcn_index_add_training_matches_eager() -> None:
    torch.manual_seed(0)
    edges = torch.randint(0, 20, (2, 60), generator=torch.Generator().manual_seed(1))
    _gradients_match(GCN(), (torch.randn(20, 16), edges))


def test_advanced_indexing_training_matches_eager() -> None:
    torch.manual_seed(0)
    _gradients_match(AdvancedIndex(), (torch.tensor([0, 4, 4, -1]), torch.tensor([1, 1, 3, 0])))


def test_bilinear_upsampling_training_with_index_put() -> None:
    """Its backward is _unsafe_index_put with None indices, which torch-mlir's importer turns
    into a hacked_twin that cannot take None; decomposed to index_put (decompositions.py), it
    reaches the index_put rule."""
    torch.manual_seed(0)
    _gradients_match(Upsample(), (torch.randn(2, 3, 8, 8),))


def test_embedding_backward_is_a_scatter_not_a_one_hot_matmul() -> None:
    """The weight gradient's memory is the weight's: no tokens x vocabulary tensor appears."""
    graph = torch.fx.experimental.proxy_tensor.make_fx(
        lambda g, i: aten.embedding_dense_backward(g, i, 30000, -1, False)
    )(torch.randn(64, 8), torch.randint(0, 30000, (64,)))
    text = str(convert_module(import_graph(graph, make_torch_context())))
    assert '"versa.scatter"' in text
    assert "versa.matmul" not in text and "64x30000" not in text and "30000x64" not in text
