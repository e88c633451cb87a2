"""Convs whose filters are packed into register panels, in blocks of filters (codegen/conv.py:
filters over half of L2, or all of it for strided convs, read by PACK_REUSE or more register
tiles), with and without an epilogue, on one and two threads, against PyTorch. f32 sums of
2304-4608 products: rtol 1e-4, atol 1e-4."""

from dataclasses import replace

import numpy as np
import pytest
import torch
import versa
from torch import nn
from versa import targets
from versa.context import make_context
from versa.cpu import runtime
from versa.mlir import ir
from versa.passes.cpu.strategies import conv

TOL = {"rtol": 1e-4, "atol": 1e-4}
PIPELINE = "versa-optimize,lower-to-llvm{{threads={threads}}}"


def layer(channels: int, epilogue: bool, stride: int = 1) -> nn.Module:
    torch.manual_seed(channels)
    body = [nn.Conv2d(channels, channels, 3, stride=stride, padding=1, bias=epilogue)]
    return nn.Sequential(*body, nn.ReLU()).eval() if epilogue else body[0].eval()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("epilogue", [False, True], ids=["conv", "conv_bias_relu"])
@pytest.mark.parametrize(
    ("channels", "size", "stride"),
    [(256, 14, 1), (512, 7, 1), (512, 14, 2)],
    ids=["256x14", "512x7", "512x14s2"],
)
def test_packed_convs_match_torch(channels, size, stride, epilogue, threads):
    model = layer(channels, epilogue, stride)
    x = torch.randn(1, channels, size, size, generator=torch.Generator().manual_seed(1))
    function = runtime.JitFunction(versa.import_torch(model, (x,)), pipeline=PIPELINE.format(threads=threads))
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(function(x.numpy())[0], want, **TOL)


def conv_strategies(x: str, w: str, o: str, stride: int, caches) -> list:
    """The ConvStrategy of one thread for the NHWC conv x * w -> o at `stride`, per
    (L1, L2, L3) of `caches` (an AVX-512 target with those caches)."""
    text = f"""func.func @f(%x: {x}, %w: {w}, %o: {o}) -> {o} {{
      %0 = linalg.conv_2d_nhwc_hwcf
        {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
        ins(%x, %w : {x}, {w}) outs(%o : {o}) -> {o}
      return %0 : {o}
    }}"""
    with make_context():
        module = ir.Module.parse(text)
        op = module.body.operations[0].regions[0].blocks[0].operations[0]
        base = targets.resolve("x86-64-v4")
        return [conv.ConvStrategy.for_op(op.operation, replace(base, caches=c), 1) for c in caches]


def test_the_deep_conv_takes_the_packed_form():
    """The strategy for the 256-channel 14x14 conv on one thread packs its 2.4 MB of filters, in
    blocks of a third of L2 that divide F (a 2 MB L2: 64 filters of 9 KB; 1 MB: 32)."""
    caches = [(48 << 10, l2, 32 << 20) for l2 in (2 << 20, 1 << 20, 8 << 20)]  # 8 MB: they fit
    shapes = ("tensor<1x16x16x256xf32>", "tensor<3x3x256x256xf32>", "tensor<1x14x14x256xf32>")
    two, one, big = conv_strategies(*shapes, 1, caches)
    assert two.pack_filters and two.f_block == 64
    assert one.pack_filters and one.f_block == 32
    assert not big.pack_filters


def test_strided_convs_pack_only_filters_larger_than_l2():
    """Stride 2: packed once the filters (1.18 MB) outgrow all of L2 (not half of it, as stride 1)."""
    caches = [(48 << 10, l2, 32 << 20) for l2 in (1 << 20, 2 << 20)]
    shapes = ("tensor<1x30x30x128xf32>", "tensor<3x3x128x256xf32>", "tensor<1x14x14x256xf32>")
    assert [s.pack_filters for s in conv_strategies(*shapes, 2, caches)] == [True, False]
