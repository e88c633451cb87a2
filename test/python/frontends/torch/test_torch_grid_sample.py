"""F.grid_sample and F.affine_grid through their versa rule (`rules/grid_sample.py`), against
eager: every mode and padding mode it covers, grid points outside [-1, 1] and far outside (1e9,
where torch-mlir's lowering, which the rule replaces, read out of bounds and crashed), and the
forms it does not cover, which run eagerly (`fallback.UNSAFE`: never torch-mlir's lowering).

Tolerances: f32, rtol 1e-5, atol 1e-5 (nearest: exact).
"""

import pytest
import torch
import torch.nn.functional as F
import versa
from torch_helpers import Wrap, versa_warnings

TOL = {"rtol": 1e-5, "atol": 1e-5}
COMBINATIONS = [(m, p) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")]


def sample_all(align_corners: bool):
    """Every covered (mode, padding mode) of one input and grid: one model, one compile."""

    def fn(x, grid):
        return [F.grid_sample(x, grid, m, p, align_corners) for m, p in COMBINATIONS]

    return Wrap(fn)


def paths(model, inputs) -> set[tuple[str, str]]:
    return {(r.op, r.path) for r in versa.coverage(model, inputs)}


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_eager(align_corners: bool) -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 6, 7, generator=g)
    grid = torch.rand(2, 5, 4, 2, generator=g) * 3.2 - 1.6  # reflected up to twice
    grid[0, 0, :, :] = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])  # the corners
    model = sample_all(align_corners)
    assert paths(model, (x, grid)) == {("torch.aten.grid_sampler", "versa")}
    with versa_warnings() as messages:
        got = versa.compile(model, (x, grid))(x, grid)
    assert messages == []
    for (mode, _), mine, theirs in zip(COMBINATIONS, got, model(x, grid), strict=True):
        torch.testing.assert_close(mine, theirs, **(TOL if mode == "bilinear" else {"rtol": 0, "atol": 0}))


def test_grid_far_outside_is_zeros_or_the_border_never_a_stray_read() -> None:
    """Grid values of ±1e9 read nothing outside x (zeros padding: 0; border and reflection: an
    edge pixel, as eager); inf and NaN give no crash. Checked on the rule's path first, so that
    the old unsafe lowering is never run."""
    x = torch.randn(1, 2, 4, 5, generator=torch.Generator().manual_seed(1))
    values = torch.tensor([1e9, -1e9, 0.3, 1.0])
    grid = torch.stack(torch.meshgrid(values, values, indexing="ij"), -1).unsqueeze(0)
    model = sample_all(align_corners=False)
    assert paths(model, (x, grid)) == {("torch.aten.grid_sampler", "versa")}
    compiled = versa.compile(model, (x, grid))
    for mine, theirs in zip(compiled(x, grid), model(x, grid), strict=True):
        torch.testing.assert_close(mine, theirs, **TOL)
    odd = torch.tensor([float("inf"), float("-inf"), float("nan"), 3e38])
    for out in compiled(x, torch.stack(torch.meshgrid(odd, odd, indexing="ij"), -1).unsqueeze(0)):
        assert out.shape == (1, 2, 4, 4)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x, g: F.grid_sample(x, g, mode="bicubic", align_corners=True), [(1, 2, 4, 5), (1, 3, 3, 2)]),
        (lambda x, g: F.grid_sample(x, g, align_corners=False), [(1, 2, 3, 4, 5), (1, 2, 3, 3, 3)]),
    ],
    ids=["bicubic", "5-d"],
)
def test_uncovered_grid_samples_run_eagerly(fn, shapes) -> None:
    """Bicubic (torch-mlir's lowering was silently wrong) and 5-d grids: eager, eager's result."""
    g = torch.Generator().manual_seed(2)
    x, grid = torch.randn(*shapes[0], generator=g), torch.rand(*shapes[1], generator=g) * 2.4 - 1.2
    with versa_warnings() as messages:
        got = versa.compile(Wrap(fn), (x, grid))(x, grid)
    assert len(messages) == 1 and "1x torch.aten.grid_sampler" in messages[0]
    torch.testing.assert_close(got, fn(x, grid), rtol=0, atol=0)


class SpatialTransformer(torch.nn.Module):
    """A spatial transformer: θ from a Linear, F.affine_grid, then F.grid_sample."""

    def __init__(self, align_corners: bool):
        super().__init__()
        self.loc = torch.nn.Linear(3 * 6 * 7, 6)
        self.align_corners = align_corners

    def forward(self, x):
        theta = self.loc(x.flatten(1)).view(-1, 2, 3) + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
        grid = F.affine_grid(theta, [x.shape[0], 3, 5, 4], align_corners=self.align_corners)
        return F.grid_sample(x, grid, padding_mode="border", align_corners=self.align_corners)


@pytest.mark.parametrize("align_corners", [False, True])
def test_spatial_transformer_compiles_whole_under_torch_compile(align_corners: bool) -> None:
    """torch.compile's graph has grid_sampler_2d and affine_grid_generator: both rules."""
    torch.manual_seed(3)
    model = SpatialTransformer(align_corners).eval()
    x = torch.randn(2, 3, 6, 7)
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        got = torch.compile(model, backend="versa")(x)
    torch._dynamo.reset()
    assert messages == []
    torch.testing.assert_close(got, model(x), **TOL)
