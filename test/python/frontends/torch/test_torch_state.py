"""Module state: buffers a forward mutates are read at each call and written back after it, as
eager does, whether the write is compiled or runs eagerly between compiled partitions.

Each model is called several times; after each call its outputs and every buffer are compared
with an eager twin's: integers exactly, floats to rtol 1e-5 (atol 1e-6). Before the fix,
versa.compile returned the new buffer in place of the output and never wrote it back (whole
graph), or froze a buffer read inside a compiled partition at its compile-time value.
"""

import copy

import numpy as np
import pytest
import torch
import versa
from torch import nn
from torch_helpers import versa_warnings


class KvCache(nn.Module):
    """A decode step's cache writes at a tensor position: index_put_, or index_copy_ (which Versa
    refuses: it runs eagerly)."""

    def __init__(self, index_copy: bool = False):
        super().__init__()
        self.index_copy = index_copy
        self.register_buffer("keys", torch.zeros(2, 8))
        self.register_buffer("values", torch.zeros(2, 8), persistent=False)  # as HF caches are

    def forward(self, k, v, pos):
        self.keys[:, pos] = k
        if self.index_copy:
            self.values.index_copy_(1, pos, v)
        else:
            self.values[:, pos] = v
        return self.keys.sum(1) + self.values.square().sum(1)


class Counters(nn.Module):
    """Train-mode statistics (BatchNorm's, run eagerly), an int step counter and a float EMA,
    all read again after they are written."""

    def __init__(self, bn: bool):
        super().__init__()
        self.bn = nn.BatchNorm1d(4) if bn else nn.Identity()
        self.register_buffer("steps", torch.tensor(0))
        self.register_buffer("ema", torch.zeros(4))

    def forward(self, x):
        self.steps += 1
        self.ema.mul_(0.5).add_(x.mean(0))
        return self.bn(x) * self.steps + self.ema


def _kv_calls() -> list[tuple]:
    return [(torch.randn(2, 1), torch.randn(2, 1), torch.tensor([i])) for i in (0, 3, 1)]


def _counter_calls() -> list[tuple]:
    return [(torch.randn(8, 4) + i,) for i in range(3)]


def _assert_same_state(model: nn.Module, twin: nn.Module, call: int) -> None:
    for (name, got), want in zip(model.named_buffers(), twin.buffers(), strict=True):
        message = f"buffer {name} after call {call}"
        if got.is_floating_point():
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, msg=message)
        else:
            assert torch.equal(got, want), f"{message}: {got} != {want}"


def _matches_eager_at_each_call(model: nn.Module, compiled, calls: list[tuple]) -> None:
    twin = copy.deepcopy(model)
    for call, args in enumerate(calls):
        with torch.no_grad():
            got, want = compiled(*args), twin(*args)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, msg=f"output of call {call}")
        _assert_same_state(model, twin, call)


WHOLE = pytest.mark.parametrize(
    ("make", "calls"),
    [(KvCache, _kv_calls), (lambda: Counters(bn=False), _counter_calls)],
    ids=["kv", "counters"],
)
AROUND_EAGER = pytest.mark.parametrize(
    ("make", "calls"),
    [(lambda: KvCache(index_copy=True), _kv_calls), (lambda: Counters(bn=True), _counter_calls)],
    ids=["kv-index-copy", "counters-batch-norm"],
)


@WHOLE
def test_mutated_buffers_are_state_in_a_whole_graph(make, calls) -> None:
    torch.manual_seed(0)
    model, calls = make().train(), calls()
    with versa_warnings() as messages:
        compiled = versa.compile(model, calls[0])
    assert not messages  # one compiled graph, nothing eager
    _matches_eager_at_each_call(model, compiled, calls)


@AROUND_EAGER
def test_mutated_buffers_are_state_around_eager_ops(make, calls) -> None:
    """index_copy_ and BatchNorm in training run eagerly (and write their buffers there); the
    cache, the counter and the EMA are read inside compiled partitions."""
    torch.manual_seed(0)
    model, calls = make().train(), calls()
    with versa_warnings() as messages:
        compiled = versa.compile(model, calls[0])
    assert len(messages) == 1 and "ran eagerly around" in messages[0], messages
    _matches_eager_at_each_call(model, compiled, calls)


@AROUND_EAGER
def test_mutated_buffers_are_state_under_torch_compile(make, calls) -> None:
    torch.manual_seed(0)
    model, calls = make().train(), calls()
    torch._dynamo.reset()
    with versa_warnings():
        _matches_eager_at_each_call(model, torch.compile(model, backend="versa"), calls)


class Accumulate(nn.Module):
    def forward(self, total, x):
        total.add_(x)  # a mutated input: USER_INPUT_MUTATION
        return total * 2


def test_mutated_inputs_are_written_back() -> None:
    total, x = torch.zeros(3), torch.ones(3)
    compiled = versa.compile(Accumulate(), (total.clone(), x))
    for call in range(1, 4):
        torch.testing.assert_close(compiled(total, x), torch.full((3,), 2.0 * call))
        assert torch.equal(total, torch.full((3,), float(call)))


def test_state_with_numpy_inputs() -> None:
    """NumPy in, NumPy out: the buffers still cross as arrays, and are written back."""
    model = KvCache()
    k, v = np.ones((2, 1), np.float32), np.full((2, 1), 2.0, np.float32)
    compiled = versa.compile(model, (k, v, np.array([0])))
    got = [compiled(k * (i + 1), v, np.array([i])) for i in range(2)]
    assert all(isinstance(y, np.ndarray) for y in got)
    np.testing.assert_allclose(got[1], [3.0 + 8.0] * 2)
    assert torch.equal(model.keys[:, :3], torch.tensor([[1.0, 2.0, 0.0]] * 2))


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalises_its_weight(norm_type: float) -> None:
    """Embedding(max_norm=...) rescales the rows it looks up in place (embedding_renorm_): a
    mutated parameter, compiled (no op eager) and written back after each call."""
    torch.manual_seed(0)
    model = nn.Embedding(10, 4, max_norm=1.0, norm_type=norm_type)
    twin = copy.deepcopy(model)
    with versa_warnings() as messages:
        compiled = versa.compile(model, (torch.tensor([[1, 2]]),))
    assert not messages
    for call, ids in enumerate((torch.tensor([[1, 2, 3, 2, 9]]), torch.tensor([[4, 5, 1, 0, 0]]))):
        with torch.no_grad():
            got, want = compiled(ids), twin(ids)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, msg=f"output of call {call}")
        torch.testing.assert_close(model.weight, twin.weight, rtol=1e-5, atol=1e-6)
