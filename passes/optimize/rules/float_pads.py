"""An explicit zero padding before a conv2d, moved into the conv's own padding.

Models that pad by hand (HF MobileNetV2's TensorFlow-style "same" padding before each 3x3
conv: 1 on each side at stride 1, 0 before and 1 after at stride 2) reach versa as

    %p = pad(%x, low, high, 0.0)                H and W only
    %y = conv2d(%p, %w) {padding = P}
  → fold_zero_pad
    %y = conv2d(%x, %w) {padding = P + (low, high)}

The pad may sit behind a transpose (versa-layout moves an NCHW model's input to NHWC after
the pad: the stem conv's), which the pad's sides follow:

    %y = conv2d(transpose(pad(%x, low, high, 0.0), perm))
  → %y = conv2d(transpose(%x, perm)) {padding = P + (low, high)[perm]}

Exact: conv2d pads its input with zeros, so it reads the same values (a window wholly in the
padding sums +0 either way). It matters for speed: the pad is a full copy of a large
activation (113x113x96 f32 in MobileNetV2: as many bytes as the depthwise conv reads), while
the conv's own padding reads the interior in place and copies only thin border strips
(`window_builders._regions`). `quantized_pads.py` is the same move for qconv2d.

Refused: a non-zero pad value (the conv pads with zeros), a pad of the batch or channel dims
or a negative one (a crop), and a pad or transpose with other users (it stays computed for
them; the conv's own padding would then copy the input a second time).
"""

from versa.dialects import builders as vb
from versa.dialects.versa import Conv2dOp, PadOp, TransposeOp
from versa.mlir import ir, rewrite

from ...common.matching import has_one_use, producer

Rewriter = rewrite.PatternRewriter


def conv_padding(pad: ir.OpView, conv: dict, perm: list[int] | None = None) -> list[int] | None:
    """The conv's padding (top, left, bottom, right) with `pad`'s H and W sides added, the pad
    seen through a transpose by `perm` where given; None where the pad also pads the batch or
    channel dims or crops (a negative side). Shared with `quantized_pads.fold_padding`."""
    attrs = PadOp.attrs(pad)
    h, w = (2, 3) if conv["layout"] == "NCHW" else (1, 2)
    low, high = attrs["low"], attrs["high"]
    if perm is not None:  # result dim i is the pad's dim perm[i]
        low, high = [low[p] for p in perm], [high[p] for p in perm]
    if min(*low, *high) < 0 or any(low[d] or high[d] for d in range(len(low)) if d not in (h, w)):
        return None
    top, left, bottom, right = conv["padding"]
    return [top + low[h], left + low[w], bottom + high[h], right + high[w]]


def fold_zero_pad(op: ir.OpView, rewriter: Rewriter) -> bool:
    """conv2d([transpose](pad(x, low, high, 0))) → conv2d([transpose](x)) with (low, high)
    added to its padding."""
    source, perm = op.operands[0], None
    transpose = producer(source, "versa.transpose")
    if transpose is not None and has_one_use(transpose.results[0]):
        source, perm = transpose.operands[0], list(TransposeOp.attrs(transpose)["perm"])
    pad = producer(source, "versa.pad")
    if pad is None or not has_one_use(pad.results[0]):
        return False
    padding = conv_padding(pad, Conv2dOp.attrs(op), perm)
    if PadOp.attrs(pad)["value"] != 0.0 or padding is None:
        return False
    attributes = dict(op.operation.attributes.items())
    attributes["padding"] = ir.DenseI64ArrayAttr.get(padding)
    x = pad.operands[0] if perm is None else vb.transpose(pad.operands[0], perm=perm)
    moved = Conv2dOp.build([x, *op.operands[1:]], attributes, op.results[0].type)
    rewriter.replace_op(op, [moved])
    return True


PATTERNS = [(Conv2dOp, fold_zero_pad)]
