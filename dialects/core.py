"""The versa dialect object and the base class of its ops, shared by every op module.

`versa.py` (the original ops), `ops_logical.py` (compare, select, and/or/not), `ops_math.py`
(sin, cos, floor, round, sign, ...) and `ops_indexing.py` (gather, scatter, iota, argmax, cumsum,
conv_transpose2d) all define their op classes on `Versa`; `versa.py` imports the others and
builds the op table `OPS`. This module imports
none of them, so there is no import cycle.
"""

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
    ACCEPTED_TYPES = ELEMENT_TYPES  # the quantized ops add ui8 (ops_quant.py)

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
        operand_types = [v.type for v in op.operands]
        for t in (*operand_types, *(r.type for r in op.results)):
            shapes.require(isinstance(t, Tensor), f"expects ranked tensors, got {t}")
            shapes.require(
                str(t.element_type) in cls.ACCEPTED_TYPES,
                f"element type {t.element_type} is not one of {', '.join(cls.ACCEPTED_TYPES)}",
            )
        attrs = parse_attrs(cls.ATTRS, op.attributes, rank_of(operand_types))
        cls.check_element_types(operand_types, [r.type for r in op.results])
        actual = tuple(op.results[0].type.shape)
        expected = cls.result_shape([tuple(t.shape) for t in operand_types], attrs, actual)
        shapes.require(
            expected == actual,
            f"result shape {list(actual)} does not match the expected shape {list(expected)}",
        )

    @classmethod
    def check_element_types(cls, operands: list[Tensor], results: list[Tensor]) -> None:
        element = results[0].element_type
        for t in operands:
            shapes.require(
                t.element_type == element,
                f"operand element type {t.element_type} differs from the result's {element}",
            )
        cls.check_category(element)

    @classmethod
    def check_category(cls, element: ir.Type) -> None:
        """`FLOAT_ONLY` and `NUMERIC` applied to one element type."""
        if cls.FLOAT_ONLY:
            shapes.require(str(element) in FLOAT_TYPES, f"expects a float element type, got {element}")
        if cls.NUMERIC:
            shapes.require(
                str(element) != BOOL_TYPE, f"expects a numeric (float or integer) element type, got {element}"
            )

    @classmethod
    def result_shape(
        cls, operands: list[Shape], attrs: dict[str, Any], declared: Shape | None = None
    ) -> Shape:
        """The result shape the rules require; `declared` is the result type's, if any."""
        return operands[0]

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
        declared = tuple(result_type.shape) if result_type is not None else None
        shape = cls.result_shape([tuple(t.shape) for t in types], parsed, declared)
        if result_type is None:
            shapes.require(bool(types), "the result type must be given")
            result_type = Tensor.get(shape, types[0].element_type)
        shapes.require(
            shape == tuple(result_type.shape),
            f"result shape {list(result_type.shape)} does not match the expected shape {list(shape)}",
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
    for kind, values in (("operand", op.operands), ("result", op.results), ("region", op.regions)):
        fields = [f for f in cls._fields if isinstance(f, _DEFS[kind])]
        single = sum(f.variadicity == ext.Variadicity.single for f in fields)
        more = len(fields) > single  # a variadic or optional field
        count = len(values)
        shapes.require(
            count == single or (more and count > single),
            f"expects {'at least' if more else 'exactly'} {single} {kind}s, but got {count}",
        )


def rank_of(types: list[ir.Type]) -> int:
    """The first operand's rank (what "rank"-long attributes are measured against); 0 if none."""
    return len(types[0].shape) if types and isinstance(types[0], Tensor) else 0


def is_bool(t: ir.Type) -> bool:
    return str(t) == BOOL_TYPE


class ElementwiseBinaryOp(VersaOp):
    ELEMENTWISE = True

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.broadcast(operands[0], operands[1])


class ElementwiseUnaryOp(VersaOp):
    ELEMENTWISE = True


class FloatUnaryOp(ElementwiseUnaryOp):
    FLOAT_ONLY = True
