"""Convolutions and pools over dynamic image sizes, and conv_transpose2d with a dynamic batch
(issue 46): one compile serves every size, each matching eager. Pools with a dynamic H or W
lower to one pooling op over the padded input (`pool_regions.dynamic_pool2d`), ceil_mode adds
the padding its last window overhangs, adaptive average pooling to a fixed size builds its
averaging matrices per call (`rules/adaptive_sizes.py`), and versa-static-tiles runs convs
and pools in static tiles of output rows and columns. Warnings are errors here: an op that
ran eagerly (a partition) fails the test."""

import pytest
import torch
import versa
from module_helpers import One
from torch import nn
from torch.export import Dim
from torch.nn import functional as F
from torch_helpers import record_versa_graphs
from versa.diagnostics import CompileError

pytestmark = pytest.mark.filterwarnings("error")

ATOL, RTOL = 1e-4, 1e-4
H, W = Dim("h", min=8, max=96), Dim("w", min=8, max=96)
SIZES = ((16, 16), (9, 13), (33, 20), (8, 8), (20, 70))  # odd, square, one tile, several


def _check(model: nn.Module, channels: int, sizes=SIZES, dims=None, batch: int = 2) -> None:
    """One compile at the first size, every size against eager, no second compile."""
    torch.manual_seed(0)
    model = model.eval()
    dims = dims or {2: H, 3: W}
    compiled = versa.compile(model, (torch.randn(batch, channels, *sizes[0]),), dynamic_shapes=(dims,))
    with torch.no_grad():
        for h, w in sizes:
            x = torch.randn(batch, channels, h, w)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


POOLS = {
    "max_3s2p1": lambda x: F.max_pool2d(x, 3, 2, 1),
    "max_2s2": lambda x: F.max_pool2d(x, 2, 2),
    "max_3x2_s1x2_p1x0": lambda x: F.max_pool2d(x, (3, 2), (1, 2), (1, 0)),
    "avg_3s2p1": lambda x: F.avg_pool2d(x, 3, 2, 1),
    "avg_3s2p1_exclude_pad": lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_3x2_s2x1_p1x0": lambda x: F.avg_pool2d(x, (3, 2), (2, 1), (1, 0)),
    "adaptive_7x5": lambda x: F.adaptive_avg_pool2d(x, (7, 5)),
    "adaptive_1": lambda x: F.adaptive_avg_pool2d(x, 1),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pools_over_dynamic_images(name: str) -> None:
    _check(One(POOLS[name]), 3)


# torch.export cannot prove its own ceil_mode guards (`2*(h // 2) < 1 + h`) for a named Dim's
# range: Dim.DYNAMIC lets it keep them
CEIL = {
    "max_3s2p1": lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
    "max_2s2": lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True),
    "avg_3s2p1": lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    "avg_3s2p1_exclude_pad": lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_2s2": lambda x: F.avg_pool2d(x, 2, 2, ceil_mode=True),
}


@pytest.mark.parametrize("name", sorted(CEIL))
def test_ceil_mode_pools_over_dynamic_images(name: str) -> None:
    _check(One(CEIL[name]), 3, dims={2: Dim.DYNAMIC, 3: Dim.DYNAMIC})


def test_ceil_mode_changing_static_shapes_converts() -> None:
    """Static sizes where ceil_mode adds a window (refused before): the overhang as padding."""
    model = One(
        lambda x: F.max_pool2d(x, 3, 2, 0, ceil_mode=True)
        + F.avg_pool2d(x, 2, 2, ceil_mode=True)[..., :4, :4]
    )
    x = torch.randn(1, 2, 9, 9)
    with torch.no_grad():
        torch.testing.assert_close(versa.compile(model.eval(), (x,))(x), model(x), atol=ATOL, rtol=RTOL)


def test_ceil_mode_whose_last_window_may_start_in_the_padding_is_refused() -> None:
    """A stride past the kernel: whether torch drops the last window depends on the size."""
    model, x = One(lambda x: F.max_pool2d(x, 1, 2, ceil_mode=True)), torch.randn(1, 3, 16, 16)
    with pytest.raises(CompileError, match="ceil_mode pooling over a dynamic dim with stride 2 > kernel 1"):
        versa.import_torch(model, (x,), dynamic_shapes=({2: Dim.DYNAMIC, 3: Dim.DYNAMIC},))


CONVS = {
    "3x3_p1": (3, lambda: nn.Conv2d(3, 8, 3, padding=1)),
    "3x3_s2_p1": (3, lambda: nn.Conv2d(3, 8, 3, stride=2, padding=1)),
    "5x3_s2x1_dilated": (4, lambda: nn.Conv2d(4, 6, (5, 3), stride=(2, 1), dilation=(1, 2), padding=(2, 1))),
    "depthwise": (8, lambda: nn.Conv2d(8, 8, 3, padding=1, groups=8)),
    "grouped": (4, lambda: nn.Conv2d(4, 6, 3, padding=1, groups=2)),
    "1x1": (8, lambda: nn.Conv2d(8, 16, 1)),
    "1x1_s2": (8, lambda: nn.Conv2d(8, 16, 1, stride=2)),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convs_over_dynamic_images(name: str) -> None:
    channels, make = CONVS[name]
    torch.manual_seed(0)
    _check(nn.Sequential(make(), nn.ReLU()), channels)


def test_conv_transpose2d_with_a_dynamic_batch() -> None:
    torch.manual_seed(0)
    batch = Dim("batch", min=1, max=8)
    for layer in (
        nn.ConvTranspose2d(8, 4, 2, stride=2),
        nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1),
        nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    ):
        model = nn.Sequential(layer, nn.ReLU()).eval()
        compiled = versa.compile(model, (torch.randn(2, 8, 5, 7),), dynamic_shapes=({0: batch},))
        with torch.no_grad():
            for n in (2, 1, 5):
                x = torch.randn(n, 8, 5, 7)
                torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
        assert len(compiled._compiled) == 1


class ConvNet(nn.Module):
    """torchvision's stem and head in small: conv, batch norm, ReLU, max pool (3, 2, 1), a
    strided block, adaptive average pooling to a fixed 4x4, a linear classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d((4, 4))
        self.classifier = nn.Linear(16 * 16, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def test_a_convnet_at_three_image_sizes_from_one_compile() -> None:
    torch.manual_seed(0)
    model = ConvNet().eval()
    with torch.no_grad():
        model.features[1].running_mean.normal_()
        model.features[1].running_var.uniform_(0.5, 2.0)
    dims = {0: Dim("batch", min=1, max=8), 2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)}
    _check(model, 3, sizes=((64, 64), (97, 75), (128, 160)), dims=dims)


def test_torch_compile_dynamic_convnet_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    graphs = record_versa_graphs(monkeypatch)
    torch.manual_seed(0)
    model = ConvNet().eval()
    compiled = torch.compile(model, backend="versa", dynamic=True)
    with torch.no_grad():
        for h, w in ((64, 48), (97, 75), (128, 160)):  # not square first: duck sizing would pair H and W
            x = torch.randn(2, 3, h, w)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(graphs) == 1
