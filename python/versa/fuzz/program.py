"""A small, mutable model of one versa function: what the generator builds, the mutator edits
and the reducer shrinks, printed to (and parsed from) versa IR text.

Why not edit MLIR modules directly: every change (an op removed, a shape halved) must re-derive
the result types downstream, and the op table's shape rules (`OPS[...].result_shape`) do that on
plain tuples; text is then parsed and verified by Versa itself, so a candidate is valid exactly
when its text verifies.

A dim may be None: `?` in the text, a dynamic program's (`dynamic.py`), whose arguments tie
every such dim to one symbol through `versa.dims`; the rules re-derive results with None too.
"""

import copy
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from versa.dialects.attributes import Bool, Elements, Float, Int, Ints, OneOf, elements_to_numpy
from versa.dialects.core import dims_of
from versa.dialects.versa import OPS
from versa.mlir import func, ir

Shape = tuple[int | None, ...]  # None: a dynamic dim (`?`)
SYMBOL, SIZES_ATTR = "n", "fuzz.sizes"
DTYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "i32": np.int32,
    "i8": np.int8,
    "ui8": np.uint8,  # quantized programs' (quantized.py)
    "i64": np.int64,
    "i1": np.bool_,
}
FLOATS = ("f32", "f16")
MAX_CONSTANT_ELEMENTS = 1 << 16


@dataclass(frozen=True)
class Type:
    shape: Shape
    element: str

    def text(self) -> str:
        return "tensor<" + "".join("?x" if d is None else f"{d}x" for d in self.shape) + self.element + ">"

    @property
    def is_float(self) -> bool:
        return self.element in FLOATS


@dataclass(eq=False)
class Arg:
    type: Type


@dataclass(eq=False)
class Op:
    """One versa op: `name` without the "versa." prefix; `attrs` holds only the attributes
    written in the IR (defaults stay implicit), as the Python values the op table reads."""

    name: str
    operands: list["Value"]
    attrs: dict[str, Any]
    type: Type


Value = Arg | Op


@dataclass(eq=False)
class Program:
    """`sizes` (dynamic programs, `dynamic.py`): the sizes of the one symbol `SYMBOL` that every
    dynamic argument dim has, one per call the oracle makes; the text carries them as the
    function attribute `fuzz.sizes`, so a saved case replays the same calls."""

    args: list[Arg] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    results: list[Value] = field(default_factory=list)
    sizes: tuple[int, ...] = ()

    @property
    def dynamic(self) -> bool:
        return any(d is None for v in self.values() for d in v.type.shape)

    def copy(self) -> "Program":
        return copy.deepcopy(self)

    def values(self) -> Iterator[Value]:
        yield from self.args
        yield from self.ops

    def users(self, value: Value) -> list[Op]:
        return [op for op in self.ops if any(v is value for v in op.operands)]

    def remove_dead(self) -> None:
        """Drop ops no result depends on, and arguments nothing reads."""
        live = {id(v) for v in self.results}
        for op in reversed(self.ops):
            if id(op) in live:
                live.update(id(v) for v in op.operands)
        self.ops = [op for op in self.ops if id(op) in live]
        self.args = [a for a in self.args if id(a) in live]

    def size(self) -> tuple[int, ...]:
        """What the reducer minimises: ops, elements of every value, arguments, then dims, their
        sizes and written attributes (so that dropping a size-1 dim, halving one next to an
        empty one, or leaving an attribute to its default counts)."""
        shapes = [tuple(1 if d is None else d for d in v.type.shape) for v in self.values()]
        elements = sum(math.prod(s) for s in shapes)
        attrs = sum(len(op.attrs) for op in self.ops)
        return (len(self.ops), elements, len(self.args), sum(map(len, shapes)), sum(map(sum, shapes)), attrs)

    def text(self, name: str = "main") -> str:
        names = {id(a): f"%arg{i}" for i, a in enumerate(self.args)}
        names.update({id(op): f"%{i}" for i, op in enumerate(self.ops)})
        lines = [_op_text(op, names) for op in self.ops]
        params = ", ".join(f"{names[id(a)]}: {a.type.text()}{_dims_text(a.type)}" for a in self.args)
        types = [v.type.text() for v in self.results]
        returns = types[0] if len(types) == 1 else f"({', '.join(types)})"
        lines.append(f"  return {', '.join(names[id(v)] for v in self.results)} : {', '.join(types)}")
        body = "\n".join(lines)
        sizes = ", ".join(map(str, self.sizes))
        attrs = f" attributes {{{SIZES_ATTR} = array<i64: {sizes}>}}" if self.sizes and self.dynamic else ""
        return f"func.func @{name}({params}) -> {returns}{attrs} {{\n{body}\n}}\n"


def _dims_text(t: Type) -> str:
    """`versa.dims` of an argument with dynamic dims: each one is `SYMBOL`, tied to the others."""
    if None not in t.shape:
        return ""
    dims = ", ".join(f'"{SYMBOL}"' if d is None else f"{d} : i64" for d in t.shape)
    return f" {{versa.dims = [{dims}]}}"


def _op_text(op: Op, names: dict[int, str]) -> str:
    specs = OPS[f"versa.{op.name}"].ATTRS
    attrs = ", ".join(f"{k} = {attr_text(specs[k], v, op.type)}" for k, v in op.attrs.items())
    operands = ", ".join(names[id(v)] for v in op.operands)
    types = ", ".join(v.type.text() for v in op.operands)
    attr_part = f" {{{attrs}}}" if attrs else ""
    return f'  {names[id(op)]} = "versa.{op.name}"({operands}){attr_part} : ({types}) -> {op.type.text()}'


def attr_text(spec: Any, value: Any, result: Type) -> str:
    """A Python attribute value in MLIR syntax, as the spec `spec` reads it back."""
    if isinstance(spec, Ints):
        return "array<i64" + "".join(f"{', ' if i else ': '}{int(v)}" for i, v in enumerate(value)) + ">"
    if isinstance(spec, Bool):
        return "true" if value else "false"
    if isinstance(spec, Int):
        return f"{int(value)} : i64"
    if isinstance(spec, Float):
        return f"{float(value):.9e} : f32"
    if isinstance(spec, OneOf):
        return f'"{value}"'
    if isinstance(spec, Elements):
        return elements_text(np.asarray(value), result)
    raise TypeError(f"no text form for attribute spec {spec!r}")


def elements_text(value: np.ndarray, result: Type) -> str:
    """`dense<...>`: exact hex bytes, except booleans (written as true/false)."""
    if value.size == 0:  # the one form MLIR reads for an empty tensor of any element type
        return f"dense<> : {result.text()}"
    if result.element == "i1":
        return f"dense<{_nested_bools(np.asarray(value, bool).reshape(result.shape))}> : {result.text()}"
    data = np.ascontiguousarray(value.astype(np.dtype(DTYPES[result.element]).newbyteorder("<")))
    return f'dense<"0x{data.tobytes().hex().upper()}"> : {result.text()}'


def _nested_bools(value: np.ndarray) -> str:
    if value.ndim == 0:
        return "true" if value else "false"
    return "[" + ", ".join(_nested_bools(row) for row in value) + "]"


def full_attrs(op: Op, operand_shapes: list[Shape] | None = None) -> dict[str, Any]:
    """`op.attrs` with every default filled in (what shape rules and semantics take)."""
    shapes = operand_shapes if operand_shapes is not None else [v.type.shape for v in op.operands]
    rank = len(shapes[0]) if shapes else 0
    specs = OPS[f"versa.{op.name}"].ATTRS
    return {k: op.attrs[k] if k in op.attrs else spec.default_for(k, rank) for k, spec in specs.items()}


def retype(program: Program, adjust: Callable[[Op], None] | None = None) -> bool:
    """Re-derive every result shape from its operands (after operands or shapes changed);
    False when some op's rules now reject it. Ops whose shape is their declared type
    (reshape, broadcast_to, iota, constant) keep it, unless `adjust(op)`, called on each op
    once its operands have their new types, changes it."""
    for op in program.ops:
        if adjust is not None:
            adjust(op)
        if op.name == "constant":
            continue
        cls = OPS[f"versa.{op.name}"]
        shapes = [v.type.shape for v in op.operands]
        try:
            shape = cls.result_shape(shapes, full_attrs(op, shapes), op.type.shape)
        except (ValueError, KeyError, IndexError, TypeError):
            return False
        op.type = Type(tuple(None if d is None else int(d) for d in shape), op.type.element)
    return True


def from_function(function: func.FuncOp) -> Program | None:
    """The program of a `func.func` made only of (region-free) versa ops; None otherwise. Its
    dynamic dims are read as `SYMBOL` (see `Program`), its `fuzz.sizes` kept."""
    block = function.regions[0].blocks[0]
    program = Program()
    if SIZES_ATTR in function.attributes:
        program.sizes = tuple(ir.DenseI64ArrayAttr(function.attributes[SIZES_ATTR]))
    values: dict[ir.Value, Value] = {}
    for arg in block.arguments:
        t = _type(arg.type)
        if t is None:
            return None
        values[arg] = Arg(t)
        program.args.append(values[arg])
    for ir_op in block.operations:
        name = ir_op.operation.name
        if name == "func.return":
            program.results = [values[v] for v in ir_op.operands]
            return program if program.results else None
        op = _op_from_ir(ir_op, values)
        if op is None:
            return None
        values[ir_op.results[0]] = op
        program.ops.append(op)
    return None


def _op_from_ir(ir_op: ir.OpView, values: dict[ir.Value, Value]) -> Op | None:
    name = ir_op.operation.name
    if name not in OPS or name in ("versa.fused", "versa.yield") or len(ir_op.results) != 1:
        return None
    t = _type(ir_op.results[0].type)
    if t is None or any(v not in values for v in ir_op.operands):
        return None
    if math.prod(1 if d is None else d for d in t.shape) > MAX_CONSTANT_ELEMENTS:
        return None
    specs = OPS[name].ATTRS
    rank = len(ir_op.operands[0].type.shape) if len(ir_op.operands) else 0
    present = dict(ir_op.operation.attributes.items())
    attrs = {k: specs[k].read(k, a, rank) for k, a in present.items() if k in specs}
    if isinstance(specs.get("value"), Elements):
        attrs["value"] = elements_to_numpy(attrs["value"])
    return Op(name.removeprefix("versa."), [values[v] for v in ir_op.operands], attrs, t)


def _type(t: ir.Type) -> Type | None:
    if not isinstance(t, ir.RankedTensorType) or str(t.element_type) not in DTYPES:
        return None
    return Type(dims_of(t), str(t.element_type))
