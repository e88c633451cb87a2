"""softmax and layer_norm as versa ops (reductions and broadcasting elementwise ops), for
convert-versa-to-linalg to lower in turn. At O2+ `row_kernels` takes the static f32 cases
first; these decompositions are the general form (any axis, dtype, shape).

f16 and bf16 are computed in f32 and rounded once at the end, as PyTorch does: layer_norm's
mean, subtracted in half precision, leaves too few bits in (x - mean) when a row's spread is
small next to its mean, and softmax's sum of a long row in half precision loses the small
terms (the rounding step of 1.0 is 2^-10 in f16).
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from versa.dialects import builders as vb
from versa.dialects import builders_indexing as vb_indexing
from versa.dialects import versa as dialect
from versa.mlir import ir

from ...common import linalg_builders as build


def _in_f32(operands: Sequence[ir.Value], compute: Callable[..., ir.Value]) -> ir.Value:
    """compute(*operands), in f32 when they are f16/bf16 (cast back at the end)."""
    given = build.element_of(operands[0])
    if not isinstance(given, ir.F16Type | ir.BF16Type):
        return compute(*operands)
    return vb.cast(compute(*(vb.cast(v, ir.F32Type.get()) for v in operands)), given)


def lower_softmax(op: ir.OpView, rewriter: Any) -> bool:
    """softmax(x) → e / reduce_sum(e) with e = exp(x - reduce_max(x))."""
    axes = [dialect.OPS[op.operation.name].attrs(op)["axis"]]

    def softmax(x: ir.Value) -> ir.Value:
        e = vb.exp(vb.sub(x, vb.reduce_max(x, axes=axes, keepdims=True)))
        return vb.div(e, vb.reduce_sum(e, axes=axes, keepdims=True))

    rewriter.replace_op(op, [_in_f32(list(op.operands), softmax)])
    return True


def lower_layer_norm(op: ir.OpView, rewriter: Any) -> bool:
    """layer_norm → (x - mean) / sqrt(var + eps) * gamma + beta over the axes from `axis` on."""
    attrs = dialect.OPS[op.operation.name].attrs(op)

    def layer_norm(x: ir.Value, gamma: ir.Value, beta: ir.Value) -> ir.Value:
        shape = build.shape_of(x)
        rank, axis = len(shape), attrs["axis"] % len(shape)
        axes = list(range(axis, rank))
        # The mean of x - x0 (x0: each row's first element), added back implicitly: on a
        # constant row x - x0 is exactly 0, where the rounding of an f32 mean, divided by
        # sqrt(eps), would be ~300x its size in the output (PyTorch's Welford mean is exact too).
        if all(d > 0 for d in shape[axis:]):  # static and not empty
            x = vb.sub(x, _first(x, axis))
        centred = vb.sub(x, vb.reduce_mean(x, axes=axes, keepdims=True))
        var = vb.reduce_mean(vb.mul(centred, centred), axes=axes, keepdims=True)
        eps_type = ir.RankedTensorType.get([], build.element_of(x))
        eps_value = ir.DenseElementsAttr.get_splat(
            eps_type, ir.FloatAttr.get(eps_type.element_type, attrs["epsilon"])
        )
        eps = dialect.ConstantOp.build([], {"value": eps_value}, eps_type)
        normed = vb.div(centred, vb.sqrt(vb.add(var, eps)))
        return vb.add(vb.mul(normed, gamma), beta)

    rewriter.replace_op(op, [_in_f32(list(op.operands), layer_norm)])
    return True


def _first(x: ir.Value, axis: int) -> ir.Value:
    """Each row's first element (index 0 of every dim from `axis` on), kept as size-1 dims: a
    slice, or with dynamic leading dims (which a slice cannot keep whole) a gather of index 0
    per dim."""
    shape = build.shape_of(x)
    rank = len(shape)
    if all(d >= 0 for d in shape[:axis]):
        return vb.slice(x, starts=[0] * rank, limits=[*shape[:axis], *[1] * (rank - axis)])
    zero = vb.constant(np.zeros(1, np.int64))
    for d in range(axis, rank):
        x = vb_indexing.gather(x, zero, axis=d)
    return x
