"""versa-int8-kernels' cache blocks over the output rows (`kernels/int8_blocks.py`): the plan
follows the target's L2 and the threads, and blocked kernels are bit-exact against the NumPy
reference and identical to the unblocked nest (`row-block=-1`).

Targets are named, never the host's (test_int8_dot_kernels.py's three: vpdpbusd, vpmaddwd zmm
and ymm), with a tiny L2 (`Target.caches` replaced) so that small shapes take several blocks:
image rows in blocks of RB, a matmul's M in blocks of WB pixels with an MR rest in each, a
block smaller than MR, one thread and two (the forall)."""

import dataclasses

import numpy as np
import pytest
from conftest import Compiled, reference
from test_int8_dot_kernels import TARGETS, _data, _function
from versa.passes.cpu.int8_kernels import VersaInt8Kernels
from versa.passes.cpu.kernels.int8_blocks import Blocks, plan, register_tile
from versa.passes.cpu.kernels.int8_isa import ConvShape
from versa.passes.cpu.pipeline import LowerToLLVM

TINY = {name: dataclasses.replace(t, caches=(1 << 10, 2 << 10, 1 << 20)) for name, t in TARGETS.items()}


def _conv(x, window, out, strides=(1, 1), channels=None) -> ConvShape:
    return ConvShape(x, window, out, 64, strides, (1, 1), channels or x[3])


def test_stage_one_at_batch_eight_blocks_whole_images_in_half_the_l2() -> None:
    """ResNet-50's 3x3 64-channel conv at batch 8, 1 MiB L2: an image's 58 input rows (208 KB)
    fit 512 KB, so a block is an image (RB = 56): its rows are read once for every panel."""
    shape = _conv((8, 58, 58, 64), (3, 3), (8, 56, 56))
    assert plan(shape, 1, 4, 6, 1 << 20, 1) == Blocks(56, 56)
    assert plan(shape, 2, 4, 6, 1 << 20, 1) == Blocks(56, 56)  # vpmaddwd's i16 copy: 416 KB
    wide = _conv((8, 56, 56, 256), (1, 1), (8, 56, 56))  # 1x1 256→64: 802 KB an image
    assert plan(wide, 1, 1, 6, 1 << 20, 1) == Blocks(28, 56)
    assert plan(shape, 1, 4, 6, 1 << 20, 1, rows=5) == Blocks(4, 56)  # row-block: a divisor
    one = _conv((1, 58, 58, 64), (3, 3), (1, 56, 56))
    assert plan(one, 1, 1, 6, 1 << 20, 2) == Blocks(7, 56)  # 8 blocks for 2 threads
    assert plan(one, 1, 1, 6, 1 << 20, 3) == Blocks(4, 56)  # 14 for 3: 5, 5, 4 (not 8 or 12)


def test_register_tile_pads_filters_least() -> None:
    """NV from the filter count: the fewest multiply-accumulates and loads per pixel, so 96 or 144
    filters of 16 lanes take panels of 3 vectors (none padded; 4 would pad a third or a
    quarter), 64 or 256 of 4; AVX2's 16 registers (8 lanes): panels of 2, or of 1 for 24."""
    from versa import targets
    from versa.passes.cpu.int8_kernels import ISAS

    v4, v3 = targets.resolve("x86-64-v4"), targets.resolve("x86-64-v3")
    wide = {f: register_tile(v4, ISAS["vnni512"], f) for f in (16, 24, 64, 96, 144, 256)}
    assert wide == {16: (1, 8), 24: (2, 8), 64: (4, 6), 96: (3, 8), 144: (3, 8), 256: (4, 6)}
    narrow = {f: register_tile(v3, ISAS["pmaddwd256"], f) for f in (16, 24, 96)}
    assert narrow == {16: (2, 6), 24: (1, 8), 96: (2, 6)}


def test_matmul_rows_block_by_pixels() -> None:
    """A matmul is one image row of M pixels: where M·K bytes outgrow half the L2 (BERT's
    768→3072 linear at batch 8: 786 KB of 1 MiB), the block is a divisor of M that fits."""
    shape = ConvShape((1, 1, 1024, 768), (1, 1), (1, 1, 1024), 3072, (1, 1), (1, 1), 768)
    assert plan(shape, 1, 48, 6, 1 << 20, 1) == Blocks(1, 512)
    small = ConvShape((1, 1, 128, 768), (1, 1), (1, 1, 128), 64, (1, 1), (1, 1), 768)
    assert plan(small, 1, 1, 6, 1 << 20, 2) == Blocks(1, 16)  # one panel: blocks for threads


def _blocks(target, x_shape, out_shape, filters: int, window, strides=(1, 1)) -> tuple[Blocks, int]:
    """What versa-int8-kernels plans for this target (its register tile and L2), and MR."""
    from versa.passes.cpu.int8_kernels import isa_of

    isa = isa_of(target)
    nv, mr = register_tile(target, isa, filters)
    panel = nv * isa.lanes
    channels = -(-x_shape[3] // isa.group) * isa.group
    shape = ConvShape(x_shape, window, out_shape, -(-filters // panel) * panel, strides, (1, 1), channels)
    size = 2 if isa.element == "i16" else 1
    return plan(shape, size, shape.filters // panel, mr, target.l2, 1), mr


CASES = {  # op, x, weights, result, attributes
    "conv-rows": ((2, 9, 10, 16), (3, 3, 16, 40), (2, 9, 10, 40), "padding = array<i64: 1, 1, 1, 1>"),
    "conv-strided": ((1, 13, 11, 8), (3, 3, 8, 20), (1, 6, 5, 20), "strides = array<i64: 2, 2>"),
    "matmul-large-m": ((1000, 40), (40, 24), (1000, 24), ""),
    "matmul-small": ((5, 36), (36, 20), (5, 20), ""),
}


def _text(case: str) -> tuple[str, tuple]:
    x_shape, w_shape, out_shape, attrs = CASES[case]
    op = "qconv2d" if len(x_shape) == 4 else "qmatmul"
    attrs = f'{{layout = "NHWC", {attrs}}}' if op == "qconv2d" else ""
    return _function(op, x_shape, "ui8", _data(w_shape, "i8"), (131, 0), out_shape, attrs), x_shape


def _steps(target, threads: int, row_block: int = 0) -> list:
    steps = list(LowerToLLVM(target=target, threads=threads).steps())
    return [
        dataclasses.replace(s, row_block=row_block) if isinstance(s, VersaInt8Kernels) else s for s in steps
    ]


def test_tiny_l2_takes_several_blocks() -> None:
    """The cases below do block: conv rows (RB < OH), M in pixel blocks with an MR rest."""
    vnni = TINY["vnni"]
    blocks, _ = _blocks(vnni, (2, 11, 12, 16), (2, 9, 10), 40, (3, 3))
    assert 1 < blocks.rows < 9 and blocks.pixels == 10, blocks
    blocks, mr = _blocks(vnni, (1, 1, 1000, 40), (1, 1, 1000), 24, (1, 1))
    assert blocks.rows == 1 and blocks.pixels < 1000 and blocks.pixels % mr, (blocks, mr)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_blocked_kernels_are_exact(case, target, threads) -> None:
    target = TINY[target]
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")
    text, x_shape = _text(case)
    x = _data(x_shape, "ui8")
    (got,) = Compiled(text, _steps(target, threads)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])
    if threads == 1:  # the same bits as the unblocked nest
        (old,) = Compiled(text, _steps(target, threads, row_block=-1)).jit(x)
        np.testing.assert_array_equal(got, old)
