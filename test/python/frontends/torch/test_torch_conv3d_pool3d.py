"""3-d convolution and pooling through the fast 2-d versa ops (rules/conv3d.py, rules/pool3d.py,
the 3-d convolution_backward in rules/backward.py): through versa.compile and torch.compile,
forward and backward, every op converts by a versa rule (none takes torch-mlir's scalar linalg
fallback, none runs eagerly) and the results match eager PyTorch.

Tolerances: f32, rtol 1e-4, atol 1e-5; weight gradients (sums of a few hundred products) atol 1e-4.
"""

import copy

import pytest
import torch
import versa
from torch import nn
from torch.nn import functional as F
from torch_helpers import Wrap, versa_warnings
from versa.frontends.torch.conversion import Conversion

TOL = {"rtol": 1e-4, "atol": 1e-5}
WEIGHT_TOL = {"rtol": 1e-4, "atol": 1e-4}


@pytest.fixture
def paths(monkeypatch) -> set:
    """The (torch op, path) pairs of every conversion the test runs."""
    seen: set = set()
    record = Conversion.record

    def spy(self, op, name, path):
        seen.add((name, path))
        record(self, op, name, path)

    monkeypatch.setattr(Conversion, "record", spy)
    return seen


def not_versa(paths: set) -> set:
    return {p for p in paths if p[1] != "versa"}


def r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# in, out, kernel, stride, padding, dilation, groups, bias, (D, H, W), batch
CONVS = [
    (4, 6, 3, 1, 1, 1, 1, True, (5, 6, 7), 2),
    (4, 6, (3, 1, 1), 1, (1, 0, 0), 1, 1, True, (5, 6, 7), 2),  # temporal: a conv over [D, H·W]
    (4, 6, (3, 1, 1), (2, 1, 1), (1, 0, 0), (2, 1, 1), 2, False, (7, 4, 5), 1),
    (4, 4, (1, 3, 3), (1, 2, 2), (0, 1, 1), 1, 4, True, (3, 7, 6), 2),  # kD = 1, depthwise
    (6, 4, (2, 3, 2), (2, 1, 3), (1, 2, 0), (2, 1, 1), 2, True, (7, 6, 9), 2),  # ragged
    (3, 5, 1, 2, 0, 1, 1, True, (3, 5, 4), 2),  # pointwise, strided: the slices form
    (4, 4, 3, 1, 1, 1, 4, True, (4, 5, 6), 1),  # depthwise
    (3, 8, (3, 5, 5), (1, 2, 2), (1, 2, 2), 1, 1, False, (4, 9, 9), 1),  # a video stem
]


def _ids(case: tuple) -> str:
    return "-".join(str(v).replace(" ", "") for v in case)


def _conv(case: tuple) -> tuple[nn.Conv3d, torch.Tensor]:
    c_in, c_out, kernel, stride, padding, dilation, groups, bias, size, batch = case
    torch.manual_seed(0)
    layer = nn.Conv3d(c_in, c_out, kernel, stride, padding, dilation, groups, bias)
    return layer, r(batch, c_in, *size, seed=1)


@pytest.mark.parametrize("case", CONVS, ids=_ids)
def test_conv3d_versa_compile(case, paths) -> None:
    layer, x = _conv(case)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(layer.eval(), (x,))(x)
        torch.testing.assert_close(got, layer(x), **TOL)
    assert messages == [] and not_versa(paths) == set()


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w: F.conv3d(x, w, padding="same", dilation=(2, 1, 1)),
        lambda x, w: F.conv3d(x, w[:, :, :2, :2], padding="same"),  # odd totals: the extra at the end
        lambda x, w: F.conv3d(x, w, padding="valid", stride=(1, 2, 1)),
        lambda x, w: F.conv3d(x[0], w, padding=1),  # unbatched
    ],
    ids=["same_dilated", "same_even_kernel", "valid", "unbatched"],
)
def test_conv3d_padding_forms(fn, paths) -> None:
    x, w = r(2, 3, 5, 6, 7), r(4, 3, 3, 3, 3, seed=1)
    with versa_warnings() as messages, torch.no_grad():
        torch.testing.assert_close(versa.compile(Wrap(fn), (x, w))(x, w), fn(x, w), **TOL)
    assert messages == [] and not_versa(paths) == set()


def _gradients_match(layer: nn.Module, x: torch.Tensor, input_grad: bool = True) -> None:
    reference = copy.deepcopy(layer)
    torch._dynamo.reset()
    xs = [x.clone().requires_grad_(input_grad), x.clone().requires_grad_(input_grad)]
    with versa_warnings() as messages:
        got = torch.compile(layer, backend="versa")(xs[0])
        upstream = torch.randn_like(got)
        (got * upstream).sum().backward()
    want = reference(xs[1])
    (want * upstream).sum().backward()
    assert messages == []
    torch.testing.assert_close(got, want, **TOL)
    if input_grad:
        torch.testing.assert_close(xs[0].grad, xs[1].grad, **TOL, msg="input grad")
    for (key, mine), theirs in zip(layer.named_parameters(), reference.parameters(), strict=True):
        if theirs.requires_grad:
            torch.testing.assert_close(mine.grad, theirs.grad, **WEIGHT_TOL, msg=f"{key} grad")


@pytest.mark.parametrize("case", CONVS, ids=_ids)
def test_conv3d_torch_compile_gradients(case, paths) -> None:
    """The forward's `convolution` and the backward's `convolution_backward` (which ran eagerly)."""
    _gradients_match(*_conv(case))
    assert ("torch.aten.convolution_backward", "versa") in paths and not_versa(paths) == set()


def test_conv3d_only_the_requested_gradients(paths) -> None:
    """A frozen weight and an input without grad: autograd asks for the bias grad alone."""
    layer, x = _conv(CONVS[0])
    layer.weight.requires_grad_(False)
    _gradients_match(layer, x, input_grad=False)
    assert not_versa(paths) == set()


POOLS = {
    "max_pool3d": (lambda x: F.max_pool3d(x, 2), (2, 3, 4, 6, 5)),
    "max_pool3d_spatial": (lambda x: F.max_pool3d(x, (1, 3, 3), (1, 2, 2), (0, 1, 1)), (2, 3, 5, 9, 7)),
    "max_pool3d_pad_ceil": (lambda x: F.max_pool3d(x, 3, 2, 1, ceil_mode=True), (1, 2, 6, 8, 7)),
    "max_pool3d_ragged_ceil": (
        lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), ceil_mode=True),
        (2, 2, 8, 5, 7),
    ),
    "max_pool3d_unbatched": (lambda x: F.max_pool3d(x, 2), (3, 4, 6, 5)),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), (2, 3, 4, 6, 4)),
    "avg_pool3d_pad": (lambda x: F.avg_pool3d(x, 3, 2, padding=1), (1, 2, 5, 7, 6)),
    "avg_pool3d_pad_ceil": (lambda x: F.avg_pool3d(x, 3, 2, padding=1, ceil_mode=True), (1, 2, 6, 8, 6)),
    "avg_pool3d_pad_ceil_exclude": (
        lambda x: F.avg_pool3d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False),
        (1, 2, 5, 7, 6),
    ),
    "avg_pool3d_divisor_pad_ceil": (
        lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, divisor_override=7),
        (1, 2, 6, 8, 6),
    ),
    "adaptive_avg_pool3d_global": (lambda x: F.adaptive_avg_pool3d(x, 1), (2, 3, 5, 7, 4)),
    "adaptive_avg_pool3d_even": (lambda x: F.adaptive_avg_pool3d(x, (1, 7, 2)), (2, 3, 5, 7, 4)),
    "adaptive_avg_pool3d_uneven": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (2, 3, 5, 7, 4)),
    "adaptive_avg_pool3d_unbatched": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (3, 4, 6, 4)),
}


@pytest.mark.parametrize("name", POOLS)
def test_pool3d_versa_compile(name, paths) -> None:
    fn, shape = POOLS[name]
    x = r(*shape)
    with versa_warnings() as messages, torch.no_grad():
        torch.testing.assert_close(versa.compile(Wrap(fn), (x,))(x), fn(x), **TOL)
    assert messages == [] and not_versa(paths) == set()


@pytest.mark.parametrize(
    "name", ["max_pool3d_spatial", "max_pool3d_pad_ceil", "avg_pool3d_pad_ceil", "adaptive_avg_pool3d_even"]
)
def test_pool3d_torch_compile_gradients(name, paths) -> None:
    """torch.compile's forward has max_pool3d_with_indices (values and indices), avg_pool3d and
    adaptive_avg_pool3d; the backward their gradients (rules/pool_backward.py)."""
    fn, shape = POOLS[name]
    _gradients_match(Wrap(fn), r(*shape))
    assert not_versa(paths) == set()


@pytest.mark.parametrize(
    "kernel, stride, padding, ceil_mode",
    [((2, 3, 3), (1, 2, 2), 1, False), (3, 2, 1, True), ((3, 1, 2), (2, 1, 1), (1, 0, 1), False)],
)
def test_max_pool3d_indices_pick_the_first_maximum(kernel, stride, padding, ceil_mode, paths) -> None:
    """Values 0..2 (ties everywhere): each window's index is its first maximum in (d, h, w)
    order, as torch's kernel picks (the depth pass chooses among per-slice first maxima)."""
    x = torch.randint(0, 3, (2, 3, 5, 7, 6), generator=torch.Generator().manual_seed(0)).float()

    def fn(t):
        return F.max_pool3d(t, kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)

    with versa_warnings() as messages, torch.no_grad():
        values, indices = versa.compile(Wrap(fn), (x,))(x)
    want = fn(x)
    assert messages == [] and not_versa(paths) == set()
    assert torch.equal(values, want[0]) and torch.equal(indices, want[1])


def test_refused_forms_run_through_the_fallback(paths) -> None:
    """Dilated 3-d pooling (versa's pools have no dilation): torch-mlir's lowering, still right."""
    x = r(1, 2, 6, 7, 7)

    def fn(t):
        return F.max_pool3d(t, 2, 1, dilation=2)

    with versa_warnings() as messages, torch.no_grad():
        torch.testing.assert_close(versa.compile(Wrap(fn), (x,))(x), fn(x), **TOL)
    assert messages == [] and not_versa(paths) == {("torch.aten.max_pool3d", "linalg fallback")}


class _Video(nn.Module):
    """A small (2+1)-d video classifier: a stem, a factorised residual block, pools, a head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv3d(3, 8, (3, 5, 5), (1, 2, 2), (1, 2, 2), bias=False)
        self.bn = nn.BatchNorm3d(8)
        self.spatial = nn.Conv3d(8, 8, (1, 3, 3), padding=(0, 1, 1))
        self.temporal = nn.Conv3d(8, 8, (3, 1, 1), padding=(1, 0, 0), groups=2)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        y = F.max_pool3d(F.relu(self.bn(self.stem(x))), (1, 3, 3), (1, 2, 2), (0, 1, 1))
        y = F.relu(self.temporal(F.relu(self.spatial(y))) + y)
        y = F.avg_pool3d(y, (2, 1, 1))
        return self.head(F.adaptive_avg_pool3d(y, 1).flatten(1))


def _sgd_steps(model: nn.Module, x: torch.Tensor, steps: int = 2) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()


def test_video_model_training_steps_end_with_eagers_weights(paths) -> None:
    torch.manual_seed(0)
    model = _Video().train()
    twin = copy.deepcopy(model)
    x = r(2, 3, 4, 16, 16)
    torch._dynamo.reset()
    _sgd_steps(model, x)
    with versa_warnings() as messages:
        _sgd_steps(torch.compile(twin, backend="versa"), x)
    assert messages == [] and not_versa(paths) == set()
    for (key, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got, want, **TOL, msg=f"parameter {key}")
    for (key, want), got in zip(model.named_buffers(), twin.buffers(), strict=True):
        torch.testing.assert_close(got, want, **TOL, msg=f"buffer {key}")
