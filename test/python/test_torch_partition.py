"""Partial compilation: ops Versa refuses (topk, sort, cumprod) run eagerly between
compiled partitions, for torch.compile (forward and backward) and versa.compile (host CPU).

Tolerance (fp32): rtol 1e-4, atol 1e-5 against eager; indices exactly.
"""

import contextlib
import copy
import warnings

import pytest
import torch
import versa
from versa.diagnostics import CompileError
from versa.frontends.torch import api, partition


class TopkValues(torch.nn.Module):
    """conv + relu, topk in the middle, its values through a linear layer."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(3, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x)).flatten(2)
        return torch.tanh(self.fc(torch.topk(y, 3, dim=-1).values))


class TopkIndices(torch.nn.Module):
    """Both topk outputs used later, and returned (multiple outputs, int64 among them)."""

    def forward(self, x):
        values, indices = torch.topk(x * 2 + 1, 2, dim=-1)
        return torch.exp(values) + indices.to(torch.float32), indices


class SortAtStart(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.sort(x, dim=-1)
        return torch.relu(values - 0.5) * 3, indices


class CumprodAtEnd(torch.nn.Module):
    def forward(self, x, index):
        y = torch.sigmoid(x @ x.t()).gather(1, index)
        return y.clone().cumprod_(1)  # in place: functionalized to cumprod


class TwoSeparate(torch.nn.Module):
    """Two unsupported ops apart, and a None output."""

    def forward(self, x):
        y = torch.cumprod(torch.tanh(x) + 1, dim=0)
        z = torch.sort(y * y - 1, dim=-1).values
        return z.sum(dim=0) / 4, None


class ViewsOnly(torch.nn.Module):
    """Nothing but a view between two unsupported ops: no partition is worth compiling."""

    def forward(self, x):
        return torch.sort(torch.sort(x, dim=-1).values.reshape(8, 4), dim=0).values


@contextlib.contextmanager
def versa_warnings():
    """The versa warnings raised inside (pytest runs with -W error)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages: list[str] = []
        yield messages
    messages.extend(str(w.message) for w in caught if str(w.message).startswith("versa:"))


@pytest.fixture
def compiled_calls(monkeypatch):
    """How many calls went through a compiled Versa graph."""
    calls = []
    call = api.VersaGraph.__call__
    monkeypatch.setattr(api.VersaGraph, "__call__", lambda self, args: calls.append(1) or call(self, args))
    return calls


def close(got, want):
    for g, w in zip(torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want), strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


CASES = [
    (TopkValues, lambda: (torch.randn(2, 3, 6, 6),), "1x torch.aten.topk", 2),
    (TopkIndices, lambda: (torch.randn(4, 8),), "1x torch.aten.topk", 2),
    (SortAtStart, lambda: (torch.randn(4, 8),), "1x torch.aten.sort", 1),
    (CumprodAtEnd, lambda: (torch.randn(4, 8), torch.randint(0, 4, (4, 4))), "1x torch.aten.cumprod", 1),
    (TwoSeparate, lambda: (torch.randn(4, 8),), "1x torch.aten.cumprod, 1x torch.aten.sort", 3),
]


@pytest.mark.parametrize(("model", "inputs", "eager", "partitions"), CASES)
def test_torch_compile_runs_only_unsupported_ops_eagerly(model, inputs, eager, partitions, compiled_calls):
    torch.manual_seed(0)
    module, args = model().eval(), inputs()
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        got = torch.compile(module, backend="versa")(*args)
    assert len(messages) == 1 and eager in messages[0], messages
    assert f"around {partitions} compiled partition(s)" in messages[0]
    assert len(compiled_calls) == partitions
    close(got, module(*args))


@pytest.mark.parametrize(("model", "inputs", "eager", "partitions"), CASES)
def test_versa_compile_partitions_for_the_host(model, inputs, eager, partitions, compiled_calls):
    torch.manual_seed(0)
    module, args = model().eval(), inputs()
    with versa_warnings() as messages:
        compiled = versa.compile(module, args)
    assert len(messages) == 1 and eager in messages[0], messages
    got = compiled(*args)
    assert len(compiled_calls) == partitions
    with torch.no_grad():
        close(got, module(*args))
    with pytest.raises(CompileError, match="needs the whole graph"):
        compiled.program()


def test_partitions_without_compute_are_not_compiled(compiled_calls):
    x = torch.randn(4, 8)
    with versa_warnings() as messages:
        compiled = versa.compile(ViewsOnly(), (x,))
    assert "2x torch.aten.sort" in messages[0] and "around 0 compiled" in messages[0]
    torch.testing.assert_close(compiled(x), ViewsOnly()(x))
    assert not compiled_calls


def test_gpu_targets_keep_the_whole_graph_error():
    with pytest.raises(CompileError, match="torch.aten.sort"):
        versa.compile(SortAtStart(), (torch.randn(4, 8),), target="nvptx-sm90")


def test_training_gradients_match_eager():
    """Forward: topk eager; backward (topk's is a scatter) compiled whole. Parameters and input
    get gradients."""
    torch.manual_seed(0)
    model = TopkValues()
    twin = copy.deepcopy(model)
    x = torch.randn(2, 3, 6, 6, requires_grad=True)
    x_twin = x.detach().clone().requires_grad_()
    model(x).square().sum().backward()
    torch._dynamo.reset()
    with versa_warnings() as messages:
        torch.compile(twin, backend="versa")(x_twin).square().sum().backward()
    assert len(messages) == 1 and "torch.aten.topk" in messages[0]
    torch.testing.assert_close(x_twin.grad, x.grad, rtol=1e-4, atol=1e-5)
    for (name, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-5, msg=name)


def graph_of(model, *args) -> torch.fx.GraphModule:
    return torch.export.export(model, args, strict=False).module(check_guards=False)


def test_probing_each_node_finds_what_locating_finds(monkeypatch):
    gm = graph_of(TwoSeparate(), torch.randn(4, 8))
    located = partition.refused_nodes(gm)
    monkeypatch.setattr(partition, "_located", lambda graph_module: None)
    assert {n.name for n in partition.refused_nodes(gm)} == {n.name for n in located} == {"cumprod", "sort"}


def test_a_partition_that_fails_to_compile_runs_eagerly():
    x = torch.randn(2, 3, 6, 6)
    model = TopkValues().eval()

    def compile_graph(part):
        if any(n.target is torch.ops.aten.linear.default for n in part.graph.nodes):
            raise CompileError([])
        return api.VersaGraph(part, None, 2)

    result = partition.Partitioned(graph_of(model, x), compile_graph)
    assert result.compiled == 1 and result.eager["torch.aten.linear"] == 1 and result.failures
    with torch.no_grad():
        close(result.module(x), model(x))
