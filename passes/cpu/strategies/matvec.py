"""Matrix-vector products with one column (N = 1: A[M, K] · b[K, 1]) as dot products.

The matmul micro-kernel vectorizes along N: with one column, each of its vectors holds one
useful lane (1/16 of every FMA on AVX-512) and every element of A is broadcast on its own.
Here each row is a dot product instead, vectorized along K, its contiguous dim:

    scf.forall over rows (threads)
      scf.for rows step R                                   (R rows side by side: R streams)
        acc = 0 : vector<R x 1 x V>
        scf.for k step V { acc += A[rows, k:k+V] * b[k:k+V] }    (vertical: V lanes)
        C[rows] = reduce(acc)  ;  + A[rows, tail] · b[tail]      (one horizontal reduce per row)

(`tile_reduction_using_for`), as the row reductions of reduction.py. A ragged K is split into
the longest multiple of V and a tail vectorized as one static vector.
"""

from .script import Script
from .strategy import MASKS, needed

# Multiply-add to a vector of partial sums, then to a scalar per row.
_LOWER = (
    "vector.cast_away_vector_leading_one_dim",
    'vector.reorder_multi_reduction_dims lowering_strategy = "innerreduction"',
    'vector.multi_reduction_flattening lowering_strategy = "innerreduction"',
    'vector.multi_reduction_unrolling lowering_strategy = "innerreduction"',
    "canonicalization",
)


def dot_shape(lanes: int, registers: int, rows: int, k: int) -> tuple[int, int] | None:
    """(R, V) for a matvec on `rows` rows (a thread's share) of length `k`, or None where K is
    shorter than two vectors (then the matmul kernel does as well). V: two vectors where K
    holds four (two independent FMA chains per row); R: a power of two dividing `rows` (static
    tiles, no remainder kernel) with its R·V/lanes accumulators in half the registers."""
    if k < 2 * lanes:
        return None
    width = 2 * lanes if k >= 4 * lanes else lanes
    r = 1
    while 2 * r * (width // lanes) <= registers // 2 and rows % (2 * r) == 0:
        r *= 2
    return r, width


def emit_dot(
    s: Script, op: str, function: str, lead: list[int], extents: list[int], rows: int, width: int
) -> None:
    """The dot-product kernel for `op`, a (thread's) matvec tile of loop `extents` (batch,
    M, 1, K); the fill of its result is the caller's."""
    b = len(lead)
    op, _ = s.tile(op, needed([*lead, rows, 0, 0], extents))
    k = extents[-1]
    main = k - k % width
    if k % width:
        op, tail = s.split(op, b + 2, main)
        s.vectorize(tail)
    if main == width:
        s.vectorize(op)
        s.patterns(function, ["linalg.tiling_canonicalization", "canonicalization"])
    else:
        init, partial, combine, loop = s.tile_reduction(op, [*([0] * b), 0, 0, width])
        for part in (init, partial, combine):
            s.vectorize(part)
        s.patterns(function, MASKS)
        s.patterns(function, ["linalg.tiling_canonicalization", "canonicalization"])
        s.hoist(loop)
    s.patterns(function, _LOWER)
