"""The versa dialect object and the base class of its ops, shared by every op module.

`versa.py` (the original ops), `ops_logical.py` (compare, select, and/or/not), `ops_math.py`
(sin, cos, floor, round, sign, ...) and `ops_indexing.py` (gather, scatter, iota, argmax, cumsum,
conv_transpose2d) all define their op classes on `Versa`; `versa.py` imports the others and
builds the op table `OPS`. This module imports
none of them, so there is no import cycle.
"""

import sys
from collections.abc import Sequence
from typing import Any

from versa.mlir import ext, ir

from . import shapes
from .attributes import Int, Ints, OneOf, parse_attrs
from .shapes import RuleError, Shape

Tensor = ir.RankedTensorType
FLOAT_TYPES = ("f32", "f16", "bf16")
INT_TYPES = ("i32", "i8", "i64")
BOOL_TYPE = "i1"
ELEMENT_TYPES = (*FLOAT_TYPES, "i32", "i8", "i64", BOOL_TYPE)
INDEX_TYPES = ("i32", "i64")  # element types of gather indices
LAYOUTS = ("NCHW", "NHWC")
# The attributes of a 2-D convolution, float (`versa.conv2d`) or quantized (`versa.qconv2d`).
CONV2D_ATTRS = {
    "strides": Ints(2, default=[1, 1], minimum=1),
    "padding": Ints(4, default=[0, 0, 0, 0], minimum=0),
    "dilations": Ints(2, default=[1, 1], minimum=1),
    "groups": Int(default=1, positive=True),
    "layout": OneOf(LAYOUTS, default="NCHW"),
}


class Versa(ext.Dialect, name="versa"):
    """The versa tensor dialect: value semantics on statically shaped tensors."""


# Each time the bindings wrap an op they import `<search prefix>.<its dialect>` (for a versa op
# `torch_mlir.dialects.versa`) and remember only a success: with no such module, every versa op
# wrapped cost failed imports (~4 an op, ~50 µs each: 6 s of a Llama-135M compile). This module
# stands in for it, and the op classes `Versa.load` registers are then what the wrappers are.
sys.modules.setdefault(f"{ext._cext.globals.dialect_search_modules[0]}.versa", sys.modules[__name__])


class VersaOp(Versa.Operation):
    """Base of every versa op: attribute parsing, element-type rules and the shape check.

    Element types: by default every operand has the result's element type; `FLOAT_ONLY` ops
    take floats only and `NUMERIC` ops (arithmetic) refuse i1. Ops whose types differ
    (compare, select, gather, cast, ...) override `check_element_types`.
    """

    ATTRS = {}  # name -> AttrSpec (no annotation: ext would read it as a field)
    FLOAT_ONLY = False
    NUMERIC = False
    ELEMENTWISE = False
    # Not ELEMENTWISE, yet one result element from the operands' elements at its position,
    # with parameters per channel along an `axis` (quantize, dequantize, requantize): a
    # `versa.fused` group may compute it point by point, but rules written for NumPy
    # broadcasting (transpose sinking, splat folding) must not take it.
    POINTWISE = False
    ACCEPTED_TYPES = ELEMENT_TYPES  # the quantized ops add ui8 (ops_quant.py)
    # Operands broadcast NumPy-style against the result, but for this many trailing dims
    # (matmul's 2); None: the op does not broadcast. See `call_shape`.
    BROADCAST_TAIL = None  # no annotation: ext would read it as a field

    @classmethod
    def verify_invariants(cls, op: ir.OpView) -> bool:
        try:
            check_arity(cls, op)
            cls.check(op)
        except RuleError as err:
            op.location.emit_error(f"'{cls.OPERATION_NAME}' op {err}")
            return False
        except Exception as err:  # a verifier bug must still end in a diagnostic, not a crash
            op.location.emit_error(f"'{cls.OPERATION_NAME}' op internal verifier error: {err!r}")
            return False
        return True

    @classmethod
    def check(cls, op: ir.OpView) -> None:
        # The verifier runs on every op after every pass: messages are formatted on failure only.
        operand_types = [v.type for v in op.operands]
        result_types = [r.type for r in op.results]
        for t in (*operand_types, *result_types):
            if not isinstance(t, Tensor):
                raise RuleError(f"expects ranked tensors, got {t}")
            if str(t.element_type) not in cls.ACCEPTED_TYPES:
                accepted = ", ".join(cls.ACCEPTED_TYPES)
                raise RuleError(f"element type {t.element_type} is not one of {accepted}")
        attrs = parse_attrs(cls.ATTRS, op.attributes, rank_of(operand_types))
        cls.check_element_types(operand_types, result_types)
        actual = dims_of(result_types[0])
        expected = cls.result_shape([dims_of(t) for t in operand_types], attrs, actual)
        if expected != actual:
            got, want = shapes.text(actual), shapes.text(expected)
            raise RuleError(f"result shape {got} does not match the expected shape {want}")

    @classmethod
    def check_element_types(cls, operands: list[Tensor], results: list[Tensor]) -> None:
        element = results[0].element_type
        for t in operands:
            if t.element_type != element:
                raise RuleError(f"operand element type {t.element_type} differs from the result's {element}")
        cls.check_category(element)

    @classmethod
    def check_category(cls, element: ir.Type) -> None:
        """`FLOAT_ONLY` and `NUMERIC` applied to one element type."""
        if cls.FLOAT_ONLY and str(element) not in FLOAT_TYPES:
            raise RuleError(f"expects a float element type, got {element}")
        if cls.NUMERIC and str(element) == BOOL_TYPE:
            raise RuleError(f"expects a numeric (float or integer) element type, got {element}")

    @classmethod
    def result_shape(
        cls, operands: list[Shape], attrs: dict[str, Any], declared: Shape | None = None
    ) -> Shape:
        """The result shape the rules require; `declared` is the result type's, if any."""
        return operands[0]

    @classmethod
    def call_shape(
        cls, operands: list[Shape], attrs: dict[str, Any], declared: Shape, compiled: list[Shape]
    ) -> Shape:
        """The result shape for one call's operand sizes (`operands`, all static), whose types
        in the IR are `compiled` and the result's `declared`; raises RuleError where the sizes
        break a rule or an assumption the compiled code makes (shapes.py): the reference
        interpreter and the runtime's checks before a call both come here."""
        shape = cls.result_shape(operands, attrs, cls.declared_at_call(operands, declared, compiled))
        for i, (dim, want) in enumerate(zip(shape, declared, strict=True)):
            shapes.require(want is None or dim == want, f"result dim {i} is {dim}, but the type says {want}")
        if cls.BROADCAST_TAIL is not None:
            tail = cls.BROADCAST_TAIL
            out = shape[: len(shape) - tail]
            for k, (sizes, typed) in enumerate(zip(operands, compiled, strict=True)):
                lead = len(out) - (len(sizes) - tail)
                for i in range(len(sizes) - tail):
                    shapes.require(
                        not (typed[i] is None and sizes[i] == 1 and out[lead + i] != 1),
                        f"operand {k} dim {i} is 1 but the result's is {out[lead + i]}: a dynamic dim "
                        "does not broadcast (compile with that dim static 1 to broadcast it)",
                    )
        return shape

    @classmethod
    def declared_at_call(cls, operands: list[Shape], declared: Shape, compiled: list[Shape]) -> Shape:
        """The result type's shape as a rule takes it at a call (ops whose rule reads it fill
        in the dynamic dims they can)."""
        return declared

    @classmethod
    def attrs(cls, op: ir.OpView) -> dict[str, Any]:
        """The op's attributes as Python values, defaults filled in."""
        return parse_attrs(
            cls.ATTRS, op.operation.attributes, rank_of([v.type for v in op.operation.operands])
        )

    @classmethod
    def build(
        cls,
        operands: Sequence[ir.Value],
        attrs: dict[str, ir.Attribute],
        result_type: ir.Type | None = None,
        *,
        loc=None,
        ip=None,
    ) -> ir.Value:
        """Create the op after checking it against its rules (raises RuleError); the result
        type is derived from them unless given (ops without operands need it given)."""
        types = [v.type for v in operands]
        parsed = parse_attrs(cls.ATTRS, attrs, rank_of(types))
        declared = dims_of(result_type) if result_type is not None else None
        shape = cls.result_shape([dims_of(t) for t in types], parsed, declared)
        if result_type is None:
            shapes.require(bool(types), "the result type must be given")
            result_type = tensor_type(shape, types[0].element_type)
        shapes.require(
            shape == dims_of(result_type),
            f"result shape {shapes.text(dims_of(result_type))} does not match the expected shape "
            f"{shapes.text(shape)}",
        )
        cls.check_element_types(types, [result_type])
        op = ir.Operation.create(
            cls.OPERATION_NAME,
            results=[result_type],
            operands=list(operands),
            attributes=attrs,
            loc=loc,
            ip=ip,
        )
        return op.result


_DEFS = {"operand": ext.OperandDef, "result": ext.ResultDef, "region": ext.RegionDef}


def check_arity(cls: type, op: ir.OpView) -> None:
    """Operand, result and region counts against the op's fields: IRDL checks them only after
    this verifier has run, and the shape rules index operands and results."""
    for (kind, single, more), values in zip(_arity(cls), (op.operands, op.results, op.regions), strict=True):
        count = len(values)
        if count != single and not (more and count > single):
            raise RuleError(f"expects {'at least' if more else 'exactly'} {single} {kind}s, but got {count}")


_ARITIES: dict[type, list[tuple[str, int, bool]]] = {}


def _arity(cls: type) -> list[tuple[str, int, bool]]:
    """Per kind (operand, result, region): the single fields, and whether more may come."""
    found = _ARITIES.get(cls)
    if found is None:
        found = []
        for kind in ("operand", "result", "region"):
            fields = [f for f in cls._fields if isinstance(f, _DEFS[kind])]
            single = sum(f.variadicity == ext.Variadicity.single for f in fields)
            found.append((kind, single, len(fields) > single))  # more: a variadic or optional field
        _ARITIES[cls] = found
    return found


def dims_of(t: ir.ShapedType) -> Shape:
    """A shaped type's dims for the shape rules: None where the type has `?`."""
    return tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape)


def tensor_type(shape: Shape, element: ir.Type) -> Tensor:
    """The ranked tensor type of a rule's shape (None becomes `?`)."""
    dynamic = ir.ShapedType.get_dynamic_size()
    return Tensor.get([dynamic if d is None else d for d in shape], element)


def rank_of(types: list[ir.Type]) -> int:
    """The first operand's rank (what "rank"-long attributes are measured against); 0 if none."""
    return len(types[0].shape) if types and isinstance(types[0], Tensor) else 0


def is_bool(t: ir.Type) -> bool:
    return str(t) == BOOL_TYPE


class ElementwiseBinaryOp(VersaOp):
    ELEMENTWISE = True
    BROADCAST_TAIL = 0

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.broadcast(operands[0], operands[1])


class ElementwiseUnaryOp(VersaOp):
    ELEMENTWISE = True


class FloatUnaryOp(ElementwiseUnaryOp):
    FLOAT_ONLY = True
