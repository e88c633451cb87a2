"""The loops of a row kernel written as MLIR text (`kernel_text.py`): over rows, a chunk per
thread (`scf.forall`) then one row at a time, and along a row in full vectors (several
accumulators for a reduction) plus one masked tail step. Static extents give loops of
constant bounds, unrolled where few; dynamic ones (`?` rows or row length) loops to the
call's extents, a chunk per thread as there are rows, the tail only where there is one."""

from collections.abc import Callable

from .kernel_text import RowShape, Text, emit

# (text, x rows, acc, row in them, row in the whole tensor, tensor type) → the new acc
RowBody = Callable[[Text, str, str, str, str, str], str]
# (text, x rows, acc, first row in the whole tensor (None: all rows), rows, tensor type) → acc
ChunkBody = Callable[[Text, str, str, str | None, str, str], str]


def over_chunks(t: Text, k: RowShape, x: str | None, out: str, chunk_body: ChunkBody) -> str:
    """Splits the rows of `x` into a chunk per thread (an `scf.forall`; with one chunk, the
    whole tensor), each written into its slice of `out` by `chunk_body`; returns the result's
    name. Every chunk has at least one row (dynamic rows: as many chunks as there are threads
    and rows to give them). Without `x`, the body reads its own tensors."""
    whole, part, n = k.tensor(k.rows), k.tensor("?"), str(k.length)  # a literal or an SSA name
    if isinstance(k.rows, int):
        chunk = -(-k.rows // k.threads)
        if chunk == k.rows:
            return chunk_body(t, x or "", out, None, t.c(k.rows), whole)
        rows, size, trips = t.c(k.rows), t.c(chunk), str(-(-k.rows // chunk))
    elif k.threads == 1:  # one chunk, where there are rows (a chunk has at least one)
        t(f"%any = arith.cmpi ugt, {k.rows}, {t.c(0)} : index")
        t(f"%y = scf.if %any -> ({whole}) {{")
        t(f"  scf.yield {chunk_body(t, x or '', out, None, k.rows, whole)} : {whole}")
        t("} else {")
        t(f"  scf.yield {out} : {whole}")
        t("}")
        return "%y"
    else:
        rows, size, trips = k.rows, "%chunk", "%trips"
        t(f"%share = arith.ceildivui {rows}, {t.c(k.threads)} : index")
        t(f"%chunk = arith.maxui %share, {t.c(1)} : index")  # no rows: no chunks
        t(f"%trips = arith.ceildivui {rows}, %chunk : index")
    t(f"%y = scf.forall (%th) in ({trips}) shared_outs(%o = {out}) -> ({whole}) {{")
    t(f"  %r0 = arith.muli %th, {size} : index")
    t(f"  %r1 = arith.addi %r0, {size} : index")
    t(f"  %r2 = arith.minui %r1, {rows} : index")
    t("  %count = arith.subi %r2, %r0 : index")
    if x:
        t(f"  %xs = tensor.extract_slice {x}[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    t(f"  %os = tensor.extract_slice %o[%r0, 0] [%count, {n}] [1, 1] : {whole} to {part}")
    done = chunk_body(t, "%xs" if x else "", "%os", "%r0", "%count", part)
    t("  scf.forall.in_parallel {")
    t(f"    tensor.parallel_insert_slice {done} into %o[%r0, 0] [%count, {n}] [1, 1] : {part} into {whole}")
    t("  }")
    t("}")
    return "%y"


def over_rows(t: Text, k: RowShape, x: str | None, out: str, row_body: RowBody) -> str:
    """Loops over the rows of `x` (a chunk of rows per thread, then one row at a time), each
    row written into the loop's copy of `out` by `row_body`; returns the result's name. Without
    `x`, the body reads its own tensors at the whole tensor's row."""

    def chunk_body(t: Text, xs: str, acc: str, first: str | None, count: str, type_: str) -> str:
        t(f"%rows = scf.for %r = {t.c(0)} to {count} step {t.c(1)} iter_args(%acc = {acc}) -> ({type_}) {{")
        row = "%r"
        if first is not None:
            row = t.fresh("ra")
            t(f"  {row} = arith.addi {first}, %r : index")
        t(f"  scf.yield {row_body(t, xs, '%acc', '%r', row, type_)} : {type_}")
        t("}")
        return "%rows"

    return over_chunks(t, k, x, out, chunk_body)


Step = Callable[[Text, str, str | None, list[str]], list[str]]  # (text, column, mask, carried)


def along_row(
    t: Text, k: RowShape, inits: list[str], types: list[str], step: Step, ways: int = 1, combine: str = ""
) -> list[str]:
    """One pass along a row: full vectors in a loop, then a masked step for the tail. `step`
    emits the work for the vector at a column (mask None for a full vector) on the carried
    values and returns their new values; returns the values after the pass.

    With `ways` > 1 the first carried value is a reduction: the loop takes `ways` vectors per
    iteration into as many independent accumulators (one accumulator is a chain of dependent
    adds, bound by their latency: 4 cycles a vector where the loads take half of one), then
    joins them with the arith op `combine`; the few full vectors left over run unrolled (a
    loop where the row's length is dynamic: `_along_dynamic`)."""
    if isinstance(k.length, str):
        return _along_dynamic(t, k, inits, types, step, ways, combine)
    values, block = list(inits), ways * k.lanes
    main = k.length // block * block if ways > 1 else k.main
    if main:
        values = vector_loop(t, k, t.c(0), t.c(main), ways, values, inits[0], types, step, combine)
    for column in range(main, k.main, k.lanes):
        values = step(t, t.c(column), None, values)
    if k.length % k.lanes:
        mask = t.fresh("mask")
        t(f"{mask} = vector.create_mask {t.c(k.length - k.main)} : vector<{k.lanes}xi1>")
        values = step(t, t.c(k.main), mask, values)
    return values


def _along_dynamic(
    t: Text, k: RowShape, inits: list[str], types: list[str], step: Step, ways: int, combine: str
) -> list[str]:
    """`along_row` over a row of dynamic length N: blocks of `ways` vectors to N rounded down
    to a block, single vectors to N rounded down to a vector, then the tail masked (maybe
    empty: its lanes are all off)."""

    def down_to(size: int) -> str:
        quotient, end = t.fresh("e"), t.fresh("e")
        t(f"{quotient} = arith.divui {k.length}, {t.c(size)} : index")
        t(f"{end} = arith.muli {quotient}, {t.c(size)} : index")
        return end

    values, vectors = list(inits), down_to(k.lanes)
    start = t.c(0)
    if ways > 1:
        start = down_to(ways * k.lanes)
        values = vector_loop(t, k, t.c(0), start, ways, values, inits[0], types, step, combine)
    values = vector_loop(t, k, start, vectors, 1, values, inits[0], types, step, combine)
    # The tail, where there is one: a masked step costs a full one (rows of 128 floats in
    # 8 vectors and an empty tail, unguarded: 1.2-1.4x the static kernel's time).
    left, mask, some = t.fresh("n"), t.fresh("mask"), t.fresh("some")
    t(f"{left} = arith.subi {k.length}, {vectors} : index")
    t(f"{some} = arith.cmpi ugt, {left}, {t.c(0)} : index")
    results = t.fresh("tail")
    t(f"{results}:{len(values)} = scf.if {some} -> ({', '.join(types)}) {{")
    t(f"{mask} = vector.create_mask {left} : vector<{k.lanes}xi1>")
    t(f"scf.yield {', '.join(step(t, vectors, mask, values))} : {', '.join(types)}")
    t("} else {")
    t(f"scf.yield {', '.join(values)} : {', '.join(types)}")
    t("}")
    return [f"{results}#{i}" for i in range(len(values))]


def vector_loop(
    t: Text,
    k: RowShape,
    start: str,
    stop: str,
    ways: int,
    values: list[str],
    identity: str,
    types: list[str],
    step: Step,
    combine: str,
) -> list[str]:
    """An scf.for over columns [start, stop) taking `ways` full vectors per iteration, the first
    carried value reduced into `ways` accumulators (the first starts at values[0], the others
    at `identity`) joined by `combine` after the loop (see `along_row`); returns the values."""
    accs = [t.fresh("a") for _ in range(ways)]
    rest = [t.fresh("a") for _ in values[1:]]
    loop, column = t.fresh("l"), t.fresh("j")
    loop_types = [types[0]] * ways + types[1:]
    starts = [values[0], *[identity] * (ways - 1), *values[1:]]
    args = ", ".join(f"{c} = {v}" for c, v in zip([*accs, *rest], starts, strict=True))
    t(
        f"{loop}:{len(loop_types)} = scf.for {column} = {start} to {stop} step {t.c(ways * k.lanes)} "
        f"iter_args({args}) -> ({', '.join(loop_types)}) {{"
    )
    new_accs = []
    for i, acc in enumerate(accs):
        at = column
        if i:
            at = t.fresh("j")
            t(f"{at} = arith.addi {column}, {t.c(i * k.lanes)} : index")
        acc, *rest = step(t, at, None, [acc, *rest])
        new_accs.append(acc)
    t(f"  scf.yield {', '.join([*new_accs, *rest])} : {', '.join(loop_types)}")
    t("}")
    results = [f"{loop}#{i}" for i in range(len(loop_types))]
    joined = results[0]
    for other in results[1:ways]:
        joined = emit(t, k, f"arith.{combine} {joined}, {other}")
    return [joined, *results[ways:]]
