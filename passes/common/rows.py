"""Which softmax and layer_norm ops are row kernels: the question both targets' row-kernel
passes ask first (versa-row-kernels on CPUs, versa-gpu-rows on GPUs)."""

from versa.mlir import ir

from .compute_types import is_half


def static_rows(value: ir.Value, half: bool, dynamic: bool = False) -> tuple[list[int | None], str] | None:
    """The shape and element type of a static tensor of f32 (or with `half`, f16/bf16); with
    `dynamic`, of a ranked one too, its dynamic dims None."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or not (t.has_static_shape or dynamic):
        return None
    element = t.element_type
    if not isinstance(element, ir.F32Type) and not (half and is_half(element)):
        return None
    return [None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape], str(element)


def row_axes(op: ir.Operation, half: bool = False, dynamic: bool = False) -> int | None:
    """How many leading axes index rows, when `op` normalises the trailing axes of a static f32
    (with `half`, or f16/bf16) tensor with elements (gamma and beta, if any, one row each of
    the same type); None when the op is left to the lowering (an empty tensor has no rows to
    loop over, nor a length to divide by). With `dynamic`, rows may be dynamic, and so may a
    softmax's row (a layer_norm's row, the length of gamma and beta, stays static)."""
    found = static_rows(op.operands[0], half, dynamic)
    if not found or 0 in found[0] or op.results[0].type != op.operands[0].type:
        return None
    shape, element = found
    axis = ir.IntegerAttr(op.attributes["axis"]).value % len(shape)
    if op.name == "versa.softmax" and axis != len(shape) - 1:
        return None
    row = (shape[axis:], element)
    if op.name == "versa.layer_norm" and (
        None in row[0] or any(static_rows(p, half) != row for p in op.operands[1:])
    ):
        return None
    return axis
