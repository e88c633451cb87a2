"""What the PyTorch frontend's tests share: a module around a function, the versa warnings
(ops run eagerly, a partition that failed, an export that went through torch.compile), a
function run through versa.compile or torch.compile with nothing eager, and the graphs that
torch.compile hands to Versa."""

import contextlib
import warnings

import pytest
import torch
import versa
from versa.frontends.torch import dynamo


class Wrap(torch.nn.Module):
    """`fn` as a module, for versa.compile and torch.compile."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


@contextlib.contextmanager
def versa_warnings():
    """The versa warnings raised inside, as strings (pytest runs with -W error)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages: list[str] = []
        yield messages
    messages.extend(str(w.message) for w in caught if str(w.message).startswith("versa:"))


def compiled_quietly(fn, *inputs):
    """`fn(*inputs)` through versa.compile (no grad); no op may have run eagerly."""
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(Wrap(fn), inputs)(*inputs)
    assert messages == []
    return got


def weighted(y):
    """A weighted sum (weights sin(0), sin(1), ...): a gradient sent to the wrong element shows."""
    return (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).sin()).sum()


def torch_compile_with_gradients(fn, inputs, grad: bool = True):
    """`fn` through torch.compile(backend="versa") and eagerly, with the gradients of `weighted`
    sums: (got, want, [(gradient, eager gradient) per input]); no op may have run eagerly."""
    torch._dynamo.reset()
    leaves = [x.clone().requires_grad_(grad) for x in inputs]
    twins = [x.clone().requires_grad_(grad) for x in inputs]
    with versa_warnings() as messages:
        got = torch.compile(Wrap(fn), backend="versa")(*leaves)
        if grad:
            weighted(got).backward()
    want = fn(*twins)
    if grad:
        weighted(want).backward()
    assert messages == []
    return got, want, [(a.grad, b.grad) for a, b in zip(leaves, twins, strict=True)] if grad else []


def record_versa_graphs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every graph that torch.compile(backend="versa") hands to Versa's static compiler (not
    run eagerly) from now on, in order, appended to the list returned; Dynamo's caches reset."""
    seen: list[object] = []
    real = dynamo.VersaGraph.__init__

    def record(self, graph_module, *args, **kwargs):
        real(self, graph_module, *args, **kwargs)
        seen.append(graph_module)

    monkeypatch.setattr(dynamo.VersaGraph, "__init__", record)
    torch._dynamo.reset()
    return seen
