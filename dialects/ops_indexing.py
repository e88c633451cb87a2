"""Indexing and scan ops: gather, scatter, iota, reduce_argmax, cumsum, and conv_transpose2d.

    %e = "versa.gather"(%table, %ids) {axis = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>)
         -> tensor<2x5x16xf32>                                     // embedding, index_select
    %g = "versa.scatter"(%zeros, %ids, %grad) {reduction = "add"}
         : (tensor<100x16xf32>, tensor<10x1xi64>, tensor<10x16xf32>) -> tensor<100x16xf32>
    %p = "versa.iota"() {axis = 1 : i64} : () -> tensor<2x8xi64>     // torch.arange, broadcast
    %a = "versa.reduce_argmax"(%x) {axis = -1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
    %c = "versa.cumsum"(%x) {axis = 1 : i64} : (tensor<4x10xi64>) -> tensor<4x10xi64>
    %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>}
         : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x11x11xf32>

Gather indices are i32 or i64. A negative index wraps once (i + n, as NumPy and torch), and
an index still out of [0, n) is clamped to it: the reference semantics and the compiled code
agree on every input, and compiled code never reads out of bounds. Scatter wraps the same way,
but drops an update whose index is still out of range: clamping would pile it onto an edge row
that it does not belong to; dropped, it changes nothing, and compiled code never writes out of
bounds either.
"""

from typing import Any

from versa.mlir import ext

from . import shapes
from .attributes import Bool, Int, Ints, OneOf
from .core import INDEX_TYPES, Tensor, VersaOp


class GatherOp(VersaOp, name="gather", traits=[ext.Pure]):
    """np.take(input, clamp(wrap(indices)), axis): an embedding (axis 0) or index_select."""

    ATTRS = {"axis": Int()}
    input: ext.Operand[Tensor]
    indices: ext.Operand[Tensor]
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.gather(operands[0], operands[1], attrs["axis"])

    @classmethod
    def check_element_types(cls, operands, results):
        element, index = results[0].element_type, operands[1].element_type
        shapes.require(
            operands[0].element_type == element,
            f"input element type {operands[0].element_type} differs from the result's {element}",
        )
        shapes.require(
            str(index) in INDEX_TYPES, f"indices element type must be {' or '.join(INDEX_TYPES)}, got {index}"
        )


class ScatterOp(VersaOp, name="scatter", traits=[ext.Pure]):
    """ONNX ScatterND: a copy of `input` with the rows named by `indices` replaced or combined.

    The last dim of `indices` (k of them) holds coordinates into input's leading k dims; each
    of the prod(indices.shape[:-1]) index rows addresses the sub-tensor input[i0, ..., ik-1]
    of shape input.shape[k:], and `updates` has shape indices.shape[:-1] + input.shape[k:].
    Rows apply in order: with `reduction` "none" the last of duplicate indices wins, "add",
    "max" and "min" combine them with what is there (np.add.at, np.maximum.at, np.minimum.at).
    This one form covers torch's ops without a per-op variant: index_add and embedding backward
    use k = 1 and whole rows; scatter/scatter_add/scatter_reduce (elementwise along one dim)
    and index_put (several index tensors) use coordinates for every dim up to the last indexed
    one, built from the index tensors and iotas by the frontend."""

    ATTRS = {"reduction": OneOf(("none", "add", "max", "min"), default="none")}
    input: ext.Operand[Tensor]
    indices: ext.Operand[Tensor]
    updates: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.scatter(operands[0], operands[1], operands[2])

    @classmethod
    def check(cls, op):
        super().check(op)
        cls.check_reduction(cls.attrs(op)["reduction"], op.results[0].type.element_type)

    @classmethod
    def check_reduction(cls, reduction: str, element: Any) -> None:
        """Combining rows needs arithmetic: i1 takes only "none"."""
        shapes.require(
            reduction == "none" or str(element) != "i1",
            f"reduction '{reduction}' needs a numeric element type, got {element}",
        )

    @classmethod
    def check_element_types(cls, operands, results):
        element, (x, index, updates) = results[0].element_type, operands
        for what, t in (("input", x), ("updates", updates)):
            shapes.require(
                t.element_type == element,
                f"{what} element type {t.element_type} differs from the result's {element}",
            )
        shapes.require(
            str(index.element_type) in INDEX_TYPES,
            f"indices element type must be {' or '.join(INDEX_TYPES)}, got {index.element_type}",
        )


class IotaOp(VersaOp, name="iota", traits=[ext.Pure]):
    """Element i of the result is its index along `axis` (np.arange, broadcast).

    Without operands the result type is static. A result with dynamic dims (`arange(x.size(1))`
    under dynamic shapes) reads them off an operand, `like`, whose values are never read:
    `dims` has one entry per result dim, a dim of `like` or -1 for a static dim of the result
    type. `"versa.iota"(%x) {axis = 0, dims = array<i64: 1>} : (tensor<?x?xi64>) -> tensor<?xi64>`
    is arange(x.shape[1]), sized per call as every other op's result."""

    NUMERIC = True
    ATTRS = {"axis": Int(), "dims": Ints(None, default=None)}
    like: ext.Operand[Tensor] | None
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        shapes.require(declared is not None, "the result type must be given")
        shapes.require(len(declared) >= 1, "result must have rank >= 1")
        shapes.normalize_axis(attrs["axis"], len(declared))
        dims = attrs["dims"]
        if not operands:
            shapes.require(dims is None, "attribute 'dims' needs a 'like' operand to read dims from")
            shapes.require(shapes.is_static(declared), "the result shape must be static (no 'like' operand)")
            return tuple(declared)
        like = operands[0]
        shapes.require(dims is not None, "requires attribute 'dims' with a 'like' operand")
        shapes.require(
            len(dims) == len(declared), f"'dims' has {len(dims)} entries for a result of rank {len(declared)}"
        )
        out = []
        for i, d in enumerate(dims):
            shapes.require(
                -1 <= d < len(like), f"'dims' entry {d} is no dim of 'like' (rank {len(like)}) nor -1"
            )
            shapes.require(
                d >= 0 or declared[i] is not None, f"result dim {i} is dynamic, but 'dims' gives it -1"
            )
            out.append(like[d] if d >= 0 else declared[i])
        return tuple(out)

    @classmethod
    def check_element_types(cls, operands, results):
        cls.check_category(results[0].element_type)


class ReduceArgmaxOp(VersaOp, name="reduce_argmax", traits=[ext.Pure]):
    """np.argmax over one axis: the first index of the maximum (a NaN counts as the maximum), i64."""

    NUMERIC = True
    ATTRS = {"axis": Int(), "keepdims": Bool(default=False)}
    input: ext.Operand[Tensor]
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        x = operands[0]
        axis = shapes.normalize_axis(attrs["axis"], len(x))
        # a `?` axis is checked per call (the same rule on the call's sizes)
        shapes.require(x[axis] is None or x[axis] >= 1, f"cannot take the argmax over dim {axis} of size 0")
        return shapes.reduce(x, [axis], attrs["keepdims"])

    @classmethod
    def check_element_types(cls, operands, results):
        result = results[0].element_type
        shapes.require(str(result) == "i64", f"result element type must be i64, got {result}")
        cls.check_category(operands[0].element_type)


class CumsumOp(VersaOp, name="cumsum", traits=[ext.Pure]):
    """np.cumsum along `axis`: same shape and element type (f16/bf16 accumulate in f32)."""

    NUMERIC = True
    ATTRS = {"axis": Int()}
    input: ext.Operand[Tensor]
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        shapes.normalize_axis(attrs["axis"], len(operands[0]))
        return operands[0]


class ConvTranspose2dOp(VersaOp, name="conv_transpose2d", traits=[ext.Pure]):
    """torch.nn.functional.conv_transpose2d, NCHW: the input is [N, C, H, W], the filter
    [C, F/groups, KH, KW]; padding is [top, left, bottom, right] (torch's `padding=p` is
    [p, p, p, p]) and crops the output; output_padding [h, w] extends its bottom and right."""

    FLOAT_ONLY = True
    ATTRS = {
        "strides": Ints(2, default=[1, 1], minimum=1),
        "padding": Ints(4, default=[0, 0, 0, 0], minimum=0),
        "output_padding": Ints(2, default=[0, 0], minimum=0),
        "dilations": Ints(2, default=[1, 1], minimum=1),
        "groups": Int(default=1, positive=True),
    }
    input: ext.Operand[Tensor]
    filter: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.conv_transpose2d(
            operands[0],
            operands[1],
            attrs["strides"],
            attrs["padding"],
            attrs["output_padding"],
            attrs["dilations"],
            attrs["groups"],
        )
