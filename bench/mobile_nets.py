"""Mobile and efficient conv nets as bench rows: MobileNetV2, EfficientNet's MBConv with
squeeze-excite, a ConvNeXt stage and ResNeXt bottlenecks (groups of 4 channels), at batch 1 and 8.

Their versa program is `versa.import_torch` of the torch module (weights as constants, as
`versa.compile` sees them), so versa-layout keeps the whole net NHWC between one transpose
after the input and one before the output. Batch-norm statistics are random but not trivial.
test/python/cpu/test_mobile_nets.py checks small configurations of the same blocks.
"""

import numpy as np
import torch
from torch import nn

from bench.case import Case


def bn(c: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(c)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.normal_(0, 0.1)
        bn.running_mean.normal_(0, 0.1)
        bn.running_var.uniform_(0.5, 1.5)
    return bn


def conv_bn(ci: int, co: int, k: int = 1, s: int = 1, g: int = 1, act=nn.ReLU6) -> nn.Sequential:
    layers = [nn.Conv2d(ci, co, k, s, k // 2, groups=g, bias=False), bn(co)]
    return nn.Sequential(*layers, *([act()] if act else []))


class InvertedResidual(nn.Module):
    """MobileNetV2: expand 1x1, depthwise 3x3, project 1x1, residual when shapes allow."""

    def __init__(self, ci: int, co: int, s: int, t: int = 6):
        super().__init__()
        hid = ci * t
        self.body = nn.Sequential(conv_bn(ci, hid), conv_bn(hid, hid, 3, s, hid), conv_bn(hid, co, act=None))
        self.res = s == 1 and ci == co

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.res else y


# (expansion t, channels c, repeats n, first stride s), as in the MobileNetV2 paper
MOBILENET_V2 = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


class MobileNetV2(nn.Module):
    """The whole net at width 1.0: stem, 17 inverted residuals, 1x1 head to 1280, classifier."""

    def __init__(self, classes: int = 1000):
        super().__init__()
        layers, ci = [conv_bn(3, 32, 3, 2)], 32
        for t, c, n, s in MOBILENET_V2:
            for i in range(n):
                layers.append(InvertedResidual(ci, c, s if i == 0 else 1, t))
                ci = c
        self.features = nn.Sequential(*layers, conv_bn(ci, 1280))
        self.fc = nn.Linear(1280, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).mean((2, 3)))


class MBConv(nn.Module):
    """EfficientNet: expand 1x1, depthwise kxk, squeeze-excite, project 1x1 (+ residual)."""

    def __init__(self, ci: int, co: int, k: int, s: int, t: int = 6):
        super().__init__()
        hid = ci * t
        self.expand, self.dw = conv_bn(ci, hid, act=nn.SiLU), conv_bn(hid, hid, k, s, hid, act=nn.SiLU)
        self.reduce, self.unreduce = nn.Conv2d(hid, ci // 4, 1), nn.Conv2d(ci // 4, hid, 1)
        self.project = conv_bn(hid, co, act=None)
        self.res = s == 1 and ci == co

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dw(self.expand(x))
        scale = torch.sigmoid(self.unreduce(nn.functional.silu(self.reduce(y.mean((2, 3), keepdim=True)))))
        y = self.project(y * scale)
        return x + y if self.res else y


class ConvNeXtBlock(nn.Module):
    """Depthwise 7x7, LayerNorm over channels and an MLP in NHWC, layer scale, residual."""

    def __init__(self, dim: int):
        super().__init__()
        self.dw, self.norm = nn.Conv2d(dim, dim, 7, padding=3, groups=dim), nn.LayerNorm(dim, eps=1e-6)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.dw(x).permute(0, 2, 3, 1))
        return x + (self.gamma * self.fc2(nn.functional.gelu(self.fc1(y)))).permute(0, 3, 1, 2)


class ResNeXtBottleneck(nn.Module):
    """1x1 reduce, grouped 3x3 (4 channels per group), 1x1 expand, residual."""

    def __init__(self, c: int = 64, width: int = 64, groups: int = 16):
        super().__init__()
        self.a, self.b = conv_bn(c, width, act=nn.ReLU), conv_bn(width, width, 3, 1, groups, act=nn.ReLU)
        self.c = conv_bn(width, c, act=None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.c(self.b(self.a(x))))


def flops(module: nn.Module, x: torch.Tensor) -> float:
    """2 x the multiply-adds of every conv and linear layer of one call (forward hooks)."""
    total = [0.0]

    def conv(m: nn.Conv2d, _, y: torch.Tensor) -> None:
        total[0] += 2.0 * y.numel() * m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]

    def linear(m: nn.Linear, _, y: torch.Tensor) -> None:
        total[0] += 2.0 * y.numel() * m.in_features

    hooks = [m.register_forward_hook(conv) for m in module.modules() if isinstance(m, nn.Conv2d)]
    hooks += [m.register_forward_hook(linear) for m in module.modules() if isinstance(m, nn.Linear)]
    with torch.no_grad():
        module(x)
    for hook in hooks:
        hook.remove()
    return total[0]


def case(build, shape: tuple[int, ...], batch: int, reduction: int) -> Case:
    """The bench case of the module `build()` on a random input of `shape` at `batch`."""
    import versa  # the torch frontend: imported when a model row is built, not with the table

    torch.manual_seed(0)
    module = build().eval()
    x = np.random.default_rng(0).standard_normal((batch, *shape), dtype=np.float32)
    text = str(versa.import_torch(module, (torch.from_numpy(x),)))
    params = sum(p.numel() for p in module.parameters())
    return Case(
        text, [x], module, 1, flops(module, torch.from_numpy(x)), 4.0 * (x.size * 2 + params), reduction
    )


MOBILE = [  # label, module, input shape (no batch), longest reduction
    ("MobileNetV2 224²", MobileNetV2, (3, 224, 224), 1280),
    (
        "EfficientNet MBConv+SE 24→80 56²",
        lambda: nn.Sequential(
            MBConv(24, 40, 5, 2), MBConv(40, 40, 5, 1), MBConv(40, 80, 3, 2), MBConv(80, 80, 3, 1)
        ),
        (24, 56, 56),
        480,
    ),
    (
        "ConvNeXt stage 96ch 56² x3",
        lambda: nn.Sequential(*(ConvNeXtBlock(96) for _ in range(3))),
        (96, 56, 56),
        384,
    ),
    (
        "ResNeXt bottleneck g32 256ch 56² x2",
        lambda: nn.Sequential(ResNeXtBottleneck(256, 128, 32), ResNeXtBottleneck(256, 128, 32)),
        (256, 56, 56),
        288,
    ),
]
