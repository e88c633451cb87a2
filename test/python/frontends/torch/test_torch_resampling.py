"""Gradients of average pooling under torch.compile(backend="versa"): the backward is two
matmuls with the forward's (transposed) averaging matrices, so every padding mode, ceil_mode
and divisor must give eager's gradients. A fallback to eager would warn, and warnings are
errors here. Bilinear resampling, small (matmuls) and larger (gathers of two taps).
Tolerances: f32, rtol 1e-4, atol 1e-5 (weights rounded from f64, eager computes them in f32)."""

import warnings

import pytest
import torch
import versa
from torch import nn

# kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
AVG_POOLS = [
    (2, 2, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, False, False, None),
    (3, 2, 1, True, False, None),  # ceil_mode that keeps the shape
    (3, 1, 1, False, True, 5),
    ((2, 3), (1, 2), (1, 0), False, False, None),
]


def _gradients_match(model: nn.Module, x: torch.Tensor) -> None:
    torch.manual_seed(0)
    twin = nn.Sequential(nn.Conv2d(x.shape[1], 3, 1), model)
    reference = nn.Sequential(nn.Conv2d(x.shape[1], 3, 1), model)
    reference.load_state_dict(twin.state_dict())
    torch._dynamo.reset()
    xs = [x.clone().requires_grad_(), x.clone().requires_grad_()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = torch.compile(twin, backend="versa")(xs[0])
    want = reference(xs[1])
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got.pow(2).sum().backward()
    want.pow(2).sum().backward()
    torch.testing.assert_close(xs[0].grad, xs[1].grad, rtol=1e-4, atol=1e-5)
    for mine, theirs in zip(twin.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("config", AVG_POOLS, ids=str)
def test_avg_pool2d_gradients_match_eager(config: tuple) -> None:
    kernel, stride, padding, ceil_mode, include_pad, divisor = config
    pool = nn.AvgPool2d(kernel, stride, padding, ceil_mode, include_pad, divisor)
    _gradients_match(pool, torch.randn(2, 2, 7, 9))


@pytest.mark.parametrize(
    "upsample",
    [
        nn.Upsample(scale_factor=2, mode="bilinear"),
        nn.Upsample(scale_factor=(1.5, 3), mode="bilinear", align_corners=True),
        nn.Upsample(size=(5, 11), mode="bilinear"),
    ],
    ids=["x2", "x1.5x3-align", "size"],
)
def test_bilinear_upsampling_compiles_and_trains(upsample: nn.Module) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 1), upsample)
    twin = nn.Sequential(nn.Conv2d(2, 3, 1), upsample)
    twin.load_state_dict(model.state_dict())
    x = torch.randn(2, 2, 4, 6)
    torch._dynamo.reset()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("error")  # inference: the whole graph compiles
        torch.testing.assert_close(torch.compile(twin, backend="versa")(x), model(x), rtol=1e-4, atol=1e-5)
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # training too: the backward's index_put is a versa.scatter
        torch.compile(twin, backend="versa")(x).pow(2).sum().backward()
    model(x).pow(2).sum().backward()
    for mine, theirs in zip(twin.parameters(), model.parameters(), strict=True):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5)


LARGE = [
    ({"scale_factor": 2}, (1, 3, 20, 24)),
    ({"scale_factor": 2, "align_corners": True}, (2, 2, 17, 19)),
    ({"size": (37, 13)}, (1, 2, 30, 21)),  # up along H, down along W
    ({"scale_factor": 0.5}, (1, 2, 40, 34)),
    ({"scale_factor": (1.5, 2.5)}, (1, 1, 18, 22)),
]


@pytest.mark.parametrize(("options", "dims"), LARGE, ids=[str(o) for o, _ in LARGE])
def test_bilinear_resampling_of_larger_images_is_two_taps(options: dict, dims: tuple) -> None:
    """Past pool.MATMUL_RESAMPLE_LIMIT each axis is two gathers and a weighted sum (no matmul)."""
    x = torch.randn(*dims, generator=torch.Generator().manual_seed(3))
    model = nn.Upsample(mode="bilinear", **options)
    module = versa.import_torch(model, (x,))
    names = [op.operation.name for op in module.body.operations[0].regions[0].blocks[0].operations]
    assert names.count("versa.gather") == 4 and "versa.matmul" not in names
    with torch.no_grad():
        torch.testing.assert_close(versa.compile(model, (x,))(x), model(x), rtol=1e-4, atol=1e-5)
