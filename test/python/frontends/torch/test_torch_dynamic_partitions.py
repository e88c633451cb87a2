"""Dynamic models that do not convert whole (issue 46): the ops Versa refuses run eagerly and
the partitions around them compile once with their dims dynamic, sizes read from the tensors
that use them (`sizes.py`), the export's ranges kept (`VersaGraph(ranges=...)`)."""

import warnings

import pytest
import torch
import versa
from torch import nn
from torch.export import Dim
from torch_helpers import record_versa_graphs
from versa.frontends.torch.sizes import SYM_SIZE, read_from_operands

ATOL, RTOL = 1e-5, 1e-4
BATCH, SEQ = Dim("batch", min=1, max=64), Dim("seq", min=2, max=128)
SHAPES = ((1, 2), (3, 5), (4, 16), (2, 37))


class Heads(nn.Module):
    """`linear(x).view(b, t, heads, d)` with `b, t` read from another input, as transformers
    read them from `input_ids`."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(8, 8)

    def forward(self, ids, x):
        b, t = ids.shape
        return self.proj(x).view(b, t, 2, 4).softmax(-1).sum(-1) + ids[..., None]


class Masked(nn.Module):
    """A position mask built from the sequence's size (arange, a cummax Versa has no rule for,
    a comparison, an expand to the batch), applied to a linear layer's output: the cummax is
    refused, and runs eagerly between two partitions."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj, self.norm = nn.Linear(8, 8), nn.LayerNorm(8)

    def forward(self, x):
        positions = torch.cummax(torch.arange(x.shape[1]), 0).values
        mask = (positions[None, :] % 3 != 0).expand(x.shape[0], -1)
        return self.norm(torch.relu(self.proj(x)) * mask[..., None])


def _heads_inputs(batch: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randint(0, 4, (batch, seq)).float(), torch.randn(batch, seq, 8)


HEADS_DIMS = {"ids": {0: BATCH, 1: SEQ}, "x": {0: BATCH, 1: SEQ}}


def test_a_size_is_read_from_the_tensor_that_uses_it() -> None:
    program = torch.export.export(Heads(), _heads_inputs(3, 5), dynamic_shapes=HEADS_DIMS)
    graph = program.graph
    read_from_operands(graph)
    view = next(n for n in graph.nodes if n.target is torch.ops.aten.view.default)
    sizes = [s for s in view.args[1] if isinstance(s, torch.fx.Node)]
    assert len(sizes) == 2
    assert all(s.target is SYM_SIZE and s.args[0] is view.args[0] for s in sizes)
    assert [s.args[1] for s in sizes] == [0, 1]


def test_a_view_sized_by_another_input_converts_whole() -> None:
    model = Heads().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a partitioned model warns
        compiled = versa.compile(model, _heads_inputs(3, 5), dynamic_shapes=HEADS_DIMS)
        with torch.no_grad():
            for shape in SHAPES:
                inputs = _heads_inputs(*shape)
                torch.testing.assert_close(compiled(*inputs), model(*inputs), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


def test_refused_ops_run_eagerly_around_one_dynamic_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Masked().eval()
    compiled_graphs = record_versa_graphs(monkeypatch)  # versa.compile's partitions compile there too
    with pytest.warns(UserWarning, match="ran eagerly") as warned:
        compiled = versa.compile(model, (torch.randn(3, 5, 8),), dynamic_shapes=({0: BATCH, 1: SEQ},))
        with torch.no_grad():
            for shape in SHAPES:  # batch 1: the export's range, not the ShapeEnv's (min 2)
                x = torch.randn(*shape, 8)
                torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    message = str(warned[0].message)
    assert "torch.aten.cummax" in message  # no rule
    for op in ("linear", "layer_norm", "relu", "mul"):
        assert f"torch.aten.{op}" not in message, op
    assert "failed to compile" not in message
    assert len(compiled._compiled) == 1 and compiled_graphs  # one compile served every shape


def test_torch_compile_dynamic_splits_once_not_per_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    compiles = record_versa_graphs(monkeypatch)
    model = Masked().eval()
    compiled = torch.compile(model, backend="versa", dynamic=True)
    with pytest.warns(UserWarning, match="torch.aten.cummax"), torch.no_grad():
        x = torch.randn(3, 5, 8)
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    first = len(compiles)
    with torch.no_grad():
        for shape in SHAPES[1:]:
            x = torch.randn(*shape, 8)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiles) == first  # no compile per shape
