"""Partial compilation: ops Versa refuses (`opaque_ops`: a custom op library it can never know)
run eagerly between compiled partitions, for torch.compile (forward and backward) and
versa.compile (host CPU).

Tolerance (fp32): rtol 1e-4, atol 1e-5 against eager; indices exactly.
"""

import copy

import pytest
import torch
import versa
from opaque_ops import HALVES, REVERSE, halves, reverse
from torch_helpers import Wrap, versa_warnings
from versa.diagnostics import CompileError
from versa.frontends.torch import api, convert, partition, support
from versa.frontends.torch.convert import Refused


class ReverseMiddle(torch.nn.Module):
    """conv + relu, an unsupported op in the middle, its result through a linear layer."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(3, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x)).flatten(2)
        return torch.tanh(self.fc(reverse(y)[..., :3]))


class HalvesUsedLater(torch.nn.Module):
    """Both results of a two-result op used later, and one returned (multiple outputs, int64)."""

    def forward(self, x):
        low, high = halves(x * 2 + 1)
        return torch.exp(low) + high, (high * 4).to(torch.int64)


class HalvesAtStart(torch.nn.Module):
    def forward(self, x):
        low, high = halves(x)
        return torch.relu(low - 0.5) * 3, high


class ReverseAtEnd(torch.nn.Module):
    def forward(self, x, index):
        y = torch.sigmoid(x @ x.t()).gather(1, index).clone()
        y.mul_(2)  # in place: functionalized
        return reverse(y)


class TwoSeparate(torch.nn.Module):
    """Two unsupported ops apart, and a None output."""

    def forward(self, x):
        y = reverse(torch.tanh(x) + 1)
        z = halves(y * y - 1)[0]
        return z.sum(dim=0) / 4, None


class ViewsOnly(torch.nn.Module):
    """Nothing but a view between two unsupported ops: no partition is worth compiling."""

    def forward(self, x):
        return reverse(reverse(x).reshape(8, 4))


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
    (ReverseMiddle, lambda: (torch.randn(2, 3, 6, 6),), f"1x {REVERSE}", 2),
    (HalvesUsedLater, lambda: (torch.randn(4, 8),), f"1x {HALVES}", 2),
    (HalvesAtStart, lambda: (torch.randn(4, 8),), f"1x {HALVES}", 1),
    (ReverseAtEnd, lambda: (torch.randn(4, 8), torch.randint(0, 4, (4, 4))), f"1x {REVERSE}", 1),
    (TwoSeparate, lambda: (torch.randn(4, 8),), f"1x {HALVES}, 1x {REVERSE}", 3),
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
    assert f"2x {REVERSE}" in messages[0] and "around 0 compiled" in messages[0]
    torch.testing.assert_close(compiled(x), ViewsOnly()(x))
    assert not compiled_calls


def test_gpu_targets_keep_the_whole_graph_error():
    with pytest.raises(CompileError, match=HALVES):
        versa.compile(HalvesAtStart(), (torch.randn(4, 8),), target="nvptx-sm90")


def test_training_gradients_match_eager():
    """Forward and backward (the op's gradient is the op) each with the op eager between compiled
    partitions. Parameters and input get gradients."""
    torch.manual_seed(0)
    model = ReverseMiddle()
    twin = copy.deepcopy(model)
    x = torch.randn(2, 3, 6, 6, requires_grad=True)
    x_twin = x.detach().clone().requires_grad_()
    model(x).square().sum().backward()
    torch._dynamo.reset()
    with versa_warnings() as messages:
        torch.compile(twin, backend="versa")(x_twin).square().sum().backward()
    assert len(messages) == 2 and all(REVERSE in m for m in messages)
    assert "around 0 compiled" not in messages[1]  # the backward's matmuls and convolutions compiled
    torch.testing.assert_close(x_twin.grad, x.grad, rtol=1e-4, atol=1e-5)
    for (name, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-5, msg=name)


class Float64RoundTrip(torch.nn.Module):
    """Versa has no f64: the cast to double and what computes in it run eagerly, the rest compiles."""

    def forward(self, x):
        return (x.double() * 2).float() + 1, torch.isinf(x.double()), torch.tanh(x)


def test_float64_runs_eagerly_around_compiled_partitions(compiled_calls):
    x = torch.randn(3, 5)
    x[0, 0] = float("inf")
    model = Float64RoundTrip()
    want = model(x)
    with versa_warnings() as messages:
        got = versa.compile(model, (x,))(x)
    torch._dynamo.reset()
    with versa_warnings() as more:
        again = torch.compile(model, backend="versa")(x)
    for warned, result in ((messages, got), (more, again)):
        assert len(warned) == 1 and "1x torch.aten.isinf" in warned[0], warned
        assert "torch.aten.mul.Tensor" in warned[0] and "around 1 compiled partition(s)" in warned[0]
        assert "failed to compile" not in warned[0]
        close(result, want)
    assert len(compiled_calls) == 2  # add and tanh, once per path


def test_float64_is_refused_not_an_internal_error():
    with pytest.raises(CompileError, match=r"torch.aten.to.dtype: f64 tensors \(Versa has no f64 type\)"):
        versa.import_torch(Float64RoundTrip(), (torch.randn(3, 5),))


class Bags(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(13, 8, mode="sum")
        self.fc1, self.fc2 = torch.nn.Linear(8, 16), torch.nn.Linear(16, 1)

    def forward(self, indices, offsets):
        return self.fc2(torch.relu(self.fc1(self.bag(indices, offsets))))


def test_an_op_whose_extra_results_are_refused_runs_alone_eagerly(monkeypatch):
    """A rule that leaves results only the backward reads uncomputed (`Refused`; here
    _embedding_bag's offset2bag, bag sizes and argmax, which rules/bags.py does compute): in
    a training graph that returns them, that op alone runs eagerly (its refusal names it, not
    the function's return), and the linear layers compile."""
    original = convert.RULES["torch.aten._embedding_bag"]

    def without_extras(node, *args):
        extra = Refused("offset2bag, bag sizes and argmax (only its backward reads them)")
        return [original(node, *args)[0], extra, extra, extra]

    monkeypatch.setitem(convert.RULES, "torch.aten._embedding_bag", without_extras)
    monkeypatch.delitem(convert.RULES, "torch.aten._embedding_bag_backward")
    torch.manual_seed(0)
    model = Bags()
    twin = copy.deepcopy(model)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5])
    model(indices, offsets).square().sum().backward()
    torch._dynamo.reset()
    with versa_warnings() as messages:
        torch.compile(twin, backend="versa")(indices, offsets).square().sum().backward()
    assert len(messages) == 2, messages
    assert "1 op(s) ran eagerly around 1 compiled partition(s): 1x torch.aten._embedding_bag" in messages[0]
    assert "1x torch.aten._embedding_bag_backward" in messages[1]
    for (name, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-5, msg=name)


def graph_of(model, *args) -> torch.fx.GraphModule:
    return torch.export.export(model, args, strict=False).module(check_guards=False)


def test_probing_each_node_finds_what_locating_finds(monkeypatch):
    gm = graph_of(TwoSeparate(), torch.randn(4, 8))
    located = support.refused_nodes(gm)
    monkeypatch.setattr(support, "_located", lambda graph_module: None)
    assert {n.name for n in support.refused_nodes(gm)} == {n.name for n in located} == {"reverse", "halves"}


def test_a_partition_that_fails_to_compile_runs_eagerly():
    x = torch.randn(2, 3, 6, 6)
    model = ReverseMiddle().eval()

    def compile_graph(part):
        if any(n.target is torch.ops.aten.linear.default for n in part.graph.nodes):
            raise CompileError([])
        return api.VersaGraph(part, api.compile_options(None, 2))

    result = partition.Partitioned(graph_of(model, x), compile_graph)
    assert result.compiled == 1 and result.eager["torch.aten.linear"] == 1 and result.failures
    with torch.no_grad():
        close(result.module(x), model(x))


def test_ops_whose_fallback_reads_out_of_bounds_run_eagerly():
    """x[i, :, j] (index tensors on axes that are not adjacent: the index rule refuses it) is not
    handed to torch-mlir's lowering, which reads out of bounds at i = 1e9 (a segfault): it runs
    eagerly, and a bad index raises IndexError as in eager. Checked on the path first."""

    def pick(x, i):
        return torch.tanh(x[i, :, i] * 2)

    x, i = torch.randn(4, 5, 6), torch.tensor([0, 3, 1])
    model = Wrap(pick)
    paths = {(r.op, r.path) for r in versa.coverage(model, (x, i))}
    assert ("torch.aten.index.Tensor", "linalg fallback") not in paths
    with versa_warnings() as messages:
        compiled = versa.compile(model, (x, i))
        close(compiled(x, i), pick(x, i))
    assert len(messages) == 1 and "1x torch.aten.index.Tensor" in messages[0]
    with pytest.raises(IndexError):
        compiled(x, torch.tensor([0, 3, 10**9]))
