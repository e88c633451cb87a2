"""Which elementwise consumer a contraction takes as its epilogue: asked by the epilogue
strategies (matmul, conv), by the matmul strategy (an op with an epilogue is theirs) and by the
kernel outlining (the consumer goes into the contraction's kernel)."""

from versa.mlir import ir

from .strategy import vector_body


def epilogue_consumer(op: ir.Operation) -> ir.Operation | None:
    """The single elementwise consumer of a contraction that reads its whole result point by
    point (vector code), or None. A consumer that reads its own init must update the
    contraction's result in place: a separate init (a zero fill, which cse may have merged with
    the contraction's own) would be fused into the tiles as the contraction's accumulator,
    and the consumer would then add the contraction to itself."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner
    user = user.operation if hasattr(user, "operation") else user
    if user.name != "linalg.generic" or len(user.results) != 1:
        return None
    if any("parallel" not in str(it) for it in user.attributes["iterator_types"]):
        return None
    shape = list(op.results[0].type.shape)
    if list(user.results[0].type.shape) != shape:
        return None
    index = uses[0].operand_number
    maps = user.attributes["indexing_maps"]
    # Point by point: the consumer reads the result as it writes its own (the identity, or the
    # same permutation: a pre-packed B's [M, panels, nr] result over (panel, m, lane) loops).
    written = ir.AffineMapAttr(maps[len(maps) - 1]).value  # (an ArrayAttr takes no index -1)
    if index >= len(maps) or ir.AffineMapAttr(maps[index]).value != written or not written.is_permutation:
        return None
    init = user.regions[0].blocks[0].arguments[len(user.operands) - 1]
    if list(init.uses) and user.operands[len(user.operands) - 1] != op.results[0]:
        return None
    if any(_claims_first(v, user, op) for i, v in enumerate(user.operands) if i != index):
        return None
    return user if vector_body(user) else None


def _claims_first(v: ir.Value, user: ir.Operation, op: ir.Operation) -> bool:
    """Whether `v`, another input of `user`, is the result of a named linalg op before `op`
    that `user` alone reads: that op takes `user` as its epilogue (a consumer of two matmuls,
    `a @ b + c @ d`, is fused into one of them, the first, never into both)."""
    owner = v.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or not owner.name.startswith("linalg."):
        return False
    owner = owner.operation if hasattr(owner, "operation") else owner
    if not any(kind in owner.name for kind in ("matmul", "conv")):
        return False  # only contractions take epilogues
    if owner.block != op.block or len(list(v.uses)) != 1:
        return False
    return owner.is_before_in_block(op)
