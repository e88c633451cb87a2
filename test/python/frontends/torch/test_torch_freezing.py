"""torch.compile(backend="versa") freezes inference graphs: parameters and buffers become
constants at the first call (batch norm folds into the conv, weights are no arguments), a
weight changed later is seen (the graph recompiles with them as inputs), mutated buffers and
training graphs are never frozen, and a shape compiled once is not compiled again."""

import pytest
import torch
from torch import nn
from versa.frontends.torch import api, executable

ATOL = 1e-4  # f32 models of a few layers: reassociated sums differ from eager by ~1e-6


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The versa module of every compile (not served from the cache), as text."""
    seen: list[str] = []
    real = api.Executable.__init__

    def record(self, module, *args, **kwargs):
        seen.append(str(module))
        real(self, module, *args, **kwargs)

    monkeypatch.setattr(api.Executable, "__init__", record)
    monkeypatch.setattr(executable, "_EXECUTABLES", type(executable._EXECUTABLES)())
    torch._dynamo.reset()
    return seen


def _model(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 36, 5)
    )
    with torch.no_grad():  # statistics other than the initial 0 / 1, so the folding shows
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 2)
    return model.eval()


def _arguments(text: str) -> int:
    """How many arguments the module's entry function takes."""
    signature = next(line for line in text.splitlines() if "func.func" in line)
    return signature.count("%arg")


def test_inference_graph_takes_weights_as_constants(modules: list[str]) -> None:
    model, x = _model(), torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(model, backend="versa")(x), model(x), atol=ATOL, rtol=1e-4)
    assert len(modules) == 1
    assert _arguments(modules[0]) == 1  # the image only: 2 conv, 4 batch norm, 2 linear tensors bound
    assert "versa.batch_norm" in modules[0]  # kept whole for fold-batch-norm, not decomposed


def test_freeze_false_keeps_weights_as_inputs(modules: list[str]) -> None:
    model, x = _model(), torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        compiled = torch.compile(model, backend="versa", options={"freeze": False})
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    assert _arguments(modules[0]) == 9


def test_changed_weights_are_seen(modules: list[str]) -> None:
    model, x = _model(), torch.randn(2, 3, 6, 6)
    compiled = torch.compile(model, backend="versa")
    with torch.no_grad():
        compiled(x)
        model[0].weight.mul_(2)  # in place: bumps the version counter
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
        model.load_state_dict(_model(seed=1).state_dict())
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
        model[4].weight = nn.Parameter(torch.randn(5, 8 * 36))  # another tensor altogether
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    assert [_arguments(text) for text in modules] == [1, 9]  # thawed once, then inputs for good


def test_buffers_the_graph_updates_are_not_frozen(modules: list[str]) -> None:
    model, twin = _model().train(), _model().train()  # train-mode batch norm updates its statistics
    compiled = torch.compile(twin, backend="versa")
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(4, 3, 6, 6)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    torch.testing.assert_close(twin[1].running_mean, model[1].running_mean)
    torch.testing.assert_close(twin[1].running_var, model[1].running_var)


def test_training_then_evaluation_matches_eager(modules: list[str]) -> None:
    model, twin = _model().train(), _model().train()
    compiled = torch.compile(twin, backend="versa")
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, twin)]
    x = torch.randn(4, 3, 6, 6)
    for _epoch in range(2):
        for m, f, optimizer in zip((model, twin), (model, compiled), optimizers, strict=True):
            m.train()
            f(x).square().mean().backward()
            optimizer.step()
            optimizer.zero_grad()
            m.eval()
        with torch.no_grad():  # evaluation after each epoch sees that epoch's weights
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)


def test_a_shape_seen_before_is_not_compiled_again(modules: list[str]) -> None:
    model = _model()
    compiled = torch.compile(model, backend="versa")
    with torch.no_grad():
        for batch in (2, 3, 2, 3):  # batch 2 static, then 2 and 3 through the symbolic graph
            x = torch.randn(batch, 3, 6, 6)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    assert len(modules) == 2


class ComplexBuffer(nn.Module):
    """A rotary table as a complex buffer: it crosses into the real graph as a view."""

    def __init__(self):
        super().__init__()
        angles = torch.outer(torch.arange(4.0), torch.tensor([1.0, 0.1]))
        self.register_buffer("table", torch.polar(torch.ones_like(angles), angles), persistent=False)
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        pairs = torch.view_as_complex(self.linear(x).reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(pairs * self.table).flatten(-2)


def test_complex_buffers_stay_frozen(modules: list[str]) -> None:
    model, x = ComplexBuffer(), torch.randn(2, 4, 4)
    compiled = torch.compile(model, backend="versa")
    with torch.no_grad():
        for _ in range(3):
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=1e-4)
    assert [_arguments(text) for text in modules] == [1]  # the table's view is the same each call
