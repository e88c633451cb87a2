"""PT2E-quantized convs over a dynamic batch, H and W (issue 46) on the integer dot-product
kernels: versa-int8-kernels packs their filters before versa-static-tiles cuts them and makes
each static tile the kernel a static conv of its shape gets (`cpu/kernels/int8_tiles.py`).
The same sums as a static compile, so the results are bit-identical to it at every size."""

import dataclasses
import re

import pytest
import torch
import versa
from torch.export import Dim
from versa import compiler, targets
from versa.frontends.torch import api
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize
from versa.translate import emit_assembly

pytest.importorskip("torchao")
from pt2e_helpers import quantized  # noqa: E402  (needs torchao)
from test_int8_layout import ResNetBlock  # noqa: E402

V3, V4 = targets.resolve("x86-64-v3"), targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
SPEC = ({0: Dim("batch", min=1, max=4), 2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)},)


@pytest.fixture(scope="module", name="dynamic")
def _dynamic() -> tuple[torch.fx.GraphModule, torch.Tensor]:
    torch.manual_seed(0)
    return quantized(ResNetBlock().eval(), (2, 3, 16, 16), dynamic_shapes=SPEC)


def _instructions(text: str, target: targets.Target) -> dict[str, int]:
    steps = [
        *VersaOptimize(target=target).steps(),
        *LowerToLLVM(target=target, threads=1, standalone=True).steps(),
    ]
    assembly = emit_assembly(compiler.compile_text(text, steps).operation, target)
    return {
        name: len(re.findall(rf"\b{name}\w*\s", assembly)) for name in ("vpdpbusd", "vpmaddwd", "vpmulld")
    }


@pytest.mark.parametrize("target", [VNNI, V3], ids=["vnni", "v3"])
def test_dynamic_qconvs_run_on_the_dot_product_kernels(dynamic, target):
    """VNNI: vpdpbusd; AVX2: vpmaddwd; never the portable path's vpmulld."""
    converted, x = dynamic
    text = str(api.import_torch(converted, (x,), dynamic_shapes=SPEC))
    assert "tensor<?x3x?x?xf32>" in text
    found = _instructions(text, target)
    kernel = "vpdpbusd" if target is VNNI else "vpmaddwd"
    assert found[kernel] > 0 and found["vpmulld"] == 0, found


class Convs(torch.nn.Module):
    """ResNetBlock's convs without its float head (whose sums over a dynamic image add in
    another order): what comes out is integer sums, requantized and dequantized."""

    def __init__(self):
        super().__init__()
        self.block = ResNetBlock()

    def forward(self, x):
        b = self.block
        y = b.pool(b.stem(x))
        z = torch.relu(b.b1(b.c1(y)))
        return torch.relu(b.b2(b.c2(z)) + y)


def test_dynamic_compile_is_bit_identical_to_static_compiles():
    torch.manual_seed(0)
    converted, x = quantized(Convs().eval(), (2, 3, 16, 16), dynamic_shapes=SPEC)
    compiled = versa.compile(converted, (x,), dynamic_shapes=SPEC)
    g = torch.Generator().manual_seed(1)
    for n, h, w in ((2, 16, 16), (1, 9, 21), (3, 32, 12), (1, 8, 8)):
        xi = torch.randn(n, 3, h, w, generator=g)
        static = versa.compile(converted, (xi,))
        torch.testing.assert_close(compiled(xi), static(xi), atol=0, rtol=0)
    assert len(compiled._compiled) == 1
