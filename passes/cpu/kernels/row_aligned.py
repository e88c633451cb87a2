"""Passes along a row whose full vectors start on a 64-byte boundary (used by `row_kernels.py`).

A row of N f32 starts r * N elements into its tensor: unless N is a multiple of the lanes V,
most rows start off a vector boundary, and a full vector at column j of such a row straddles
two cache lines: AVX-512 then splits every load and store in two (and a store of the output
cannot stream, `streaming_stores.py`). Here a pass over row r takes

    a head:  columns [0, h) as one masked vector, h = -(r * N) mod V (0 <= h < V; none when h = 0)
    then:    full vectors from h, on vector boundaries (ways of them per iteration for a reduction)
    a tail:  the last (N - h) mod V columns, masked

so every full vector of the row is aligned where the tensor's base is (the JIT allocates its
outputs on 64-byte boundaries; where a base is not aligned, the result is the same, only slower).
Used by the three-pass softmax and by layer_norm wherever V does not divide N (`aligns`);
layer_norm, aligned / unaligned at 2 and 1 threads on a quiet machine: 2048x8191 0.83x/0.89x,
512x30522 0.93x/0.85x, 1024x3000 0.90x/0.97x, 4096x1000 0.99x/0.99x. Interleaved A/B,
aligned / unaligned, 11 rounds at 1 and 2 threads on a 2-core AVX-512 EPYC shared with other
jobs (64-byte aligned x and output): 2048x30522 0.80x/0.82x (about the time of 2048x30528,
whose rows are all aligned), softmax(x * 0.125) + b on 2048x30522 0.93x/0.92x, 1024x3000
0.99x/1.00x; shapes V divides are unchanged (no head), the pipelined form is not aligned (its
step covers three rows, each with its own head). Where the output's rows are aligned, the
software-pipelined form with non-temporal stores was still slower than the three-pass kernel
(2048x30528: 1.16x at 2 threads, 1.30x at 1).
"""

from ...common.kernel_loops import Step, along_row, vector_loop
from ...common.kernel_text import Explicit, RowShape, Text


def head(t: Text, k: RowShape, row: str) -> str:
    """h = -(row * N) mod V: the columns of `row` before its first vector boundary."""
    names = [t.fresh("h") for _ in range(4)]
    t(f"{names[0]} = arith.muli {row}, {t.c(k.length % k.lanes)} : index")
    t(f"{names[1]} = arith.remui {names[0]}, {t.c(k.lanes)} : index")
    t(f"{names[2]} = arith.subi {t.c(k.lanes)}, {names[1]} : index")
    t(f"{names[3]} = arith.remui {names[2]}, {t.c(k.lanes)} : index")
    return names[3]


def aligns(k: RowShape) -> bool:
    """Whether rows start off vector boundaries and are long enough for a head vector (rows of
    a dynamic length are not aligned: the head would be one more masked step for every row)."""
    return isinstance(k.length, int) and k.length % k.lanes != 0 and k.length >= k.lanes


def along_aligned(
    t: Text,
    k: RowShape,
    h: str,
    inits: list[str],
    types: list[str],
    step: Step,
    ways: int = 1,
    combine: str = "",
) -> list[str]:
    """`kernel_text.along_row` with its full vectors from column `h` (`head`): the head's masked
    step first (its mask an operand of the transfers: `Explicit`), the reduction's `ways`
    accumulators over blocks, the full vectors left over one at a time, then the masked tail."""
    lanes, block = k.lanes, ways * k.lanes
    mask = Explicit(t.fresh("head"))
    t(f"{mask} = vector.create_mask {h} : vector<{lanes}xi1>")
    values = step(t, t.c(0), mask, list(inits))

    def end(size: int) -> str:  # h + (N - h) // size * size
        names = [t.fresh("e") for _ in range(4)]
        t(f"{names[0]} = arith.subi {t.c(k.length)}, {h} : index")
        t(f"{names[1]} = arith.divui {names[0]}, {t.c(size)} : index")
        t(f"{names[2]} = arith.muli {names[1]}, {t.c(size)} : index")
        t(f"{names[3]} = arith.addi {h}, {names[2]} : index")
        return names[3]

    blocks = end(block)
    values = vector_loop(t, k, h, blocks, ways, values, inits[0], types, step, combine)
    vectors = blocks
    if ways > 1:
        vectors = end(lanes)
        values = vector_loop(t, k, blocks, vectors, 1, values, inits[0], types, step, combine)
    tail, left = t.fresh("mask"), t.fresh("n")
    t(f"{left} = arith.subi {t.c(k.length)}, {vectors} : index")
    t(f"{tail} = vector.create_mask {left} : vector<{lanes}xi1>")
    return step(t, vectors, tail, values)


def along_for(t: Text, k: RowShape, row: str):
    """`kernel_text.along_row`, or where rows can be aligned (`aligns`), passes of `row` (its
    index in the whole tensor) aligned by its `head`; same signature."""
    if not aligns(k):
        return along_row
    h = head(t, k, row)
    return lambda t, k, inits, types, step, ways=1, combine="": along_aligned(
        t, k, h, inits, types, step, ways, combine
    )
