"""versa-fuse: group ops into `versa.fused` regions, each computed as one loop nest.

    %0 = "versa.matmul"(%a, %w) ...          %f = "versa.fused"() ({
    %1 = "versa.add"(%0, %bias) ...    →        %0 = "versa.matmul"(%a, %w) ...
    %2 = "versa.relu"(%1) ...                   %1 = "versa.add"(%0, %bias) ...
    return %2                                   %2 = "versa.relu"(%1) ...
                                                "versa.yield"(%2)
                                              }) {kind = "epilogue"}

Kinds (`fusion_rules.py` has the table): "epilogue" (matmul or conv2d and the elementwise ops
after it: bias, activation, scale, residual add; computed on the output tile), "reduction"
(reduce_* or batch_norm with the elementwise ops that feed it and, after batch_norm, follow
it), "elementwise" (chains without an anchor).

The rules, in the order they are applied:
1. A cheap producer (one instruction per element: add, mul, relu, ...) whose every user could
   compute it inside its own loop nest is duplicated, one copy per user (at most
   `duplicate-limit` users): recomputing it costs less than storing and re-reading it. An
   expensive op (exp, tanh, erf, div, a contraction, ...) with several users is never duplicated,
   and it stays out of the groups of its users. So a cheap op is not copied when that would give
   an expensive producer of its shape, read by it alone, several users: the cheap op is stored
   instead, and the producer computed in its group (silu read twice: one store, not two).
2. A producer joins its consumer's group only when the consumer is its only user (anything
   else would compute it twice or store it anyway) and it is in the same block, or when all its
   users ended in one group (the copies rule 1 made: a convolution under silu's two adds).
   (EfficientNet MBConv+SE, 2 threads: batch 1 0.745 -> 0.631 ms, batch 8 7.43 -> 5.85 ms.)
3. A shape change stops fusion: a consumer joins only with its producer's shape; a producer of
   a smaller (broadcast) shape joins only when every op of its group is cheap, since the group
   is recomputed at every point of the larger nest. A reduce_* ends its group (its consumers
   run over the reduced shape: another loop nest), and a contraction's producers stay out (it
   reads its operands many times).
4. A group holds at most one anchor and at most `max-ops` ops.
5. A dequantize stays out of a contraction's group when its only user can compute it
   (`fusion_rules.py`): the group stores the 8-bit value, its user reads it.

Dynamic dims (`?`): "the same shape" is `fusion_rules.same_points`; an expensive producer whose
1 faces a `?` of the nest is refused (DYNAMIC): whether it is recomputed depends on the call.
"""

from dataclasses import dataclass

from versa.dialects.versa import FusedOp, YieldOp
from versa.mlir import ir

from ..common import remarks
from ..common.base import Pass
from .rules import fusion_remarks
from .rules import fusion_rules as rules


class _Groups:
    """Union-find over the ops of one block, with each group's size and anchor."""

    def __init__(self) -> None:
        self.parent: dict[ir.Operation, ir.Operation] = {}
        self.members: dict[ir.Operation, list[ir.Operation]] = {}

    def add(self, op: ir.Operation) -> None:
        self.members[op] = [op]

    def find(self, op: ir.Operation) -> ir.Operation:
        while self.parent.get(op, op) != op:
            op = self.parent[op]
        return op

    def anchor(self, op: ir.Operation) -> ir.Operation | None:
        return next((m for m in self.members[self.find(op)] if rules.is_anchor(m)), None)

    def all_cheap(self, op: ir.Operation) -> bool:
        return all(rules.is_cheap(m) for m in self.members[self.find(op)])

    def merge(self, producer: ir.Operation, consumer: ir.Operation, max_ops: int) -> str | None:
        """Merge the two ops' groups (rule 4); why not where refused (a `rules` code)."""
        a, b = self.find(producer), self.find(consumer)
        if a == b:
            return None
        if len(self.members[a]) + len(self.members[b]) > max_ops:
            return rules.TOO_LARGE
        if self.anchor(a) is not None and self.anchor(b) is not None:
            return rules.TWO_ANCHORS
        self.parent[a] = b
        self.members[b] += self.members.pop(a)
        return None


def _users(value: ir.Value) -> list[tuple[ir.Operation, int]]:
    return [
        (u.owner.operation if hasattr(u.owner, "operation") else u.owner, u.operand_number)
        for u in value.uses
    ]


def _single_user(value: ir.Value, block: ir.Block) -> ir.Operation | None:
    users = _users(value)
    if len(users) != 1:
        return None
    user = users[0][0]
    return user if user.block == block else None


def _is_only_user(op: ir.Operation, value: ir.Value, block: ir.Block) -> bool:
    user = _single_user(value, block)
    return user is not None and user == op


def _producer(value: ir.Value, block: ir.Block) -> ir.Operation | None:
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner.operation
    return op if op.block == block and len(op.results) == 1 else None


def _fusible(op: ir.Operation) -> bool:
    """An elementwise op or an anchor on ranked tensors, static or not (bounds read at run time)."""
    return (rules.is_elementwise(op) or rules.is_anchor(op)) and all(
        rules.ranked_tensor(v) for v in (*op.operands, *op.results)
    )


def duplicate_cheap_producers(block: ir.Block, limit: int, kept: dict | None = None) -> None:
    """Rule 1: one copy of a cheap multi-user producer per user, when every user can fuse it.
    `kept`, where given, gets why each cheap producer with several users was not copied (a
    `rules` code: versa-fuse's remarks)."""
    kept = {} if kept is None else kept
    for op in reversed([op.operation for op in block.operations]):
        if not (rules.is_cheap(op) and _fusible(op)) or len(op.results) != 1:
            continue
        uses = _users(op.results[0])
        if len(uses) < 2:
            continue
        if len(uses) > limit:
            kept[op] = rules.COPIES_LIMIT
            continue
        if _strands_producer(op, block):
            kept[op] = rules.STRANDS
            continue
        if not all(u.block == block and _fusible(u) and rules.producer_fits(op, u, i) for u, i in uses):
            kept[op] = rules.USER_CANNOT
            continue
        for user, index in uses[1:]:
            clone = op.clone(ir.InsertionPoint(op))
            user.operands[index] = clone.results[0]


def _strands_producer(op: ir.Operation, block: ir.Block) -> bool:
    """Whether copying `op` would leave an expensive producer of its shape, read by `op` alone,
    with several users: stored on its own (copies cannot share it) where `op` could be stored
    instead, with the producer in its group (silu's sigmoid under a value two ops read)."""
    for value in op.operands:
        producer = _producer(value, block)
        if (
            producer is not None
            and rules.is_elementwise(producer)
            and not rules.is_cheap(producer)
            and _is_only_user(op, value, block)
            and rules.same_points(rules.shape(value), rules.shape(op.results[0]))
        ):
            return True
    return False


def _refusal(groups: "_Groups", producer: ir.Operation, consumer: ir.Operation, index: int) -> str | None:
    """Why `producer` may not run in `consumer`'s group (rule 3, a `rules` code), or None."""
    if rules.is_anchor(producer):
        return rules.consumer_refusal(producer, consumer)
    if not rules.is_elementwise(producer):
        return rules.NOT_ELEMENTWISE
    refusal = rules.producer_refusal(producer, consumer, index)
    if refusal is not None:
        return refusal
    produced, nest = rules.shape(producer.results[0]), rules.nest_shape(consumer)
    if rules.same_points(produced, nest) or groups.all_cheap(producer):
        return None
    return rules.DYNAMIC if rules.differs_at_dynamic(produced, nest) else rules.GROUP_EXPENSIVE


def _widens(groups: "_Groups", producer: ir.Operation, consumer: ir.Operation, block: ir.Block) -> str | None:
    """WIDENS where `consumer` is a dequantize after a group with an anchor and its only user is
    an elementwise op of its shape, which can compute it: the group stores bytes, not floats."""
    if consumer.name != "versa.dequantize" or groups.anchor(producer) is None:
        return None
    user = _single_user(consumer.results[0], block)
    if user is None or not (rules.is_elementwise(user) and _fusible(user)):
        return None
    same = rules.same_points(rules.shape(consumer.results[0]), rules.shape(user.results[0]))
    return rules.WIDENS if same else None


def groups_of(block: ir.Block, max_ops: int, refused: dict | None = None) -> list[list[ir.Operation]]:
    """The groups of `block` (rules 2-4), each in block order, its root last. `refused`, where
    given, gets why each producer-consumer edge was not merged: (producer, consumer, operand)
    -> a `rules` code (versa-fuse's remarks; the last refusal of an edge tried twice)."""
    refused = {} if refused is None else refused
    groups = _Groups()
    ops = [op.operation for op in block.operations if _fusible(op.operation)]
    fusible = set(ops)
    for op in ops:
        groups.add(op)
    for consumer in ops:
        for index, value in enumerate(consumer.operands):
            producer = _producer(value, block)
            if producer is None or producer not in fusible:
                continue
            if not _is_only_user(consumer, value, block):
                refused[producer, consumer, index] = rules.OTHER_USERS
                continue
            refusal = _refusal(groups, producer, consumer, index) or _widens(
                groups, producer, consumer, block
            )
            refusal = refusal or groups.merge(producer, consumer, max_ops)
            if refusal:
                refused[producer, consumer, index] = refusal
    # Rule 2, second form: a producer whose users all ended in one group (the copies of a cheap
    # op that rule 1 made, silu's add read twice) joins it, until nothing changes.
    changed = True
    while changed:
        changed = False
        for producer in ops:
            users = _users(producer.results[0]) if len(producer.results) == 1 else []
            if len(users) < 2 or not all(u in fusible for u, _ in users):
                continue
            home = {groups.find(u) for u, _ in users}
            if len(home) != 1 or groups.find(producer) in home:
                continue
            refusals = [(u, i, _refusal(groups, producer, u, i)) for u, i in users]
            refusal = next((r for _, _, r in refusals if r), None)
            if refusal is None:
                before = groups.find(producer)
                refusal = groups.merge(producer, users[0][0], max_ops)
                changed |= groups.find(before) != before
            for user, index, own in refusals:
                if refusal:
                    refused[producer, user, index] = own or refusal
    members: dict[ir.Operation, list[ir.Operation]] = {}
    for op in ops:
        members.setdefault(groups.find(op), []).append(op)
    return [g for g in members.values() if len(g) > 1]


def fuse_group(group: list[ir.Operation]) -> ir.Operation:
    """Replace `group` (in block order, last op = root) by one `versa.fused` op."""
    root = group[-1]
    anchor = next((op for op in group if rules.is_anchor(op)), None)
    if anchor is not None and rules.kind_of(anchor) == "epilogue":
        # A contraction reads nothing of its group, so it may come first: the rest is then one
        # run after it (a residual's dequantize too), one generic in the lowering.
        group = [anchor, *(op for op in group if op != anchor)]
    fused = ir.Operation.create(
        FusedOp.OPERATION_NAME,
        results=[root.results[0].type],
        attributes={"kind": ir.StringAttr.get(rules.kind_of(anchor))},
        regions=1,
        loc=root.location,
        ip=ir.InsertionPoint(root),
    )
    block = fused.regions[0].blocks.append()
    mapping: dict[ir.Value, ir.Value] = {}  # group results → their clones; inputs stay captured
    with ir.InsertionPoint(block):
        for op in group:
            clone = ir.Operation.create(
                op.name,
                results=[r.type for r in op.results],
                operands=[mapping.get(v, v) for v in op.operands],
                attributes=dict(op.attributes.items()),
                loc=op.location,
            )
            mapping.update(zip(op.results, clone.results, strict=True))
        ir.Operation.create(YieldOp.OPERATION_NAME, operands=[mapping[root.results[0]]], loc=root.location)
    root.results[0].replace_all_uses_with(fused.results[0])
    for op in reversed(group):
        op.erase()
    return fused


def unfuse(fused: ir.Operation) -> None:
    """The inverse of `fuse_group`: the region's ops back in the enclosing block (tools that
    work on plain versa ops, such as versa-bisect's one-op cuts, undo the grouping first)."""
    *body, terminator = fused.regions[0].blocks[0].operations
    for op in body:
        op.operation.move_before(fused)
    for result, value in zip(fused.results, terminator.operands, strict=True):
        result.replace_all_uses_with(value)
    fused.erase()


@dataclass(frozen=True)
class VersaFuse(Pass):
    name = "versa-fuse"
    summary = "Group elementwise chains, contraction epilogues and reductions into versa.fused regions"
    max_ops: int = 32  # ops per group: bounds the size of one loop body
    duplicate_limit: int = 4  # users a cheap producer may be copied to

    def run(self, module: ir.Operation) -> None:
        for function in module.regions[0].blocks[0].operations:
            if function.operation.name != "func.func":
                continue
            for block in function.regions[0].blocks:
                listening = remarks.enabled()
                kept, refused = ({}, {}) if listening else (None, None)
                duplicate_cheap_producers(block, self.duplicate_limit, kept)
                groups = groups_of(block, max(1, self.max_ops), refused)
                if listening:
                    fusion_remarks.emit(self, block, groups, refused, kept)
                for group in groups:
                    fuse_group(group)
