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

Signedness as `int8_pack.py` has it: the op reads x signed; vpdpbusd takes u8 x s8, so x's top
bit flips (on the interleaved vector, or already flipped where `shifted`: x holds the op's value
+ 128, the bytes before the lowering's flip) and -128·Σw starts each channel; vpmaddwd widens
x (extsi, or extui where shifted, with the same -128·Σw).
"""

from dataclasses import dataclass

import numpy as np

from ...common.kernel_text import Text
from .int8_dot import store_tile
from .int8_epilogue import Epilogue
from .int8_isa import Isa
from .int8_pack import round_up


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


def pack(weights: np.ndarray, isa: Isa, p: Plan, dilation: int, stride: int, shifted: bool):
    """(packed filters [Cp/L, R, Q, KW, L·G] in the kernel's element type, start values [Cp]
    i32) of `weights` [KH, KW, C] (int64, the op's signed values)."""
    kh, kw, c = weights.shape
    lanes, g = isa.lanes, isa.group
    cp = round_up(c, lanes)
    padded = np.zeros((kh, kw, cp), np.int64)
    padded[:, :, :c] = weights
    packed = np.zeros((cp // lanes, p.rows, p.groups, kw, lanes, g), np.int64)
    for r, q in p.pairs:
        for slot in range(g):
            tap, rest = divmod(q * g + slot - r * stride, dilation)
            if not rest and 0 <= tap < kh:
                packed[:, r, q, :, :, slot] = padded[tap].reshape(kw, cp // lanes, lanes).transpose(1, 0, 2)
    packed = packed.reshape(cp // lanes, p.rows, p.groups, kw, lanes * g)
    start = -128 * padded.sum(axis=(0, 1)) if shifted or isa.flips else np.zeros(cp, np.int64)
    element = (
        (packed & 0xFF).astype(np.uint8).view(np.int8) if isa.element == "i8" else packed.astype(np.int16)
    )
    return element, ((start + 2**31) % 2**32 - 2**31).astype(np.int32)


@dataclass(frozen=True)
class DepthwiseShape:
    """x [n, h, w, c] (i8, already padded spatially) → [n, oh, ow, cp], C padded to lanes."""

    x: tuple[int, int, int, int]
    window: tuple[int, int]
    out: tuple[int, int, int]
    channels: int
    strides: tuple[int, int]
    dilations: tuple[int, int]
    epilogue: Epilogue | None = None

    @property
    def element(self) -> str:
        return self.epilogue.element if self.epilogue else "i32"


def kernel_text(name: str, s: DepthwiseShape, isa: Isa, p: Plan, mr: int, shifted: bool, threads: int) -> str:
    """`@name(x, packed filters, init [Cp] i32[, epilogue inputs]) -> [n, oh, ow, Cp]`."""
    t, L, G = Text(), isa.lanes, isa.group
    n, h, w, c = s.x
    (on, oh, ow), cp, kw, sh = s.out, s.channels, s.window[1], s.strides[0]
    x_type, xp_type = f"tensor<{n}x{h}x{w}x{c}xi8>", f"tensor<{n}x{h}x{w}x{cp}xi8>"
    out_type = f"tensor<{on}x{oh}x{ow}x{cp}x{s.element}>"
    b_type = f"tensor<{cp // L}x{p.rows}x{p.groups}x{kw}x{L * G}x{isa.element}>"
    arguments = f"%x: {x_type}, %b: {b_type}, %init: tensor<{cp}xi32>"
    arguments += s.epilogue.arguments() if s.epilogue else ""
    t("%z8 = arith.constant 0 : i8")
    t(f"%zt = arith.constant 0 : {isa.element}")
    t("%z32 = arith.constant 0 : i32")
    if isa.flips and not shifted:
        t(f"%flip = arith.constant dense<-128> : vector<{L * G}xi8>")
    xs = "%x"
    if cp != c:
        t(f"%xs = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, {cp - c}] {{")
        t("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        t("  tensor.yield %z8 : i8")
        t(f"}} : {x_type} to {xp_type}")
        xs = "%xs"
    t(f"%out0 = tensor.empty() : {out_type}")
    blocks, tile_type = -(-oh // p.rows), f"tensor<1x{p.rows}x{ow}x{L}x{s.element}>"
    if threads > 1:
        t(
            f"%res = scf.forall (%cb, %n, %rb) in ({cp // L}, {on}, {blocks}) shared_outs(%o = %out0)"
            f" -> ({out_type}) {{"
        )
    else:
        for depth, (iv, extent) in enumerate((("%cb", cp // L), ("%n", on), ("%rb", blocks))):
            into = "%o" if depth == 2 else f"%o{depth}"
            t(
                f"%l{depth} = scf.for {iv} = {t.c(0)} to {t.c(extent)} step {t.c(1)} "
                f"iter_args({into} = {'%out0' if depth == 0 else f'%o{depth - 1}'}) -> ({out_type}) {{"
            )
    t(f"%row0 = affine.min affine_map<(d) -> (d * {p.rows}, {oh - p.rows})>(%rb)")
    t(f"%col = arith.muli %cb, {t.c(L)} : index")
    window = f"[%n, %row0, 0, %col] [1, {p.rows}, {ow}, {L}] [1, 1, 1, 1]"
    t(f"%tile0 = tensor.extract_slice %o{window} : {out_type} to {tile_type}")
    t(
        f"%start = vector.transfer_read %init[%col], %z32 {{in_bounds = [true]}}"
        f" : tensor<{cp}xi32>, vector<{L}xi32>"
    )
    rows = []
    for k in range(p.groups * G):  # the input rows the block reads, clamped where no tap is
        row = t.fresh("row")
        clamp = f", {h - 1}" if (oh - p.rows) * sh + k >= h else ""
        t(f"{row} = affine.min affine_map<(d) -> (d * {sh} + {k}{clamp})>(%row0)")
        rows.append(row)
    filters = {}
    for r, q in p.pairs:
        for j in range(kw):
            v = filters[r, q, j] = t.fresh("wt")
            t(
                f"{v} = vector.transfer_read %b[%cb, {t.c(r)}, {t.c(q)}, {t.c(j)}, {t.c(0)}], %zt"
                f" {{in_bounds = [true]}} : {b_type}, vector<{L * G}x{isa.element}>"
            )
    k = _Kernel(t, s, isa, p, xs, xp_type, rows, filters, tile_type, shifted)
    full, tile = ow // mr * mr, "%tile0"
    t(
        f"%tile1 = scf.for %w0 = {t.c(0)} to {t.c(full)} step {t.c(mr)} iter_args(%tl = %tile0)"
        f" -> ({tile_type}) {{"
    )
    t(f"  scf.yield {k.tile(mr, '%w0', '%tl')} : {tile_type}")
    t("}")
    tile = "%tile1" if full == ow else k.tile(mr, t.c(ow - mr), "%tile1")  # the rest: an overlapping tile
    store_tile(t, tile, window, tile_type, out_type, threads, ["%l2", "%l1"])
    t(f"return {'%res' if threads > 1 else '%l0'} : {out_type}")
    return t.function(f"func.func private @{name}({arguments}) -> {out_type} {{")


@dataclass
class _Kernel:
    """One tile of R rows x MR pixels x L channels: its text, written into `t`."""

    t: Text
    s: DepthwiseShape
    isa: Isa
    p: Plan
    xs: str
    xp_type: str
    rows: list
    filters: dict
    tile_type: str
    shifted: bool

    def tile(self, mr: int, w0: str, tile: str) -> str:
        """The accumulators of the pixels from `w0` on, their epilogue and stores into `tile`."""
        t, s, L = self.t, self.s, self.isa.lanes
        sw, dw, kw = s.strides[1], s.dilations[1], s.window[1]
        vec = f"vector<{L}xi32>"
        acc = {(r, i): "%start" for r in range(self.p.rows) for i in range(mr)}
        for offset in range((mr - 1) * sw + (kw - 1) * dw + 1):
            users = [(i, j) for i in range(mr) for j in range(kw) if i * sw + j * dw == offset]
            if not users:
                continue
            col = t.fresh("x")
            t(f"{col} = affine.apply affine_map<(d) -> (d * {sw} + {offset})>({w0})")
            for q in range(self.p.groups):
                value = self._interleaved(col, q)
                for i, j in users:
                    for r in (r for r, g in self.p.pairs if g == q):
                        acc[r, i] = self._dot(acc[r, i], value, self.filters[r, q, j], vec)
        reads: dict = {}
        for (r, i), value in acc.items():
            pixel, row = t.fresh("px"), t.fresh("oh")
            t(f"{pixel} = arith.addi {w0}, {t.c(i)} : index")
            t(f"{row} = arith.addi %row0, {t.c(r)} : index")
            if s.epilogue:
                value = s.epilogue.store(t, value, pixel, "%col", L, reads, row)
            new = t.fresh("tile")
            t(
                f"{new} = vector.transfer_write {value}, {tile}[{t.c(0)}, {t.c(r)}, {pixel}, {t.c(0)}]"
                f" {{in_bounds = [true]}} : vector<{L}x{s.element}>, {self.tile_type}"
            )
            tile = new
        return tile

    def _interleaved(self, col: str, q: int) -> str:
        """Lane l of the result: channel l's bytes of the group's G rows at column `col`, as
        the dot instruction's x operand (flipped to u8 or widened to i16)."""
        t, L, G = self.t, self.isa.lanes, self.isa.group
        parts = []
        for g in range(G):
            v = t.fresh("xr")
            t(
                f"{v} = vector.transfer_read {self.xs}[%n, {self.rows[q * G + g]}, {col}, %col], %z8"
                f" {{in_bounds = [true]}} : {self.xp_type}, vector<{L}xi8>"
            )
            parts.append(v)
        while len(parts) > 1:  # pairs of vectors of `width` elements, interleaved by `run`
            width, run = L * G // len(parts), G // len(parts)
            merged = []
            for a, b in zip(parts[::2], parts[1::2], strict=True):
                mask = [
                    k
                    for m in range(0, width, run)
                    for k in (*range(m, m + run), *range(width + m, width + m + run))
                ]
                v = t.fresh("il")
                t(
                    f"{v} = vector.shuffle {a}, {b} [{', '.join(map(str, mask))}]"
                    f" : vector<{width}xi8>, vector<{width}xi8>"
                )
                merged.append(v)
            parts = merged
        (value,) = parts
        wide = f"vector<{L * G}x{self.isa.element}>"
        result = t.fresh("xi")
        if self.isa.flips and not self.shifted:
            t(f"{result} = arith.xori {value}, %flip : {wide}")
        elif not self.isa.accumulates:
            t(
                f"{result} = arith.{'extui' if self.shifted else 'extsi'} {value}"
                f" : vector<{L * G}xi8> to {wide}"
            )
        else:
            return value
        return result

    def _dot(self, acc: str, x: str, w: str, vec: str) -> str:
        t, isa = self.t, self.isa
        wide = f"vector<{isa.lanes * isa.group}x{isa.element}>"
        r = t.fresh("d")
        if isa.accumulates:  # vpdpbusd: the u8 operand (x) first
            t(f"{r} = func.call @{isa.intrinsic}({acc}, {x}, {w}) : ({vec}, {wide}, {wide}) -> {vec}")
            return r
        m = t.fresh("m")
        t(f"{m} = func.call @{isa.intrinsic}({x}, {w}) : ({wide}, {wide}) -> {vec}")
        t(f"{r} = arith.addi {acc}, {m} : {vec}")
        return r
