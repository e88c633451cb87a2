"""torch.compile(backend="versa") on graphs with dynamic shapes: after a second batch size,
Dynamo hands over symbolic sizes; Versa compiles that graph once with its dims dynamic where
the runtime takes them (test_torch_dynamic_shapes), else each concrete shape (one static
compile per shape, cached), in inference and in training, with eager's results."""

import warnings

import pytest
import torch
from test_torch_dynamic_shapes import runtime_takes_dynamic_shapes
from torch import nn
from torch_helpers import record_versa_graphs

ATOL = 1e-4  # f32 models of a few layers: reassociated sums differ from eager by ~1e-6


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 36, 3)
    )


def test_new_batch_sizes_compile_with_versa_not_eagerly(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_graphs = record_versa_graphs(monkeypatch)
    model = _model().eval()
    compiled = torch.compile(model, backend="versa")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "running this graph eagerly"
        with torch.no_grad():
            for batch in (2, 3, 5, 3):
                x = torch.randn(batch, 3, 6, 6)
                torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    # batch 2 (static), then one dynamic graph for 3 and 5, or 3 and 5 each (batch 3 again: cached)
    assert len(compiled_graphs) == (2 if runtime_takes_dynamic_shapes() else 3)


def test_training_with_changing_batch_matches_eagers_gradients(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_graphs = record_versa_graphs(monkeypatch)
    model, twin = _model(), _model()
    compiled = torch.compile(twin, backend="versa")
    for batch in (2, 4, 3):
        x = torch.randn(batch, 3, 6, 6)
        compiled(x).square().sum().backward()
        model(x).square().sum().backward()
        for mine, theirs in zip(twin.parameters(), model.parameters(), strict=True):
            torch.testing.assert_close(mine.grad, theirs.grad, atol=1e-3, rtol=1e-3)
            mine.grad = theirs.grad = None
    assert len(compiled_graphs) == 6  # forward and backward, for each of the three batch sizes


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.gru, self.lstm = nn.GRU(8, 16, batch_first=True), nn.LSTM(16, 8, batch_first=True)

    def forward(self, x):
        return self.lstm(self.gru(x)[0])[0].relu()


def test_recurrent_layers_reach_versa(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dynamo runs RNN modules eagerly, silently, unless `allow_rnn` is set (the backend sets it)."""
    compiled_graphs = record_versa_graphs(monkeypatch)
    model, x = Recurrent(), torch.randn(2, 5, 8)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(model, backend="versa")(x), model(x), atol=ATOL, rtol=1e-4)
    assert len(compiled_graphs) == 1
