"""Writing vector kernels on tensors as MLIR text: fresh SSA names, index constants, a row
kernel's shapes, vector reads and writes (their loops: `kernel_loops.py`). Used by the row
kernels (`row_kernels.py`); text rather than builders so a kernel reads like the IR it becomes.

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


# An extent: static, or the SSA name (index) of one known when the kernel runs (a `?` dim).
Size = int | str


def dim(size: Size) -> str:
    """`size` as a dim of a tensor type."""
    return "?" if isinstance(size, str) else str(size)


@dataclass(frozen=True)
class RowShape:
    """A row kernel's shapes: R rows of N elements, V lanes, T threads; the element type its
    input and output tensors hold (`storage`; the kernel computes in `compute_name` of it).
    R and N may be dynamic (SSA names): rows then split across T threads per call and a row's
    full vectors end where the call's N says."""

    rows: Size
    length: Size
    lanes: int
    threads: int
    storage: str = "f32"

    @property
    def vec(self) -> str:
        return f"vector<{self.lanes}xf32>"

    @property
    def main(self) -> int | None:
        """Elements of a row covered by full vectors (None where N is dynamic)."""
        return None if isinstance(self.length, str) else self.length // self.lanes * self.lanes

    def tensor(self, rows: Size) -> str:
        """The type of `rows` rows."""
        return f"tensor<{dim(rows)}x{dim(self.length)}x{self.storage}>"

    def broadcast(self, t: Text, scalar: str) -> str:
        v = t.fresh("b")
        t(f"{v} = vector.broadcast {scalar} : f32 to {self.vec}")
        return v


Load = Callable[[Text, str, str, str | None], str]  # (text, column, padding, mask) → a vector of x
Finish = Callable[[Text, str, str, str | None], str]  # (text, column, vector, mask) → what is written


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
