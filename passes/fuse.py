"""versa-fuse: group elementwise producer→consumer chains into `versa.fused` regions.

    %0 = "versa.add"(%a, %b) ...            %f = "versa.fused"() ({
    %1 = "versa.relu"(%0) ...        →        %0 = "versa.add"(%a, %b) ...
    return %1                                 %1 = "versa.relu"(%0) ...
                                              "versa.yield"(%1)
                                            }) {kind = "elementwise"}

A producer joins its consumer's group only when the consumer is its only user (fusing a
producer with other users would compute it twice) and it has the consumer's result shape (every
intermediate then has the group's iteration space, so one loop nest computes the group and no
intermediate is stored). Operands may still broadcast into the group.
"""

from dataclasses import dataclass

from versa.dialects.versa import OPS, FusedOp, YieldOp
from versa.mlir import ir

from .base import Pass


def _is_elementwise(op: ir.Operation) -> bool:
    cls = OPS.get(op.name)
    return cls is not None and cls.ELEMENTWISE


class _Groups:
    """Union-find over the ops of one block; the representative is the group's last op."""

    def __init__(self) -> None:
        self.parent: dict[ir.Operation, ir.Operation] = {}

    def find(self, op: ir.Operation) -> ir.Operation:
        while self.parent.get(op, op) != op:
            op = self.parent[op]
        return op

    def merge(self, producer: ir.Operation, consumer: ir.Operation) -> None:
        self.parent[self.find(producer)] = self.find(consumer)


def _fusible_producer(value: ir.Value, consumer: ir.Operation) -> ir.Operation | None:
    if not isinstance(value, ir.OpResult):
        return None
    producer = value.owner.operation
    if producer.block != consumer.block or not _is_elementwise(producer):
        return None
    uses = list(value.uses)
    if len(uses) != 1 or value.type.shape != consumer.results[0].type.shape:
        return None
    return producer


def _groups_of(block: ir.Block) -> list[list[ir.Operation]]:
    groups = _Groups()
    ops = [op.operation for op in block.operations]
    for op in ops:
        if not _is_elementwise(op):
            continue
        for value in op.operands:
            producer = _fusible_producer(value, op)
            if producer is not None:
                groups.merge(producer, op)
    members: dict[ir.Operation, list[ir.Operation]] = {}
    for op in ops:
        if _is_elementwise(op):
            members.setdefault(groups.find(op), []).append(op)
    return [group for group in members.values() if len(group) > 1]


def fuse_group(group: list[ir.Operation]) -> None:
    """Replace `group` (in block order, last op = root) by one `versa.fused` op."""
    root = group[-1]
    fused = ir.Operation.create(
        FusedOp.OPERATION_NAME,
        results=[root.results[0].type],
        attributes={"kind": ir.StringAttr.get("elementwise")},
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


@dataclass(frozen=True)
class VersaFuse(Pass):
    name = "versa-fuse"
    summary = "Group elementwise producer-consumer chains into versa.fused regions"

    def run(self, module: ir.Operation) -> None:
        for function in module.regions[0].blocks[0].operations:
            if function.operation.name != "func.func":
                continue
            for block in function.regions[0].blocks:
                for group in _groups_of(block):
                    fuse_group(group)
