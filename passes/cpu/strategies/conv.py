"""2-D convolution (groups == 1, NHWC x HWCF or NCHW x FCHW): threads × a register tile,
decomposed to a 1-D convolution, vectorized, accumulators held across the whole window.

For O[n, oh, ow, f] += X[n, oh·s + kh·d, ow·s + kw·d, c] · W[kh, kw, c, f] (NHWC):

    scf.forall oh0 in threads                              (output rows split across cores)
      scf.for n ; scf.for oh ; scf.for ow step rows ; scf.for f step vec    (register tile)
        scf.for kh ; scf.for kw ; scf.for c step cr       (accumulators hoisted out of all three)
          linalg.conv_1d_nwc_wcf (decomposed) → rows·(vec/lanes) vector.fma per c

NCHW is the same nest over (n, f, oh, ow) with the roles swapped: the 1-D op is
`conv_1d_ncw_fcw`, the vectors run along ow (contiguous there) and the rows are filters, so
each fma is a broadcast weight times a row of input pixels.

Threads only where the second saves more than a fork and join costs (`strategy.threads_worth`).
Tile sizes come from the target: vec = 2 vectors, rows = a quarter of the vector registers
(rows × 2 accumulators: half the registers), cr = the largest of 4, 3, 2, 1 dividing C. Rows and
vec extents that the tile does not divide are split off first (`structured.split`): the
leftover rows as one piece, the leftover vec extent in powers of two (LLVM legalizes a
vector<24xf32> load element by element: 3x slower than vector<16xf32> + vector<8xf32>). Every
piece is then static, tiles evenly and vectorizes without masks. Nothing is vectorized beyond
a register tile.

NCHW with a column stride > 1 is correct but slow (~13 GFLOP/s for a 7x7/2 stem, NHWC ~90):
the strided 1-D convolution vectorizes per output column with transposes of the accumulator
inside the window loops. A layout change (NHWC) is the fix; it is a graph-level rewrite.

Depthwise NHWC (`linalg.depthwise_conv_2d_nhwc_hwc`, one filter per channel) is the same nest
with c a parallel dim: the vectors run along c, the window loops are kh and kw, and the 1-D
op is `depthwise_conv_1d_nwc_wc` (each fma: a row of channels times the tap's filter row).
Built on this nest: grouped convs (grouped_conv.py: one loop over rows and groups around a
named conv per group, this strategy on one thread inside) and depthwise NHWC without an
epilogue (depthwise.py: the output fill fused into each row). Depthwise NCHW has no vector
form upstream (no 1-D NCW depthwise vectorization) and is left to the loop lowering; at O2
versa-layout makes it NHWC.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script
from .strategy import LOWER_CONTRACT, MASKS, PREPARE, Strategy, needed, round_up, threads_worth

LAYOUTS = {  # op → its layout's name in DIMS
    "linalg.conv_2d_nhwc_hwcf": "NHWC",
    "linalg.conv_2d_nchw_fchw": "NCHW",
    "linalg.depthwise_conv_2d_nhwc_hwc": "DEPTHWISE_NHWC",
}

# Loop dims of each op, in its iteration order; the strategy names them by letter.
DIMS = {
    "NHWC": ("n", "oh", "ow", "f", "kh", "kw", "c"),
    "NCHW": ("n", "f", "oh", "ow", "c", "kh", "kw"),
    "DEPTHWISE_NHWC": ("n", "oh", "ow", "c", "kh", "kw"),
}
# The reduction dims, outer to inner; the register tile's rows and vectors.
REDUCTION = {"NHWC": ("kh", "kw", "c"), "NCHW": ("kh", "kw", "c"), "DEPTHWISE_NHWC": ("kh", "kw")}
ROLES = {"NHWC": ("ow", "f"), "NCHW": ("f", "ow"), "DEPTHWISE_NHWC": ("ow", "c")}


# Filters are packed when they outgrow half of L2 (read in place, a panel's rows lie F·4 bytes
# apart: 1 KB for F = 256) and at least PACK_REUSE register tiles (rows of output pixels) per
# thread read each panel; they are then packed and read in blocks of filters of a third of L2
# (outermost), so each block stays in L2 across the image. One thread, Xeon (2 MB L2), 3x3
# convs: 256->256 at 14x14 5.8 -> 3.0 ms (oneDNN 1.6), 512->512 at 7x7 7.7 -> 5.4 (2.5),
# 256->256 at 56x56 75 -> 40. Packing alone gained 20%, blocking alone nothing; smaller
# filters (128 channels) and strided or 1x1 convs gained nothing or lost up to 25% packed, when
# the packing copy was scalar. With vector copies, strided convs pack too once their filters
# outgrow all of L2 (in place, their rows then come from L3; within L2 in-place reads won): 3x3
# stride 2, two threads, Emerald Rapids, AVX-512 (AVX2) code: 512->512 to 7x7 2.6x (1.8x),
# 256->512 to 7x7 1.6x (1.5x), 256->256 to 14x14 1.46x (1.47x); 128->256 to 14x14 (1.2 MB,
# inside this machine's 2 MB L2) lost 12% packed and stays in place.
PACK_REUSE = 4
# Filters this many times the image's bytes are split across threads (not the output rows).
FILTERS_OVER_IMAGE = 4


def work(op: ir.Operation, extents: tuple[int, ...]) -> tuple[int, int]:
    """The flops and bytes (operands and result) of the conv `op` (what `threads_worth` weighs)."""
    element = ir.ShapedType(op.operands[0].type).element_type.width // 8
    nbytes = sum(math.prod(ir.ShapedType(v.type).shape) for v in (*op.operands, *op.results)) * element
    return 2 * math.prod(extents), nbytes


def _divisor_or_max(most: int, extent: int) -> int:
    """The largest size in [most/2, most] that divides `extent` (no remainder), else `most`."""
    return next((t for t in range(most, most // 2, -1) if extent % t == 0), most)


def _filter_block(most: int, extent: int, vec: int) -> int:
    """The largest multiple of `vec` up to `most` (at least `vec`) that divides `extent` (no
    ragged block), else `extent`."""
    top = max(vec, most // vec * vec)
    return next((b for b in range(top, vec - 1, -vec) if extent % b == 0), extent)


def _chunks(extent: int, tile: int, pow2: bool) -> list[int]:
    """`extent` as a multiple of `tile` then the leftover (as powers of two when `pow2`)."""
    main, rest = extent // tile * tile, extent % tile
    chunks = [main] if main else []
    if rest and pow2:
        chunks += [1 << b for b in reversed(range(rest.bit_length())) if rest >> b & 1]
    elif rest:
        chunks.append(rest)
    return chunks


@dataclass(frozen=True)
class ConvStrategy(Strategy):
    layout: str  # a key of DIMS
    extents: tuple[int, ...]  # per loop dim, in the op's iteration order (DIMS[layout])
    threads: int
    thread_dim: str  # the dim split across threads ("oh" or "f"); "" = no forall
    thread_tile: int
    register_tile: tuple[int, int, int]  # rows (ow for NHWC, f for NCHW), vec (f / ow), cr
    pack_filters: bool = False  # NHWC: filters copied into [f / vec, kh, kw, c, vec] panels first
    f_block: int = 0  # filters per block (outermost loop) when packing; 0 = one block
    zero: str = "0.0 : f32"  # the element's zero (the packing copy's padding value)

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "ConvStrategy | None":
        layout = LAYOUTS.get(op.name)
        if layout is None:
            return None
        w_shape = ir.RankedTensorType(op.operands[1].type).shape
        o_shape = ir.RankedTensorType(op.results[0].type).shape
        if layout == "NHWC":
            (n, oh, ow, f), (kh, kw, c, _) = o_shape, w_shape
            extents = (n, oh, ow, f, kh, kw, c)
        elif layout == "NCHW":
            (n, f, oh, ow), (_, c, kh, kw) = o_shape, w_shape
            extents = (n, f, oh, ow, c, kh, kw)
        else:  # depthwise: f is c
            (n, oh, ow, f), (kh, kw, _) = o_shape, w_shape
            extents, c = (n, oh, ow, f, kh, kw), 1
        rows_dim, vec_dim = ROLES[layout]
        rows_extent, vec_extent = (extents[DIMS[layout].index(d)] for d in (rows_dim, vec_dim))
        lanes = target.lanes(32)
        vec = min(2 * lanes, round_up(vec_extent, lanes))
        rows = _divisor_or_max(min(max(1, target.vector_registers // 4), rows_extent), rows_extent)
        cr = next(t for t in (4, 3, 2, 1) if c % t == 0)
        element = ir.ShapedType(op.operands[0].type).element_type.width // 8
        threads = threads_worth(*work(op, extents), target, threads)
        thread_dim, thread_tile = "", 0
        filters = math.prod(w_shape) * element
        image = math.prod(ir.ShapedType(op.operands[0].type).shape) * element
        f_even = f % (threads * (rows if layout == "NCHW" else vec)) == 0
        # Split the filters where they far outweigh the image (deep layers: 512 channels at
        # 7x7): each thread then streams its share of them, not all. 3x3 convs on 2 threads
        # (Emerald Rapids): 512->512 at 7x7 (filters 94x the image) 2.94 -> 1.86 ms,
        # 256->256 at 14x14 (12x) 1.36 -> 1.12; 128->128 at 28x28 (1.5x) 1.07 -> 1.11, so not
        # there; 64->64 at 56x56 (0.2x) 1.38 -> 1.45.
        by_filters = f_even and layout != "DEPTHWISE_NHWC" and filters > FILTERS_OVER_IMAGE * image
        if threads > 1 and oh >= threads and not by_filters:
            thread_dim, thread_tile = "oh", -(-oh // threads)
        elif threads > 1 and f_even:
            thread_dim, thread_tile = ("c" if layout == "DEPTHWISE_NHWC" else "f"), f // threads
        tiles = n * (thread_tile if thread_dim == "oh" else oh) * -(-ow // rows)  # per thread
        strides = op.attributes["strides"] if "strides" in op.attributes else None
        unit = strides is None or all(v == 1 for v in ir.DenseIntElementsAttr(strides))
        outgrown = filters > (target.l2 // 2 if unit else target.l2)
        pack = layout == "NHWC" and tiles >= PACK_REUSE and outgrown and kh * kw > 1
        f_share = thread_tile if thread_dim == "f" else f
        block = _filter_block(target.l2 // 3 // (filters // f), f_share, vec) if pack else f_share
        zero = f"0.0 : {ir.ShapedType(op.operands[1].type).element_type}"
        f_block = block if block < f_share else 0
        return ConvStrategy(
            layout, tuple(extents), threads, thread_dim, thread_tile, (rows, vec, cr), pack, f_block, zero
        )

    @property
    def dims(self) -> tuple[str, ...]:
        return DIMS[self.layout]

    @property
    def reduction(self) -> tuple[str, ...]:
        return REDUCTION[self.layout]

    @property
    def output_dims(self) -> list[str]:
        """The parallel dims, in the order of the output's axes."""
        return [d for d in self.dims if d not in self.reduction]

    def _sizes(self, sizes: dict[str, int]) -> list[int]:
        return [sizes.get(d, 0) for d in self.dims]

    def _extent(self, dim: str) -> int:
        return self.extents[self.dims.index(dim)]

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        # The zero fill of the output, unless another op's strategy (cse merged equal fills) has
        # already vectorized it: then the producer is a loop and there is nothing to match.
        fill = s.match_ops(["linalg.fill"], s.producer(op, 2))
        full = dict(zip(self.dims, self.extents, strict=True))
        extents = dict(full)
        if self.thread_dim:
            op, _ = s.tile_forall(op, self._sizes({self.thread_dim: self.thread_tile}))
            extents[self.thread_dim] = self.thread_tile
        if self.f_block:  # blocks of filters outermost: each block packed once, then read from L2
            op, _ = s.tile(op, self._sizes({"f": self.f_block}))
            extents["f"] = self.f_block
        function = s.parent(op, "func.func")
        self.finish(s, function, self.emit_tile(s, op, extents, fill, full))

    def emit_tile(
        self, s: Script, op: str, extents: dict[str, int], fill: str, fill_extents: dict[str, int]
    ) -> list[dict[int, str]]:
        """The register tiles of `op`, a tile of the conv spanning `extents` of its dims,
        vectorized, and `fill`, its zero init spanning `fill_extents` (an empty handle when
        already done). Returns the window loops of each piece, for `finish`."""
        rows, vec, cr = self.register_tile
        rows_dim, vec_dim = self._roles()
        # Split so that every piece tiles evenly: full row blocks and the leftover rows; full
        # vec blocks and the leftover split into powers of two (a vector<24xf32> is legalized
        # element by element: 3x slower than vector<16xf32> + vector<8xf32>).
        pieces = [(op, extents)]
        for dim, tile, pow2 in ((rows_dim, rows, False), (vec_dim, vec, True)):
            pieces = [cut for piece in pieces for cut in self._split(s, piece, dim, tile, pow2)]
        windows = [self._kernel(s, piece, piece_extents) for piece, piece_extents in pieces]
        self._fill(s, fill, fill_extents)
        return windows

    def finish(self, s: Script, function: str, windows: list[dict[int, str]]) -> None:
        """Accumulators hoisted out of the window loops, contractions lowered to vector.fma."""
        # Patterns run on the whole function: the vectorized fill outside the loops must fold
        # into the accumulators' first read, or the hoisting finds no loop-invariant pair.
        s.patterns(function, MASKS)  # the fill's ragged tiles (see strategy.MASKS)
        s.patterns(function, PREPARE)
        for window_loops in windows:
            for d in reversed(self.reduction):  # innermost first: each hoist exposes the next pair
                loop = window_loops.get(self.dims.index(d))
                if loop:
                    s.hoist(loop)
        s.patterns(function, LOWER_CONTRACT)

    def _split(
        self, s: Script, piece: tuple[str, dict[str, int]], dim: str, tile: int, pow2: bool
    ) -> list[tuple[str, dict[str, int]]]:
        """`piece` cut along `dim` into a multiple of `tile` and the leftover (in powers of two
        when `pow2`), largest first."""
        op, extents = piece
        chunks = _chunks(extents[dim], tile, pow2)
        cuts = []
        for chunk in chunks[:-1]:
            lower, op = s.split(op, self.dims.index(dim), chunk)
            cuts.append((lower, {**extents, dim: chunk}))
        return [*cuts, (op, {**extents, dim: chunks[-1]})]

    def _kernel(self, s: Script, op: str, extents: dict[str, int]) -> dict[int, str]:
        """One piece whose rows and vec extents are multiples of the tile (or below it): the
        register tile, the window loops (kh, kw one at a time, so that the tile decomposes to a
        1-D convolution; c innermost), vectorized. Returns the window loops {dim: loop}."""
        rows, vec, cr = self.register_tile
        rows_dim, vec_dim = self._roles()
        parallel = {"n": 1, "oh": 1, rows_dim: rows, vec_dim: vec}
        op, tiles = s.tile(op, needed(self._sizes(parallel), [extents[d] for d in self.dims]))
        # Each vec filters' [kh, kw, c, vec] panel contiguous, once per call. Not in a piece that
        # is one register tile (a leftover of rows and vectors): no loop to hoist the packing
        # above, nothing read twice (`hoist_pad ... by 0 loops` fails to apply).
        if self.pack_filters and tiles:
            padded = s.pad(op, [self.dims.index("f")], [self.zero] * 3, [0, 1, 0])
            self._vector_copy(s, s.hoist_pad(s.producer(padded, 1), len(tiles)), cr, vec)
            op = padded
        reduction = self.reduction
        window = {d: cr if d == "c" else 1 for d in reduction}
        order = [self.dims.index(d) for d in (*(d for d in self.dims if d not in reduction), *reduction)]
        op, loops = s.tile(op, needed(self._sizes(window), list(self.extents)), order)
        s.vectorize(s.decompose(op))
        return loops

    @staticmethod
    def _vector_copy(s: Script, panel: str, cr: int, vec: int) -> None:
        """The packing copy (a [kh, kw, c, vec] pad that pads nothing) as vector loads and
        stores of cr x vec: left whole, it bufferizes to a strided copy that LLVM copies one
        float at a time (it cannot prove source and panel apart)."""
        tile, _ = s.tile(panel, [1, 1, cr, 0])
        store = s.consumer(tile)  # the insert_slice of each tile into the panel
        s.vectorize(tile, [1, 1, cr, vec])
        s.vectorize(store)

    def _roles(self) -> tuple[str, str]:
        """The dims of the register tile's rows and of its vectors."""
        return ROLES[self.layout]

    def _fill(self, s: Script, fill: str, extents: dict[str, int]) -> None:
        """The zero init, tiled like the output and vectorized (masked where ragged)."""
        rows, vec, _ = self.register_tile
        rows_dim, vec_dim = self._roles()
        out_dims = self.output_dims
        tiles = {"n": 1, "oh": 1, rows_dim: rows, vec_dim: vec}
        shape = [extents[d] for d in out_dims]
        tiled, _ = s.tile(fill, needed([tiles[d] for d in out_dims], shape))
        s.vectorize(tiled, [min(tiles[d], e) for d, e in zip(out_dims, shape, strict=True)])
