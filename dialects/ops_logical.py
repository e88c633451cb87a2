"""Comparisons, selection and logic: the elementwise versa ops whose element types differ
between operands and result, or that work on i1 (booleans).

    %m = "versa.compare"(%a, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
    %y = "versa.select"(%m, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %n = "versa.not"(%m) : (tensor<4x8xi1>) -> tensor<4x8xi1>

All of them broadcast NumPy-style and are elementwise, so `versa-fuse` groups them with their
neighbours. Float comparisons are ordered except "ne", which is unordered: NaN compares unequal
to everything (NaN != NaN is true), as in NumPy and torch.
"""

from typing import Any

from versa.mlir import ext

from . import shapes
from .attributes import OneOf
from .core import BOOL_TYPE, INT_TYPES, ElementwiseBinaryOp, ElementwiseUnaryOp, Tensor, VersaOp

PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


def _same_element(operands: list[Tensor], what: str) -> None:
    first = operands[0].element_type
    for t in operands[1:]:
        shapes.require(t.element_type == first, f"{what} element types differ: {first} vs {t.element_type}")


class CompareOp(ElementwiseBinaryOp, name="compare", traits=[ext.Pure]):
    """lhs <predicate> rhs per element: an i1 tensor of the broadcast shape."""

    ATTRS = {"predicate": OneOf(PREDICATES)}
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    predicate: Any
    result: ext.Result[Tensor]

    @classmethod
    def check_element_types(cls, operands, results):
        _same_element(operands, "operand")
        result = results[0].element_type
        shapes.require(str(result) == BOOL_TYPE, f"result element type must be i1, got {result}")


class SelectOp(VersaOp, name="select", traits=[ext.Pure]):
    """np.where(cond, on_true, on_false): cond is i1, the three broadcast together."""

    ELEMENTWISE = True
    BROADCAST_TAIL = 0

    condition: ext.Operand[Tensor]
    on_true: ext.Operand[Tensor]
    on_false: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.broadcast(shapes.broadcast(operands[0], operands[1]), operands[2])

    @classmethod
    def check_element_types(cls, operands, results):
        condition = operands[0].element_type
        shapes.require(str(condition) == BOOL_TYPE, f"condition element type must be i1, got {condition}")
        element = results[0].element_type
        for name, t in zip(("on_true", "on_false"), operands[1:], strict=True):
            shapes.require(
                t.element_type == element,
                f"{name} element type {t.element_type} differs from the result's {element}",
            )


def _logical(element) -> None:
    """Logic on i1, bitwise on integers (every operand has the result's element type)."""
    shapes.require(
        str(element) in (BOOL_TYPE, *INT_TYPES), f"expects i1 or an integer element type, got {element}"
    )


class LogicalBinaryOp(ElementwiseBinaryOp):
    @classmethod
    def check_category(cls, element):
        _logical(element)


class AndOp(LogicalBinaryOp, name="and", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class OrOp(LogicalBinaryOp, name="or", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class NotOp(ElementwiseUnaryOp, name="not", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def check_category(cls, element):
        _logical(element)


__all__ = ["PREDICATES", "AndOp", "CompareOp", "NotOp", "OrOp", "SelectOp"]
