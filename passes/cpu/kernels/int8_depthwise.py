"""The depthwise integer conv micro-kernel of `versa-int8-kernels` (NHWC, constant filters).

A depthwise conv sums over taps, not channels: out[n, oh, ow, c] = Σ_kh,kw x[n, oh·sh + kh·dh,
ow·sw + kw·dw, c] · w[kh, kw, c]. The dot-product instructions sum G neighbouring elements of
one 32-bit lane (vpdpbusd: 4 bytes, vpmaddwd: 2 i16), so here a lane's G elements are one
channel's bytes from G consecutive *input rows* (interleaved at run time with shuffles), and
the filter, packed at compile time, holds the matching taps, zero where a row is not one of
the output row's taps:

    R output rows at once read rows row0·sh + [0, Q·G) of x, in Q groups of G rows;
    for each input column j of an MR-pixel tile, each group q:
      I = interleave(x[n, row0·sh + q·G + g, j, c : c + L] for g < G)   (L·G elements)
      acc[r][i] = dot(acc[r][i], I, B[cb, r, q, kw])  for every output (r, i) and kw reading
                                                       column j (i·sw + kw·dw = j - w0·sw)
    B[cb, r, q, kw, l·G + g] = w[kh, kw, cb·L + l] where kh·dh = q·G + g - r·sh, else 0

Each interleaved vector serves every output row and pixel that reads its column (stride 1, 3x3,
vpdpbusd: R = 2, one group, 3 pixels: 6 instructions per 4 loads and 3 shuffles), so the
shuffles cost less than the `vpmulld` per tap of the portable path. `plan` picks R from a count
of instructions per output row. Rows past the last block's taps (weight 0) read a clamped row;
the last row block and pixel tile start early (overlap) instead of having shapes of their own.
x is the conv's input unpadded where its padding is the lowering's zero-point copy
(`int8_borders.py`): taps outside x read the fill byte, border blocks and tiles written apart
(`int8_depthwise_tile.py`), so no padded copy of the input is made.

Signedness as `int8_pack.py` has it: the op reads x signed; vpdpbusd takes u8 x s8, so x's top
bit flips (on the interleaved vector, or already flipped where `shifted`: x holds the op's value
+ 128, the bytes before the lowering's flip) and -128·Σw starts each channel; vpmaddwd widens
x (extsi, or extui where shifted, with the same -128·Σw).
"""

from dataclasses import dataclass

import numpy as np

from ...common.kernel_text import Text
from .int8_depthwise_tile import Block, fill_vector
from .int8_dot import store_tile
from .int8_epilogue import Epilogue
from .int8_isa import Isa


@dataclass(frozen=True)
class Plan:
    """R output rows per block read Q groups of G input rows; `pairs`: the (r, q) that hold a
    tap (the others' weights are all zero and are skipped)."""

    rows: int
    groups: int
    pairs: tuple[tuple[int, int], ...]


def _pairs(rows: int, groups: int, g: int, kh: int, sh: int, dh: int) -> tuple[tuple[int, int], ...]:
    return tuple(
        (r, q)
        for r in range(rows)
        for q in range(groups)
        if any(q * g <= r * sh + k * dh < (q + 1) * g for k in range(kh))
    )


def plan(isa: Isa, window, strides, dilations, out_rows: int, registers: int) -> Plan:
    """The R (1..4, at most the output's rows) with the fewest dot instructions and interleaves
    per output row, where its accumulators leave room for a tile of at least 3 pixels."""
    (kh, kw), (sh, sw), dh, g = window, strides, dilations[0], isa.group
    best = None
    for rows in range(1, min(4, out_rows) + 1):
        groups = -(-((rows - 1) * sh + (kh - 1) * dh + 1) // g)
        pairs = _pairs(rows, groups, g, kh, sh, dh)
        cost = (len(pairs) * kw + groups * sw * g / 2) / rows
        if rows > 1 and registers - len(pairs) * kw - groups - 2 < 3 * rows:
            continue
        if best is None or cost < best[0]:
            best = (cost, Plan(rows, groups, pairs))
    return best[1]


def pixels(p: Plan, window, registers: int, out_cols: int) -> int:
    """MR: the pixels per tile, as many as the accumulators (R·MR), the filter vectors held
    and the interleaved groups leave registers for (at most 8, at most the output's width)."""
    free = registers - len(p.pairs) * window[1] - p.groups - 2
    return max(1, min(8, out_cols, free // p.rows))


def channels(c: int, lanes: int) -> int:
    """The channels the kernel computes and writes: C, or one vector where C is fewer. Its
    channel blocks start at min(b·L, C - L): the last one overlaps the one before where L does
    not divide C (those channels computed twice, alike) instead of reading a padded copy."""
    return max(c, lanes)


def channel_starts(c: int, lanes: int) -> list[int]:
    width = channels(c, lanes)
    return [min(b * lanes, width - lanes) for b in range(-(-width // lanes))]


def pack(weights: np.ndarray, isa: Isa, p: Plan, dilation: int, stride: int, shifted: bool):
    """(packed filters [blocks, R, Q, KW, L·G] in the kernel's element type, start values
    [channels] i32) of `weights` [KH, KW, C] (int64, the op's signed values)."""
    kh, kw, c = weights.shape
    lanes, g = isa.lanes, isa.group
    cp = channels(c, lanes)
    padded = np.zeros((kh, kw, cp), np.int64)
    padded[:, :, :c] = weights
    columns = np.array(channel_starts(c, lanes))[:, None] + np.arange(lanes)  # [blocks, L]
    packed = np.zeros((len(columns), p.rows, p.groups, kw, lanes, g), np.int64)
    for r, q in p.pairs:
        for slot in range(g):
            tap, rest = divmod(q * g + slot - r * stride, dilation)
            if not rest and 0 <= tap < kh:
                packed[:, r, q, :, :, slot] = padded[tap][:, columns].transpose(1, 0, 2)
    packed = packed.reshape(len(columns), p.rows, p.groups, kw, lanes * g)
    start = -128 * padded.sum(axis=(0, 1)) if shifted or isa.flips else np.zeros(cp, np.int64)
    element = (
        (packed & 0xFF).astype(np.uint8).view(np.int8) if isa.element == "i8" else packed.astype(np.int16)
    )
    return element, ((start + 2**31) % 2**32 - 2**31).astype(np.int32)


@dataclass(frozen=True)
class DepthwiseShape:
    """x [n, h, w, c] (i8) → [n, oh, ow, cp], cp = `channels(c, lanes)`. `pad`: where x sits in the
    conv's padded input (top, left), every other element of which is the byte `fill`
    (`int8_borders.py`; None: x is that padded input itself)."""

    x: tuple[int, int, int, int]
    window: tuple[int, int]
    out: tuple[int, int, int]
    channels: int
    strides: tuple[int, int]
    dilations: tuple[int, int]
    epilogue: Epilogue | None = None
    pad: tuple[int, int] = (0, 0)
    fill: int | None = None

    @property
    def element(self) -> str:
        return self.epilogue.element if self.epilogue else "i32"

    def border_blocks(self, rows: int) -> list[bool]:
        """Per row block of `rows` output rows: whether a tap of it lies outside x."""
        (kh, sh, dh), oh, h = (self.window[0], self.strides[0], self.dilations[0]), self.out[1], self.x[1]
        taps = [r * sh + k * dh - self.pad[0] for r in range(rows) for k in range(kh)]
        row0s = [min(b * rows, oh - rows) for b in range(-(-oh // rows))]
        return [min(taps) + r0 * sh < 0 or max(taps) + r0 * sh >= h for r0 in row0s]


def kernel_text(name: str, s: DepthwiseShape, isa: Isa, p: Plan, mr: int, shifted: bool, threads: int) -> str:
    """`@name(x, packed filters, init [Cp] i32[, epilogue inputs]) -> [n, oh, ow, Cp]`."""
    t, L, G = Text(), isa.lanes, isa.group
    n, h, w, c = s.x
    (on, oh, ow), cp, kw = s.out, s.channels, s.window[1]
    x_type, xp_type = f"tensor<{n}x{h}x{w}x{c}xi8>", f"tensor<{n}x{h}x{w}x{cp}xi8>"
    out_type = f"tensor<{on}x{oh}x{ow}x{cp}x{s.element}>"
    blocks_c = -(-cp // L)
    b_type = f"tensor<{blocks_c}x{p.rows}x{p.groups}x{kw}x{L * G}x{isa.element}>"
    arguments = f"%x: {x_type}, %b: {b_type}, %init: tensor<{cp}xi32>"
    arguments += s.epilogue.arguments() if s.epilogue else ""
    t("%z8 = arith.constant 0 : i8")
    t(f"%zt = arith.constant 0 : {isa.element}")
    t("%z32 = arith.constant 0 : i32")
    if isa.flips and not shifted:
        t(f"%flip = arith.constant dense<-128> : vector<{L * G}xi8>")
    if s.fill is not None:  # what a tap outside x reads: a row's bytes, an interleaved column
        t(f"%fillv = arith.constant dense<{s.fill}> : vector<{L}xi8>")
        t(f"%fillx = {fill_vector(isa, s.fill, shifted)}")
    xs = "%x"
    if cp != c:
        t(f"%xs = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, {cp - c}] {{")
        t("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        t("  tensor.yield %z8 : i8")
        t(f"}} : {x_type} to {xp_type}")
        xs = "%xs"
    t(f"%out0 = tensor.empty() : {out_type}")
    blocks, tile_type = -(-oh // p.rows), f"tensor<1x{p.rows}x{ow}x{L}x{s.element}>"
    # (image, row block, channel block): a row block's input lines, read for its first channel
    # block, serve the others from cache; channel blocks outermost read every line C/L times from
    # memory once an image's rows outgrow L2 (MobileNetV2's 112x112x96 at batch 8: 1.4x the time)
    if threads > 1:
        t(
            f"%res = scf.forall (%n, %rb, %cb) in ({on}, {blocks}, {blocks_c}) shared_outs(%o = %out0)"
            f" -> ({out_type}) {{"
        )
    else:
        for depth, (iv, extent) in enumerate((("%n", on), ("%rb", blocks), ("%cb", blocks_c))):
            into = "%o" if depth == 2 else f"%o{depth}"
            t(
                f"%l{depth} = scf.for {iv} = {t.c(0)} to {t.c(extent)} step {t.c(1)} "
                f"iter_args({into} = {'%out0' if depth == 0 else f'%o{depth - 1}'}) -> ({out_type}) {{"
            )
    t(f"%row0 = affine.min affine_map<(d) -> (d * {p.rows}, {oh - p.rows})>(%rb)")
    t(f"%col = affine.min affine_map<(d) -> (d * {L}, {cp - L})>(%cb)")  # the last block overlaps
    window = f"[%n, %row0, 0, %col] [1, {p.rows}, {ow}, {L}] [1, 1, 1, 1]"
    t(f"%tile0 = tensor.extract_slice %o{window} : {out_type} to {tile_type}")
    t(
        f"%start = vector.transfer_read %init[%col], %z32 {{in_bounds = [true]}}"
        f" : tensor<{cp}xi32>, vector<{L}xi32>"
    )
    filters = {}
    for r, q in p.pairs:
        for j in range(kw):
            v = filters[r, q, j] = t.fresh("wt")
            t(
                f"{v} = vector.transfer_read %b[%cb, {t.c(r)}, {t.c(q)}, {t.c(j)}, {t.c(0)}], %zt"
                f" {{in_bounds = [true]}} : {b_type}, vector<{L * G}x{isa.element}>"
            )
    block = Block(t, s, isa, p, xs, xp_type, filters, tile_type, shifted)
    row0s = [min(b * p.rows, oh - p.rows) for b in range(blocks)]
    border = s.border_blocks(p.rows)
    inner = [b for b in range(blocks) if not border[b]]  # a run: the border blocks are the ends

    def body(chosen: list[int]) -> str:
        block.input_rows([row0s[b] for b in chosen])
        return block.pixels(mr, "%tile0")

    if inner and len(inner) < blocks:
        interior = _within(t, "%rb", inner[0], inner[-1], blocks)
        tile = t.fresh("tile")
        t(f"{tile} = scf.if {interior} -> ({tile_type}) {{")
        t(f"  scf.yield {body(inner)} : {tile_type}")
        t("} else {")
        t(f"  scf.yield {body([b for b in range(blocks) if border[b]])} : {tile_type}")
        t("}")
    else:
        tile = body(list(range(blocks)))
    store_tile(t, tile, window, tile_type, out_type, threads, ["%l2", "%l1"])
    t(f"return {'%res' if threads > 1 else '%l0'} : {out_type}")
    return t.function(f"func.func private @{name}({arguments}) -> {out_type} {{")


def _within(t: Text, index: str, first: int, last: int, count: int) -> str:
    """An i1: first <= index <= last, for an index in [0, count) (the bounds it cannot pass
    left out)."""
    checks = []
    if first > 0:
        checks.append(f"arith.cmpi sge, {index}, {t.c(first)} : index")
    if last < count - 1:
        checks.append(f"arith.cmpi sle, {index}, {t.c(last)} : index")
    names = []
    for check in checks:
        names.append(t.fresh("in"))
        t(f"{names[-1]} = {check}")
    if len(names) == 2:
        both = t.fresh("in")
        t(f"{both} = arith.andi {names[0]}, {names[1]} : i1")
        return both
    return names[0]
