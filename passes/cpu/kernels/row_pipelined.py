"""Softmax rows software-pipelined (used by `row_kernels.py` where `pipelines` says so).

The three-pass row kernel reads each row once from memory and twice from cache, but each pass
is a loop of its own with a reduction to finish before the next starts. Here one pass per row
step does the work of three rows at once, each from a different pass:

    step i:  e = exp(x[i] - max[i]) written to scratch[i % 2] and summed   (row i)
             max of x[i + 1]                                               (row i + 1)
             out[i - 1] = finish(scratch[(i - 1) % 2] * (1 / sum[i - 1]))  (row i - 1)

so the max and the sum of a row are finished by the step that needs them, the loads of the
next row overlap the exps, and the output is only written (once, from the scratch rows). Each
thread's chunk of rows runs its own pipeline: a max pass over its first row before the loop
(the prologue), the step for row 0 without a row to scale, then rows 1 .. count-1, and the
scaling of its last row after it (the epilogue); the last step's max of a next row re-reads
the last row (one chunk of one row works). The scratch is two rows, `tensor<2xNxf32>`, made
per chunk by a `tensor.empty` and carried through the row loop: one buffer per thread.
"""

import math
from collections.abc import Callable

from versa import targets

from ...common.kernel_loops import along_row, over_chunks
from ...common.kernel_text import (
    Finish,
    Load,
    RowShape,
    Text,
    dim,
    emit,
    read,
    reduce,
    write_vector,
)

WAYS = 4  # independent accumulators of the sums (as the three-pass kernel's reductions)

RowLoad = Callable[[str, str, str, str], Load]  # (x rows, row in them, row in the whole tensor, type)
RowFinish = Callable[[str], Finish]  # (row in the whole tensor) → the consumers of that row


def pipelines(
    shape: list[int | None], lead: int, threads: int, target: targets.Target, storage: str = "f32"
) -> bool:
    """Whether a softmax of `shape` (f32, rows on the first `lead` axes) is software-pipelined:
    when a thread has at least two rows and either five rows (x's two, the two scratch rows,
    the output's) fit in the L1 data cache, or x and the output together fit in half the
    last-level cache. Interleaved A/B, pipelined / three-pass at 1 and 2 threads on a 2-core
    AVX-512 EPYC (L1 48 KB, LLC 32 MB):

    - rows within L1 win at any size: 4096x1024 0.84x/0.62x, 8192x2400 0.87x/0.82x,
      16384x1024 (64 MB) 0.65x/0.70x; at 8192x2560 (five rows 51 KB) it is even.
    - longer rows win while x and the output stay in cache: 512x4096 0.86x/0.82x, 64x30522
      0.83x/0.82x; past that a row spills L1 between steps and streams from memory against
      the next row: 1 thread 768x4096 (24 MB) 1.15-1.36x, 1024x4096 1.24-1.29x, 2048x8192
      1.21-1.30x (at 2 threads, on a machine shared with other jobs, 0.86-1.28x run to run).
    - a chunk of one row only adds a max pass: 2x30522 on 2 threads 1.06x.

    f16/bf16 (`storage`) always, from two rows a thread: the three-pass form cannot keep e in
    a half output (it would round twice) and computes exp twice; f16, pipelined / three-pass,
    interleaved, 1 and 2 threads: 2048x4096 0.72x/0.72x, 1024x3000 0.63x/0.69x, 256x30522
    0.73x/0.76x.

    Dynamic dims (None in `shape`): the sizes a call will have are unknown, so the criteria
    apply to what is static. A dynamic row is pipelined (attention's rows, the dynamic rows
    of models, are sequence lengths within L1); dynamic rows are taken as at least two a
    thread, and as too many for the LLC."""
    lead_dims, row_dims = shape[:lead], shape[lead:]
    l1, _, llc = target.caches
    if None not in lead_dims and -(-math.prod(lead_dims) // threads) < 2:
        return False
    if storage != "f32" or None in row_dims:
        return True
    length = math.prod(row_dims)
    fits_llc = None not in lead_dims and 2 * 4 * math.prod(lead_dims) * length <= llc // 2
    return 5 * 4 * length <= l1 or fits_llc


def softmax_rows(
    t: Text, k: RowShape, x: str | None, out: str, load_at: RowLoad, finish_at: RowFinish
) -> str:
    """The softmax of the rows of `x` (or of what `load_at` reads) written into `out`,
    pipelined per thread's chunk of rows; returns the result's name."""
    scratch_type = f"tensor<2x{dim(k.length)}xf32>"

    def index(t: Text, text: str) -> str:
        v = t.fresh("i")
        t(f"{v} = {text} : index")
        return v

    def chunk(t: Text, xs: str, acc: str, first: str | None, count: str, type_: str) -> str:
        last = index(t, f"arith.subi {count}, {t.c(1)}")

        def loads(r: str) -> Load:
            return load_at(xs, r, r if first is None else index(t, f"arith.addi {first}, {r}"), type_)

        def finishes(r: str) -> Finish:
            return finish_at(r if first is None else index(t, f"arith.addi {first}, {r}"))

        def row_max(r: str) -> str:
            load = loads(r)

            def high(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
                return [emit(t, k, f"arith.maximumf {carried[0]}, {load(t, j, '%ninf', mask)}")]

            top = along_row(t, k, [k.broadcast(t, "%ninf")], [k.vec], high, ways=WAYS, combine="maximumf")
            return k.broadcast(t, reduce(t, k, "maximumf", top[0]))

        def step(r: str, half: str, top: str, scratch: str, before: tuple[str, str, str, str] | None):
            """Row r's exp and sum, the next row's max, and with `before` (the output, its row,
            that row's half of the scratch and 1 / sum) the previous row scaled and written."""
            following = index(t, f"arith.addi {r}, {t.c(1)}")
            load, load_next = loads(r), loads(index(t, f"arith.minui {following}, {last}"))
            if before:
                acc, previous, previous_half, inverse = before
                finish = finishes(previous)

            def work(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
                total, high, rows, *written = carried
                v = load(t, j, "%ninf", mask)
                e = emit(t, k, f"math.exp {emit(t, k, f'arith.subf {v}, {top}')}")
                rows = write_vector(t, k, e, rows, f"{half}, {j}", mask, scratch_type)
                high = emit(t, k, f"arith.maximumf {high}, {load_next(t, j, '%ninf', mask)}")
                if before:
                    kept = read(t, k, rows, f"{previous_half}, {j}", "%zero", mask, scratch_type)
                    y = finish(t, j, emit(t, k, f"arith.mulf {kept}, {inverse}"), mask)
                    written = [write_vector(t, k, y, written[0], f"{previous}, {j}", mask, type_)]
                return [emit(t, k, f"arith.addf {total}, {e}"), high, rows, *written]

            inits = [k.broadcast(t, "%zero"), k.broadcast(t, "%ninf"), scratch, *([acc] if before else [])]
            types = [k.vec, k.vec, scratch_type, *([type_] if before else [])]
            total, high, scratch, *written = along_row(t, k, inits, types, work, ways=WAYS, combine="addf")
            inverse = k.broadcast(t, emit(t, k, f"arith.divf %one, {reduce(t, k, 'add', total)}", "f32"))
            return inverse, k.broadcast(t, reduce(t, k, "maximumf", high)), scratch, (written or [None])[0]

        empty = t.fresh("scratch")
        sizes = k.length if isinstance(k.length, str) else ""
        t(f"{empty} = tensor.empty({sizes}) : {scratch_type}")
        inverse, top, scratch, _ = step(t.c(0), t.c(0), row_max(t.c(0)), empty, None)
        loop, r, a, s, m, v = (t.fresh(stem) for stem in ("rows", "r", "acc", "s", "top", "inv"))
        carried = [type_, scratch_type, k.vec, k.vec]
        t(
            f"{loop}:4 = scf.for {r} = {t.c(1)} to {count} step {t.c(1)} iter_args({a} = {acc}, "
            f"{s} = {scratch}, {m} = {top}, {v} = {inverse}) -> ({', '.join(carried)}) {{"
        )
        half = index(t, f"arith.remui {r}, {t.c(2)}")
        before = (a, index(t, f"arith.subi {r}, {t.c(1)}"), index(t, f"arith.subi {t.c(1)}, {half}"), v)
        inverse, top, scratch, acc = step(r, half, m, s, before)
        t(f"scf.yield {acc}, {scratch}, {top}, {inverse} : {', '.join(carried)}")
        t("}")
        half, finish = index(t, f"arith.remui {last}, {t.c(2)}"), finishes(last)

        def scale(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
            kept = read(t, k, f"{loop}#1", f"{half}, {j}", "%zero", mask, scratch_type)
            y = finish(t, j, emit(t, k, f"arith.mulf {kept}, {loop}#3"), mask)
            return [write_vector(t, k, y, carried[0], f"{last}, {j}", mask, type_)]

        return along_row(t, k, [f"{loop}#0"], [type_], scale)[0]

    return over_chunks(t, k, x, out, chunk)
