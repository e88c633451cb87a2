"""Constant filters packed at compile time for the integer dot-product kernel (`int8_dot.py`),
and the accumulators' start values that make its result exact.

The weights W [KH, KW, C, F] (a matmul's B is [1, 1, K, N]) are the values the contraction
reads: u8 where the lowering reads both operands unsigned (qmatmul), s8 where it reads both
signed (qconv2d). C is padded with zeros to a multiple of the group and F to whole panels:
padded filters and channels add 0 whatever x holds there.

vpdpbusd multiplies u8 by s8, so one operand must change range. The filter is the one kept:
x's top bit flips in the kernel (x ^ 0x80 = x ∓ 128), and the constant term that the shift
leaves, ±128 · Σ_k W[k, f], is each column's start value (no run-time sum):

    unsigned x, u8 W:  Σ x·W = Σ (x ^ 0x80)·W + 128·Σ W      (W the u8 operand, x ^ 0x80 the s8)
    signed x, s8 W:    Σ x·W = Σ (x ^ 0x80)·W - 128·Σ W      (x ^ 0x80 the u8 operand)

AArch64's sdot (s8 x s8) and udot (u8 x u8) take both operands in the range the op reads
them: the bytes are packed as they are and start from 0.

vpmaddwd multiplies s16 pairs exactly (|products| ≤ 255·255, pair sums far from i32's range),
so both operands are simply widened (x at run time, W here) and start from 0, or from -128·ΣW
where a conv's x is `shifted` (its u8 bytes before the lowering's flip, `int8_unflip.py`: the
signed value + 128, as vpdpbusd's flipped x is). `vpmaddubsw`
(u8 x s8 pairs into a *saturating* i16) is not used: 255·127·2 > 32767, so it would be exact
only for filters whose pairs satisfy |w0| + |w1| ≤ 128, which PT2E weights (full [-127, 127]
per channel) do not.
"""

import numpy as np

from .int8_isa import Isa


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def pack(
    weights: np.ndarray, isa: Isa, panel: int, unsigned: bool, shifted: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(packed filters [P, KH, KW, C/G, NR·G] in the kernel's element type, start values [Fp]
    i32) of `weights` [KH, KW, C, F] (int64 values in the reading's range)."""
    kh, kw, c, f = weights.shape
    g = isa.group
    cp, fp = round_up(c, g), round_up(f, panel)
    padded = np.zeros((kh, kw, cp, fp), np.int64)
    padded[:, :, :c, :f] = weights
    panels = padded.reshape(kh, kw, cp // g, g, fp // panel, panel).transpose(4, 0, 1, 2, 5, 3)
    packed = np.ascontiguousarray(panels).reshape(fp // panel, kh, kw, cp // g, panel * g)
    start = np.zeros(fp, np.int64)
    if isa.flips or shifted:
        start = (128 if unsigned else -128) * padded.sum(axis=(0, 1, 2))
    if isa.element == "i8":
        packed = (packed & 0xFF).astype(np.uint8).view(np.int8)
    else:
        packed = packed.astype(np.int16)
    # i32 wraps as the reference's single wrap of its sum does (zero_points.py)
    return packed, ((start + 2**31) % 2**32 - 2**31).astype(np.int32)
