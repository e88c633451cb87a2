"""What rewrite patterns ask about values and ops: which op made it, is it a constant, who else
uses it, an op's attributes and result type.

Shared by versa-canonicalize's pattern modules (canonicalize, algebra, fold_batch_norm) and the
lowerings (convert_versa_to_linalg, lower_data_movement, lower_indexing, lower_fused), so each
asks the question the same way.
"""

import numpy as np
from versa.diagnostics import CompileError
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.versa import OPS, ConstantOp
from versa.mlir import ir
from versa.reference import numpy_dtype


def versa_attrs(op: ir.OpView) -> dict:
    """A versa op's attributes as Python values (defaults filled in)."""
    return OPS[op.operation.name].attrs(op)


def result_of(op: ir.OpView) -> tuple[tuple[int, ...], ir.Type]:
    """The shape and element type of `op`'s first (tensor) result."""
    t = ir.RankedTensorType(op.results[0].type)
    return tuple(t.shape), t.element_type


def producer(value: ir.Value, name: str) -> ir.OpView | None:
    """The op that defines `value` if it is a `name` op (e.g. "versa.neg"), else None."""
    if not isinstance(value, ir.OpResult) or value.owner.operation.name != name:
        return None
    return value.owner


def has_one_use(value: ir.Value) -> bool:
    uses = iter(value.uses)
    return next(uses, None) is not None and next(uses, None) is None


def constant_attr(value: ir.Value) -> ir.DenseElementsAttr | None:
    op = producer(value, "versa.constant")
    return None if op is None else op.operation.attributes["value"]


def numpy_dtype_of(element_type: ir.Type) -> np.dtype | None:
    """The NumPy dtype of `element_type`, or None (bf16): such constants are left alone."""
    try:
        return numpy_dtype(element_type)
    except CompileError:
        return None


def constant_array(value: ir.Value) -> np.ndarray | None:
    """`value` as a NumPy array when a `versa.constant` of a NumPy-typed element makes it."""
    attr = constant_attr(value)
    if attr is None or numpy_dtype_of(attr.type.element_type) is None:
        return None
    return elements_to_numpy(attr)


def is_numpy_constant(value: ir.Value) -> bool:
    """Whether a `versa.constant` of a NumPy-typed element makes `value` (without expanding it)."""
    attr = constant_attr(value)
    return attr is not None and numpy_dtype_of(attr.type.element_type) is not None


def splat_value(value: ir.Value) -> float | int | bool | None:
    """The one element of a splat constant (never expanded), else None."""
    attr = constant_attr(value)
    if attr is None or not attr.is_splat or not is_numpy_constant(value) or not np.prod(attr.type.shape):
        return None
    return attr.get_splat_value().value


def is_splat_of(value: ir.Value, scalar: float) -> bool:
    """Whether every element of the constant `value` equals `scalar` (a splat is not expanded)."""
    attr = constant_attr(value)
    if attr is None or np.prod(attr.type.shape) == 0:
        return False
    if attr.is_splat:
        return attr.get_splat_value().value == scalar
    array = constant_array(value)
    return array is not None and bool(np.all(array == scalar))


def constant(array: np.ndarray | float | int, result_type: ir.RankedTensorType) -> ir.Value:
    """A `versa.constant` of `result_type`; a one-element `array` becomes a splat of any size."""
    dtype = numpy_dtype_of(result_type.element_type)
    data = np.ascontiguousarray(np.asarray(array, dtype=dtype))
    if data.size == 1:
        data = data.reshape(1)
    attr = ir.DenseElementsAttr.get(data, type=result_type)
    return ConstantOp.build([], {"value": attr}, result_type)
