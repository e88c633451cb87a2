"""The integer dot-product micro-kernel of `versa-int8-kernels`, as MLIR text on tensors.

One kernel serves qconv2d (NHWC, HWCF filters) and qmatmul (a matmul is a 1x1 conv over one
image row of M pixels). Its reduction dim K = (kh, kw, c) is read in groups of G channels that
one 32-bit lane multiplies and sums: G = 4 bytes for `vpdpbusd` (VNNI: u8 x s8, 4 products
into each i32 lane) and AArch64's `sdot`/`udot` (s8 x s8, u8 x u8: `int8_dot_aarch64.py`),
G = 2 i16 for `vpmaddwd` (AVX2 / AVX-512BW: s16 x s16, 2 products, exact).
The filter is packed at compile time (`int8_pack.py`) into panels of NR = NV·L filters:
[P, KH, KW, C/G, NR·G], so one k step reads NV contiguous vectors; the activations' G channels
are one i32 broadcast to every lane (`vpbroadcastd` from memory):

    for n, ob, wb, p                           (cache blocks of rows, then panels: int8_blocks.py;
      for oh in the block's RB rows             an scf.forall over (n, ob, wb, p) with threads)
        for ow0 in steps of MR in its WB pixels (+ one static tile for the MR ∤ WB rest)
          acc[i][j] = init[p·NR + j·L]         MR·NV accumulators, in registers
          for kh, kw, cg:
            acc[i][j] = dot(acc[i][j], A[n, oh·sh + kh·dh, (ow0+i)·sw + kw·dw, cg·G], B[p, kh, kw, cg, j])
          out[n, oh, ow0 + i, p·NR + j·L] = acc[i][j]

The instructions are LLVM's intrinsics, called as functions declared under their names
(`@llvm.x86.avx512.vpdpbusd.512`): an `llvm.call_intrinsic` has unknown memory effects, which
one-shot-bufferize refuses, while a call of a declaration with vector operands bufferizes, and
LLVM reads a declaration named `llvm.*` as the intrinsic (docs/facts.md).

With `s.fill` x is the conv's input unpadded (`int8_dot_borders.py`): each pixel tile is an
`scf.if` of an unchecked body (interior) and one that reads clamped rows and columns and takes
the fill word outside x (border rows and tiles), instead of a padded copy made every call.
"""

from ...common.kernel_text import Text
from . import int8_dot_borders as borders
from .int8_blocks import Blocks, open_nest, unblocked
from .int8_isa import ConvShape, Isa


def kernel_text(
    name: str,
    s: ConvShape,
    isa: Isa,
    nv: int,
    mr: int,
    unsigned: bool,
    threads: int,
    blocks: Blocks | None = None,
) -> str:
    """`@name(x, packed filters, init [F] i32) -> [n, oh, ow, F] i32`. `unsigned`: x holds u8
    (read as such by the matmul lowering); else i8. For vpdpbusd x's top bit is flipped (the
    u8 operand becomes s8 or back: the packing's init takes the 128 shift), for vpmaddwd x is
    widened to i16 as it reads, sdot/udot read it as it is. `s.shifted` (a conv's u8 bytes
    before the lowering's flip): vpdpbusd reads x as it is, vpmaddwd widens it unsigned."""
    t, L = Text(), isa.lanes
    nr = nv * L
    n, h, w, c = s.x
    (on, oh, ow), f, cp = s.out, s.filters, s.channels
    x_type, et = f"tensor<{n}x{h}x{w}x{c}xi8>", isa.element
    xp_type = f"tensor<{n}x{h}x{w}x{cp}x{et}>"
    out_type = f"tensor<{on}x{oh}x{ow}x{f}x{s.element}>"
    arguments = f"%x: {x_type}, %b: {s.packed(isa, nr)}, %init: tensor<{f}xi32>"
    arguments += s.epilogue.arguments() if s.epilogue else ""
    header = f"func.func private @{name}({arguments}) -> {out_type} {{"
    t("%z8 = arith.constant 0 : i8")
    t(f"%zt = arith.constant 0 : {et}")
    t("%z32 = arith.constant 0 : i32")
    if s.fill is not None:
        t(f"%fillw = arith.constant dense<{borders.fill_word(isa, s.fill, s.shifted)}> : vector<1xi32>")
    xs = "%x"
    if cp != c:
        t(f"%xpad = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, {cp - c}] {{")
        t("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        t("  tensor.yield %z8 : i8")
        t(f"}} : {x_type} to tensor<{n}x{h}x{w}x{cp}xi8>")
        xs = "%xpad"
    xp = xs
    if not isa.accumulates or (isa.flips and not s.shifted):  # sdot/udot read x as it is
        if isa.flips:
            t("%flip = arith.constant -128 : i8")
            prep = "%y = arith.xori %v, %flip : i8"
        else:
            prep = f"%y = arith.{'extui' if unsigned or s.shifted else 'extsi'} %v : i8 to i16"
        ident = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
        t(f"%xe = tensor.empty() : {xp_type}")
        t(
            f"%xp = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = "
            f'["parallel", "parallel", "parallel", "parallel"]}} ins({xs} : tensor<{n}x{h}x{w}x{cp}xi8>) '
            f"outs(%xe : {xp_type}) {{"
        )
        t(f"^bb0(%v: i8, %o: {et}):")
        t(f"  {prep}")
        t(f"  linalg.yield %y : {et}")
        t(f"}} -> {xp_type}")
        xp = "%xp"
    t(f"%out0 = tensor.empty() : {out_type}")
    b = blocks or unblocked(ow)
    rb, wb = b.rows, b.pixels
    outer = open_nest(t, b, on, oh, ow, f // nr, out_type, threads)
    block_type = f"tensor<1x{rb}x{wb}x{nr}x{s.element}>"
    tile_type = f"tensor<1x1x{wb}x{nr}x{s.element}>"
    t(f"%col = arith.muli %p, {t.c(nr)} : index")
    t(f"%{'oh0' if rb > 1 else 'oh'} = arith.muli %ob, {t.c(rb)} : index")
    t(f"%wp0 = arith.muli %wb, {t.c(wb)} : index")
    window = f"[%n, %{'oh0' if rb > 1 else 'oh'}, %wp0, %col] [1, {rb}, {wb}, {nr}] [1, 1, 1, 1]"
    inits = []
    for j in range(nv):
        cj = t.fresh("cj")
        t(f"{cj} = arith.addi %col, {t.c(j * L)} : index")
        v = t.fresh("init")
        t(
            f"{v} = vector.transfer_read %init[{cj}], %z32 {{in_bounds = [true]}}"
            f" : tensor<{f}xi32>, vector<{L}xi32>"
        )
        inits.append(v)
    t(f"%blk0 = tensor.extract_slice %o{window} : {out_type} to {block_type}")
    tile = "%blk0"
    if rb > 1:  # the block's rows, one output row's tile each
        t(
            f"%blk = scf.for %r = {t.c(0)} to {t.c(rb)} step {t.c(1)} iter_args(%bt = %blk0)"
            f" -> ({block_type}) {{"
        )
        t("%oh = arith.addi %oh0, %r : index")
        row = f"[0, %r, 0, 0] [1, 1, {wb}, {nr}] [1, 1, 1, 1]"
        t(f"%tile0 = tensor.extract_slice %bt{row} : {block_type} to {tile_type}")
        tile = "%tile0"
    full = wb // mr * mr
    if full:
        t(
            f"%tile1 = scf.for %w0 = {t.c(0)} to {t.c(full)} step {t.c(mr)} iter_args(%tl = {tile})"
            f" -> ({tile_type}) {{"
        )
        t("%wa = arith.addi %wp0, %w0 : index")
        rows = _tile(t, s, isa, nv, mr, ("%wa", "%w0"), "%tl", inits, tile_type, unsigned, xp)
        t(f"  scf.yield {rows} : {tile_type}")
        t("}")
        tile = "%tile1"
    if wb - full:
        t(f"%wr = arith.addi %wp0, {t.c(full)} : index")
        tile = _tile(t, s, isa, nv, wb - full, ("%wr", t.c(full)), tile, inits, tile_type, unsigned, xp)
    if rb > 1:
        t(f"%bt1 = tensor.insert_slice {tile} into %bt{row} : {tile_type} into {block_type}")
        t(f"scf.yield %bt1 : {block_type}")
        t("}")
        tile = "%blk"
    store_tile(t, tile, window, block_type, out_type, threads, outer)
    t(f"return %res : {out_type}")
    return t.function(header)


def store_tile(
    t, tile: str, window: str, tile_type: str, out_type: str, threads: int, outer: list[str]
) -> None:
    """Write `tile` into the output `%o` at `window` and close the loop nest: the forall's
    parallel insert, or (one thread) an insert yielded through the serial loops, whose
    results are `outer` from the innermost out (the kernels of this folder share the nest)."""
    if threads > 1:
        t("scf.forall.in_parallel {")
        t(f"  tensor.parallel_insert_slice {tile} into %o{window} : {tile_type} into {out_type}")
        t("}")
        t("}")
        return
    t(f"%ins = tensor.insert_slice {tile} into %o{window} : {tile_type} into {out_type}")
    t(f"scf.yield %ins : {out_type}")
    for result in outer:
        t("}")
        t(f"scf.yield {result} : {out_type}")
    t("}")


def _tile(t: Text, s: ConvShape, isa: Isa, nv: int, rows: int, w0, tile: str, *rest) -> str:
    """`_rows`, or where x is unpadded (`s.fill`) its unchecked body for interior tiles and
    its checked one for the border's (`int8_dot_borders.py`)."""
    if s.fill is None:
        return _rows(t, s, isa, nv, rows, w0, tile, *rest)
    tile_type = rest[1]
    inside = borders.interior(t, s, "%oh", w0[0], rows)
    return borders.choose(
        t,
        inside,
        tile_type,
        lambda: _rows(t, s, isa, nv, rows, w0, tile, *rest),
        lambda: _rows(t, s, isa, nv, rows, w0, tile, *rest, checked=True),
    )


def _rows(
    t: Text,
    s: ConvShape,
    isa: Isa,
    nv: int,
    rows: int,
    w0: tuple[str, str],
    tile: str,
    inits,
    tile_type,
    unsigned: bool,
    xp: str,
    checked: bool = False,
) -> str:
    """`rows` output pixels from `w0` on (the pixel, and its place in `tile`), NV vectors of
    filters each, reading activations `xp` (`checked`: clamped, the fill word outside x): the k
    loops around the MR·NV accumulators, then their stores into `tile`; the new tile's name."""
    w0, at = w0
    L, G, et = isa.lanes, isa.group, isa.element
    vec, wide = f"vector<{L}xi32>", f"vector<{L * G}x{et}>"
    kh, kw = s.window
    (sh, sw), (dh, dw) = s.strides, s.dilations
    n, h, w, _ = s.x
    xp_type = f"tensor<{n}x{h}x{w}x{s.channels}x{et}>"
    accs = [inits[j] for _ in range(rows) for j in range(nv)]
    names = [t.fresh("acc") for _ in accs]
    loops = [("%kh", kh), ("%kw", kw), ("%cg", s.channels // G)]
    results = []
    current = accs
    for depth, (iv, extent) in enumerate(loops):
        res = t.fresh("r")
        args = [t.fresh("a") for _ in accs]
        inner = names if depth == len(loops) - 1 else args
        binds = ", ".join(f"{a} = {v}" for a, v in zip(inner, current, strict=True))
        t(
            f"{res}:{len(accs)} = scf.for {iv} = {t.c(0)} to {t.c(extent)} step {t.c(1)} iter_args({binds})"
            f" -> ({', '.join([vec] * len(accs))}) {{"
        )
        results.append(res)
        current = inner
    hrow = t.fresh("h")
    top, left = s.pad
    row = borders.offset(f"a * {sh} + b * {dh}", top)
    t(f"{hrow} = affine.apply affine_map<(a, b) -> ({row})>(%oh, %kh)")
    if checked:
        hrow, row_inside = borders.clamped(t, hrow, h)
    cg = t.fresh("c")
    t(f"{cg} = arith.muli %cg, {t.c(G)} : index")
    bs = []
    for j in range(nv):
        b = t.fresh("b")
        t(
            f"{b} = vector.transfer_read %b[%p, %kh, %kw, %cg, {t.c(j * L * G)}], %zt {{in_bounds = [true]}}"
            f" : {s.packed(isa, nv * L)}, {wide}"
        )
        bs.append(b)
    outs = []
    for i in range(rows):
        col = t.fresh("w")
        column = borders.offset(f"a * {sw} + {i * sw} + b * {dw}", left)
        t(f"{col} = affine.apply affine_map<(a, b) -> ({column})>({w0}, %kw)")
        if checked:
            col, col_inside = borders.clamped(t, col, w)
            inside = t.fresh("in")
            t(f"{inside} = arith.andi {row_inside}, {col_inside} : i1")
        raw, word, splat, a = t.fresh("x"), t.fresh("x"), t.fresh("x"), t.fresh("x")
        t(
            f"{raw} = vector.transfer_read {xp}[%n, {hrow}, {col}, {cg}], %zt {{in_bounds = [true]}}"
            f" : {xp_type}, vector<{G}x{et}>"
        )
        t(f"{word} = vector.bitcast {raw} : vector<{G}x{et}> to vector<1xi32>")
        if checked:  # outside x: the fill word the padded copy held
            chosen = t.fresh("x")
            t(f"{chosen} = arith.select {inside}, {word}, %fillw : vector<1xi32>")
            word = chosen
        t(f"{splat} = vector.broadcast {word} : vector<1xi32> to {vec}")
        t(f"{a} = vector.bitcast {splat} : {vec} to {wide}")
        for j in range(nv):
            acc, r = names[i * nv + j], t.fresh("d")
            if isa.accumulates:  # vpdpbusd's u8 operand first: the filters where x is u8 (int8_pack)
                first, second = (bs[j], a) if unsigned and isa.flips else (a, bs[j])
                t(
                    f"{r} = func.call @{isa.call(unsigned)}({acc}, {first}, {second})"
                    f" : ({vec}, {wide}, {wide}) -> {vec}"
                )
            else:
                p = t.fresh("m")
                t(f"{p} = func.call @{isa.intrinsic}({a}, {bs[j]}) : ({wide}, {wide}) -> {vec}")
                t(f"{r} = arith.addi {acc}, {p} : {vec}")
            outs.append(r)
    types = ", ".join([vec] * len(accs))
    for depth in range(len(loops)):
        t(f"scf.yield {', '.join(outs)} : {types}")
        t("}")
        outs = [f"{results[-1 - depth]}#{k}" for k in range(len(accs))]
    reads: dict = {}  # the epilogue's inputs read in this block (a channel's once for all rows)
    filters = [t.fresh("f") for _ in range(nv if s.epilogue else 0)]
    for j, name in enumerate(filters):
        t(f"{name} = arith.addi %col, {t.c(j * L)} : index")
    pixels = []
    for i in range(rows):
        col, place = t.fresh("w"), t.fresh("w")
        t(f"{col} = arith.addi {w0}, {t.c(i)} : index")
        t(f"{place} = arith.addi {at}, {t.c(i)} : index")
        pixels.append((col, place))
    for j in range(nv):  # a filter vector's epilogue inputs live while its MR pixels store
        for i, (col, place) in enumerate(pixels):
            new, value = t.fresh("tile"), outs[i * nv + j]
            if s.epilogue:
                value = s.epilogue.store(t, value, col, filters[j], L, reads)
            t(
                f"{new} = vector.transfer_write {value}, {tile}"
                f"[{t.c(0)}, {t.c(0)}, {place}, {t.c(j * L)}] {{in_bounds = [true]}}"
                f" : vector<{L}x{s.element}>, {tile_type}"
            )
            tile = new
    return tile
