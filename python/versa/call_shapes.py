"""The shapes of one call of a function with dynamic dims, checked before the code runs.

Compiled code with `?` dims trusts its arguments: a wrong size reads or writes out of bounds. So
before a call the runtime checks the arguments' sizes against what the function says of them,
and computes its results' sizes (to allocate them), with `ShapeProgram`: built once from the
versa-level function, before any pass rewrites it, and plain data (JSON) so that a compile-cache
hit, which has no module, gets it back from its entry.

What a function says of its dims, as MLIR attributes that the frontends write:

- `versa.dims` (an argument attribute, optional): an ArrayAttr with one entry per dim of the
  argument's tensor: a StringAttr symbol ("batch", "s0") for a dynamic dim, an i64 IntegerAttr
  for a static one. Dims with the same symbol are equal at every call, across arguments.
- `versa.dim_ranges` (on the func.func, optional): a DictionaryAttr from symbol to a
  DenseI64ArrayAttr `[min, max]` or `[min, max, multiple_of]`; max -1 is unbounded.

A dynamic dim without `versa.dims` is a symbol of its own, `arg<i>.dim<d>`, at least 0.

Per call, `resolve` checks each argument's rank, static dims, symbols and ranges, then evaluates
each versa op whose types hold a `?` with the call's sizes (`call_shape` of its op class: the
op's rules plus the compiled code's assumptions, such as a dynamic dim never stretching in a
broadcast), and returns the sizes of the returned values. Ops without a shape rule (anything
but versa ops) are allowed only where no dynamic result depends on them.
"""

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from versa.diagnostics import error_at
from versa.dialects.core import dims_of
from versa.dialects.shapes import RuleError, text
from versa.dialects.versa import OPS
from versa.mlir import func, ir

DIMS_ATTR = "versa.dims"
RANGES_ATTR = "versa.dim_ranges"
_LOCATION = re.compile(r'loc\("([^"]*)":(\d+):(\d+)')

Shape = tuple[int, ...]
Dims = tuple[int | None, ...]  # a type's dims, None where it has `?`


class ShapeError(ValueError):
    """Arguments whose sizes the function does not take (a call refused before it runs).
    `location`: the MLIR location of the op whose rule refused them (None: an argument's dim),
    for a tool to report as `file:line:col: error: <reason>`."""

    def __init__(self, reason: str, location: str | None = None):
        super().__init__(f"{reason} at {_where(location)}" if location else reason)
        self.reason, self.location = reason, location


@dataclass(frozen=True)
class Range:
    minimum: int = 0
    maximum: int | None = None  # None: unbounded
    multiple: int = 1

    def violation(self, size: int) -> str | None:
        """Why `size` is out of this range (None: it is in)."""
        if size < self.minimum:
            return f"is below the minimum {self.minimum}"
        if self.maximum is not None and size > self.maximum:
            return f"exceeds the maximum {self.maximum}"
        if size % self.multiple:
            return f"is not a multiple of {self.multiple}"
        return None


@dataclass(frozen=True)
class Step:
    """One versa op with a `?` in its types: its operand and result value numbers (arguments
    first, then op results in order), parsed attributes, and the types' dims."""

    op: str
    operands: list[int]
    result: int
    attrs: dict[str, Any]
    compiled: list[Dims]  # the operands' types
    declared: Dims  # the result's type
    location: str  # the op's, as MLIR prints it

    def evaluate(self, sizes: list[Shape]) -> Shape:
        try:
            compiled = [tuple(c) for c in self.compiled]  # tuples again after JSON
            return tuple(OPS[self.op].call_shape(sizes, self.attrs, tuple(self.declared), compiled))
        except RuleError as err:  # sizes that break the op's rules
            operands = ", ".join(text(s) for s in sizes)
            raise ShapeError(f"'{self.op}' op {err} (operand shapes {operands})", self.location) from None


def argument_symbols(arguments) -> dict[str, list[tuple[int, int]]]:
    """Each symbol of `arguments` (per argument, per dim: a static size or a symbol) and the
    (argument, dim)s that have it, in order."""
    found: dict[str, list[tuple[int, int]]] = {}
    for i, dims in enumerate(arguments):
        for d, entry in enumerate(dims):
            if isinstance(entry, str):
                found.setdefault(entry, []).append((i, d))
    return found


@dataclass(frozen=True)
class ShapeProgram:
    """The checks and shape computations of one function's calls (see the module's doc)."""

    arguments: list[list[int | str]]  # per argument, per dim: a static size or a symbol
    ranges: dict[str, Range]
    steps: list[Step]
    known: list[tuple[int, Shape]]  # static shapes of the values steps read or results are
    returns: list[int]

    def symbols(self) -> dict[str, list[tuple[int, int]]]:
        """Each symbol and the (argument, dim)s that have it, in order."""
        return argument_symbols(self.arguments)

    def argument_shapes(self, sizes: dict[str, int], given: dict[int, Shape]) -> tuple[Shape, ...]:
        """Argument shapes from the sizes of symbols and the whole shapes of some arguments (a
        tool's options, naming only symbols and arguments there are); ShapeError names the
        symbols that still lack a size."""
        symbols = self.symbols()
        sizes = dict(sizes)
        for i, shape in given.items():  # a whole shape also sizes its symbols elsewhere
            sizes.update(
                {
                    e: n
                    for e, n in zip(self.arguments[i], shape, strict=False)
                    if isinstance(e, str) and e not in sizes
                }
            )
        missing = {
            s: uses for s, uses in symbols.items() if s not in sizes and any(i not in given for i, _ in uses)
        }
        if missing:
            where = "; ".join(f"'{s}' (argument {i} dim {d})" for s, [(i, d), *_] in missing.items())
            raise ShapeError(f"dynamic dims without a size: {where}")
        return tuple(
            tuple(given[i]) if i in given else tuple(sizes[e] if isinstance(e, str) else e for e in dims)
            for i, dims in enumerate(self.arguments)
        )

    def resolve(self, shapes: tuple[Shape, ...]) -> tuple[Shape, ...]:
        """The result shapes of a call with arguments of `shapes`; ShapeError if the function
        does not take them."""
        bound: dict[str, tuple[int, int, int]] = {}
        for i, (shape, dims) in enumerate(zip(shapes, self.arguments, strict=True)):
            if len(shape) != len(dims):
                raise ShapeError(f"argument {i} has rank {len(shape)}, the function takes rank {len(dims)}")
            for d, (size, entry) in enumerate(zip(shape, dims, strict=True)):
                _check_dim(i, d, size, entry, bound, self.ranges)
        values = {**dict(self.known), **dict(enumerate(shapes))}
        for step in self.steps:
            values[step.result] = step.evaluate([tuple(values[v]) for v in step.operands])
        return tuple(tuple(values[v]) for v in self.returns)

    @classmethod
    def of(cls, function: func.FuncOp) -> "ShapeProgram | None":
        """The program of `function` (versa IR, before any pass), or None when its arguments
        and results are all static (a call then checks them as it always did)."""
        types = [*function.type.inputs, *function.type.results]
        if all(ir.ShapedType(t).has_static_shape for t in types if isinstance(t, ir.ShapedType)):
            return None
        arguments = [_argument_dims(function, i, t) for i, t in enumerate(function.type.inputs)]
        ranges = _ranges(function, {e for dims in arguments for e in dims if isinstance(e, str)})
        return cls(arguments, ranges, *_steps(function))

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "ShapeProgram":
        ranges = {s: Range(**r) for s, r in data["ranges"].items()}
        steps = [Step(**s) for s in data["steps"]]
        return cls(data["arguments"], ranges, steps, data["known"], data["returns"])


def _check_dim(i: int, d: int, size: int, entry: int | str, bound: dict, ranges: dict[str, Range]) -> None:
    """One argument dim against its static size or symbol; `bound`: symbol -> (size, i, d)."""
    where = f"argument {i} dim {d} = {size}"
    if isinstance(entry, int):
        if size != entry:
            raise ShapeError(f"{where}: the function takes {entry}")
        return
    if entry in bound:
        first, arg, dim = bound[entry]
        if size != first:
            raise ShapeError(f"{where}: symbol '{entry}' is {first} in argument {arg} (dim {dim})")
        return
    reason = ranges[entry].violation(size) if entry in ranges else (None if size >= 0 else "is negative")
    if reason:
        raise ShapeError(f"{where} {reason} of '{entry}'")
    bound[entry] = (size, i, d)


def _where(location: str) -> str:
    """An MLIR location as `file:line:col` where it has one."""
    match = _LOCATION.search(location)
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}" if match else str(location)


def _argument_dims(function: func.FuncOp, index: int, t: ir.Type) -> list[int | str]:
    """Argument `index`'s dims: its `versa.dims` checked against its type, or the type's own."""
    if not isinstance(t, ir.RankedTensorType):
        raise error_at(function.location, f"argument {index} is {t}: the JIT takes ranked tensors")
    dims = dims_of(t)
    own = [f"arg{index}.dim{d}" if size is None else size for d, size in enumerate(dims)]
    attrs = function.attributes["arg_attrs"] if "arg_attrs" in function.attributes else None
    if attrs is None or DIMS_ATTR not in ir.DictAttr(attrs[index]):
        return own
    given = ir.DictAttr(attrs[index])[DIMS_ATTR]
    entries = list(ir.ArrayAttr(given)) if isinstance(given, ir.ArrayAttr) else None
    if entries is None or len(entries) != len(dims):
        raise error_at(
            function.location,
            f"{DIMS_ATTR} of argument {index} must be an array of {len(dims)} entries, got {given}",
        )
    result: list[int | str] = []
    for d, (entry, size) in enumerate(zip(entries, dims, strict=True)):
        if isinstance(entry, ir.StringAttr):
            result.append(entry.value)  # a static type dim binds its symbol at each call
        elif isinstance(entry, ir.IntegerAttr) and size in (None, entry.value):
            result.append(entry.value)
        else:
            raise error_at(
                function.location,
                f"{DIMS_ATTR} of argument {index}: dim {d} is {entry}, the type says {text((size,))[1:-1]}",
            )
    return result


def _ranges(function: func.FuncOp, symbols: set[str]) -> dict[str, Range]:
    if RANGES_ATTR not in function.attributes:
        return {}
    given = function.attributes[RANGES_ATTR]
    if not isinstance(given, ir.DictAttr):
        raise error_at(function.location, f"{RANGES_ATTR} must be a dictionary, got {given}")
    ranges = {}
    for named in given:
        values = (
            list(ir.DenseI64ArrayAttr(named.attr)) if isinstance(named.attr, ir.DenseI64ArrayAttr) else []
        )
        minimum, maximum, multiple = (*values, 1) if len(values) == 2 else (values + [None] * 3)[:3]
        valid = (
            len(values) in (2, 3) and minimum >= 0 and (maximum == -1 or maximum >= minimum) and multiple >= 1
        )
        if not valid:
            raise error_at(
                function.location,
                f"{RANGES_ATTR}: '{named.name}' must be array<i64: min, max> or array<i64: min, max, "
                f"multiple_of> with 0 <= min <= max (max -1: unbounded), got {named.attr}",
            )
        if named.name not in symbols:
            raise error_at(
                function.location, f"{RANGES_ATTR} names '{named.name}', which no argument's {DIMS_ATTR} has"
            )
        ranges[named.name] = Range(minimum, None if maximum == -1 else maximum, multiple)
    return ranges


def _steps(function: func.FuncOp) -> tuple[list[Step], list[tuple[int, Shape]], list[int]]:
    """The steps, the static shapes they read, and the returned values of `function`'s body.
    A value whose shape no rule gives (an op that is no versa op) may not reach a dynamic result."""
    block = function.regions[0].blocks[0]
    number = {arg: i for i, arg in enumerate(block.arguments)}
    static: dict[int, Shape] = {}
    unknown: dict[int, ir.Operation] = {}  # value -> the op without a rule it comes from
    steps: list[Step] = []
    returns: list[int] = []
    for op in block.operations:
        name = op.operation.name
        if name == "func.return":
            returns = [number[v] for v in op.operands]
            break
        operands = [number[v] for v in op.operands]
        ruled = name in OPS and not op.regions and len(op.results) == 1
        origin = next(
            (unknown[v] for v in operands if v in unknown),
            None if ruled else op.operation,
        )
        for result in op.results:
            number[result] = len(number)
            dims = dims_of(result.type) if isinstance(result.type, ir.ShapedType) else ()
            if None not in dims:
                static[number[result]] = dims
            elif origin is not None:
                unknown[number[result]] = origin
        if origin is None and any(None in dims_of(v.type) for v in (*op.operands, *op.results)):
            attrs = json.loads(json.dumps(OPS[name].attrs(op), default=_plain))  # as a hit reads them
            compiled = [dims_of(v.type) for v in op.operands]
            result, location = number[op.results[0]], str(op.location)
            steps.append(Step(name, operands, result, attrs, compiled, dims_of(op.results[0].type), location))
    for k, v in enumerate(returns):
        if v in unknown:
            raise error_at(
                unknown[v].location,
                f"'{unknown[v].name}' has no shape rule, and result {k} of the function has dynamic dims "
                "that depend on it: their sizes cannot be known before a call",
            )
    read = {v for s in steps for v in s.operands}
    return steps, [(v, shape) for v, shape in static.items() if v in read or v in returns], returns


def _plain(value: Any) -> Any:
    """A parsed attribute as JSON (NumPy scalars and arrays, MLIR attributes as text)."""
    return value.tolist() if hasattr(value, "tolist") else str(value)
