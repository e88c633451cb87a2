"""versa-fuse's remarks: each fusion it made (`applied`, at the group's root) and each one it
declined (`missed`, at the consumer), in words, from the refusal codes `fuse.py` recorded at
the moment it decided (`fusion_rules`: CONTRACTION, OTHER_USERS, ...).

Only edges where fusion was plausible are reported: an elementwise consumer of an elementwise
op or of a matmul, conv2d or batch_norm, and an elementwise producer of a reduction's input.
A contraction's operands and a reduction's results are never fused, by design: saying so at
every layer would bury the remarks that explain something.
"""

from versa.mlir import ir

from ...common import remarks
from ...common.source_names import source_names
from . import fusion_rules as rules

_REASONS = {
    rules.BROADCAST_EXPENSIVE: "the producer is not cheap and has a smaller shape than the consumer's loop "
    "nest: it would be recomputed at every point",
    rules.MORE_DIMS: "the producer has more dims than the consumer's loop nest",
    rules.NOT_ELEMENTWISE: "the consumer is not elementwise",
    rules.REDUCED: "a reduction ends its group: its consumers run over the reduced shape",
    rules.OTHER_SHAPE: "the consumer's shape differs from the anchor's result: another loop nest",
    rules.GROUP_EXPENSIVE: "the producer has a smaller (broadcast) shape and its group holds an op that "
    "is not cheap: the group would be recomputed at every point of the consumer's nest",
    rules.OTHER_USERS: "the producer has other users and is not cheap to recompute: it is computed "
    "once and stored",
    rules.COPIES_LIMIT: "the producer has more users than duplicate-limit: it is stored once, not "
    "recomputed in each",
    rules.STRANDS: "copying the producer per user would leave the expensive op it reads with several "
    "users: the producer is stored instead",
    rules.USER_CANNOT: "the producer has users that cannot compute it in their own loop nest: it is "
    "stored once",
    rules.TOO_LARGE: "the merged group would hold more than max-ops ops",
    rules.TWO_ANCHORS: "both groups have an anchor, and a group runs one anchor's loops",
    rules.DYNAMIC: "the producer (or its group) is not cheap and has a size-1 dim, or none, where the "
    "consumer's loop nest has a dynamic one: at every call where that size is above 1 it would be "
    "recomputed at every point",
    rules.WIDENS: "a dequantize after a contraction's group whose user can compute it: the group stores "
    "the 8-bit value, not the floats",
}


def plausible(producer: ir.Operation, consumer: ir.Operation, operand: int) -> bool:
    """Whether fusing `producer` into `consumer` (its `operand`) is one a reader might expect."""
    if rules.is_elementwise(consumer):
        return rules.is_elementwise(producer) or producer.name in rules.TAKES_CONSUMERS
    return rules.is_elementwise(producer) and consumer.name in rules.TAKES_PRODUCERS and operand == 0


def emit(fuse, block: ir.Block, groups: list[list[ir.Operation]], refused: dict, kept: dict) -> None:
    """The remarks of one block: `fuse` is the pass (its name and limits), `groups` what it
    fuses, `refused` the edges it did not merge and why, `kept` the cheap producers it did not
    copy and why. Called before the groups are formed: the ops are still in `block`."""
    home = {op: index for index, group in enumerate(groups) for op in group}
    for group in groups:
        kind = rules.kind_of(next((op for op in group if rules.is_anchor(op)), None))
        ops = "+".join(op.name.removeprefix("versa.") for op in group)
        remarks.applied(fuse.name, "fusion", group[-1].location, f"{len(group)} ops fused ({kind})", ops=ops)
    for (producer, consumer, operand), code in refused.items():
        if not plausible(producer, consumer, operand):
            continue
        if producer in home and consumer in home and home[producer] == home[consumer]:
            continue  # merged after all (a later rule joined the groups)
        code = kept.get(producer, code) if code == rules.OTHER_USERS else code
        values = _values(fuse, code, producer, consumer, operand, groups, home)
        remarks.missed(fuse.name, "fusion", consumer.location, _REASONS[code], **values)


def _values(fuse, code, producer, consumer, operand, groups, home) -> dict:
    """The numbers behind the reason `code` gives for not fusing `producer` into `consumer`."""
    values: dict = {"producer": producer.name, "consumer": consumer.name}
    where = source_names(producer.location)
    if where:
        values["producer_at"] = ", ".join(where)
    if code in (rules.OTHER_USERS, rules.COPIES_LIMIT, rules.USER_CANNOT, rules.STRANDS):
        values["users"] = len(list(producer.results[0].uses))
    if code == rules.COPIES_LIMIT:
        values["duplicate_limit"] = fuse.duplicate_limit
    if code in (rules.BROADCAST_EXPENSIVE, rules.MORE_DIMS, rules.GROUP_EXPENSIVE, rules.DYNAMIC):
        values["producer_shape"] = _shape(rules.shape(producer.results[0]))
        values["nest_shape"] = _shape(rules.nest_shape(consumer))
    if code == rules.OTHER_SHAPE:
        values["anchor_shape"] = _shape(rules.shape(producer.results[0]))
        values["consumer_shape"] = _shape(rules.shape(consumer.results[0]))
    if code == rules.TOO_LARGE:
        values["max_ops"] = fuse.max_ops
    if code == rules.TWO_ANCHORS:
        anchors = [_anchor(op, groups, home) for op in (producer, consumer)]
        values["anchors"] = " and ".join(a.name for a in anchors if a is not None)
    return values


def _anchor(op: ir.Operation, groups, home) -> ir.Operation | None:
    members = groups[home[op]] if op in home else [op]
    return next((m for m in members if rules.is_anchor(m)), None)


def _shape(dims: list[int]) -> str:
    """As the types print it: `?x8`."""
    return "x".join("?" if ir.ShapedType.is_dynamic_size(d) else str(d) for d in dims) or "scalar"
