"""versa-pool-kernels: NCHW 2-D max and average pooling of f32 (max of i8 and ui8 too) as
separable vector kernels.

A pool window of an NCHW image lies along its contiguous rows with a stride between outputs,
which neither the vectorizer nor LLVM's loop vectorizer handles well: strided loads, or (the
views of `pool_regions`) n-D vectors whose de-interleaving transposes cost more than the
memory they move. Here each pool becomes a call to a kernel template. Per tile of T outputs
(a vector) of an output row, the taps kw = g*s + r of a row fall into Q = ceil(K / s) groups;
group g reads T*s contiguous lanes from each of the K input rows, folds them (the vertical
taps), and each tap r is then the lanes r, r + s, ... of that fold: a shuffle (one permute for
s = 2 on x86, none for s = 1), folded into the output:

    for each plane (n, c)                              (scf.forall: a chunk of planes per thread)
      for each output row oh                           (border rows apart: fewer taps)
        for each tile [ow0, ow0 + T)                   (border tiles apart: padding in lanes)
          v_g = fold over kh of x[oh*s - pt + kh, (ow0 + g)*s - pl : + T*s]      (g < Q)
          y[oh, ow0 : + T] = fold over kw of shuffle(v_(kw / s), [i*s + kw % s for i < T])

Padding never reaches memory: a border row folds only the rows inside the image, and a
border tile reads the columns inside the image, its shuffles taking the fold's identity
(-inf, 0) for the lanes outside. An average divides by the count of taps inside the image
(count_include_pad=False), as the linalg lowering does. The kernels are inlined by the
pipeline's `inline` step; other layouts and element types keep the linalg lowering.

A quantized network's max pools are on bytes (`rules/quantized_pool.py`): the same kernel on
i8 vectors, a tile as wide as the target's byte lanes, folded with `arith.maxsi` (i8) or
`arith.maxui` (ui8, read as signless i8 through a cast that `erase_unsigned` drops), identity
the type's minimum.
"""

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from versa import targets
from versa.dialects import versa as dialect
from versa.mlir import func, ir

from ..common.base import Pass, collect, target_option
from ..common.kernel_text import Text, define, f32_literal
from .strategies.strategy import MIN_PARALLEL_ELEMENTS

MAX_WINDOW = 16  # kernel extent per axis: the K vectors of a tile stay in registers
MAX_STRIDE = 8  # a tile's vector is (T - 1) * s + K lanes
# element type -> (vector element, max, the max's identity); ui8 bytes are signless i8 vectors
_TYPES = {
    "f32": ("f32", "arith.maximumf", "0xFF800000"),
    "i8": ("i8", "arith.maxsi", "-128"),
    "ui8": ("i8", "arith.maxui", "0"),
}


@dataclass(frozen=True)
class Pool:
    """A static NCHW pool: P planes of H x W into OH x OW, the fold `kind` ("max" or "sum")."""

    kind: str
    planes: int
    size: tuple[int, int]
    out: tuple[int, int]
    kernel: tuple[int, int]
    strides: tuple[int, int]
    low: tuple[int, int]  # padding before the first row and column
    element: str = "f32"  # or "i8", "ui8" (max only)

    def taps(self, axis: int, o: int) -> range:
        """The taps of output `o` along `axis` that fall inside the image."""
        start = o * self.strides[axis] - self.low[axis]
        return range(max(0, -start), min(self.kernel[axis], self.size[axis] - start))

    def reach(self, axis: int) -> int:
        """Input elements a window reads along `axis` inside the image: K down the rows; along
        a row whole strides, Q = ceil(K / s) of them (a tile reads one vector per group)."""
        return self.kernel[0] if axis == 0 else -(-self.kernel[1] // self.strides[1]) * self.strides[1]


def pool_of(op: ir.Operation) -> Pool | None:
    """The pool `op` computes, when a kernel can: static NCHW, f32 (or a max of i8 or ui8),
    every window meeting the image."""
    x, y = op.operands[0].type, op.results[0].type
    if not isinstance(x, ir.RankedTensorType) or not x.has_static_shape or not y.has_static_shape:
        return None
    element = str(x.element_type)
    kinds = ("versa.max_pool2d", "versa.avg_pool2d") if element == "f32" else ("versa.max_pool2d",)
    if element not in _TYPES or op.name not in kinds or 0 in x.shape or 0 in y.shape:
        return None
    attrs = dialect.OPS[op.name].attrs(op)
    if attrs["layout"] != "NCHW":
        return None
    kernel, strides, padding = attrs["kernel"], attrs["strides"], attrs["padding"]
    if max(kernel) > MAX_WINDOW or max(strides) > MAX_STRIDE:
        return None
    pool = Pool(
        "max" if op.name == "versa.max_pool2d" else "sum",
        x.shape[0] * x.shape[1],
        (x.shape[2], x.shape[3]),
        (y.shape[2], y.shape[3]),
        (kernel[0], kernel[1]),
        (strides[0], strides[1]),
        (padding[0], padding[1]),
        element,
    )
    if any(not pool.taps(a, o) for a in (0, 1) for o in range(pool.out[a])):
        return None  # a window wholly in the padding (no tap to fold, nothing to divide by)
    return pool


def _runs(pool: Pool, axis: int, tiles: list[tuple[int, int]]) -> list[tuple[list[tuple[int, int]], bool]]:
    """`tiles` (first output, count) grouped into runs: consecutive full tiles whose every read
    lies inside the image (True: one loop body), each other one apart."""
    s, low, size = pool.strides[axis], pool.low[axis], pool.size[axis]
    reach = pool.reach(axis)

    def inside(tile: tuple[int, int]) -> bool:
        first, count = tile
        return count == tiles[0][1] and first * s >= low and (first + count - 1) * s - low + reach <= size

    runs = []
    for key, group in itertools.groupby(tiles, inside):
        group = list(group)
        runs += [(group, True)] if key else [([t], False) for t in group]
    return runs


class _Kernel:
    """The text of one pool kernel (see the module docstring)."""

    def __init__(self, pool: Pool, lanes: int, threads: int) -> None:
        self.pool, self.t = pool, Text()
        self.tile = min(lanes, pool.out[1])
        self.threads = threads if pool.planes * math.prod(pool.size) >= MIN_PARALLEL_ELEMENTS else 1
        self.e, combine, identity = _TYPES[pool.element]
        self.combine = combine if pool.kind == "max" else "arith.addf"
        self.identity = identity if pool.kind == "max" else "0.0"
        h, w = pool.size
        oh, ow = pool.out
        self.x_type = f"tensor<{pool.planes}x{h}x{w}x{self.e}>"
        self.y_type = f"tensor<{pool.planes}x{oh}x{ow}x{self.e}>"
        self.part = f"tensor<?x{oh}x{ow}x{self.e}>"

    def function(self, name: str, shape: list[int], out: list[int]) -> str:
        t, p, y, part = self.t, self.pool, self.y_type, self.part
        full_x, full_y = _tensor(shape, self.e), _tensor(out, self.e)
        t(f"%id = arith.constant {self.identity} : {self.e}")
        t(f"%x = tensor.collapse_shape %x0 [[0, 1], [2], [3]] : {full_x} into {self.x_type}")
        t(f"%init = tensor.empty() : {y}")
        chunk = -(-p.planes // self.threads)
        if chunk == p.planes:
            loop = f"scf.for %q = {t.c(0)} to {t.c(p.planes)} step {t.c(1)}"
            t(f"%y = {loop} iter_args(%acc = %init) -> ({y}) {{")
            t(f"  scf.yield {self.plane('%acc', '%q', '%q', y)} : {y}")
            t("}")
        else:  # a chunk of planes per thread, as the row kernels split rows
            sizes = f"[%count, {p.out[0]}, {p.out[1]}] [1, 1, 1]"
            t(f"%y = scf.forall (%th) in ({-(-p.planes // chunk)}) shared_outs(%o = %init) -> ({y}) {{")
            t(f"  %p0 = arith.muli %th, {t.c(chunk)} : index")
            t(f"  %p1 = arith.minui {_add(t, '%p0', chunk)}, {t.c(p.planes)} : index")
            t("  %count = arith.subi %p1, %p0 : index")
            t(f"  %os = tensor.extract_slice %o[%p0, 0, 0] {sizes} : {y} to {part}")
            t(f"  %part = scf.for %q = {t.c(0)} to %count step {t.c(1)} iter_args(%acc = %os) -> ({part}) {{")
            t("    %pa = arith.addi %p0, %q : index")
            t(f"    scf.yield {self.plane('%acc', '%q', '%pa', part)} : {part}")
            t("  }")
            t("  scf.forall.in_parallel {")
            t(f"    tensor.parallel_insert_slice %part into %o[%p0, 0, 0] {sizes} : {part} into {y}")
            t("  }")
            t("}")
        dims = ", ".join(map(str, out))
        t(f"%y0 = tensor.expand_shape %y [[0, 1], [2], [3]] output_shape [{dims}] : {y} into {full_y}")
        t(f"return %y0 : {full_y}")
        return t.function(f"func.func private @{name}(%x0: {full_x}) -> {full_y} {{")

    def plane(self, acc: str, q: str, plane: str, type_: str) -> str:
        """The output rows of one plane written into `acc` (at plane `q`), read from x's `plane`."""
        p = self.pool

        def row(a: str, oh: str, first: int | None, _: int) -> str:
            taps = range(p.kernel[0]) if first is None else p.taps(0, first)
            return self.row(a, q, plane, oh, taps, type_)

        return self._over(_runs(p, 0, [(o, 1) for o in range(p.out[0])]), acc, type_, row)

    def row(self, acc: str, q: str, plane: str, oh: str, taps: range, type_: str) -> str:
        """Output row `oh` (whose taps along H are `taps`) written into `acc`."""
        p = self.pool
        rows = [self._affine(oh, p.strides[0], kh - p.low[0]) for kh in taps]

        def tile(a: str, ow: str, first: int | None, count: int) -> str:
            return self.tile_at(a, q, plane, oh, len(taps), rows, ow, first, count, type_)

        tiles = [(o, min(self.tile, p.out[1] - o)) for o in range(0, p.out[1], self.tile)]
        return self._over(_runs(p, 1, tiles), acc, type_, tile)

    def _over(
        self, runs: list, acc: str, type_: str, body: Callable[[str, str, int | None, int], str]
    ) -> str:
        """`body(acc, position, first, count)` for every run of items (first output, count): a
        loop over a run of inside items (`first` None), the others at a constant position."""
        t = self.t
        for group, looped in runs:
            first, count = group[0]
            if len(group) == 1:  # at a constant position
                acc = body(acc, t.c(first), None if looped else first, count)
                continue
            end = group[-1][0] + count
            loop, i, a = t.fresh("l"), t.fresh("i"), t.fresh("a")
            header = f"{loop} = scf.for {i} = {t.c(first)} to {t.c(end)} step {t.c(count)}"
            t(f"{header} iter_args({a} = {acc}) -> ({type_}) {{")
            t(f"  scf.yield {body(a, i, None, count)} : {type_}")
            t("}")
            acc = loop
        return acc

    def tile_at(self, acc, q, plane, oh, row_taps, rows, ow, first, count, type_) -> str:
        """`count` outputs from column `ow` of row `oh`. Inside the image (`first` None) group
        g of the taps (kw = g*s + r) reads the T*s lanes from column ow*s + g*s - pl: its tap r
        is lanes r, r + s, ... (one permute for s = 2; none for s = 1). A tile that may meet
        the padding (at the constant `first`) reads the columns inside the image as one
        vector, its lanes outside the image the identity."""
        t, p = self.t, self.pool
        s, k, pl, w = p.strides[1], p.kernel[1], p.low[1], p.size[1]
        if first is None:
            groups = range(p.reach(1) // s)
            starts = [self._affine(ow, s, g * s - pl) for g in groups]
            width = count * s
            taps = [(kw // s, [i * s + kw % s for i in range(count)]) for kw in range(k)]
        else:
            lo = max(first * s - pl, 0)
            width = min(first * s - pl + (count - 1) * s + k, w) - lo
            starts = [t.c(lo)]
            taps = []
            for kw in range(k):
                cols = [(first + i) * s - pl + kw - lo for i in range(count)]
                taps.append((0, [c if 0 <= c < width else width for c in cols]))
        vec = f"vector<{width}x{self.e}>"
        folded = []
        for start in starts:
            acc_g = None
            for r in rows:
                v = t.fresh("v")
                at = f"%x[{plane}, {r}, {start}]"
                t(f"{v} = vector.transfer_read {at}, %id {{in_bounds = [true]}} : {self.x_type}, {vec}")
                acc_g = v if acc_g is None else self._fold(acc_g, v, vec)
            folded.append(acc_g)
        pad = None
        if any(lane == width for _, lanes in taps for lane in lanes):
            pad = t.fresh("pad")
            t(f"{pad} = arith.constant dense<{self.identity}> : {vec}")
        out, result = f"vector<{count}x{self.e}>", None
        for g, lanes in taps:
            tap = folded[g]
            if lanes != list(range(width)):
                tap = self._emit(f"vector.shuffle {folded[g]}, {pad or folded[g]} {lanes}", f"{vec}, {vec}")
            result = tap if result is None else self._fold(result, tap, out)
        if p.kind == "sum":
            result = self._emit(f"arith.divf {result}, {self._counts(row_taps, first, count)}", out)
        written = t.fresh("w")
        at = f"{acc}[{q}, {oh}, {ow}]"
        t(f"{written} = vector.transfer_write {result}, {at} {{in_bounds = [true]}} : {out}, {type_}")
        return written

    def _fold(self, a: str, b: str, type_: str) -> str:
        """a max that returns NaN if either is NaN (as PyTorch's pools do) but may order -0
        and +0 either way: 3 instructions on x86, not 6; or a sum."""
        nsz = self.combine == "arith.maximumf"
        return self._emit(f"{self.combine} {a}, {b}" + (" fastmath<nsz>" if nsz else ""), type_)

    def _counts(self, row_taps: int, first: int | None, count: int) -> str:
        """The divisors of a tile: taps inside the image per output."""
        cols = (
            [self.pool.kernel[1]] * count
            if first is None
            else [len(self.pool.taps(1, first + i)) for i in range(count)]
        )
        values = ", ".join(f32_literal(float(row_taps * c)) for c in cols)
        name = self.t.fresh("n")
        self.t(f"{name} = arith.constant dense<[{values}]> : vector<{count}xf32>")
        return name

    def _affine(self, at: str, scale: int, offset: int) -> str:
        v = self.t.fresh("r")
        self.t(f"{v} = affine.apply affine_map<(d0) -> (d0 * {scale} + {offset})>({at})")
        return v

    def _emit(self, text: str, type_: str) -> str:
        v = self.t.fresh("t")
        self.t(f"{v} = {text} : {type_}")
        return v


def _add(t: Text, value: str, n: int) -> str:
    v = t.fresh("s")
    t(f"{v} = arith.addi {value}, {t.c(n)} : index")
    return v


def _tensor(shape: list[int], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _cast(value: ir.Value, to: ir.Type) -> ir.Value:
    """ui8 bytes as i8 (or back): the cast convert-versa-to-linalg's `erase_unsigned` drops."""
    if value.type == to:
        return value
    return ir.Operation.create("builtin.unrealized_conversion_cast", results=[to], operands=[value]).result


@dataclass(frozen=True)
class VersaPoolKernels(Pass):
    name = "versa-pool-kernels"
    summary = (
        "NCHW max (f32, i8, ui8) and average (f32) pooling as separable vector kernels "
        "(rows folded, then taps shuffled)"
    )
    threads: int = 1  # chunks of planes run as an scf.forall (the pipeline maps it to OpenMP)
    target: targets.Target = target_option()  # its lanes of the element are the tile width

    def run(self, module: ir.Operation) -> None:
        ops = collect(module, lambda op: op.name in ("versa.max_pool2d", "versa.avg_pool2d"))
        pools = [(op, pool) for op in ops if (pool := pool_of(op)) is not None]
        for count, (op, pool) in enumerate(pools):
            name = f"versa_pool_{count}"
            x_type, y_type = ir.RankedTensorType(op.operands[0].type), ir.RankedTensorType(op.results[0].type)
            lanes = self.target.lanes(32 if pool.element == "f32" else 8)
            kernel = _Kernel(pool, lanes, max(1, self.threads))
            define(module, kernel.function(name, list(x_type.shape), list(y_type.shape)))
            with ir.InsertionPoint(op), op.location:
                element = ir.Type.parse(kernel.e)
                x = _cast(op.operands[0], ir.RankedTensorType.get(x_type.shape, element))
                y = ir.RankedTensorType.get(y_type.shape, element)
                call = func.CallOp([y], ir.FlatSymbolRefAttr.get(name), [x])
                result = _cast(call.results[0], y_type)
            op.results[0].replace_all_uses_with(result)
            op.erase()
