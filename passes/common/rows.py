"""Which softmax and layer_norm ops are row kernels: the question both targets' row-kernel
passes ask first (versa-row-kernels on CPUs, versa-gpu-rows on GPUs)."""

from versa.mlir import ir

from .compute_types import is_half


def static_rows(value: ir.Value, half: bool) -> tuple[list[int], str] | None:
    """The shape and element type of a static tensor of f32 (or with `half`, f16/bf16)."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return None
    element = t.element_type
    if not isinstance(element, ir.F32Type) and not (half and is_half(element)):
        return None
    return list(t.shape), str(element)


def row_axes(op: ir.Operation, half: bool = False) -> int | None:
    """How many leading axes index rows, when `op` normalises the trailing axes of a static f32
    (with `half`, or f16/bf16) tensor with elements (gamma and beta, if any, one row each of
    the same type); None when the op is left to the lowering (an empty tensor has no rows to
    loop over, nor a length to divide by)."""
    found = static_rows(op.operands[0], half)
    if not found or 0 in found[0] or op.results[0].type != op.operands[0].type:
        return None
    shape, element = found
    axis = ir.IntegerAttr(op.attributes["axis"]).value % len(shape)
    if op.name == "versa.softmax" and axis != len(shape) - 1:
        return None
    row = (shape[axis:], element)
    if op.name == "versa.layer_norm" and any(static_rows(p, half) != row for p in op.operands[1:]):
        return None
    return axis
