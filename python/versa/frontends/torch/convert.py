"""Torch dialect → versa: one walk over the imported function, one rule per torch op.

The rules live in `rules/` (one module per op family, one table, `RULES`). Scalars, lists and
`None` are read from their defining ops into Python values before a rule sees them, so a rule
is a small function of Python values and versa tensors:

    @rule("torch.aten.linear")
    def linear(node, x, weight, bias): ...

Every result is checked against the type torch declared (shape exactly; the element type is
cast when torch promoted differently). Dynamic dims (`?`, from `dynamic_shapes`) reach only the
rules registered `dynamic=True`, which build the declared `?` dims (None in their shapes); any
other op with a dynamic operand is refused, never specialised. An op without a rule, or a rule
that refuses its arguments (`Unsupported`), is collected; the conversion then fails with one
error listing every such op, its count and its source line, and never returns a
half-converted module.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from versa.diagnostics import CompileError, Diagnostic
from versa.dialects import builders as vb
from versa.dialects.shapes import RuleError
from versa.mlir import func, ir
from versa.passes.optimize.rules.fold_quantized import fold_quantized
from versa.reference import numpy_dtype

from . import fallback, symbolic, types
from .conversion import Conversion
from .types import TensorType
from .values import VALUE_OPS, SymbolicInt

Rule = Callable[..., Any]
RULES: dict[str, Rule] = {}
DYNAMIC: set[str] = set()  # the ops whose rules keep dynamic dims


class Unsupported(Exception):
    """A rule cannot convert this use of its op (an attribute or dtype Versa does not take)."""


def rule(*names: str, dynamic: bool = False) -> Callable[[Rule], Rule]:
    """Register `fn` as the rule of the torch ops `names`; `dynamic`: it takes dynamic dims
    (it reads no dim it cannot have, and builds the `?` dims torch declares)."""

    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        if dynamic:
            DYNAMIC.update(names)
        return fn

    return register


class _Poison:
    """The value of an op that could not be converted; ops using it are skipped."""


POISON = _Poison()


@dataclass(frozen=True)
class Refused:
    """A result a rule does not compute (e.g. pooling indices only backward needs): using it
    refuses the op that produced it (the converter fills in its name and place), so that
    partitioning leaves that op to PyTorch."""

    reason: str
    op: str = ""
    location: ir.Location | None = None

    def refuse_in(self, conversion: Conversion, user: str, location: ir.Location) -> None:
        conversion.refuse(self.op or user, self.reason, self.location or location)


@dataclass
class Node:
    """What a rule sees of its op: the declared result types and helpers to build constants."""

    op: ir.OpView
    results: list[TensorType | None]

    @property
    def out(self) -> TensorType:
        if self.results[0] is None:
            raise Unsupported(f"result type {self.op.results[0].type} is not a static tensor")
        return self.results[0]

    def constant(self, array: np.ndarray | float | int | bool, element: str | None = None) -> ir.Value:
        """A `versa.constant` of `array` as `element` (default: this op's result element)."""
        element = element or self.out.element
        if element in BOUNDARY:  # no NumPy dtype (bf16): an f32 constant, cast
            wide = vb.constant(np.asarray(array, dtype=np.float32))
            return vb.cast(wide, types.element_type(element))
        return vb.constant(np.asarray(array, dtype=numpy_dtype(types.element_type(element))))


def is_none(t: ir.Type) -> bool:
    """A `!torch.none` result (a backward graph's missing gradient): not part of the versa function."""
    return str(t) == "!torch.none"


def none_results(module: ir.Module) -> list[int]:
    """Positions of the `!torch.none` results of the module's (last) function."""
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    return [i for i, t in enumerate(funcs[-1].type.results) if is_none(t)] if funcs else []


def convert_module(module: ir.Module) -> ir.Module:
    """A new versa module (same context) for the torch-dialect `module`'s functions."""
    out, conversion = survey(module)
    if conversion.unsupported:
        raise conversion.error()
    fold_quantized(out.operation)  # PT2E's and ONNX's QDQ contractions as integer ones
    try:  # a rule bug surfaces here, as one error, not at compile time in a later tool
        out.operation.verify()
    except ir.MLIRError as err:
        first = next((d.message for d in err.error_diagnostics), str(err)).splitlines()[0]
        raise CompileError(
            [Diagnostic("error", f"internal error: the converted module is invalid: {first}")]
        ) from None
    return out


def survey(module: ir.Module) -> tuple[ir.Module, Conversion]:
    """Convert what converts; the `Conversion` says what did not (and each op's path)."""
    conversion = Conversion()
    out = ir.Module.create(ir.Location.unknown(module.context))
    for op in module.body.operations:
        if op.operation.name == "func.func":
            _convert_function(op, out, conversion)
    if conversion.copies.copied:
        conversion.lower_fallback(out)
    return out, conversion


# Element types NumPy has no dtype for cross the function boundary as f32 (exactly: every bf16
# value is an f32 value); the function casts them inside, and names its bf16 results in the
# BOUNDARY_RESULTS attribute so that the caller casts them back.
BOUNDARY = {"bf16": "f32"}
BOUNDARY_RESULTS = "versa.bf16_results"


def _at_boundary(t: TensorType) -> TensorType:
    return TensorType(t.shape, BOUNDARY.get(t.element, t.element))


def _convert_function(source: func.FuncOp, out: ir.Module, conversion: Conversion) -> None:
    # A number among the inputs (`scale=2.0`) is baked into the export; unused, it is no argument
    # of the versa function, whose callers pass the tensors alone.
    if not len(source.regions[0].blocks):  # a declaration: nothing to convert
        conversion.refuse("function signature", "a function without a body", source.location)
        return
    sizes = symbolic.symbol_arguments(source.operation)  # Dynamo's SymInts: values, not arguments
    unused = [a.arg_number for a in source.arguments if str(a.type) in _SCALARS and _unused(a)]
    kept = [a for a in source.arguments if a.arg_number not in (*sizes, *unused)]
    arg_types = [types.parse_tensor_type(a.type, dynamic=True) for a in kept]
    result_types = [types.parse_tensor_type(t, dynamic=True) for t in source.type.results if not is_none(t)]
    returned = [v for v in _returned(source) if not is_none(v.type)]
    foreign = [
        (v, t)
        for v, t in (*zip(kept, arg_types, strict=True), *zip(returned, result_types, strict=True))
        if _foreign(t)
    ]
    if any(t is None for _, t in foreign):
        conversion.refuse("function signature", "an argument or result that is no tensor", source.location)
    for value, t in foreign:  # by the ops at the boundary: partitioning leaves just those eager
        if t is not None:
            conversion.refuse_boundary([value], f"tensor type {t} at the boundary", source.location)
    if foreign:
        return
    with ir.InsertionPoint(out.body), source.location:
        fn = func.FuncOp(
            source.name.value,
            ([_at_boundary(t).mlir() for t in arg_types], [_at_boundary(t).mlir() for t in result_types]),
        )
        block = fn.add_entry_block()
        widened = [i for i, t in enumerate(result_types) if t.element in BOUNDARY]
        if widened:
            fn.attributes[BOUNDARY_RESULTS] = ir.DenseI64ArrayAttr.get(widened)
        symbolic.copy(source.operation, fn.operation, [a.arg_number for a in kept])
    with ir.InsertionPoint(block), source.location:
        args = [
            vb.cast(a, types.element_type(t.element)) if t.element in BOUNDARY else a
            for a, t in zip(block.arguments, arg_types, strict=True)
        ]
    env: dict[ir.Value, Any] = dict(zip(kept, args, strict=True))
    env.update((source.arguments[i], size) for i, size in sizes.items())
    for op in source.regions[0].blocks[0].operations:
        with ir.InsertionPoint(block), op.location:
            _convert_op(op, env, conversion)


def _foreign(t: TensorType | None) -> bool:
    return t is None or t.element not in types.SUPPORTED


def _returned(source: func.FuncOp) -> list[ir.Value]:
    return list(source.regions[0].blocks[0].operations[-1].operands)


_SCALARS = ("!torch.float", "!torch.int", "!torch.bool", "!torch.str", "!torch.none")


def _unused(value: ir.Value) -> bool:
    return not any(True for _ in value.uses)


def op_name(op: ir.OpView) -> str:
    """The torch op's name; ops torch-mlir has no definition for are `torch.operator "name"`."""
    name = op.operation.name
    return ir.StringAttr(op.attributes["name"]).value if name == "torch.operator" else name


def _convert_op(op: ir.OpView, env: dict, conversion: Conversion) -> None:
    name = op_name(op)
    if name == "func.return":
        operands = [v for v in op.operands if not is_none(v.type)]
        for value in operands:
            if isinstance(env[value], Refused):
                env[value].refuse_in(conversion, name, op.location)
        values = [_or_placeholder(env[v], v) for v in operands]
        values = [
            vb.cast(x, types.element_type(BOUNDARY[str(x.type.element_type)]))
            if str(x.type.element_type) in BOUNDARY
            else x
            for x in values
        ]
        func.ReturnOp(values)
        return
    if name in VALUE_OPS:
        env[op.results[0]] = VALUE_OPS[name](op, env)
        return
    foreign = _foreign_element(op)
    if foreign:  # refused before a rule or the fallback builds f64 ops no versa op verifies
        conversion.refuse(name, f"{foreign} tensors (Versa has no {foreign} type)", op.location)
        conversion.record(op, name, f"unsupported: {foreign} tensors")
        env.update((r, POISON) for r in op.results)
        return
    if name not in RULES:  # listed even when its operands are unconverted too
        _try_fallback(op, name, env, conversion, "")
        return
    if name not in DYNAMIC and _dynamic(op.operands):  # the fallback refuses it too
        _try_fallback(op, name, env, conversion, "dynamic dims (its rule takes static shapes only)")
        return
    args = [env[v] for v in op.operands]
    if name not in DYNAMIC and any(isinstance(a, SymbolicInt) for a in _flat(args)):
        _try_fallback(op, name, env, conversion, "a size known at run time (its rule takes numbers only)")
        return
    for arg in args:
        if isinstance(arg, Refused):
            arg.refuse_in(conversion, name, op.location)
    if any(isinstance(a, Refused) or a is POISON or (isinstance(a, list) and POISON in a) for a in args):
        env.update((r, POISON) for r in op.results)
        return
    node = Node(op, [types.parse_tensor_type(r.type, dynamic=name in DYNAMIC) for r in op.results])
    try:
        produced = RULES[name](node, *args)
    except Unsupported as err:
        _try_fallback(op, name, env, conversion, str(err))
        return
    except RuleError as err:  # a versa op refused what the rule built (a form it does not cover)
        _try_fallback(op, name, env, conversion, f"versa cannot express it: {err}")
        return
    conversion.record(op, name, "versa")
    if not op.results:  # a run-time check (_assert_tensor_metadata): static shapes already hold
        return
    produced = produced if isinstance(produced, list | tuple) else [produced]
    for result, value, declared in zip(op.results, produced, node.results, strict=True):
        if isinstance(value, Refused) and value.location is None:
            value = replace(value, op=name, location=op.location)
        env[result] = _match_declared(value, declared, op)


def _flat(args: list) -> list:
    return [x for a in args for x in (a if isinstance(a, list) else [a])]


def _dynamic(values) -> bool:
    """Whether any of the tensors `values` has a dynamic dim."""
    found = (types.parse_tensor_type(v.type, dynamic=True) for v in values)
    return any(t is not None and t.dynamic for t in found)


def _foreign_element(op: ir.OpView) -> str | None:
    """The element type of a result Versa has no type for (f64), or None. Bytes pass: a
    literal widens them (bool tensors arrive as uint8)."""
    for result in op.results:
        t = types.parse_tensor_type(result.type, dynamic=True)
        if t is not None and t.element not in types.CONVERTIBLE:
            return t.element
    return None


def _or_placeholder(value: Any, source: ir.Value) -> ir.Value:
    """`value`, or a placeholder when it was not converted (the module is an error by then)."""
    if isinstance(value, ir.Value):
        return value
    return fallback.placeholder(types.parse_tensor_type(source.type, dynamic=True))


def _try_fallback(op: ir.OpView, name: str, env: dict, conversion: Conversion, why: str) -> None:
    """Hand `op` to torch-mlir's linalg lowering (see `fallback`), or record it as unsupported."""
    try:
        env.update(zip(op.results, conversion.copies.copy(op, env), strict=True))
        conversion.record(op, name, "linalg fallback")
    except fallback.CannotCopy as err:
        reason = why or str(err)
        conversion.refuse(name, reason, op.location)
        conversion.record(op, name, f"unsupported: {reason}")
        env.update((r, POISON) for r in op.results)


def _match_declared(value: Any, declared: TensorType | None, op: ir.OpView) -> Any:
    """`value` with the element type torch declared; a shape that differs is a rule bug."""
    if declared is None or not isinstance(value, ir.Value) or declared.element not in types.SUPPORTED:
        return value
    shape = types.value_shape(value.type)
    if shape != declared.shape:
        raise CompileError(
            [
                Diagnostic(
                    "error",
                    f"internal error: {op.operation.name} gave shape {_text(shape)}, "
                    f"torch declares {_text(declared.shape)}",
                )
            ]
        )
    if str(value.type.element_type) != declared.element:
        return vb.cast(value, types.element_type(declared.element))
    return value


def _text(shape: tuple) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
