"""What every builder module shares: Python values to the builtin attributes the versa ops
take (None stays None, so the op's default applies), and the common build shapes."""

from collections.abc import Sequence
from typing import Any

from versa.mlir import ir

from .attributes import parse_attrs
from .core import VersaOp, dims_of, rank_of, tensor_type

Ints = Sequence[int]
Loc = ir.Location | None
Ip = ir.InsertionPoint | None


def ints(values: Ints | None) -> ir.Attribute | None:
    return None if values is None else ir.DenseI64ArrayAttr.get([int(x) for x in values])


def i64(value: int | None) -> ir.Attribute | None:
    return None if value is None else ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def f32(value: float | None) -> ir.Attribute | None:
    return None if value is None else ir.FloatAttr.get_f32(float(value))


def boolean(value: bool | None) -> ir.Attribute | None:
    return None if value is None else ir.BoolAttr.get(bool(value))


def string(value: str | None) -> ir.Attribute | None:
    return None if value is None else ir.StringAttr.get(value)


def attrs(**given: ir.Attribute | None) -> dict[str, ir.Attribute]:
    """The given attributes, without those left as None (their op defaults apply)."""
    return {name: attr for name, attr in given.items() if attr is not None}


def conv2d_attrs(
    strides: Ints | None, padding: Ints | None, dilations: Ints | None, groups: int | None, layout: str | None
) -> dict[str, ir.Attribute]:
    """The attributes of `versa.conv2d` and `versa.qconv2d` (those given; the rest default)."""
    return attrs(
        strides=ints(strides), padding=ints(padding), dilations=ints(dilations), groups=i64(groups),
        layout=string(layout),
    )  # fmt: skip


def unary(op: type[VersaOp], x: ir.Value, loc: Loc, ip: Ip) -> ir.Value:
    return op.build([x], {}, loc=loc, ip=ip)


def binary(op: type[VersaOp], lhs: ir.Value, rhs: ir.Value, loc: Loc, ip: Ip) -> ir.Value:
    return op.build([lhs, rhs], {}, loc=loc, ip=ip)


def with_shape(op: type[VersaOp], x: ir.Value, shape: Ints, loc: Loc, ip: Ip) -> ir.Value:
    """Build a shape-changing op whose result shape is given; the op's rule checks it first."""
    target = tuple(None if d is None else int(d) for d in shape)
    op.result_shape([dims_of(x.type)], {}, target)
    result_type = tensor_type(target, x.type.element_type)
    return op.build([x], {}, result_type, loc=loc, ip=ip)


def with_element(
    op: type[VersaOp],
    operands: list[ir.Value],
    given: dict[str, Any],
    element: ir.Type,
    loc: Loc,
    ip: Ip,
) -> ir.Value:
    """Build an op whose result element type is not its first operand's: the shape comes from
    the op's rule, the element type is `element`."""
    types = [x.type for x in operands]
    parsed = parse_attrs(op.ATTRS, given, rank_of(types))
    shape = op.result_shape([dims_of(t) for t in types], parsed, None)
    return op.build(operands, given, tensor_type(shape, element), loc=loc, ip=ip)
