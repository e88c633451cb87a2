"""versa-row-kernels: softmax and layer_norm over trailing axes as one loop nest per row.

convert-versa-to-linalg decomposes both into reductions and broadcasting elementwise ops (five
linalg ops, three full-size intermediates: five passes over memory). Here each becomes a call
to a kernel template on tensors that reads a row from memory once, keeps it in cache for the
passes that follow, and writes the result once:

    softmax:    m, s = online max and rescaled sum of exp(x - m)   (one vector pass, V lanes)
                M = max(m); S = sum(s * exp(m - M)); y = exp(x - M) / S        (write pass)
    layer_norm: mean; var = mean((x - mean)^2); y = (x - mean) * rstd * gamma + beta

Rows are split across threads by `scf.forall` (one chunk per thread; `threads=1` gives a plain
loop), the trailing tail of a row shorter than V is a masked vector step. The online softmax is
the one-read form of Milakov and Gimelshein (2018); no upstream pass writes it (linalg.softmax
decomposes into the same four generics), hence the template. The kernels are inlined by the
pipeline's `inline` step.

    %y = "versa.softmax"(%x) {axis = -1} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  → %y = call @versa_softmax_0(%x) : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
"""

import functools
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass

from versa import targets
from versa.mlir import func, ir

from .base import Pass, collect

_NEG_INF = "0xFF800000"


def _static_f32(value: ir.Value) -> list[int] | None:
    t = value.type
    if (
        not isinstance(t, ir.RankedTensorType)
        or not t.has_static_shape
        or not isinstance(t.element_type, ir.F32Type)
    ):
        return None
    return list(t.shape)


def _row_split(op: ir.Operation) -> tuple[int, int] | None:
    """(rows, row length) when `op` normalises the trailing axes of a static f32 tensor."""
    shape = _static_f32(op.operands[0])
    if not shape:
        return None
    axis = ir.IntegerAttr(op.attributes["axis"]).value % len(shape)
    if op.name == "versa.softmax" and axis != len(shape) - 1:
        return None
    if op.name == "versa.layer_norm" and any(_static_f32(p) != shape[axis:] for p in op.operands[1:]):
        return None  # gamma and beta must be one row each
    return math.prod(shape[:axis]), math.prod(shape[axis:])


class _Text:
    """A kernel being written: its lines, fresh SSA names, and the index constants it uses
    (emitted once at the function entry)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.constants: set[int] = set()
        self._count = 0

    def c(self, value: int) -> str:
        self.constants.add(value)
        return f"%c{value}"

    def fresh(self, stem: str) -> str:
        self._count += 1
        return f"%{stem}{self._count}"

    def __call__(self, line: str) -> None:
        self.lines.append("  " + line)

    def function(self, header: str) -> str:
        consts = [f"  %c{v} = arith.constant {v} : index" for v in sorted(self.constants)]
        return "\n".join([header, *consts, *self.lines, "}"])


@dataclass(frozen=True)
class _Kernel:
    """A row kernel's shapes: R rows of N elements, V lanes, T threads."""

    rows: int
    length: int
    lanes: int
    threads: int

    @property
    def vec(self) -> str:
        return f"vector<{self.lanes}xf32>"

    @property
    def main(self) -> int:
        """Elements of a row covered by full vectors."""
        return self.length // self.lanes * self.lanes

    def broadcast(self, t: _Text, scalar: str) -> str:
        v = t.fresh("b")
        t(f"{v} = vector.broadcast {scalar} : f32 to {self.vec}")
        return v


RowBody = Callable[[_Text, str, str, str, str], str]  # (text, x rows, acc, row, tensor type)


def _over_rows(t: _Text, k: _Kernel, x: str, out: str, row_body: RowBody) -> str:
    """Loops over the rows of `x` (a chunk of rows per thread, then one row at a time), each
    row written into the loop's copy of `out` by `row_body`; returns the result's name."""
    rows, n = k.rows, k.length
    whole = f"tensor<{rows}x{n}xf32>"
    chunk = -(-rows // k.threads)
    if chunk == rows:
        t(f"%y = scf.for %r = {t.c(0)} to {t.c(rows)} step {t.c(1)} iter_args(%acc = {out}) -> ({whole}) {{")
        t(f"  scf.yield {row_body(t, x, '%acc', '%r', whole)} : {whole}")
        t("}")
        return "%y"
    part = f"tensor<?x{n}xf32>"
    t(f"%y = scf.forall (%th) in ({-(-rows // chunk)}) shared_outs(%o = {out}) -> ({whole}) {{")
    t(f"  %r0 = arith.muli %th, {t.c(chunk)} : index")
    t(f"  %r1 = arith.addi %r0, {t.c(chunk)} : index")
    t(f"  %r2 = arith.minui %r1, {t.c(rows)} : index")
    t("  %count = arith.subi %r2, %r0 : index")
    t(f"  %xs = tensor.extract_slice {x}[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    t(f"  %os = tensor.extract_slice %o[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    t(f"  %part = scf.for %r = {t.c(0)} to %count step {t.c(1)} iter_args(%acc = %os) -> ({part}) {{")
    t(f"    scf.yield {row_body(t, '%xs', '%acc', '%r', part)} : {part}")
    t("  }")
    t("  scf.forall.in_parallel {")
    t(f"    tensor.parallel_insert_slice %part into %o[%r0, 0] [%count, {n}] [1, 1] : {part} into {whole}")
    t("  }")
    t("}")
    return "%y"


Step = Callable[[_Text, str, str | None, list[str]], list[str]]  # (text, column, mask, carried)


def _along_row(t: _Text, k: _Kernel, inits: list[str], types: list[str], step: Step) -> list[str]:
    """One pass along a row: full vectors in a loop, then a masked step for the tail. `step`
    emits the work for the vector at a column (mask None for a full vector) on the carried
    values and returns their new values; returns the values after the pass."""
    values, joined = inits, ", ".join(types)
    if k.main:
        carried = [t.fresh("a") for _ in inits]
        loop, column = t.fresh("l"), t.fresh("j")
        args = ", ".join(f"{c} = {v}" for c, v in zip(carried, values, strict=True))
        t(
            f"{loop}:{len(inits)} = scf.for {column} = {t.c(0)} to {t.c(k.main)} step {t.c(k.lanes)} "
            f"iter_args({args}) -> ({joined}) {{"
        )
        t(f"  scf.yield {', '.join(step(t, column, None, carried))} : {joined}")
        t("}")
        values = [f"{loop}#{i}" for i in range(len(inits))]
    if k.length % k.lanes:
        mask = t.fresh("mask")
        t(f"{mask} = vector.create_mask {t.c(k.length - k.main)} : vector<{k.lanes}xi1>")
        values = step(t, t.c(k.main), mask, values)
    return values


def _read(t: _Text, k: _Kernel, source: str, index: str, pad: str, mask: str | None, type_: str) -> str:
    """A vector of `source` at `index`; a tail read (mask given) is bounds-checked, padded."""
    v = t.fresh("v")
    in_bounds = "false" if mask else "true"
    t(f"{v} = vector.transfer_read {source}[{index}], {pad} {{in_bounds = [{in_bounds}]}} : {type_}, {k.vec}")
    return v


def _write(t: _Text, k: _Kernel, value: str, dest: str, index: str, mask: str | None, type_: str) -> str:
    out = t.fresh("w")
    in_bounds = "false" if mask else "true"
    t(
        f"{out} = vector.transfer_write {value}, {dest}[{index}] {{in_bounds = [{in_bounds}]}}"
        f" : {k.vec}, {type_}"
    )
    return out


def _op(t: _Text, k: _Kernel, text: str, type_: str | None = None) -> str:
    v = t.fresh("t")
    t(f"{v} = {text} : {type_ or k.vec}")
    return v


def _reduce(t: _Text, k: _Kernel, kind: str, vector: str) -> str:
    v = t.fresh("red")
    t(f"{v} = vector.reduction <{kind}>, {vector} : {k.vec} into f32")
    return v


def _reshapes(shape: list[int], lead: int, rows: int, length: int) -> tuple[list[str], list[str]]:
    """Ops (templates with `{}` for the operand) taking the function's tensor to rows x length
    and back: collapse the `lead` leading and the other axes, or add a unit row axis."""
    full = f"tensor<{'x'.join(map(str, shape))}xf32>"
    mat = f"tensor<{rows}x{length}xf32>"
    if lead and len(shape) - lead:
        if len(shape) == 2:
            return [], []
        groups = f"[{list(range(lead))}, {list(range(lead, len(shape)))}]"
        dims = ", ".join(map(str, shape))
        return (
            [f"tensor.collapse_shape {{}} {groups} : {full} into {mat}"],
            [f"tensor.expand_shape {{}} {groups} output_shape [{dims}] : {mat} into {full}"],
        )
    flat = f"tensor<{length}xf32>"
    to_flat = (
        []
        if len(shape) == 1
        else [f"tensor.collapse_shape {{}} [{list(range(len(shape)))}] : {full} into {flat}"]
    )
    from_flat = (
        []
        if len(shape) == 1
        else [
            f"tensor.expand_shape {{}} [{list(range(len(shape)))}] "
            f"output_shape [{', '.join(map(str, shape))}] : {flat} into {full}"
        ]
    )
    return (
        [*to_flat, f"tensor.expand_shape {{}} [[0, 1]] output_shape [1, {length}] : {flat} into {mat}"],
        [f"tensor.collapse_shape {{}} [[0, 1]] : {mat} into {flat}", *from_flat],
    )


def _float(value: float) -> str:
    """An exact f32 literal (hex bits: no decimal rounding on the way through the parser)."""
    return "0x" + struct.pack(">f", value).hex().upper()


def _chain(t: _Text, value: str, ops: list[str]) -> str:
    for op in ops:
        out = t.fresh("s")
        t(f"{out} = {op.format(value)}")
        value = out
    return value


def _softmax(k: _Kernel, t: _Text, x: str, acc: str, r: str, type_: str) -> str:
    """One row: online max and rescaled sum in one pass, then exp(x - M) / S written."""
    at = lambda j: f"{r}, {j}"  # noqa: E731

    def stats(t: _Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        m, s = carried
        v = _read(t, k, x, at(j), "%ninf", mask, type_)
        high = _op(t, k, f"arith.maximumf {m}, {v}")
        # While a lane has seen only -inf, subtract 0 instead: exp(-inf - -inf) would be NaN.
        empty = _op(t, k, f"arith.cmpf oeq, {high}, {k.broadcast(t, '%ninf')}", k.vec)
        shift = _op(
            t, k, f"arith.select {empty}, {k.broadcast(t, '%zero')}, {high}", f"vector<{k.lanes}xi1>, {k.vec}"
        )
        e = _op(t, k, f"math.exp {_op(t, k, f'arith.subf {v}, {shift}')}")
        scale = _op(t, k, f"math.exp {_op(t, k, f'arith.subf {m}, {shift}')}")
        total = _op(t, k, f"math.fma {s}, {scale}, {e}")
        if mask:  # lanes past the row keep their state
            mask_type = f"vector<{k.lanes}xi1>, {k.vec}"
            high = _op(t, k, f"arith.select {mask}, {high}, {m}", mask_type)
            total = _op(t, k, f"arith.select {mask}, {total}, {s}", mask_type)
        return [high, total]

    m, s = _along_row(t, k, [k.broadcast(t, "%ninf"), k.broadcast(t, "%zero")], [k.vec, k.vec], stats)
    top_v = k.broadcast(t, _reduce(t, k, "maximumf", m))
    rescale = _op(t, k, f"math.exp {_op(t, k, f'arith.subf {m}, {top_v}')}")
    total = _reduce(t, k, "add", _op(t, k, f"arith.mulf {s}, {rescale}"))
    inverse = k.broadcast(t, _op(t, k, f"arith.divf %one, {total}", "f32"))

    def write(t: _Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        v = _read(t, k, x, at(j), "%zero", mask, type_)
        e = _op(t, k, f"math.exp {_op(t, k, f'arith.subf {v}, {top_v}')}")
        return [_write(t, k, _op(t, k, f"arith.mulf {e}, {inverse}"), carried[0], at(j), mask, type_)]

    return _along_row(t, k, [acc], [type_], write)[0]


def _layer_norm(k: _Kernel, gamma: str, beta: str, t: _Text, x: str, acc: str, r: str, type_: str) -> str:
    """One row: the mean, the variance of the centred row, then the normalised row written."""
    at = lambda j: f"{r}, {j}"  # noqa: E731
    row = f"tensor<{k.length}xf32>"

    def total(t: _Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        return [_op(t, k, f"arith.addf {carried[0]}, {_read(t, k, x, at(j), '%zero', mask, type_)}")]

    def mean_of(value: str) -> str:
        return _op(t, k, f"arith.mulf {_reduce(t, k, 'add', value)}, %inv_n", "f32")

    mean = k.broadcast(t, mean_of(_along_row(t, k, [k.broadcast(t, "%zero")], [k.vec], total)[0]))

    def squares(t: _Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        d = _op(t, k, f"arith.subf {_read(t, k, x, at(j), '%zero', mask, type_)}, {mean}")
        if mask:  # the padding is 0, not the mean
            d = _op(
                t, k, f"arith.select {mask}, {d}, {k.broadcast(t, '%zero')}", f"vector<{k.lanes}xi1>, {k.vec}"
            )
        return [_op(t, k, f"math.fma {d}, {d}, {carried[0]}")]

    var = mean_of(_along_row(t, k, [k.broadcast(t, "%zero")], [k.vec], squares)[0])
    root = _op(t, k, f"math.sqrt {_op(t, k, f'arith.addf {var}, %eps', 'f32')}", "f32")
    rstd = k.broadcast(t, _op(t, k, f"arith.divf %one, {root}", "f32"))

    def write(t: _Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        v = _read(t, k, x, at(j), "%zero", mask, type_)
        g = _read(t, k, gamma, j, "%zero", mask, row)
        b = _read(t, k, beta, j, "%zero", mask, row)
        normed = _op(t, k, f"arith.mulf {_op(t, k, f'arith.subf {v}, {mean}')}, {rstd}")
        y = _op(t, k, f"math.fma {normed}, {g}, {b}")
        return [_write(t, k, y, carried[0], at(j), mask, type_)]

    return _along_row(t, k, [acc], [type_], write)[0]


def kernel_text(
    name: str, kind: str, shape: list[int], lead: int, lanes: int, threads: int, eps: float = 0.0
) -> str:
    """The kernel function `name` for `kind` ("softmax" or "layer_norm") of a `shape` tensor whose
    first `lead` axes are rows, `lanes` f32 per vector, rows split over `threads`."""
    rows, length = math.prod(shape[:lead]), math.prod(shape[lead:])
    k, t = _Kernel(rows, length, lanes, threads), _Text()
    full = f"tensor<{'x'.join(map(str, shape))}xf32>"
    params = [f"%x0: {full}"]
    t(f"%ninf = arith.constant {_NEG_INF} : f32")
    t("%zero = arith.constant 0.0 : f32")
    t("%one = arith.constant 1.0 : f32")
    to_rows, from_rows = _reshapes(shape, lead, rows, length)
    x = _chain(t, "%x0", to_rows)
    body = functools.partial(_softmax, k)
    if kind == "layer_norm":
        params_shape = f"tensor<{'x'.join(map(str, shape[lead:]))}xf32>"
        params += [f"%gamma0: {params_shape}", f"%beta0: {params_shape}"]
        trailing = len(shape) - lead
        flat = (
            []
            if trailing == 1
            else [
                f"tensor.collapse_shape {{}} [{list(range(trailing))}] "
                f": {params_shape} into tensor<{length}xf32>"
            ]
        )
        gamma, beta = _chain(t, "%gamma0", flat), _chain(t, "%beta0", flat)
        t(f"%inv_n = arith.constant {_float(1.0 / length)} : f32")
        t(f"%eps = arith.constant {_float(eps)} : f32")
        body = functools.partial(_layer_norm, k, gamma, beta)
    t(f"%init = tensor.empty() : tensor<{rows}x{length}xf32>")
    y = _over_rows(t, k, x, "%init", body)
    t(f"return {_chain(t, y, from_rows)} : {full}")
    return t.function(f"func.func private @{name}({', '.join(params)}) -> {full} {{")


@dataclass(frozen=True)
class VersaRowKernels(Pass):
    name = "versa-row-kernels"
    summary = "softmax and layer_norm over trailing axes as one vector loop nest per row (f32)"
    threads: int = 1  # chunks of rows run as an scf.forall (the pipeline maps it to OpenMP)
    target: str = "host"  # a CPU target: its f32 lanes are the vector width

    def run(self, module: ir.Operation) -> None:
        lanes = targets.get(self.target).lanes(32)
        body = module.regions[0].blocks[0]
        ops = collect(
            module, lambda op: op.name in ("versa.softmax", "versa.layer_norm") and bool(_row_split(op))
        )
        for count, op in enumerate(ops):
            shape = list(ir.RankedTensorType(op.operands[0].type).shape)
            lead = ir.IntegerAttr(op.attributes["axis"]).value % len(shape)
            kind = op.name.split(".")[1]
            eps = ir.FloatAttr(op.attributes["epsilon"]).value if kind == "layer_norm" else 0.0
            name = f"versa_{kind}_{count}"
            text = kernel_text(name, kind, shape, lead, lanes, max(1, self.threads), eps)
            for definition in ir.Module.parse(text, module.context).body.operations:
                definition.operation.move_before(body.operations[0])
            with ir.InsertionPoint(op), op.location:
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), list(op.operands))
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
