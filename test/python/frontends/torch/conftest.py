"""Fixtures of the torch frontend tests."""

import pytest
import torch
from versa.frontends.torch import dynamo


@pytest.fixture
def compiled_graphs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every graph handed to Versa's static compiler (not run eagerly), in order."""
    seen: list[object] = []
    real = dynamo.VersaGraph.__init__

    def record(self, graph_module, *args, **kwargs):
        real(self, graph_module, *args, **kwargs)
        seen.append(graph_module)

    monkeypatch.setattr(dynamo.VersaGraph, "__init__", record)
    torch._dynamo.reset()
    return seen
