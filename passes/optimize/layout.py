"""versa-layout{layout=nhwc|nchw}: every conv2d, max/avg_pool2d and batch_norm in one data
layout, with the transposes this needs moved to the function boundary.

Each op in the other layout is wrapped in a transpose pair and rewritten in the requested one
(NCHW → NHWC: input perm [0, 2, 3, 1], result back with [0, 3, 1, 2]); a conv filter goes from
[F, C/groups, KH, KW] to [KH, KW, C/groups, F] (perm [2, 3, 1, 0]), at compile time when it is a
`versa.constant` (a filter argument keeps a transpose of its own, small next to the conv). The
pairs between two converted ops cancel, and `transpose_motion` sinks the rest through elementwise
ops, reductions, softmax, concat, slice and pad, or hoists them to the arguments:

    %t = "versa.conv2d"(%x, %w) {padding = array<i64: 1, 1, 1, 1>}                         NCHW
    %y = "versa.relu"(%t)
  becomes
    %xt = "versa.transpose"(%x) {perm = array<i64: 0, 2, 3, 1>}
    %t = "versa.conv2d"(%xt, %w') {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>}
    %r = "versa.relu"(%t)
    %y = "versa.transpose"(%r) {perm = array<i64: 0, 3, 1, 2>}

So a whole NCHW conv net keeps one transpose after its input and one before its return; a net
already in the requested layout is left as it is. Motion stops at ops it cannot see through
(the reshape before a linear layer, matmul, layer_norm, ...): the transpose stays there, which
is correct, only slower. conv_transpose2d has no layout attribute and stays NCHW.

Quantized nets (PT2E, ONNX QDQ after `fold_quantized`) move the same way: `qconv2d` is converted
as conv2d is (its int8 constant filter permuted at compile time), and transposes sink through
quantize, dequantize and requantize, a per-channel one's `axis` following the perm, so the
integer convs reach `versa-int8-kernels`, which takes NHWC convs only, and the ui8 activations
between them stay NHWC (NCHW qconvs would keep the slow portable path).
"""

from dataclasses import dataclass

from versa import targets
from versa.dialects.build_support import i64
from versa.dialects.versa import LAYOUTS, OPS, BatchNormOp, Conv2dOp, DequantizeOp, QConv2dOp, TransposeOp
from versa.mlir import ir, rewrite

from ..common.base import Pass, PassError, collect, target_option
from ..common.matching import constant_attr, producer
from ..common.rewrite import Pattern, apply_greedily
from .rules.transpose_motion import PATTERNS as MOTION_PATTERNS
from .rules.transpose_motion import inverse, permuted_type, permuted_value, transpose, transposed_operand

TO_LAYOUT = {"NHWC": [0, 2, 3, 1], "NCHW": [0, 3, 1, 2]}  # activation perm from the other layout
FILTER_TO_LAYOUT = {"NHWC": [2, 3, 1, 0], "NCHW": [3, 2, 0, 1]}  # FCHW → HWCF and back
CONVS = (Conv2dOp, QConv2dOp)
LAYOUT_OPS = [*CONVS, OPS["versa.max_pool2d"], OPS["versa.avg_pool2d"], BatchNormOp]
AFFINE_OPS = [OPS[f"versa.{name}"] for name in ("quantize", "dequantize", "requantize")]


def convert_to(layout: str) -> Pattern:
    """op(x, ...) in the other layout → transpose(op'(transpose(x), ...), back) in `layout`."""
    to_layout = TO_LAYOUT[layout]

    def convert(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
        cls = OPS[op.operation.name]
        if cls.attrs(op)["layout"] == layout or not _transposable(op.operands[0]):
            return False
        if cls in CONVS and not (constant_attr(op.operands[1]) is not None or _transposable(op.operands[1])):
            return False  # a ui8 filter argument: no transpose for it
        operands = [transpose(op.operands[0], to_layout), *op.operands[1:]]
        if cls in CONVS:
            operands[1] = permuted_value(operands[1], FILTER_TO_LAYOUT[layout])
        attrs = dict(op.operation.attributes.items())
        attrs["layout"] = ir.StringAttr.get(layout)
        result_type = op.results[0].type
        converted = cls.build(operands, attrs, permuted_type(result_type, to_layout))
        rewriter.replace_op(op, [transpose(converted, inverse(to_layout))])
        return True

    convert.__name__ = f"convert_to_{layout.lower()}"
    return convert


@dataclass(frozen=True)
class VersaLayout(Pass):
    name = "versa-layout"
    summary = "Put conv/pool/batch_norm in one data layout; keep transposes at the function boundary"
    layout: str = ""  # nhwc or nchw; "" = the one the target's conv codegen is fastest with
    target: targets.Target = target_option(kind=None)  # CPU or GPU: its conv layout

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.layout and self.layout.upper() not in LAYOUTS:
            raise PassError(f"'versa-layout' layout '{self.layout}' is not one of nhwc, nchw")

    def run(self, module: ir.Operation) -> None:
        layout = (self.layout or self.target.conv_layout).upper()
        lanes = self.target.lanes(32)
        if not self.layout and not _has_conv_to_convert(module, layout, lanes):
            return  # the target's choice pays off for convolutions; pools and norms alone keep theirs
        convert = convert_to(layout)
        table = [
            *((cls, convert) for cls in LAYOUT_OPS),
            *((cls, sink_through_affine) for cls in AFFINE_OPS),
            *MOTION_PATTERNS,
        ]
        apply_greedily(module, [(root, _outside_groups(fn)) for root, fn in table])
        if _unsigned_transposes(module):  # versa.transpose takes no ui8: move those left above
            table = [(TransposeOp, hoist_above_affine), (DequantizeOp, sink_through_affine), *MOTION_PATTERNS]
            apply_greedily(module, [(root, _outside_groups(fn)) for root, fn in table])


def sink_through_affine(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """op(transpose(a, p), s, z, axis k) → transpose(op(a, s, z, axis p[k]), p) for quantize,
    dequantize and requantize: elementwise but for per-channel parameters, which follow the
    channel dim wherever the perm puts it (a per-tensor op has no axis to move)."""
    moving = transposed_operand(op.operands[0])
    if moving is None:
        return False
    source, perm = moving
    cls = OPS[op.operation.name]
    attrs = dict(op.operation.attributes.items())
    if op.operands[1].type.rank:
        attrs["axis"] = i64(perm[cls.attrs(op)["axis"] % len(perm)])
    operands = [source, *op.operands[1:]]
    inner = cls.build(operands, attrs, permuted_type(op.results[0].type, inverse(perm)))
    rewriter.replace_op(op, [transpose(inner, perm)])
    return True


def hoist_above_affine(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """transpose(quantize(a, s, z, axis k), p) → quantize(transpose(a, p), s, z, axis p⁻¹[k])
    for a ui8 result (requantize alike): the first round sinks transposes through quantize ops
    and leaves ui8 transposes where a quantized value has users in both layouts (the image
    after the model's first quantize), which versa.transpose does not take; this moves them
    onto the f32 or i32 value before, at the cost of a second quantize where the first has
    other users."""
    if str(op.results[0].type.element_type) != "ui8":
        return False
    found = [producer(op.operands[0], f"versa.{name}") for name in ("quantize", "requantize")]
    source = next((s for s in found if s is not None), None)
    if source is None:
        return False
    perm = TransposeOp.attrs(op)["perm"]
    cls = OPS[source.operation.name]
    attrs = dict(source.operation.attributes.items())
    if source.operands[1].type.rank:
        attrs["axis"] = i64(inverse(perm)[cls.attrs(source)["axis"] % len(perm)])
    operands = [transpose(source.operands[0], perm), *source.operands[1:]]
    rewriter.replace_op(op, [cls.build(operands, attrs, op.results[0].type)])
    return True


def _transposable(value: ir.Value) -> bool:
    """Whether a conv input may get a transpose: versa.transpose takes no ui8, so a ui8 one
    must come from a quantize or requantize, above which `hoist_above_affine` can move it (a
    ui8 function argument cannot be transposed: that qconv2d keeps its layout; so does one whose
    filter is a ui8 argument, found by the quantized fuzzer)."""
    if str(value.type.element_type) != "ui8":
        return True
    return any(producer(value, f"versa.{name}") is not None for name in ("quantize", "requantize"))


def _unsigned_transposes(module: ir.Operation) -> bool:
    def unsigned(op: ir.Operation) -> bool:
        return op.name == "versa.transpose" and str(op.results[0].type.element_type) == "ui8"

    return bool(collect(module, unsigned))


def _has_conv_to_convert(module: ir.Operation, layout: str, lanes: int) -> bool:
    """Whether a conv2d or qconv2d outside fused groups is in the other layout (a lone
    batch_norm or pool converted would only add two transposes around it). A grouped NCHW conv
    (not depthwise) with unit column stride and rows of at least two vectors does not count:
    its group loop reads each group's channels as contiguous planes and runs about as fast as
    in NHWC (g32 1x256x56: 0.78 vs 0.68 ms), so alone it does not pay for the two transposes
    (another 0.6 ms there). Narrower rows leave lanes idle (1x512x28: 1.03 vs 0.64 ms)."""

    def wants(op: ir.Operation) -> bool:
        parent = op.parent
        outside = parent is None or parent.name != "versa.fused"
        if (
            op.name not in ("versa.conv2d", "versa.qconv2d")
            or not outside
            or not _transposable(op.operands[0])
        ):
            return False
        attrs = OPS[op.name].attrs(op)
        return attrs["layout"] != layout and not _fine_in_nchw(op, attrs, lanes)

    return bool(collect(module, wants))


def _outside_groups(fn: Pattern) -> Pattern:
    """Leave the ops of `versa.fused` groups alone: a transpose inside a group would break its
    single loop nest (versa-layout belongs before versa-fuse)."""

    def pattern(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
        parent = op.operation.parent
        return (parent is None or parent.name != "versa.fused") and fn(op, rewriter)

    pattern.__name__ = fn.__name__
    return pattern


def _fine_in_nchw(op: ir.Operation, attrs: dict, lanes: int) -> bool:
    """A grouped NCHW conv, not depthwise, unit column stride, rows of 2+ vectors (see above)."""
    channels = ir.RankedTensorType(op.operands[0].type).shape[1]
    _, filters, _, columns = ir.RankedTensorType(op.results[0].type).shape
    groups = attrs["groups"]
    depthwise = groups == channels and filters % channels == 0
    plain = attrs["strides"][1] == 1 and columns >= 2 * lanes
    return attrs["layout"] == "NCHW" and 1 < groups and not depthwise and plain
