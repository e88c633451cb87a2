"""Ops moved into a function of their own: what their bodies read from outside, and a copy of
an op on new operands. `versa-static-tiles` runs each static tile in a private function."""

from versa.mlir import ir


def is_constant(v: ir.Value) -> bool:
    return isinstance(v.owner, ir.OpView) and v.owner.operation.name == "arith.constant"


def captured(op: ir.Operation) -> list[ir.Value]:
    """The values that ops nested in `op` use but that are defined outside it."""
    found = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        for v in inner.operation.operands:
            if inner.operation != op and not _within(v, op) and v not in found:
                found.append(v)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


def _within(v: ir.Value, op: ir.Operation) -> bool:
    """Whether `v` is defined by an op nested in `op` or is an argument of one of its blocks."""
    owner = v.owner
    where = owner.owner if isinstance(owner, ir.Block) else owner.operation
    while where is not None:
        if where == op:
            return True
        where = where.parent
    return False


def clone_with(op: ir.Operation, operands: list[ir.Value], inside=None) -> ir.Value:
    """`op` on `operands` (static slices): same attributes and body, the new result type; the
    values its body reads from outside become `inside(value)` (the tile function's own)."""
    clone = op.clone()
    created = ir.Operation.create(
        op.name,
        results=[operands[-1].type],
        operands=operands,
        attributes=dict(op.attributes.items()),
        regions=len(op.regions),
    )
    for source, target in zip(clone.regions, created.regions, strict=True):
        for block in list(source.blocks):
            block.append_to(target)
    clone.erase()
    if inside is not None:
        for v in captured(created):
            rebind(created, v, inside(v))
    return created.results[0]


def rebind(op: ir.Operation, old: ir.Value, new: ir.Value) -> None:
    """Every use of `old` in the ops nested in `op` reads `new` instead."""

    def visit(inner: ir.Operation) -> ir.WalkResult:
        operands = inner.operation.operands
        for i, v in enumerate(operands):
            if v == old:
                operands[i] = new
        return ir.WalkResult.ADVANCE

    op.walk(visit)
