"""convert-versa-to-linalg: lower every versa op to linalg, tensor, arith and math on tensors.

Elementwise ops, and `versa.fused` groups of kind "elementwise", become one `linalg.generic`
each, built from the scalar emitters in `scalar_emitters.SCALAR`, with NumPy broadcasting in
the indexing maps. Contractions and windows use named linalg ops where one fits (matmul,
batch_matmul, conv_2d_*, pooling_*); data movement (transpose, concat, slice, pad) is tensor
ops (`lower_data_movement`), gathers and scans generics (`lower_indexing`). softmax and
layer_norm decompose into versa ops (`decompose_norms`), lowered in turn; other fused groups
are lowered by `lower_fused`.

    %y = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>

becomes

    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                          affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
           ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
         ^bb0(%x: f32, %z: f32, %out: f32):
           %s = arith.addf %x, %z : f32
           linalg.yield %s : f32
         } -> tensor<4x8xf32>

The pass refuses (with a located error) an elementwise group whose ops have no scalar form or
do not broadcast to the group's result shape, and any versa op it could not lower.
"""

import functools
from dataclasses import dataclass
from typing import Any

from versa.dialects import shapes
from versa.dialects import versa as dialect
from versa.mlir import arith, ir, linalg

from ..common import extents
from ..common import linalg_builders as build
from ..common import window_builders as windows
from ..common.base import Pass, PassError
from ..common.matching import result_of, versa_attrs
from ..common.rewrite import Pattern, apply_greedily
from ..common.scalar_emitters import SCALAR, batch_norm_scalar
from .lowering import lower_data_movement, lower_indexing, lower_qcontract, lower_quant, pool_regions
from .lowering.decompose_norms import lower_layer_norm, lower_softmax
from .lowering.lower_fused import lower_fused, reduce_generic
from .lowering.pool_regions import pool2d

# ----------------------------------------------------------------------------- helpers


def _name(op: ir.OpView) -> str:
    return op.operation.name.removeprefix("versa.")


# ----------------------------------------------------------------------------- elementwise


def lower_elementwise(op: ir.OpView, rewriter: Any) -> bool:
    """add(a, b) → linalg.generic{addf(a, b)} with broadcast maps; likewise every SCALAR op."""
    (shape, element), emit, attrs = result_of(op), SCALAR[_name(op)], versa_attrs(op)
    y = build.elementwise(list(op.operands), shape, [element], lambda *xs: [emit(xs, element, attrs)])
    rewriter.replace_op(op, y)
    return True


# ----------------------------------------------------------------------------- contractions


def lower_matmul(op: ir.OpView, rewriter: Any) -> bool:
    """matmul → linalg.matmul (2-D, and [..., M, K] x [K, N] with the rows folded), one
    linalg.batch_matmul (equal batch dims of any rank folded into one: attention's
    [B, H, S, D]) or a generic (batch dims that broadcast)."""
    (types, element), (a, b) = result_of(op), op.operands
    acc = build.accumulator(element)  # f16/bf16 sum in f32, rounded once
    rank = len(types)
    shape = extents.broadcast([a, b], types, {rank - 2: extents.dim(a, -2), rank - 1: extents.dim(b, -1)})
    batch = types[:-2]
    if rank == 2:
        y = linalg.matmul(a, b, outs=[build.filled(shape, acc, 0.0)])
    elif len(build.shape_of(b)) == 2 and build.shape_of(a)[:-2] == batch:
        # [..., M, K] x [K, N] (a linear layer): one [... * M, K] x [K, N] matmul.
        rows = extents.product(shape[:-1])
        flat = build.reshape(a, (rows, extents.dim(a, -1)))
        init = build.filled((rows, shape[-1]), acc, 0.0)
        y = build.reshape(linalg.matmul(flat, b, outs=[init]), shape)
    elif build.shape_of(a)[:-2] == build.shape_of(b)[:-2] == batch:
        folded = extents.product(shape[:-2])
        a3 = build.reshape(a, (folded, *extents.of(a)[-2:]))
        b3 = build.reshape(b, (folded, *extents.of(b)[-2:]))
        init = build.filled((folded, *shape[-2:]), acc, 0.0)
        y = build.reshape(linalg.batch_matmul(a3, b3, outs=[init]), shape)
    else:
        y = build.broadcast_matmul(a, b, build.filled(shape, acc, 0.0))
    rewriter.replace_op(op, [build.rounded(y, element)])
    return True


def lower_conv2d(op: ir.OpView, rewriter: Any, split_groups: int = 0, pointwise_matmul: bool = False) -> bool:
    """conv2d → pad + linalg.conv_2d_nchw_fchw / conv_2d_nhwc_hwcf; depthwise (one filter per
    channel) → linalg.depthwise_conv_2d_*; other groups > 1 → one generic, or a named
    convolution per group where there are at most `split_groups`. With `pointwise_matmul`, an
    NHWC 1x1 conv of stride 1 without padding is the matmul it is: [N*H*W, C] x [C, F]."""
    attrs, (types, element), (x, w) = versa_attrs(op), result_of(op), op.operands
    window = build.shape_of(w)[2:] if attrs["layout"] == "NCHW" else build.shape_of(w)[:2]
    shape = windows.output_extents(x, types, attrs, window)
    if pointwise_matmul and _pointwise(build.shape_of(w), attrs):
        rows, channels = extents.product(shape[:3]), build.shape_of(x)[3]
        acc = build.accumulator(element)
        if any(s != 1 for s in attrs["strides"]):  # the pixels it reads, gathered first
            x = _strided_pixels(x, (*shape[:3], channels), attrs["strides"])
        flat = build.collapse(x, (rows, channels), [[0, 1, 2], [3]])
        filters = build.collapse(w, (channels, shape[3]), [[0, 1, 2], [3]])
        y = linalg.matmul(flat, filters, outs=[build.filled((rows, shape[3]), acc, 0.0)])
        rewriter.replace_op(op, [build.rounded(build.expand(y, shape, [[0, 1, 2], [3]]), element)])
        return True
    xp = windows.pad_spatial(x, attrs["padding"], attrs["layout"], build.scalar(element, 0.0))
    xp = windows.crop_spatial(xp, types, attrs, window)
    init = build.filled(shape, build.accumulator(element), 0.0)
    if windows.is_depthwise(build.shape_of(x), types, attrs):
        y = windows.depthwise_conv(xp, w, init, attrs)
    elif 1 < attrs["groups"] <= split_groups and 0 not in types and extents.is_static(types):
        y = windows.conv_per_group(xp, w, init, attrs)
    elif attrs["groups"] > 1:
        y = windows.grouped_conv(xp, w, init, attrs)
    else:
        named = linalg.conv_2d_nchw_fchw if attrs["layout"] == "NCHW" else linalg.conv_2d_nhwc_hwcf
        y = named(xp, w, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])
    rewriter.replace_op(op, [build.rounded(y, element)])
    return True


def _pointwise(filters: tuple[int, ...], attrs: dict) -> bool:
    """An NHWC conv that is a matmul: 1x1 filters, no padding, no groups, no dilation to speak
    of. The matmul strategy blocks K for the caches and packs the filters; the conv strategy
    streams every filter per output row: 7x7 2048->512 took 2.8 ms as a conv, 1.7 as a matmul
    (2 threads, Emerald Rapids), 14x14 1024->256 0.82 / 0.78, 28x28 512->128 1.04 / 0.93,
    56x56 64->256 equal. A strided one (ResNet's downsampling shortcuts) reads every s-th pixel:
    those are gathered into a dense image first (a quarter of the input for stride 2)."""
    return (
        attrs["layout"] == "NHWC"
        and attrs["groups"] == 1
        and tuple(filters[:2]) == (1, 1)
        and not any(attrs["padding"])
    )


def _strided_pixels(x: ir.Value, shape: build.Extents, strides) -> ir.Value:
    """x[:, ::s0, ::s1, :] of `shape` as a dense tensor (a copy: the matmul reads it as rows)."""
    d = [ir.AffineDimExpr.get(i) for i in range(4)]
    scaled = [d[0], d[1] * int(strides[0]), d[2] * int(strides[1]), d[3]]
    maps = [ir.AffineMap.get(4, 0, scaled), ir.AffineMap.get_identity(4)]
    out = build.empty(shape, build.element_of(x))
    return build.generic([x], [out], maps, [build.PARALLEL] * 4, lambda v, _: [v])[0]


def lower_pool2d(op: ir.OpView, rewriter: Any, views: bool = False) -> bool:
    """max_pool2d → linalg.pooling_*_max (padding -inf); avg_pool2d → pooling_*_sum (padding 0)
    / count; blocks of windows that overlap the padding are pooled apart, and with `views` the
    interior as reductions over reshaped views of the input (`pool_regions`); an i8 or ui8 max
    pool: `pool_regions.integer_max_pool2d`."""
    attrs, (types, element), is_max = versa_attrs(op), result_of(op), _name(op) == "max_pool2d"
    x = op.operands[0]
    _, h, w = shapes.spatial_dims(attrs["layout"])
    out = windows.output_extents(x, types, attrs, attrs["kernel"])
    if not build.is_float(element):
        y = pool_regions.integer_max_pool2d(x, op.results[0].type, out, attrs, views)
        rewriter.replace_op(op, [y])
        return True
    init = build.lowest(element) if is_max else build.scalar(element, 0.0)
    if extents.DYNAMIC in (build.shape_of(x)[h], build.shape_of(x)[w]):  # one op over x padded
        y = pool_regions.dynamic_pool2d(x, out, attrs, "max" if is_max else "sum", init)
        rewriter.replace_op(op, [y if is_max else pool_regions.dynamic_average(y, x, attrs)])
        return True
    y = pool2d(x, out, attrs, "max" if is_max else "sum", init, views)
    if not is_max:
        counts = build.dense(windows.window_counts(build.shape_of(x), types, attrs))
        y = build.elementwise(
            [y, counts], types, [element], lambda total, n: [arith.divf(total, build.convert(n, element))]
        )[0]
    rewriter.replace_op(op, [y])
    return True


# ----------------------------------------------------------------------------- reductions


def lower_reduce(op: ir.OpView, rewriter: Any) -> bool:
    """reduce_sum → generic{addf} over fill(0); reduce_max: maximumf over fill(-inf); mean: / n."""
    lowered: dict[ir.Value, ir.Value] = {}
    reduce_generic([], op, lowered)
    rewriter.replace_op(op, [lowered[op.results[0]]])
    return True


def lower_batch_norm(op: ir.OpView, rewriter: Any) -> bool:
    """batch_norm → linalg.generic{(x - mean) / sqrt(var + eps) * scale + bias}, params on C."""
    attrs, (types, element) = versa_attrs(op), result_of(op)
    shape = extents.broadcast(op.operands[:1], types)
    channel = shapes.spatial_dims(attrs["layout"])[0]
    identity = ir.AffineMap.get_identity(4)
    maps = [identity, *[build.dims_map(4, [channel])] * 4, identity]

    def body(*scalars: ir.Value) -> list[ir.Value]:
        return [batch_norm_scalar(scalars[:5], element, attrs["epsilon"])]

    outputs = [build.empty(shape, element)]
    rewriter.replace_op(op, build.generic(list(op.operands), outputs, maps, [build.PARALLEL] * 4, body))
    return True


def lower_constant(op: ir.OpView, rewriter: Any) -> bool:
    """constant → arith.constant."""
    rewriter.replace_op(op, [arith.constant(op.results[0].type, op.attributes["value"])])
    return True


# ----------------------------------------------------------------------------- the pass

# (op class, its lowering); `versa.fused` is lowered apart, see `run`
PATTERNS: list[tuple[type[dialect.VersaOp], Pattern]] = [
    *((dialect.OPS[f"versa.{name}"], lower_elementwise) for name in SCALAR),
    (dialect.MatmulOp, lower_matmul),
    (dialect.Conv2dOp, lower_conv2d),
    (dialect.MaxPool2dOp, lower_pool2d),
    (dialect.AvgPool2dOp, lower_pool2d),
    (dialect.ReduceSumOp, lower_reduce),
    (dialect.ReduceMaxOp, lower_reduce),
    (dialect.ReduceMeanOp, lower_reduce),
    (dialect.SoftmaxOp, lower_softmax),
    (dialect.LayerNormOp, lower_layer_norm),
    (dialect.BatchNormOp, lower_batch_norm),
    *lower_data_movement.PATTERNS,  # transpose, reshape, concat, slice, pad
    (dialect.ConstantOp, lower_constant),
    *lower_indexing.PATTERNS,  # gather, iota, reduce_argmax, cumsum, conv_transpose2d
    *lower_quant.PATTERNS,  # quantize, dequantize, requantize
    *lower_qcontract.PATTERNS,  # qmatmul, qconv2d
]


def _outside_fused(fn: Pattern) -> Pattern:
    """Leave the ops of a fused region to `lower_fused`, which needs them as versa ops."""

    def pattern(op: ir.OpView, rewriter: Any) -> bool:
        parent = op.operation.parent
        return (parent is None or parent.name != "versa.fused") and fn(op, rewriter)

    pattern.__name__ = fn.__name__
    return _named(pattern)


def _named(fn: Pattern) -> Pattern:
    """A dynamic dim a lowering cannot handle (`extents.Unsupported`) reported as MLIR
    reports an op's errors: `'versa.X' op dynamic dim ... not supported`, at the op."""

    def pattern(op: ir.OpView, rewriter: Any) -> bool:
        try:
            return fn(op, rewriter)
        except extents.Unsupported as err:
            raise PassError(f"'{op.operation.name}' op {err}", op.location) from None

    pattern.__name__ = fn.__name__
    return pattern


@dataclass(frozen=True)
class ConvertVersaToLinalg(Pass):
    name = "convert-versa-to-linalg"
    summary = "Lower versa ops to linalg, tensor, arith and math on tensors"
    # Grouped convs with at most this many groups become a named conv per group, for the CPU's
    # conv strategy (0: one generic, which versa-gpu-conv takes as a whole).
    split_groups: int = 0
    # The interior of 2-D pools as reductions over reshaped views of the input (vector code
    # for the CPU's pool strategy) rather than named pooling ops (which versa-gpu-* map).
    pool_views: bool = False
    # NHWC 1x1 convs of stride 1 as matmuls (the CPU's matmul strategy: cache blocking, packing).
    pointwise_matmul: bool = False

    def run(self, module: ir.Operation) -> None:
        options = {
            lower_conv2d: functools.partial(
                lower_conv2d, split_groups=self.split_groups, pointwise_matmul=self.pointwise_matmul
            ),
            lower_pool2d: functools.partial(lower_pool2d, views=self.pool_views),
        }
        table = [
            (root, _outside_fused(functools.update_wrapper(options[fn], fn) if fn in options else fn))
            for root, fn in PATTERNS
        ]
        apply_greedily(module, [*table, (dialect.FusedOp, _named(lower_fused))])
        left: list[ir.Operation] = []

        def find(op: ir.Operation) -> ir.WalkResult:
            if not op.name.startswith("versa."):
                return ir.WalkResult.ADVANCE
            left.append(op)
            return ir.WalkResult.INTERRUPT

        module.walk(find, ir.WalkOrder.PRE_ORDER)
        if left:
            raise PassError(f"failed to lower '{left[0].name}'", left[0].location)
        lower_quant.erase_unsigned(module)  # ui8 → i8 once no versa op reads the sign
