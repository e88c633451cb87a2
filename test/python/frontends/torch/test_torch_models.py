"""The model families of the PyTorch frontend, end to end: versa.compile and torch.compile
(backend="versa") against eager, and training steps that must end with eager's weights.

Tolerance (fp32): |out - ref| <= 1e-5 * max|ref| + 1e-4 * |ref|, elementwise.
"""

import copy
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "examples" / "torch"))
import models  # noqa: E402
import versa  # noqa: E402
from opaque_ops import HALVES, REVERSE, halves, reverse  # noqa: E402


def assert_close(got: torch.Tensor, ref: torch.Tensor) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype
    bound = 1e-5 * ref.abs().max() + 1e-4 * ref.abs()
    excess = ((got - ref).abs() - bound).max().item()
    assert excess <= 0, f"max |got - ref| = {(got - ref).abs().max().item():.3g} exceeds the tolerance"


@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("name", models.NAMES)
def test_versa_compile_matches_eager(name: str, batch: int) -> None:
    model, inputs = models.build(name, batch)
    compiled = versa.compile(model, inputs)
    with torch.no_grad():
        assert_close(compiled(*inputs), model(*inputs))


class Recurrent(torch.nn.Module):
    def __init__(self, kind: str):
        super().__init__()
        self.layer = getattr(torch.nn, kind)(5, 6, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)[0]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_match_eager(kind: str) -> None:
    """The layers arrive as one op over a list of weights; PyTorch's decompositions unroll them."""
    torch.manual_seed(0)
    model, x = Recurrent(kind).eval(), torch.randn(2, 3, 5)
    compiled = versa.compile(model, (x,))
    with torch.no_grad():
        assert_close(compiled(x), model(x))


@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("name", models.NAMES)
def test_torch_compile_backend_matches_eager(name: str, batch: int) -> None:
    model, inputs = models.build(name, batch)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="versa")
    with torch.no_grad():  # -W error: a fallback warning would fail the test
        assert_close(compiled(*inputs), model(*inputs))


def _sgd_steps(model: torch.nn.Module, inputs, steps: int = 3) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        model(*inputs).float().pow(2).mean().backward()
        optimizer.step()


@pytest.mark.parametrize("name", ["mlp", "cnn", "resnet_basic", "gpt2_block"])
def test_training_steps_end_with_eagers_weights(name: str) -> None:
    model, inputs = models.build(name, 4)
    model.train()
    twin = copy.deepcopy(model)
    torch._dynamo.reset()
    _sgd_steps(model, inputs)
    _sgd_steps(torch.compile(twin, backend="versa"), inputs)  # forward and backward graphs compiled
    for (key, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6, msg=f"parameter {key}")


def test_conv1d_training_steps_end_with_eagers_weights() -> None:
    """conv1d forward and backward are 2-d convolutions of height 1 (no fallback warning)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv1d(3, 8, 5, stride=2, padding=2), torch.nn.ReLU(), torch.nn.Conv1d(8, 4, 3, groups=2)
    )
    twin = copy.deepcopy(model)
    inputs = (torch.randn(2, 3, 21),)
    torch._dynamo.reset()
    _sgd_steps(model, inputs)
    _sgd_steps(torch.compile(twin, backend="versa"), inputs)
    for (key, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6, msg=f"parameter {key}")


def test_gradients_match_eager_through_loss_backward() -> None:
    model, (x,) = models.build("cnn", 2)
    twin = copy.deepcopy(model)
    torch._dynamo.reset()
    model(x).sum().backward()
    torch.compile(twin, backend="versa")(x).sum().backward()
    for want, got in zip(model.parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-6)


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x, y):
        return {"sum": self.fc(x) + y, "pair": (torch.relu(x), [y * 2])}


def test_output_structure_and_shape_cache() -> None:
    torch.manual_seed(0)
    model = TwoHeads().eval()
    compiled = versa.compile(model, (torch.randn(3, 8), torch.randn(3, 4)))
    for rows in (3, 5, 3):  # a new shape compiles again; the old one comes from the cache
        x, y = torch.randn(rows, 8), torch.randn(rows, 4)
        got, want = compiled(x, y), model(x, y)
        assert (
            set(got) == {"sum", "pair"}
            and isinstance(got["pair"], tuple)
            and isinstance(got["pair"][1], list)
        )
        with torch.no_grad():
            for g, w in zip(
                torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want), strict=True
            ):
                assert_close(g, w)
    assert len(compiled._compiled) == 2


def test_exported_program_compiles() -> None:
    model, inputs = models.build("resnet_bottleneck", 2)
    program = torch.export.export(model, inputs)
    with torch.no_grad():
        assert_close(versa.compile(program, inputs)(*inputs), model(*inputs))


def test_numpy_inputs_give_numpy_outputs() -> None:
    model, (x,) = models.build("mlp", 2)
    out = versa.compile(model, (x,))(x.numpy())
    assert isinstance(out, np.ndarray)
    with torch.no_grad():
        assert_close(torch.from_numpy(out), model(x))


def test_calls_alternating_numpy_torch_and_shapes_share_compiled_functions() -> None:
    """The per-call key (type, shape, dtype): NumPy and torch arguments of one signature run
    one compiled function, each getting its own kind of result; a new batch compiles once."""
    model, (x,) = models.build("mlp", 2)
    compiled = versa.compile(model, (x,))
    wide = torch.cat([x, x, x])
    with torch.no_grad():
        for _ in range(2):
            assert isinstance(compiled(x.numpy()), np.ndarray)
            assert isinstance(compiled(x), torch.Tensor)
            assert_close(compiled(wide), model(wide))
            assert_close(torch.from_numpy(compiled(wide.numpy())), model(wide))
    assert len(compiled._compiled) == 2


def test_import_torch_gives_a_versa_module() -> None:
    model, inputs = models.build("resnet_basic", 1)
    text = str(versa.import_torch(model, inputs))
    assert '"versa.conv2d"' in text and '"versa.batch_norm"' in text and "torch." not in text


class Unsupported(torch.nn.Module):
    def forward(self, x):
        y = reverse(x)  # line A
        return halves(y)[0] + reverse(x * 2)[..., :2]  # line B


def test_unsupported_ops_fail_with_one_error_listing_all_of_them() -> None:
    with pytest.raises(versa.CompileError) as info:
        versa.import_torch(Unsupported(), (torch.randn(4, 4),))
    message = str(info.value)
    assert f"2x {REVERSE}" in message and f"1x {HALVES}" in message
    assert f"{Path(__file__).name}:" in message  # the user's source line


def test_torch_compile_falls_back_to_eager_with_one_warning() -> None:
    torch._dynamo.reset()
    x = torch.randn(4, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.compile(Unsupported(), backend="versa")(x)
    messages = [str(w.message) for w in caught if "versa" in str(w.message)]
    assert len(messages) == 1 and REVERSE in messages[0]
    torch.testing.assert_close(out, Unsupported()(x))


@pytest.mark.parametrize("name", models.NAMES)
def test_bf16_models_compile_whole(name: str) -> None:
    """In bf16 every example model compiles with no partition left to PyTorch (one would warn,
    an error under -W error), on any CPU: bf16 needs no instruction or libcall the CPU may lack.
    Against the float32 model on the same bf16 inputs, to within a few bf16 roundings (2^-8
    relative each) compounded over the layers: 2^-4 of the output's scale."""
    model, inputs = models.build(name, 1)
    model = copy.deepcopy(model).to(torch.bfloat16)
    halves = [x.to(torch.bfloat16) if x.is_floating_point() else x for x in inputs]
    got = versa.compile(model, halves)(*halves)
    assert got.dtype == torch.bfloat16
    with torch.no_grad():
        ref = model.float()(*[x.float() if x.is_floating_point() else x for x in halves])
    error = (got.float() - ref).abs().max().item()
    assert error <= 2**-4 * max(1.0, ref.abs().max().item()), f"max |got - ref| = {error:.3g}"
