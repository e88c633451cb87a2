"""Writing vector kernels on tensors as MLIR text: fresh SSA names, index constants, loops
over rows (split across threads with `scf.forall`) and along a row in full vectors plus one
masked tail step. Used by the row kernels (`row_kernels.py`); text rather than builders so a
kernel reads like the IR it becomes.

Kernels compute in f32 (`RowShape.vec`); a tensor of f16 or bf16 (`RowShape.storage`) is read as
vectors of its own type extended to f32 and written rounded back (`read`, `write_vector`), so
a kernel's text names its element type only where it reads or writes memory."""

import struct
from collections.abc import Callable
from dataclasses import dataclass

from versa.mlir import ir

from .compute_types import compute_name


class Text:
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
class RowShape:
    """A row kernel's shapes: R rows of N elements, V lanes, T threads; the element type its
    input and output tensors hold (`storage`; the kernel computes in `compute_name` of it)."""

    rows: int
    length: int
    lanes: int
    threads: int
    storage: str = "f32"

    @property
    def vec(self) -> str:
        return f"vector<{self.lanes}xf32>"

    @property
    def main(self) -> int:
        """Elements of a row covered by full vectors."""
        return self.length // self.lanes * self.lanes

    def broadcast(self, t: Text, scalar: str) -> str:
        v = t.fresh("b")
        t(f"{v} = vector.broadcast {scalar} : f32 to {self.vec}")
        return v


# (text, x rows, acc, row in them, row in the whole tensor, tensor type) → the new acc
RowBody = Callable[[Text, str, str, str, str, str], str]
# (text, x rows, acc, first row in the whole tensor (None: all rows), rows, tensor type) → acc
ChunkBody = Callable[[Text, str, str, str | None, str, str], str]


def over_chunks(t: Text, k: RowShape, x: str | None, out: str, chunk_body: ChunkBody) -> str:
    """Splits the rows of `x` into a chunk per thread (an `scf.forall`; with one chunk, the
    whole tensor), each written into its slice of `out` by `chunk_body`; returns the result's
    name. Every chunk has at least one row. Without `x`, the body reads its own tensors."""
    rows, n = k.rows, k.length
    whole = f"tensor<{rows}x{n}x{k.storage}>"
    chunk = -(-rows // k.threads)
    if chunk == rows:
        return chunk_body(t, x or "", out, None, t.c(rows), whole)
    part = f"tensor<?x{n}x{k.storage}>"
    t(f"%y = scf.forall (%th) in ({-(-rows // chunk)}) shared_outs(%o = {out}) -> ({whole}) {{")
    t(f"  %r0 = arith.muli %th, {t.c(chunk)} : index")
    t(f"  %r1 = arith.addi %r0, {t.c(chunk)} : index")
    t(f"  %r2 = arith.minui %r1, {t.c(rows)} : index")
    t("  %count = arith.subi %r2, %r0 : index")
    if x:
        t(f"  %xs = tensor.extract_slice {x}[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    t(f"  %os = tensor.extract_slice %o[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    done = chunk_body(t, "%xs" if x else "", "%os", "%r0", "%count", part)
    t("  scf.forall.in_parallel {")
    t(f"    tensor.parallel_insert_slice {done} into %o[%r0, 0] [%count, {n}] [1, 1] : {part} into {whole}")
    t("  }")
    t("}")
    return "%y"


def over_rows(t: Text, k: RowShape, x: str | None, out: str, row_body: RowBody) -> str:
    """Loops over the rows of `x` (a chunk of rows per thread, then one row at a time), each
    row written into the loop's copy of `out` by `row_body`; returns the result's name. Without
    `x`, the body reads its own tensors at the whole tensor's row."""

    def chunk_body(t: Text, xs: str, acc: str, first: str | None, count: str, type_: str) -> str:
        t(f"%rows = scf.for %r = {t.c(0)} to {count} step {t.c(1)} iter_args(%acc = {acc}) -> ({type_}) {{")
        row = "%r"
        if first is not None:
            row = t.fresh("ra")
            t(f"  {row} = arith.addi {first}, %r : index")
        t(f"  scf.yield {row_body(t, xs, '%acc', '%r', row, type_)} : {type_}")
        t("}")
        return "%rows"

    return over_chunks(t, k, x, out, chunk_body)


Load = Callable[[Text, str, str, str | None], str]  # (text, column, padding, mask) → a vector of x
Finish = Callable[[Text, str, str, str | None], str]  # (text, column, vector, mask) → what is written
Step = Callable[[Text, str, str | None, list[str]], list[str]]  # (text, column, mask, carried)


def along_row(
    t: Text, k: RowShape, inits: list[str], types: list[str], step: Step, ways: int = 1, combine: str = ""
) -> list[str]:
    """One pass along a row: full vectors in a loop, then a masked step for the tail. `step`
    emits the work for the vector at a column (mask None for a full vector) on the carried
    values and returns their new values; returns the values after the pass.

    With `ways` > 1 the first carried value is a reduction: the loop takes `ways` vectors per
    iteration into as many independent accumulators (one accumulator is a chain of dependent
    adds, bound by their latency: 4 cycles a vector where the loads take half of one), then
    joins them with the arith op `combine`; the few full vectors left over run unrolled."""
    values, block = list(inits), ways * k.lanes
    main = k.length // block * block if ways > 1 else k.main
    if main:
        values = vector_loop(t, k, t.c(0), t.c(main), ways, values, inits[0], types, step, combine)
    for column in range(main, k.main, k.lanes):
        values = step(t, t.c(column), None, values)
    if k.length % k.lanes:
        mask = t.fresh("mask")
        t(f"{mask} = vector.create_mask {t.c(k.length - k.main)} : vector<{k.lanes}xi1>")
        values = step(t, t.c(k.main), mask, values)
    return values


def vector_loop(
    t: Text,
    k: RowShape,
    start: str,
    stop: str,
    ways: int,
    values: list[str],
    identity: str,
    types: list[str],
    step: Step,
    combine: str,
) -> list[str]:
    """An scf.for over columns [start, stop) taking `ways` full vectors per iteration, the first
    carried value reduced into `ways` accumulators (the first starts at values[0], the others
    at `identity`) joined by `combine` after the loop (see `along_row`); returns the values."""
    accs = [t.fresh("a") for _ in range(ways)]
    rest = [t.fresh("a") for _ in values[1:]]
    loop, column = t.fresh("l"), t.fresh("j")
    loop_types = [types[0]] * ways + types[1:]
    starts = [values[0], *[identity] * (ways - 1), *values[1:]]
    args = ", ".join(f"{c} = {v}" for c, v in zip([*accs, *rest], starts, strict=True))
    t(
        f"{loop}:{len(loop_types)} = scf.for {column} = {start} to {stop} step {t.c(ways * k.lanes)} "
        f"iter_args({args}) -> ({', '.join(loop_types)}) {{"
    )
    new_accs = []
    for i, acc in enumerate(accs):
        at = column
        if i:
            at = t.fresh("j")
            t(f"{at} = arith.addi {column}, {t.c(i * k.lanes)} : index")
        acc, *rest = step(t, at, None, [acc, *rest])
        new_accs.append(acc)
    t(f"  scf.yield {', '.join([*new_accs, *rest])} : {', '.join(loop_types)}")
    t("}")
    results = [f"{loop}#{i}" for i in range(len(loop_types))]
    joined = results[0]
    for other in results[1:ways]:
        joined = emit(t, k, f"arith.{combine} {joined}, {other}")
    return [joined, *results[ways:]]


class Explicit(str):
    """A mask given to the transfer as its operand (`row_aligned.py`'s head of a row: lanes in
    bounds that are neither read nor written); a plain mask only marks a bounds-checked tail."""


def _masking(mask: str | None) -> tuple[str, str]:
    """The mask operand (`Explicit` masks only) and in_bounds of a transfer."""
    if isinstance(mask, Explicit):
        return f", {mask}", "true"
    return "", "false" if mask else "true"


def _stored(type_: str) -> str | None:
    """The element type of tensor type `type_` where the kernel computes in another, else None."""
    element = type_.rsplit("x", 1)[-1].removesuffix(">")
    return element if compute_name(element) != element else None


def read(t: Text, k: RowShape, source: str, index: str, pad: str, mask: str | None, type_: str) -> str:
    """A vector of `source` at `index` (extended to f32: `_stored`); a tail read (mask given) is
    bounds-checked, padded (`pad` holds a value of the stored type: -inf, 0, a row's element)."""
    v, stored = t.fresh("v"), _stored(type_)
    if stored:
        pad = emit(t, k, f"arith.truncf {pad}", f"f32 to {stored}")
    operand, in_bounds = _masking(mask)
    t(
        f"{v} = vector.transfer_read {source}[{index}], {pad}{operand} {{in_bounds = [{in_bounds}]}}"
        f" : {type_}, vector<{k.lanes}x{stored or 'f32'}>"
    )
    return emit(t, k, f"arith.extf {v}", f"vector<{k.lanes}x{stored}> to {k.vec}") if stored else v


def write_vector(
    t: Text, k: RowShape, value: str, dest: str, index: str, mask: str | None, type_: str
) -> str:
    out, stored, vec = t.fresh("w"), _stored(type_), k.vec
    if stored:  # rounded once, to the stored type
        vec = f"vector<{k.lanes}x{stored}>"
        value = emit(t, k, f"arith.truncf {value}", f"{k.vec} to {vec}")
    operand, in_bounds = _masking(mask)
    t(
        f"{out} = vector.transfer_write {value}, {dest}[{index}]{operand} {{in_bounds = [{in_bounds}]}}"
        f" : {vec}, {type_}"
    )
    return out


def emit(t: Text, k: RowShape, text: str, type_: str | None = None) -> str:
    v = t.fresh("t")
    t(f"{v} = {text} : {type_ or k.vec}")
    return v


def reduce(t: Text, k: RowShape, kind: str, vector: str) -> str:
    """The lanes of `vector` combined. A sum may be reassociated: LLVM then adds them as a
    tree (log2 V steps) instead of V dependent scalar adds (64 cycles of latency per row on
    AVX-512); the lanes are already partial sums, so the order is no less accurate."""
    v = t.fresh("red")
    flags = " fastmath<reassoc>" if kind == "add" else ""
    t(f"{v} = vector.reduction <{kind}>, {vector}{flags} : {k.vec} into f32")
    return v


def reshapes(
    shape: list[int], lead: int, rows: int, length: int, element: str = "f32"
) -> tuple[list[str], list[str]]:
    """Ops (templates with `{}` for the operand) taking the function's tensor to rows x length
    and back: collapse the `lead` leading and the other axes, or add a unit row axis."""
    full = f"tensor<{'x'.join(map(str, shape))}x{element}>"
    mat = f"tensor<{rows}x{length}x{element}>"
    if lead and len(shape) - lead:
        if len(shape) == 2:
            return [], []
        groups = f"[{list(range(lead))}, {list(range(lead, len(shape)))}]"
        dims = ", ".join(map(str, shape))
        return (
            [f"tensor.collapse_shape {{}} {groups} : {full} into {mat}"],
            [f"tensor.expand_shape {{}} {groups} output_shape [{dims}] : {mat} into {full}"],
        )
    flat = f"tensor<{length}x{element}>"
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


def f32_literal(value: float) -> str:
    """An exact f32 literal (hex bits: no decimal rounding on the way through the parser)."""
    return "0x" + struct.pack(">f", value).hex().upper()


def chain(t: Text, value: str, ops: list[str]) -> str:
    for op in ops:
        out = t.fresh("s")
        t(f"{out} = {op.format(value)}")
        value = out
    return value


def define(module: ir.Operation, text: str) -> None:
    """Parse `text` (function definitions: a kernel template) into the start of `module`. Its
    declarations (functions without a body) only let `text` parse: the module defines them."""
    kernel = ir.Module.parse(text, module.context)  # alive until its ops have moved out
    body = module.regions[0].blocks[0]
    for definition in list(kernel.body.operations):
        if len(definition.regions[0].blocks):
            definition.operation.move_before(body.operations[0])


def splice(op: ir.Operation, text: str, operands: list[ir.Value] | None = None) -> None:
    """Replace `op` by the body of the one function in `text`, its arguments bound to
    `operands` (by default `op`'s): inlining by hand, for kernels with ops the inliner refuses
    (nvgpu's have no inliner interface). `gpu.module`s in `text` (kernels outlined already) move into `op`'s
    module, which becomes a GPU container module."""
    kernel = ir.Module.parse(text, op.context)  # alive until its ops have moved out
    module = op.parent
    while module.name != "builtin.module":
        module = module.parent
    for definition in reversed(list(kernel.body.operations)):  # modules end up in text order
        if definition.operation.name == "gpu.module":
            module.attributes["gpu.container_module"] = ir.UnitAttr.get(op.context)
            definition.operation.move_before(module.regions[0].blocks[0].operations[0])
            continue
        block = definition.regions[0].blocks[0]
        for argument, operand in zip(block.arguments, operands or list(op.operands), strict=True):
            argument.replace_all_uses_with(operand)
        for inner in list(block.operations)[:-1]:  # all but the return
            inner.move_before(op)
    op.erase()
