"""Pool kernels over dynamic images (H, W or the batch `?`): the text of one function per pool,
for `versa-dynamic-pool-kernels`. Shared here: the pool's description, the entry (sizes read
off the input), the split of output rows into border and interior ranges, the plane or row
chunks across threads, and the border reads; the NCHW kernel (`nchw`) and the NHWC one
(`dynamic_pools_nhwc.py`) build on them.

Why kernels and not static tiles: cut into static 8x32 tiles, a dynamic pool ran a named
pooling op per tile (strided scalar loops) over a padded copy of the whole input, 5-30x the
static compile's time. Here the loops run to the call's sizes and the body is the static
kernel's: interior rows read rows whole, and a row whose window meets the padding (at most
a few at either end) reads its rows clamped into the image and takes the fold's identity
(-inf, 0) for a row outside it (`arith.select`), so padding never reaches memory.
"""

from dataclasses import dataclass

from ...common.kernel_text import Text, f32_literal
from ..strategies.strategy import MIN_PARALLEL_ELEMENTS

MAX_WINDOW = 16  # kernel extent per axis: a tile's vectors stay in registers
MAX_STRIDE = 8


@dataclass(frozen=True)
class DynamicPool:
    """A pool of f32 (`kind` "max" or "sum") in `layout`, its input type's dims (None: `?`)."""

    kind: str
    layout: str
    dims: tuple[int | None, ...]
    kernel: tuple[int, int]
    strides: tuple[int, int]
    padding: tuple[int, int, int, int]  # top, left, bottom, right

    @property
    def identity(self) -> str:
        return "0xFF800000" if self.kind == "max" else "0.0"

    @property
    def spatial(self) -> tuple[int, int]:
        return (2, 3) if self.layout == "NCHW" else (1, 2)

    def type_(self, dims: tuple[int | None, ...]) -> str:
        return "tensor<" + "x".join("?" if d is None else str(d) for d in dims) + "xf32>"


class Kernel:
    """What both layouts' kernels write: the text, the sizes (`%h`, `%w`, `%oh`, `%ow`, `%hm`
    = H - 1), the output row ranges [0, `%lo`) border, [`%lo`, `%hi`) interior, [`%hi`, OH) border."""

    def __init__(self, pool: DynamicPool, lanes: int, threads: int) -> None:
        self.pool, self.t, self.lanes, self.threads = pool, Text(), lanes, threads
        self.combine = "arith.maximumf" if pool.kind == "max" else "arith.addf"

    def entry(self) -> None:
        t, p = self.t, self.pool
        (kh, kw), (sh, sw), (pt, pl, pb, pr) = p.kernel, p.strides, p.padding
        x = p.type_(p.dims)
        t(f"%id = arith.constant {p.identity} : f32")
        for name, d in (("%h", p.spatial[0]), ("%w", p.spatial[1])):
            t(f"{name} = tensor.dim %x0, {t.c(d)} : {x}")
        t(f"%oh = affine.apply affine_map<(d0) -> ((d0 + {pt + pb - kh}) floordiv {sh} + 1)>(%h)")
        t(f"%ow = affine.apply affine_map<(d0) -> ((d0 + {pl + pr - kw}) floordiv {sw} + 1)>(%w)")
        t(f"%hm = arith.subi %h, {t.c(1)} : index")
        t(f"%wm = arith.subi %w, {t.c(1)} : index")
        t(f"%lo = affine.min affine_map<(d0) -> ({-(-pt // sh)}, d0)>(%oh)")
        t(f"%hi0 = affine.min affine_map<(d0, d1) -> ((d0 + {pt - kh}) floordiv {sh} + 1, d1)>(%h, %oh)")
        t("%hi = arith.maxsi %hi0, %lo : index")

    def output(self, dims: tuple[int | None, ...]) -> tuple[str, str]:
        """An empty result of `dims` (None: its size in `%oh`, `%ow` or the input's dim)."""
        t, p = self.t, self.pool
        sizes = []
        for d, size in enumerate(dims):
            if size is None:
                name = {p.spatial[0]: "%oh", p.spatial[1]: "%ow"}.get(d)
                if name is None:
                    name = t.fresh("n")
                    t(f"{name} = tensor.dim %x0, {t.c(d)} : {p.type_(p.dims)}")
                sizes.append(name)
        t(f"%init = tensor.empty({', '.join(sizes)}) : {p.type_(dims)}")
        return "%init", p.type_(dims)

    def chunks(self, count: str, work: str, init: str, types: tuple[str, str], rest: list[str], body) -> str:
        """`body(acc, first, count, type)` over items [0, `count`) of dim 0 of `init` (of type
        `types[0]`), a chunk per thread (an `scf.forall` writing slices of `types[1]`, their
        other dims `rest`) where `threads` > 1 and the call's `work` (elements) pays a fork;
        else one chunk. Returns the result."""
        t, (whole, part) = self.t, types
        if self.threads == 1:
            return body(init, t.c(0), count, whole)
        t(f"%par = arith.cmpi uge, {work}, {t.c(MIN_PARALLEL_ELEMENTS)} : index")
        t(f"%y = scf.if %par -> ({whole}) {{")
        t(f"  %share = arith.ceildivui {count}, {t.c(self.threads)} : index")
        t(f"  %chunk = arith.maxui %share, {t.c(1)} : index")
        t(f"  %trips = arith.ceildivui {count}, %chunk : index")
        t(f"  %f = scf.forall (%th) in (%trips) shared_outs(%o = {init}) -> ({whole}) {{")
        t("    %p0 = arith.muli %th, %chunk : index")
        t("    %p1 = arith.addi %p0, %chunk : index")
        t(f"    %p2 = arith.minui %p1, {count} : index")
        t("    %cnt = arith.subi %p2, %p0 : index")
        sizes = f"[{', '.join(['%cnt', *rest])}] [{', '.join(['1'] * (len(rest) + 1))}]"
        zeros = ", ".join(["%p0"] + ["0"] * len(rest))
        t(f"    %os = tensor.extract_slice %o[{zeros}] {sizes} : {whole} to {part}")
        done = body("%os", "%p0", "%cnt", part)
        t("    scf.forall.in_parallel {")
        t(f"      tensor.parallel_insert_slice {done} into %o[{zeros}] {sizes} : {part} into {whole}")
        t("    }")
        t("  }")
        t(f"  scf.yield %f : {whole}")
        t("} else {")
        t(f"  scf.yield {body(init, t.c(0), count, whole)} : {whole}")
        t("}")
        return "%y"

    def loop(self, lo: str, hi: str, step: int, acc: str, type_: str, body) -> str:
        """scf.for from `lo` to `hi` by `step` carrying `acc`: `body(index, acc)` gives the next."""
        t = self.t
        loop, i, a = t.fresh("l"), t.fresh("i"), t.fresh("a")
        t(f"{loop} = scf.for {i} = {lo} to {hi} step {t.c(step)} iter_args({a} = {acc}) -> ({type_}) {{")
        t(f"  scf.yield {body(i, a)} : {type_}")
        t("}")
        return loop

    def taps(self, axis: int, o: str, border: bool) -> tuple[list[tuple[str, str | None]], str | None]:
        """The input indices of output `o`'s taps along `axis` (0: rows) and whether each lies
        in the image (None: it does), and their count (f32; None: the kernel's). A border
        output's indices are clamped into the image: read, then replaced by the identity."""
        t, p = self.t, self.pool
        k, s, low = p.kernel[axis], p.strides[axis], p.padding[axis]
        size, last = ("%h", "%hm") if axis == 0 else ("%w", "%wm")
        taps = []
        for kh in range(k):
            r = self.affine(o, s, kh - low)
            if not border:
                taps.append((r, None))
                continue
            valid, low_r, at = t.fresh("in"), t.fresh("cl"), t.fresh("at")
            t(f"{valid} = arith.cmpi ult, {r}, {size} : index")
            t(f"{low_r} = arith.minsi {r}, {last} : index")
            t(f"{at} = arith.maxsi {low_r}, {t.c(0)} : index")
            taps.append((at, valid))
        if not border:
            return taps, None
        lo_e, hi_e = t.fresh("e"), t.fresh("e")
        t(f"{lo_e} = affine.max affine_map<(d0) -> (d0 * {s} - {low}, 0)>({o})")
        t(f"{hi_e} = affine.min affine_map<(d0)[s0] -> (d0 * {s} - {low} + {k}, s0)>({o})[{size}]")
        return taps, self.count(f"arith.subi {hi_e}, {lo_e}")

    def count(self, index_expr: str) -> str:
        """An index expression's value as f32 (a count of taps)."""
        t = self.t
        i, w, f = t.fresh("ci"), t.fresh("cw"), t.fresh("cf")
        t(f"{i} = {index_expr} : index")
        t(f"{w} = arith.index_cast {i} : index to i64")
        t(f"{f} = arith.sitofp {w} : i64 to f32")
        return f

    def read(self, source: str, at: str, valid: str | None, width: int, in_bounds: bool, type_: str) -> str:
        """A vector of `width` lanes of `source` at `at`; where `valid` is false, the identity."""
        t = self.t
        v = t.fresh("v")
        vec = f"vector<{width}xf32>"
        t(
            f"{v} = vector.transfer_read {source}[{at}], %id"
            f" {{in_bounds = [{str(in_bounds).lower()}]}} : {type_}, {vec}"
        )
        if valid is None:
            return v
        pad, out = t.fresh("pad"), t.fresh("v")
        t(f"{pad} = arith.constant dense<{self.pool.identity}> : {vec}")
        t(f"{out} = arith.select {valid}, {v}, {pad} : {vec}")
        return out

    def fold(self, a: str | None, b: str, width: int) -> str:
        """A max that returns NaN if either is (as PyTorch's pools do) but may order -0 and
        +0 either way (3 instructions on x86, not 6); or a sum."""
        if a is None:
            return b
        nsz = " fastmath<nsz>" if self.pool.kind == "max" else ""
        return self.emit(f"{self.combine} {a}, {b}{nsz}", f"vector<{width}xf32>")

    def divide(self, value: str, width: int, counts: str | None, rows: str | None, cols: int) -> str:
        """`value` (sums) divided by the taps in the image: `rows` (f32, None: the kernel's)
        times the per-lane `counts` (a vector of f32; None: `cols` each)."""
        t, vec = self.t, f"vector<{width}xf32>"
        if counts is None and rows is None:
            n = t.fresh("n")
            t(f"{n} = arith.constant dense<{f32_literal(float(self.pool.kernel[0] * cols))}> : {vec}")
        elif counts is None:
            scaled = self.emit(f"arith.mulf {rows}, {self.scalar(cols)}", "f32")
            n = self.emit(f"vector.broadcast {scaled}", f"f32 to {vec}")
        else:
            scale = rows or self.scalar(self.pool.kernel[0])
            n = self.emit(
                f"arith.mulf {counts}, {self.emit(f'vector.broadcast {scale}', f'f32 to {vec}')}", vec
            )
        return self.emit(f"arith.divf {value}, {n}", vec)

    def scalar(self, value: int) -> str:
        v = self.t.fresh("k")
        self.t(f"{v} = arith.constant {f32_literal(float(value))} : f32")
        return v

    def affine(self, at: str, scale: int, offset: int) -> str:
        v = self.t.fresh("r")
        self.t(f"{v} = affine.apply affine_map<(d0) -> (d0 * {scale} + {offset})>({at})")
        return v

    def emit(self, text: str, type_: str) -> str:
        v = self.t.fresh("t")
        self.t(f"{v} = {text} : {type_}")
        return v
