"""What `versa-fuse` may put in one group: the op classes and the legality of one merge.

A group is one loop nest. It has at most one *anchor*, the op whose loops the group runs:

    anchor                       kind          producers join   consumers join
    matmul (batched), conv2d     "epilogue"    no (read K times)  yes: bias, activation, residual, scale
    qmatmul, qconv2d             "epilogue"    no                 yes: bias, requantize, dequantize, ...
    reduce_sum/max/mean          "reduction"   yes               no (the reduced shape is another nest)
    batch_norm                   "reduction"   yes               yes (per-channel, same shape)

softmax and layer_norm are not anchors: each is one kernel of its own that reads its input once
(versa-row-kernels), and a single-use elementwise group (or op) feeding it or reading its result
is evaluated inside that kernel, per vector (`row_producers.py`).
Without an anchor a group is kind "elementwise". Elementwise ops join when the loop nest allows
it: a consumer has the shape of the group's nest, a producer has that shape or is cheap and
broadcast (recomputed per point: one more instruction, one buffer less). quantize, dequantize
and requantize join as elementwise ops (their per-channel scales and zero points stay outside,
as a normalisation's parameters), so an integer contraction's i32 result becomes its 8-bit
output in one nest. A dequantize does not join the group of a contraction (or a group holding
one) when its only user could take it: it widens 1 byte to 4, so computing it where it is read
stores the byte rather than the float (the residual of an INT8 ResNet block).

Dynamic dims (`?`) fuse like static ones: a group's loop bounds are read at run time, and a
`?` never stretches in a broadcast (the dialect's rule, checked per call), so a value whose
dim is `?` has one element per point of the nest along it (`same_points`). The one case that
cannot be decided before a call is a static 1 (or a missing leading dim) facing a `?` of the
nest: a broadcast where that size is above 1, none where it is 1. A cheap producer fuses
there as it does under any broadcast; an expensive one is refused (DYNAMIC,
`differs_at_dynamic`): it would be recomputed along that dim at every size above 1.
"""

from versa.dialects.versa import OPS
from versa.mlir import ir

EPILOGUE_ANCHORS = ("versa.matmul", "versa.conv2d", "versa.qmatmul", "versa.qconv2d")
REDUCTION_ANCHORS = (
    "versa.reduce_sum",
    "versa.reduce_max",
    "versa.reduce_mean",
    "versa.batch_norm",
)
# Anchors whose result has the loop nest's shape: elementwise consumers run in the same nest.
TAKES_CONSUMERS = (*EPILOGUE_ANCHORS, "versa.batch_norm")
# Anchors that read every operand element once per result point of their own shape: an
# elementwise producer of that operand can be computed on the fly (a contraction re-reads its
# operands K times, so its producers are never fused).
TAKES_PRODUCERS = REDUCTION_ANCHORS

# Why a merge is refused (`producer_refusal`, `consumer_refusal`, fuse.py's own checks): the
# codes of versa-fuse's remarks, which say each in words with its numbers.
CONTRACTION = "contraction"  # a contraction re-reads its operands: its producers stay out
PARAMETER = "parameter"  # a normalisation's per-channel parameters
BROADCAST_EXPENSIVE = "broadcast-expensive"  # another shape, and not cheap to recompute per point
MORE_DIMS = "more-dims"  # the producer has more dims than the consumer's nest
NOT_ELEMENTWISE = "not-elementwise"
REDUCED = "reduced"  # a reduce_*'s consumers run over the reduced shape
OTHER_SHAPE = "other-shape"  # the consumer's shape is not the anchor's
GROUP_EXPENSIVE = "group-expensive"  # a broadcast producer whose group holds an expensive op
OTHER_USERS = "other-users"  # the producer has users outside the consumer's group
COPIES_LIMIT = "copies-limit"  # a cheap producer with more users than duplicate-limit
STRANDS = "strands"  # copying a cheap producer would leave its expensive producer shared
USER_CANNOT = "user-cannot"  # a user of a cheap producer cannot compute it in its nest
TOO_LARGE = "too-large"  # the merged group would exceed max-ops
TWO_ANCHORS = "two-anchors"  # both groups have an anchor
DYNAMIC = "dynamic"  # an expensive producer that a `?` of the nest may broadcast (1 against `?`)
WIDENS = "widens"  # a dequantize is cheaper read by its user than stored as floats

# One instruction per element, no libm-class math: worth recomputing instead of storing.
CHEAP = (
    "versa.add",
    "versa.sub",
    "versa.mul",
    "versa.max",
    "versa.min",
    "versa.neg",
    "versa.abs",
    "versa.relu",
    "versa.clamp",
    "versa.cast",
    "versa.compare",
    "versa.select",
    "versa.and",
    "versa.or",
    "versa.not",
)


def is_elementwise(op: ir.Operation) -> bool:
    """Computed point by point: an ELEMENTWISE op, or a quantize/dequantize/requantize."""
    cls = OPS.get(op.name)
    return cls is not None and (cls.ELEMENTWISE or cls.POINTWISE)


def has_parameters(op: ir.Operation) -> bool:
    """quantize, dequantize, requantize: operands 1 and 2 are per-tensor or per-channel."""
    cls = OPS.get(op.name)
    return cls is not None and cls.POINTWISE


def is_anchor(op: ir.Operation) -> bool:
    return op.name in EPILOGUE_ANCHORS or op.name in REDUCTION_ANCHORS


def is_cheap(op: ir.Operation) -> bool:
    return op.name in CHEAP


def kind_of(anchor: ir.Operation | None) -> str:
    if anchor is None:
        return "elementwise"
    return "epilogue" if anchor.name in EPILOGUE_ANCHORS else "reduction"


def shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def nest_shape(op: ir.Operation) -> list[int]:
    """The iteration space an op contributes to a group: its first operand's shape for a
    reduction anchor (the reduced dims are loops too), else its result's shape."""
    if op.name in REDUCTION_ANCHORS:
        return shape(op.operands[0])
    return shape(op.results[0])


def ranked_tensor(value: ir.Value) -> bool:
    """A tensor of known rank, its dims static or `?`: what a loop nest can run over (a `?`
    is a loop bound read at run time)."""
    return isinstance(value.type, ir.RankedTensorType)


def _same_dim(produced: int, nest: int) -> bool:
    """Whether a value's dim has exactly the nest's size along it: equal, or the value's dim
    `?` (it never stretches, so it is the nest's size), or the nest's `?` against a static
    size other than 1 (which that `?` must then be)."""
    dynamic = ir.ShapedType.is_dynamic_size
    return produced == nest or dynamic(produced) or (dynamic(nest) and produced != 1)


def same_points(produced: list[int], nest: list[int]) -> bool:
    """Whether a value of shape `produced` has one element per point of `nest` at every size
    its `?`s take: the static test `produced == nest` for shapes with dynamic dims."""
    return len(produced) == len(nest) and all(map(_same_dim, produced, nest))


def differs_at_dynamic(produced: list[int], nest: list[int]) -> bool:
    """Whether `produced` broadcasts against `nest` only along dims where the nest is `?`:
    right-aligned (missing leading dims as 1s), every dim the same (`_same_dim`) or a 1 facing
    a `?`. One element per point where those sizes are 1, recomputed along them where they are
    larger: which one, only a call knows."""
    if len(produced) > len(nest) or same_points(produced, nest):
        return False
    padded = [1] * (len(nest) - len(produced)) + list(produced)
    dynamic = ir.ShapedType.is_dynamic_size
    return all(_same_dim(p, n) or (p == 1 and dynamic(n)) for p, n in zip(padded, nest, strict=True))


def producer_fits(producer: ir.Operation, consumer: ir.Operation, operand: int) -> bool:
    """Whether `producer` (elementwise) may be computed inside `consumer`'s loop nest."""
    return producer_refusal(producer, consumer, operand) is None


def producer_refusal(producer: ir.Operation, consumer: ir.Operation, operand: int) -> str | None:
    """Why elementwise `producer` may not be computed inside `consumer`'s loop nest (one of
    the codes above), or None where it may."""
    if consumer.name in EPILOGUE_ANCHORS:
        return CONTRACTION
    if is_anchor(consumer) and (consumer.name not in TAKES_PRODUCERS or operand != 0):
        return PARAMETER  # normalisation parameters are per-channel or per-row: keep them small
    if has_parameters(consumer) and operand != 0:
        return PARAMETER  # a scale or zero point: per tensor or along `axis`, no broadcast
    produced, nest = shape(producer.results[0]), nest_shape(consumer)
    if same_points(produced, nest):
        return None
    if not is_cheap(producer):
        return DYNAMIC if differs_at_dynamic(produced, nest) else BROADCAST_EXPENSIVE
    return None if len(produced) <= len(nest) else MORE_DIMS


def consumer_fits(producer: ir.Operation, consumer: ir.Operation) -> bool:
    """Whether elementwise `consumer` may run in the loop nest that computes `producer`."""
    return consumer_refusal(producer, consumer) is None


def consumer_refusal(producer: ir.Operation, consumer: ir.Operation) -> str | None:
    """Why `consumer` may not run in the loop nest that computes `producer`, or None."""
    if not is_elementwise(consumer):
        return NOT_ELEMENTWISE
    if is_anchor(producer) and producer.name not in TAKES_CONSUMERS:
        return REDUCED
    return None if same_points(shape(producer.results[0]), shape(consumer.results[0])) else OTHER_SHAPE
