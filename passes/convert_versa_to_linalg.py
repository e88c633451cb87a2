"""convert-versa-to-linalg: lower every versa op to linalg, tensor, arith and math on tensors.

Elementwise ops (and `versa.fused` regions of kind "elementwise") become one `linalg.generic`
each, built from the scalar emitters in `SCALAR`, with NumPy broadcasting expressed in the
indexing maps. Contractions and windows use named linalg ops where one fits (matmul,
batch_matmul, conv_2d_*, pooling_*), padding is a `tensor.pad`, data movement is tensor ops.
softmax and layer_norm decompose into versa ops that are lowered in turn.

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

Ops inside a `versa.fused` region are left to the fused op's own pattern. The pass refuses a
fused elementwise region holding an op without a scalar form, naming that op.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from versa.dialects import shapes
from versa.dialects.versa import (
    OPS, AvgPool2dOp, BatchNormOp, ConcatOp, ConstantOp, Conv2dOp, DivOp, ExpOp, FusedOp,
    LayerNormOp, MatmulOp, MaxPool2dOp, MulOp, PadOp, ReduceMaxOp, ReduceMeanOp, ReduceOp,
    ReduceSumOp, ReshapeOp, SliceOp, SoftmaxOp, SqrtOp, SubOp, TransposeOp, AddOp,
)
from versa.mlir import arith, ir, linalg, tensor
from versa.mlir import math as mmath

from . import linalg_builders as lb
from .base import Pass, PassError
from .rewrite import Pattern, apply_greedily

Scalar = Callable[[Sequence[ir.Value], ir.Type, dict[str, Any]], ir.Value]

# ----------------------------------------------------------------------------- scalar emitters


def convert(v: ir.Value, to: ir.Type) -> ir.Value:
    """Scalar element-type conversion: floats truncate toward zero when converted to integers."""
    src = v.type
    if src == to:
        return v
    if lb.is_float(src) and lb.is_float(to):
        width, target = ir.FloatType(src).width, ir.FloatType(to).width
        if width == target:  # f16 <-> bf16 goes through f32
            return arith.truncf(to, arith.extf(ir.F32Type.get(), v))
        return arith.extf(to, v) if width < target else arith.truncf(to, v)
    if lb.is_float(to):
        return arith.sitofp(to, v)
    if lb.is_float(src):
        return arith.fptosi(to, v)
    wider = ir.IntegerType(to).width > ir.IntegerType(src).width
    return arith.extsi(to, v) if wider else arith.trunci(to, v)


def _typed(float_fn: Callable[..., ir.Value], int_fn: Callable[..., ir.Value]) -> Scalar:
    return lambda xs, out, attrs: (float_fn if lb.is_float(xs[0].type) else int_fn)(*xs)


def _unary(fn: Callable[[ir.Value], ir.Value]) -> Scalar:
    return lambda xs, out, attrs: fn(xs[0])


def _neg(x: ir.Value) -> ir.Value:
    return arith.negf(x) if lb.is_float(x.type) else arith.subi(lb.scalar(x.type, 0), x)


def _relu(x: ir.Value) -> ir.Value:
    zero = lb.scalar(x.type, 0)
    return arith.maximumf(x, zero) if lb.is_float(x.type) else arith.maxsi(x, zero)


def _sigmoid(x: ir.Value) -> ir.Value:
    one = lb.scalar(x.type, 1.0)
    return arith.divf(one, arith.addf(one, mmath.exp(arith.negf(x))))


def _gelu(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    """0.5 x (1 + erf(x / √2)), or torch's 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))."""
    x, t = xs[0], xs[0].type
    if attrs["approximate"] == "tanh":
        cube = arith.mulf(arith.mulf(x, x), x)
        inner = arith.addf(x, arith.mulf(lb.scalar(t, 0.044715), cube))
        shape = mmath.tanh(arith.mulf(lb.scalar(t, np.sqrt(2.0 / np.pi)), inner))
    else:
        shape = mmath.erf(arith.divf(x, lb.scalar(t, np.sqrt(2.0))))
    half_x = arith.mulf(lb.scalar(t, 0.5), x)
    return arith.mulf(half_x, arith.addf(lb.scalar(t, 1.0), shape))


def _clamp(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    x = xs[0]
    if attrs["min"] is not None:
        x = arith.maximumf(x, lb.scalar(out, attrs["min"]))
    if attrs["max"] is not None:
        x = arith.minimumf(x, lb.scalar(out, attrs["max"]))
    return x


SCALAR: dict[str, Scalar] = {
    "add": _typed(arith.addf, arith.addi),
    "sub": _typed(arith.subf, arith.subi),
    "mul": _typed(arith.mulf, arith.muli),
    "div": _typed(arith.divf, arith.divsi),
    "max": _typed(arith.maximumf, arith.maxsi),
    "min": _typed(arith.minimumf, arith.minsi),
    "pow": _typed(mmath.powf, mmath.powf),
    "neg": _unary(_neg),
    "abs": _typed(mmath.absf, mmath.absi),
    "exp": _unary(mmath.exp),
    "log": _unary(mmath.log),
    "sqrt": _unary(mmath.sqrt),
    "rsqrt": _unary(mmath.rsqrt),
    "tanh": _unary(mmath.tanh),
    "sigmoid": _unary(_sigmoid),
    "relu": _unary(_relu),
    "erf": _unary(mmath.erf),
    "gelu": _gelu,
    "clamp": _clamp,
    "cast": lambda xs, out, attrs: convert(xs[0], out),
    "broadcast_to": lambda xs, out, attrs: xs[0],  # the broadcast is all in the indexing map
}

# ----------------------------------------------------------------------------- elementwise


def _name(op: ir.OpView | ir.Operation) -> str:
    return op.operation.name.removeprefix("versa.")


def _result(op: ir.OpView) -> tuple[lb.Shape, ir.Type]:
    t = ir.RankedTensorType(op.results[0].type)
    return tuple(t.shape), t.element_type


def lower_elementwise(op: ir.OpView, rewriter: Any) -> bool:
    """add(a, b) → linalg.generic{addf(a, b)} with broadcast maps; likewise every SCALAR op."""
    shape, element = _result(op)
    emit, attrs = SCALAR[_name(op)], OPS[op.operation.name].attrs(op)
    y = lb.elementwise(list(op.operands), shape, [element], lambda *xs: [emit(xs, element, attrs)])
    rewriter.replace_op(op, y)
    return True


def lower_fused(op: ir.OpView, rewriter: Any) -> bool:
    """fused{elementwise} → one linalg.generic; fused{epilogue, reduction} → its ops, inlined."""
    block = op.regions[0].blocks[0]
    if FusedOp.attrs(op)["kind"] == "elementwise":
        rewriter.replace_op(op, _fused_generic(op, block))
        return True
    env: dict[ir.Value, ir.Value] = {}  # region results → their clones; captures stay
    *body, terminator = block.operations
    for inner in body:
        clone = inner.operation.clone()
        for old in inner.operands:
            if old in env:
                clone.replace_uses_of_with(old, env[old])
        env.update(zip(inner.results, clone.results, strict=True))
    rewriter.replace_op(op, [env.get(v, v) for v in terminator.operands])
    return True


def _fused_generic(op: ir.OpView, block: ir.Block) -> list[ir.Value]:
    """The region's ops evaluated per point of the results' shape; dense constants are inputs."""
    shape = _result(op)[0]
    *body, terminator = block.operations
    sources = _captured(body)
    inputs = list(sources)
    for inner in body:
        _check_fusable(inner, shape)
        if _name(inner) == "constant" and not inner.attributes["value"].is_splat:
            sources.append(inner.results[0])
            inputs.append(arith.constant(inner.results[0].type, inner.attributes["value"]))

    def evaluate(*scalars: ir.Value) -> list[ir.Value]:
        env = dict(zip(sources, scalars, strict=True))
        for inner in body:
            if inner.results[0] not in env:
                env[inner.results[0]] = _scalar_op(inner, [env[v] for v in inner.operands])
        return [env[v] for v in terminator.operands]

    elements = [ir.RankedTensorType(r.type).element_type for r in op.results]
    return lb.elementwise(inputs, shape, elements, evaluate)


def _captured(body: list[ir.OpView]) -> list[ir.Value]:
    """Values the region reads from the enclosing block, in first-use order."""
    defined = {r for inner in body for r in inner.results}
    captured: list[ir.Value] = []
    for inner in body:
        captured += [v for v in inner.operands if v not in defined and v not in captured]
    return captured


def _check_fusable(inner: ir.OpView, shape: lb.Shape) -> None:
    name, own = _name(inner), lb.shape_of(inner.results[0])
    if name not in SCALAR and name != "constant":
        raise PassError(f"'versa.fused' of kind \"elementwise\" cannot hold '{inner.name}'",
                        inner.location)
    if len(own) > len(shape) or shapes.broadcast(own, shape) != shape:
        raise PassError(f"'{inner.name}' result shape {list(own)} does not broadcast to the "
                        f"fused result shape {list(shape)}", inner.location)


def _scalar_op(inner: ir.OpView, args: list[ir.Value]) -> ir.Value:
    element = lb.element_of(inner.results[0])
    if _name(inner) == "constant":
        return lb.scalar(element, inner.attributes["value"].get_splat_value().value)
    return SCALAR[_name(inner)](args, element, OPS[inner.name].attrs(inner))

# ----------------------------------------------------------------------------- contractions


def lower_matmul(op: ir.OpView, rewriter: Any) -> bool:
    """matmul → linalg.matmul (2-D), linalg.batch_matmul (equal 3-D batches) or a generic."""
    (shape, element), (a, b) = _result(op), op.operands
    init = lb.filled(shape, element, 0.0)
    if len(shape) == 2:
        y = linalg.matmul(a, b, outs=[init])
    elif len(shape) == 3 and lb.shape_of(a)[0] == lb.shape_of(b)[0] == shape[0]:
        y = linalg.batch_matmul(a, b, outs=[init])
    else:
        y = _broadcast_matmul(a, b, init)
    rewriter.replace_op(op, [y])
    return True


def _broadcast_matmul(a: ir.Value, b: ir.Value, init: ir.Value) -> ir.Value:
    """Loops (batch..., m, n, k); each operand's batch dims broadcast against the result's."""
    batch = lb.shape_of(init)[:-2]
    n_dims = len(batch) + 3
    m, n, k = (ir.AffineDimExpr.get(len(batch) + i) for i in range(3))

    def operand_map(v: ir.Value, inner: list[ir.AffineExpr]) -> ir.AffineMap:
        outer = lb.broadcast_map(lb.shape_of(v)[:-2], batch).results
        return ir.AffineMap.get(n_dims, 0, [*outer, *inner])

    maps = [operand_map(a, [m, k]), operand_map(b, [k, n]), lb.dims_map(n_dims, [*range(n_dims - 1)])]
    iterators = [lb.PARALLEL] * (n_dims - 1) + [lb.REDUCTION]
    body = lambda x, y, acc: [arith.addf(acc, arith.mulf(x, y))]  # noqa: E731
    return lb.generic([a, b], [init], maps, iterators, body)[0]


def lower_conv2d(op: ir.OpView, rewriter: Any) -> bool:
    """conv2d → tensor.pad + linalg.conv_2d_nchw_fchw / _nhwc_hwcf, or a generic for groups > 1."""
    attrs, (shape, element), (x, w) = Conv2dOp.attrs(op), _result(op), op.operands
    xp = _pad_spatial(x, attrs["padding"], attrs["layout"], lb.scalar(element, 0.0))
    init = lb.filled(shape, element, 0.0)
    if attrs["groups"] > 1:
        y = _grouped_conv(xp, w, init, attrs)
    else:
        named = linalg.conv_2d_nchw_fchw if attrs["layout"] == "NCHW" else linalg.conv_2d_nhwc_hwcf
        y = named(xp, w, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])
    rewriter.replace_op(op, [y])
    return True


def _grouped_conv(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """Loops (n, f, oh, ow, c, kh, kw); input channel = (f floordiv F/groups) * C/groups + c."""
    nchw, groups = attrs["layout"] == "NCHW", attrs["groups"]
    out_channels = lb.shape_of(init)[1 if nchw else 3]
    group_channels = lb.shape_of(w)[1 if nchw else 2]
    n, f, oh, ow, c, kh, kw = (ir.AffineDimExpr.get(i) for i in range(7))
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    channel = ir.AffineExpr.get_floor_div(f, out_channels // groups) * group_channels + c
    h, v = oh * sh + kh * dh, ow * sw + kw * dw
    if nchw:
        exprs = [[n, channel, h, v], [f, c, kh, kw], [n, f, oh, ow]]
    else:
        exprs = [[n, h, v, channel], [kh, kw, c, f], [n, oh, ow, f]]
    maps = [ir.AffineMap.get(7, 0, e) for e in exprs]
    iterators = [lb.PARALLEL] * 4 + [lb.REDUCTION] * 3
    body = lambda a, b, acc: [arith.addf(acc, arith.mulf(a, b))]  # noqa: E731
    return lb.generic([x, w], [init], maps, iterators, body)[0]


def _pad_spatial(x: ir.Value, padding: Sequence[int], layout: str, value: ir.Value) -> ir.Value:
    """Pad H and W by [top, left, bottom, right]."""
    top, left, bottom, right = padding
    if layout == "NCHW":
        return lb.pad(x, [0, 0, top, left], [0, 0, bottom, right], value)
    return lb.pad(x, [0, top, left, 0], [0, bottom, right, 0], value)


def lower_pool2d(op: ir.OpView, rewriter: Any) -> bool:
    """max_pool2d → pad(-inf) + linalg.pooling_*_max; avg_pool2d → pad(0) + pooling_*_sum / count."""
    attrs, (shape, element) = OPS[op.operation.name].attrs(op), _result(op)
    is_max, layout = _name(op) == "max_pool2d", attrs["layout"].lower()
    init_value = lb.lowest(element) if is_max else lb.scalar(element, 0.0)
    xp = _pad_spatial(op.operands[0], attrs["padding"], attrs["layout"], init_value)
    window = lb.empty(tuple(attrs["kernel"]), element)
    named = getattr(linalg, f"pooling_{layout}_{'max' if is_max else 'sum'}")
    y = named(xp, window, outs=[lb.filled(shape, element, init_value)], strides=attrs["strides"],
              dilations=[1, 1])
    if not is_max:
        counts = lb.dense(_window_counts(op, attrs))
        y = lb.elementwise([y, counts], shape, [element],
                           lambda s, n: [arith.divf(s, convert(n, element))])[0]
    rewriter.replace_op(op, [y])
    return True


def _window_counts(op: ir.OpView, attrs: dict[str, Any]) -> np.ndarray:
    """Unpadded elements per window, [OH, OW] (NCHW) or [OH, OW, 1] (NHWC), as float32."""
    _, h_dim, w_dim = shapes.spatial_dims(attrs["layout"])
    size, out = lb.shape_of(op.operands[0]), _result(op)[0]
    per_dim = []
    for dim, kernel, stride, low in zip((h_dim, w_dim), attrs["kernel"], attrs["strides"],
                                        attrs["padding"][:2], strict=True):
        starts = np.arange(out[dim]) * stride - low
        per_dim.append(np.minimum(starts + kernel, size[dim]) - np.maximum(starts, 0))
    counts = np.outer(*per_dim).astype(np.float32)
    return counts if attrs["layout"] == "NCHW" else counts[..., None]


# ----------------------------------------------------------------------------- reductions


def lower_reduce(op: ir.OpView, rewriter: Any) -> bool:
    """reduce_sum → generic{addf} over fill(0); reduce_max: maximumf over fill(-inf); mean: / n."""
    attrs, (shape, element), x = ReduceOp.attrs(op), _result(op), op.operands[0]
    source = lb.shape_of(x)
    axes = sorted(a % len(source) for a in attrs["axes"])
    kept = tuple(d for i, d in enumerate(source) if i not in axes)
    combine = SCALAR["max" if _name(op) == "reduce_max" else "add"]
    init = lb.lowest(element) if _name(op) == "reduce_max" else lb.scalar(element, 0.0)
    y = lb.reduce(x, axes, lb.filled(kept, element, init), lambda v, acc: combine([v, acc], element, {}))
    if _name(op) == "reduce_mean":
        count = lb.scalar(element, float(np.prod([source[a] for a in axes])))
        y = lb.elementwise([y], kept, [element], lambda v: [arith.divf(v, count)])[0]
    if attrs["keepdims"]:
        y = lb.expand(y, shape, _keepdims_groups(len(source), axes))
    rewriter.replace_op(op, [y])
    return True


def _keepdims_groups(rank: int, axes: Sequence[int]) -> list[list[int]]:
    """expand_shape reassociation re-inserting the size-1 `axes` next to the kept dims."""
    groups: list[list[int]] = []
    leading: list[int] = []
    for d in range(rank):
        if d not in axes:
            groups.append([*leading, d])
            leading = []
        elif groups:
            groups[-1].append(d)
        else:
            leading.append(d)
    return groups


def lower_softmax(op: ir.OpView, rewriter: Any) -> bool:
    """softmax(x) → e / reduce_sum(e) with e = exp(x - reduce_max(x)), as versa ops."""
    x, axis = op.operands[0], SoftmaxOp.attrs(op)["axis"]
    keep = {"axes": ir.DenseI64ArrayAttr.get([axis]), "keepdims": ir.BoolAttr.get(True)}
    e = ExpOp.build([SubOp.build([x, ReduceMaxOp.build([x], keep)], {})], {})
    rewriter.replace_op(op, [DivOp.build([e, ReduceSumOp.build([e], keep)], {})])
    return True


def lower_layer_norm(op: ir.OpView, rewriter: Any) -> bool:
    """layer_norm → (x - mean) / sqrt(var + eps) * gamma + beta, as versa ops."""
    (x, gamma, beta), attrs = op.operands, LayerNormOp.attrs(op)
    rank = len(lb.shape_of(x))
    axes = list(range(attrs["axis"] % rank, rank))
    keep = {"axes": ir.DenseI64ArrayAttr.get(axes), "keepdims": ir.BoolAttr.get(True)}
    centred = SubOp.build([x, ReduceMeanOp.build([x], keep)], {})
    var = ReduceMeanOp.build([MulOp.build([centred, centred], {})], keep)
    eps_type = ir.RankedTensorType.get([], lb.element_of(x))
    eps_value = ir.DenseElementsAttr.get_splat(eps_type, ir.FloatAttr.get(eps_type.element_type, attrs["epsilon"]))
    eps = ConstantOp.build([], {"value": eps_value}, eps_type)
    normed = DivOp.build([centred, SqrtOp.build([AddOp.build([var, eps], {})], {})], {})
    rewriter.replace_op(op, [AddOp.build([MulOp.build([normed, gamma], {}), beta], {})])
    return True


def lower_batch_norm(op: ir.OpView, rewriter: Any) -> bool:
    """batch_norm → linalg.generic{(x - mean) / sqrt(var + eps) * scale + bias}, params on C."""
    attrs, (shape, element) = BatchNormOp.attrs(op), _result(op)
    channel = shapes.spatial_dims(attrs["layout"])[0]
    maps = [ir.AffineMap.get_identity(4)] + [lb.dims_map(4, [channel])] * 4
    maps.append(ir.AffineMap.get_identity(4))
    eps = lb.scalar(element, attrs["epsilon"])

    def body(x: ir.Value, scale: ir.Value, bias: ir.Value, mean: ir.Value, var: ir.Value,
             _: ir.Value) -> list[ir.Value]:
        normed = arith.divf(arith.subf(x, mean), mmath.sqrt(arith.addf(var, eps)))
        return [arith.addf(arith.mulf(normed, scale), bias)]

    y = lb.generic(list(op.operands), [lb.empty(shape, element)], maps, [lb.PARALLEL] * 4, body)
    rewriter.replace_op(op, y)
    return True


# ----------------------------------------------------------------------------- data movement


def lower_transpose(op: ir.OpView, rewriter: Any) -> bool:
    """transpose(x) → linalg.transpose."""
    (shape, element), perm = _result(op), TransposeOp.attrs(op)["perm"]
    y = linalg.transpose(op.operands[0], outs=[lb.empty(shape, element)], permutation=perm)
    rewriter.replace_op(op, [y.results[0]])
    return True


def lower_reshape(op: ir.OpView, rewriter: Any) -> bool:
    """reshape(x) → tensor.collapse_shape to 1-D + tensor.expand_shape."""
    rewriter.replace_op(op, [lb.reshape(op.operands[0], _result(op)[0])])
    return True


def lower_concat(op: ir.OpView, rewriter: Any) -> bool:
    """concat(x1, ..., xn) → tensor.empty + one tensor.insert_slice per operand."""
    (shape, element), axis = _result(op), ConcatOp.attrs(op)["axis"] % len(_result(op)[0])
    y, offset = lb.empty(shape, element), 0
    for x in op.operands:
        sizes = lb.shape_of(x)
        offsets = [offset if d == axis else 0 for d in range(len(shape))]
        y = tensor.insert_slice(x, y, [], [], [], offsets, list(sizes), [1] * len(shape))
        offset += sizes[axis]
    rewriter.replace_op(op, [y])
    return True


def lower_slice(op: ir.OpView, rewriter: Any) -> bool:
    """slice(x) → tensor.extract_slice with the starts and strides."""
    attrs, (shape, _) = SliceOp.attrs(op), _result(op)
    y = tensor.extract_slice(op.results[0].type, op.operands[0], [], [], [], attrs["starts"],
                             list(shape), attrs["strides"])
    rewriter.replace_op(op, [y])
    return True


def lower_pad(op: ir.OpView, rewriter: Any) -> bool:
    """pad(x) → tensor.pad yielding the constant."""
    attrs, (_, element) = PadOp.attrs(op), _result(op)
    value = lb.scalar(element, attrs["value"])
    rewriter.replace_op(op, [lb.pad(op.operands[0], attrs["low"], attrs["high"], value)])
    return True


def lower_constant(op: ir.OpView, rewriter: Any) -> bool:
    """constant → arith.constant."""
    rewriter.replace_op(op, [arith.constant(op.results[0].type, op.attributes["value"])])
    return True


# ----------------------------------------------------------------------------- the pass

PATTERNS: list[tuple[type, Pattern]] = [
    *((OPS[f"versa.{name}"], lower_elementwise) for name in SCALAR),
    (MatmulOp, lower_matmul),
    (Conv2dOp, lower_conv2d),
    (MaxPool2dOp, lower_pool2d),
    (AvgPool2dOp, lower_pool2d),
    (ReduceSumOp, lower_reduce),
    (ReduceMaxOp, lower_reduce),
    (ReduceMeanOp, lower_reduce),
    (SoftmaxOp, lower_softmax),
    (LayerNormOp, lower_layer_norm),
    (BatchNormOp, lower_batch_norm),
    (TransposeOp, lower_transpose),
    (ReshapeOp, lower_reshape),
    (ConcatOp, lower_concat),
    (SliceOp, lower_slice),
    (PadOp, lower_pad),
    (ConstantOp, lower_constant),
]


def _outside_fused(fn: Pattern) -> Pattern:
    """Leave the ops of a fused region to `lower_fused`, which needs them as versa ops."""
    def pattern(op: ir.OpView, rewriter: Any) -> bool:
        parent = op.operation.parent
        return (parent is None or parent.name != "versa.fused") and fn(op, rewriter)

    pattern.__name__ = fn.__name__
    return pattern


@dataclass(frozen=True)
class ConvertVersaToLinalg(Pass):
    name = "convert-versa-to-linalg"
    summary = "Lower versa ops to linalg, tensor, arith and math on tensors"

    def run(self, module: ir.Operation) -> None:
        table = [(root, _outside_fused(fn)) for root, fn in PATTERNS]
        apply_greedily(module, [*table, (FusedOp, lower_fused)])
        left: list[ir.Operation] = []

        def find(op: ir.Operation) -> ir.WalkResult:
            if op.name.startswith("versa."):
                left.append(op)
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        module.walk(find, ir.WalkOrder.PRE_ORDER)
        if left:
            raise PassError(f"failed to lower '{left[0].name}'", left[0].location)
