"""The body of one row block of the depthwise integer kernel (`int8_depthwise.py`): its input
rows, its pixel tiles, and each tile's interleaved reads and dot instructions.

Borders without a padded copy (`int8_borders.py`): x is the unpadded input and the conv's
padded coordinates are x's shifted by (top, left). A tap outside x reads the fill byte (the
zero point, as the padded copy held), so the i32 sum is the same and the zero-point terms after
the kernel stay exact. Which blocks and tiles touch a border is known at compile time: a tile
that does is written with its columns static, an outside column's interleaved vector a
constant (`fill_vector`); a row block that does is a second copy of the body (`scf.if` on the
block index) whose rows outside x read a clamped row and select the fill byte instead. The
interior blocks and the pixel loop read x with no checks.
"""

from dataclasses import dataclass, field

from ...common.kernel_text import Text
from .int8_isa import Isa


def affine(scale: int, offset: int) -> str:
    """`d * scale + offset` as an affine expression (a negative offset subtracted)."""
    return f"d * {scale} {'-' if offset < 0 else '+'} {abs(offset)}"


def fill_vector(isa: Isa, fill: int, shifted: bool) -> str:
    """The constant the interleaved vector of an all-fill column is (`Block.interleaved`'s
    result for bytes `fill`): flipped to u8 for vpdpbusd, widened to i16 for vpmaddwd."""
    wide = f"vector<{isa.lanes * isa.group}x{isa.element}>"
    if isa.flips and not shifted:
        fill = (fill & 0xFF) ^ 0x80
        fill -= 256 * (fill >= 128)
    elif not isa.accumulates and shifted:
        fill &= 0xFF
    return f"arith.constant dense<{fill}> : {wide}"


@dataclass
class Block:
    """One row block of R rows: `rows[k]`, the index of x's row that group row k reads;
    `valid[k]`, an i1 where that row may lie outside x (its reads select the fill byte then)."""

    t: Text
    s: object  # DepthwiseShape
    isa: Isa
    p: object  # Plan
    xs: str
    xp_type: str
    filters: dict
    tile_type: str
    shifted: bool
    rows: list = field(default_factory=list)
    valid: list = field(default_factory=list)

    def input_rows(self, row0s: list[int]) -> None:
        """`rows` and `valid` for the blocks whose first output rows are `row0s`."""
        t, s, G = self.t, self.s, self.isa.group
        h, sh, top = s.x[1], s.strides[0], s.pad[0]
        taps = {r * sh + k * s.dilations[0] for r in range(self.p.rows) for k in range(s.window[0])}
        self.rows, self.valid = [], []
        for k in range(self.p.groups * G):
            first = [r0 * sh + k - top for r0 in row0s]
            v = t.fresh("row")
            t(f"{v} = affine.apply affine_map<(d) -> ({affine(sh, k - top)})>(%row0)")
            outside = min(first) < 0 or max(first) >= h
            valid = None
            if outside and k in taps:
                valid = t.fresh("in")
                t(f"{valid} = arith.cmpi ult, {v}, {t.c(h)} : index")  # negative: a huge unsigned
            if max(first) >= h:
                clamped = t.fresh("row")
                t(f"{clamped} = arith.minsi {v}, {t.c(h - 1)} : index")
                v = clamped
            if min(first) < 0:
                clamped = t.fresh("row")
                t(f"{clamped} = arith.maxsi {v}, {t.c(0)} : index")
                v = clamped
            self.rows.append(v)
            self.valid.append(valid)

    def tile(self, mr: int, w0: str | int, tile: str) -> str:
        """The accumulators of the pixels from `w0` on (an index value, or static: its columns
        checked against x's here), their epilogue and stores into `tile`."""
        t, s, L = self.t, self.s, self.isa.lanes
        sw, dw, kw, left, width = s.strides[1], s.dilations[1], s.window[1], s.pad[1], s.x[2]
        vec = f"vector<{L}xi32>"
        acc = {(r, i): "%start" for r in range(self.p.rows) for i in range(mr)}
        for offset in range((mr - 1) * sw + (kw - 1) * dw + 1):
            users = [(i, j) for i in range(mr) for j in range(kw) if i * sw + j * dw == offset]
            if not users:
                continue
            if isinstance(w0, int):
                column = w0 * sw + offset - left
                col = t.c(column) if 0 <= column < width else None
            else:
                col = t.fresh("x")
                t(f"{col} = affine.apply affine_map<(d) -> ({affine(sw, offset - left)})>({w0})")
            for q in range(self.p.groups):
                value = self.interleaved(col, q) if col else "%fillx"
                for i, j in users:
                    for r in (r for r, g in self.p.pairs if g == q):
                        acc[r, i] = self.dot(acc[r, i], value, self.filters[r, q, j], vec)
        reads: dict = {}
        for (r, i), value in acc.items():
            row = t.fresh("oh")
            if isinstance(w0, int):
                pixel = t.c(w0 + i)
            else:
                pixel = t.fresh("px")
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

    def interleaved(self, col: str, q: int) -> str:
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
            if self.valid[q * G + g]:  # a row that may be outside x: the fill byte there
                chosen = t.fresh("xr")
                t(f"{chosen} = arith.select {self.valid[q * G + g]}, {v}, %fillv : vector<{L}xi8>")
                v = chosen
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

    def dot(self, acc: str, x: str, w: str, vec: str) -> str:
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

    def pixels(self, mr: int, tile: str) -> str:
        """All the block's pixel tiles into `tile`: those reading only columns of x as a loop,
        the others (a border's, the overlapping last) with static columns."""
        t, s = self.t, self.s
        ow, sw, width, left = s.out[2], s.strides[1], s.x[2], s.pad[1]
        reach = (s.window[1] - 1) * s.dilations[1]
        starts = list(range(0, ow // mr * mr, mr))
        inner = [w0 for w0 in starts if w0 * sw >= left and (w0 + mr - 1) * sw + reach - left < width]
        static = [w0 for w0 in starts if w0 not in inner] + ([ow - mr] if ow % mr else [])
        if len(inner) < 2:
            static, inner = sorted(static + inner), []
        if inner:
            name, tl, w0 = t.fresh("tile"), t.fresh("tl"), t.fresh("w")
            t(
                f"{name} = scf.for {w0} = {t.c(inner[0])} to {t.c(inner[-1] + mr)} step {t.c(mr)}"
                f" iter_args({tl} = {tile}) -> ({self.tile_type}) {{"
            )
            t(f"  scf.yield {self.tile(mr, w0, tl)} : {self.tile_type}")
            t("}")
            tile = name
        for w0 in static:
            tile = self.tile(mr, w0, tile)
        return tile
