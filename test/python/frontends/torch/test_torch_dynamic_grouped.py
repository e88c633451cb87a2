"""Grouped (not depthwise) convolutions over a dynamic batch and image size (issue 46): the
lowering writes them as one generic marked as a window op (`common/window_marks.py`), which
versa-static-tiles cuts into static tiles of output rows and columns (one image each), every
tile built as the static lowering builds a grouped conv (a named conv per group, the grouped
conv strategy's). One compile serves every size, each matching eager."""

import pytest
import torch
import versa
from torch import nn
from torch.export import Dim

pytestmark = pytest.mark.filterwarnings("error")

ATOL, RTOL = 1e-4, 1e-4
H, W, BATCH = Dim("h", min=4, max=96), Dim("w", min=4, max=96), Dim("batch", min=1, max=8)

CONVS = {  # (in channels, layer): ResNeXt's groups of 4 channels (32 groups), stride 2, padding
    "g2_3x3_p1": (8, lambda: nn.Conv2d(8, 12, 3, padding=1, groups=2)),
    "g4_3x3_s2_p1": (16, lambda: nn.Conv2d(16, 8, 3, stride=2, padding=1, groups=4)),
    "g32_3x3_p1": (128, lambda: nn.Conv2d(128, 128, 3, padding=1, groups=32)),
    "g32_3x3_s2_p1": (128, lambda: nn.Conv2d(128, 128, 3, stride=2, padding=1, groups=32)),
    "g4_5x3_s2x1_dilated": (
        8,
        lambda: nn.Conv2d(8, 8, (5, 3), stride=(2, 1), dilation=(1, 2), padding=(2, 1), groups=4),
    ),
}


def _check(model: nn.Module, shapes: list[tuple[int, ...]], dims: dict) -> None:
    """One compile at the first shape, every shape against eager, no second compile."""
    model = model.eval()
    compiled = versa.compile(model, (torch.randn(*shapes[0]),), dynamic_shapes=(dims,))
    with torch.no_grad():
        for shape in shapes:
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


@pytest.mark.parametrize("name", sorted(CONVS))
def test_grouped_convs_over_dynamic_images(name: str) -> None:
    channels, make = CONVS[name]
    torch.manual_seed(0)
    sizes = ((16, 16), (9, 13), (33, 20), (5, 70))  # one tile, partial tiles, several
    _check(nn.Sequential(make(), nn.ReLU()), [(2, channels, h, w) for h, w in sizes], {2: H, 3: W})


def test_grouped_conv_over_a_dynamic_batch_and_image() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(64, 64, 3, stride=2, padding=1, groups=32), nn.ReLU())
    shapes = [(2, 64, 14, 14), (1, 64, 9, 21), (3, 64, 28, 7)]
    _check(model, shapes, {0: BATCH, 2: H, 3: W})
