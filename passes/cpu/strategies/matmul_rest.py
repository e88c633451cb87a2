"""The rows of a matmul that its register tile's rows do not divide (M % mr), split off.

Peeled inside the register m loop, those rows were one tile of mr rows vectorized with row
masks: its accumulators could not be hoisted (a masked read and write of C at every k step,
a chain through memory that masked stores do not forward; on Zen 3 the one remaining row of
M = 197 cost about as much as 35 full rows), and every mr-row tile carried the select of each
fma. Here, inside the n1 and k1 cache loops (so the rest reads B's block while the packing of
the main part has just brought it into cache), the op is split at M - M % mr with
`structured.split`: the main part is whole mr-row tiles, the rest one static tile of its
M % mr rows by `width` columns, vectorized without masks where `width` divides the block, its
accumulators in registers across its k loop like the main tiles'."""

from .script import Script
from .strategy import needed


def split_rest(
    s: Script, mm, op: str, extents: list[int], tag: tuple[str, str]
) -> tuple[str, dict[int, str], list[str]]:
    """Tile `op` (the matmul strategy `mm`'s, extents per loop after the threads) into its n1
    and k1 cache loops, split off the last `mm.rest[0]` rows and tile and vectorize them, then
    tile the main part's m1 loop. The main part's handle, its cache loops {dim: loop} and the
    rest's k loops (for `hoist_loop_invariant_subsets`, once the contraction is prepared)."""
    b = 1 if mm.batch else 0
    rows, width, kr = mm.rest
    cache = needed([*mm.cache_lead(), *mm.cache_tile], extents)
    blocks = [0 if d == b else c for d, c in enumerate(cache)]
    op, loops = s.tile(op, blocks, [*range(b), b + 1, b + 2, b])  # b, n1, k1 (m whole)
    block = [c or e for c, e in zip(blocks, extents, strict=True)]
    op, rest = s.split(op, b, extents[b] - rows)
    rest_extents = [*block[:b], rows, *block[b + 1 :]]
    lead = [1] * b
    rest, rest_loops = s.tile(rest, needed([*lead, 0, width, kr], rest_extents), [*range(b), b + 1, b, b + 2])
    k_loops = [rest_loops[b + 2]] if b + 2 in rest_loops else []
    # A thread's share of the columns that does not divide N is dynamic (min(chunk, N - i·chunk))
    dynamic = mm.thread_tile and mm.thread_dim == b + 1 and mm.n % mm.thread_tile
    if b + 1 in rest_loops and (dynamic or rest_extents[b + 1] % width):
        # Ragged columns: whole `width` tiles unmasked, the last one masked (peel consumes the
        # k loop's handle: the k loops are found again from the pieces).
        pieces = [s.match_tag(*tag, loop) for loop in s.peel(rest_loops[b + 1])]
        k_loops = [s.parent(piece, "scf.for") for piece in pieces] if b + 2 in rest_loops else []
        for piece in pieces:
            s.vectorize(piece, [*lead, rows, width, kr])
    else:  # one column tile: static unless it is a thread's dynamic share
        s.vectorize(rest, [*lead, rows, width, kr] if dynamic else [])
    main = needed([0] * b + [cache[b], 0, 0], [*block[:b], extents[b] - rows, *block[b + 1 :]])
    op, m_loop = s.tile(op, main)  # m1
    return op, {**loops, **m_loop}, k_loops
