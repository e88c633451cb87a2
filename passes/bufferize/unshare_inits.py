"""versa-unshare-inits: give every use of a `tensor.empty` or a fill of one its own copy.

    %e = tensor.empty()            %e0 = tensor.empty()   %e1 = tensor.empty()
    %z = linalg.fill(0, %e)    →   %z0 = linalg.fill(0, %e0)
    conv(.., outs %z)              conv(.., outs %z0)
    conv(.., outs %z)              %z1 = linalg.fill(0, %e1); conv(.., outs %z1)

`cse` merges identical inits (the zero accumulator of two convolutions, the padded buffer of
two `versa.pad`s, the destination of a concat and of an elementwise op). One-shot bufferization
then sees two writers of one tensor and keeps the first in place by copying the buffer for the
second: an extra allocation plus a `memref.copy` per shared init. An init is cheap to recompute
(nothing or one fill), so it is rematerialised per use instead; run this right before
bufferization, after the last `cse`.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect

_INITS = ("tensor.empty", "linalg.fill")


def _is_init(op: ir.Operation) -> bool:
    """A tensor.empty, or a linalg.fill (of a scalar) into a tensor.empty."""
    if op.name == "tensor.empty":
        return True
    if op.name != "linalg.fill" or len(op.results) != 1:
        return False
    dest = op.operands[1].owner
    return isinstance(dest, ir.OpView) and dest.operation.name == "tensor.empty"


def _unshare(op: ir.Operation) -> None:
    """Clone `op` (and a fill's empty) for every use but the first.

    An init that is also the source of an `extract_slice` stays shared: the slice is written
    and inserted back into the same init (the in-place pattern), so splitting them would add
    the very copy this pass avoids.
    """
    uses = [(use.owner, use.operand_number) for use in op.results[0].uses]
    if any(getattr(owner, "name", "") == "tensor.extract_slice" for owner, _ in uses):
        return
    for owner, index in uses[1:]:
        with ir.InsertionPoint(owner if not isinstance(owner, ir.Block) else op):
            clone = op.clone()
            if clone.name == "linalg.fill":
                empty = op.operands[1].owner.operation.clone(ir.InsertionPoint(clone))
                clone.operands[1] = empty.results[0]
        owner.operands[index] = clone.results[0]


@dataclass(frozen=True)
class VersaUnshareInits(Pass):
    name = "versa-unshare-inits"
    summary = "Rematerialise tensor.empty and fills per use, so bufferization copies no init"

    def run(self, module: ir.Operation) -> None:
        inits = collect(module, lambda op: op.name in _INITS and _is_init(op))
        # Fills first: cloning a fill clones its empty, so the empties' use lists are final after.
        for op in sorted(inits, key=lambda o: o.name != "linalg.fill"):
            _unshare(op)
