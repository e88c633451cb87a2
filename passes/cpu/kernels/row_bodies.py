"""One row of the softmax and layer_norm row kernels (`row_kernels.py`), in f32 whatever the
tensors hold (`kernel_text.read` and `write_vector` convert f16/bf16 at memory).

Softmax writes e = exp(x - max) to its output and scales it there in the third pass; where the
output holds f16/bf16 that would round e twice, so the third pass recomputes e from x instead
(an exp is a few vector ops with versa-fast-math; the row is still in cache)."""

from ...common.kernel_text import Finish, Load, RowShape, Text, emit, read, reduce, write_vector

NINF = "%ninf"
WAYS = 4  # independent accumulators of a reduction pass (add latency 4 cycles, 2 loads a cycle)


def softmax(k: RowShape, t: Text, load: Load, finish: Finish, acc: str, r: str, type_: str, along) -> str:
    """One row: its max; e = exp(x - max) written to the output and summed; the output scaled
        by 1 / sum where it lies (in cache): one exp per element (two where the output is f16/bf16:
    module docstring). `along`: `row_aligned.along_for`."""
    at = lambda j: f"{r}, {j}"  # noqa: E731

    def high(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        return [emit(t, k, f"arith.maximumf {carried[0]}, {load(t, j, '%ninf', mask)}")]

    top = along(t, k, [k.broadcast(t, "%ninf")], [k.vec], high, ways=WAYS, combine="maximumf")[0]
    top_v = k.broadcast(t, reduce(t, k, "maximumf", top))

    recompute = k.storage != "f32"  # e would round to the output's type before scaling

    def exp_at(t: Text, j: str, mask: str | None) -> str:
        return emit(t, k, f"math.exp {emit(t, k, f'arith.subf {load(t, j, NINF, mask)}, {top_v}')}")

    def exp_sum(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        e = exp_at(t, j, mask)
        written = carried[1] if recompute else write_vector(t, k, e, carried[1], at(j), mask, type_)
        return [emit(t, k, f"arith.addf {carried[0]}, {e}"), written]

    def normalize(sums: str) -> str:
        return k.broadcast(t, emit(t, k, f"arith.divf %one, {reduce(t, k, 'add', sums)}", "f32"))

    if k.main == 0:  # a row shorter than a vector: e stays in a register, written once
        mask = t.fresh("mask")
        t(f"{mask} = vector.create_mask {t.c(k.length)} : vector<{k.lanes}xi1>")
        e = exp_at(t, t.c(0), mask)
        y = emit(t, k, f"arith.mulf {e}, {normalize(e)}")
        return write_vector(t, k, finish(t, t.c(0), y, mask), acc, at(t.c(0)), mask, type_)
    inits, types = [k.broadcast(t, "%zero"), acc], [k.vec, type_]
    sums, acc = along(t, k, inits, types, exp_sum, ways=WAYS, combine="addf")
    inverse = normalize(sums)

    def scale(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        e = exp_at(t, j, mask) if recompute else read(t, k, carried[0], at(j), "%zero", mask, type_)
        y = finish(t, j, emit(t, k, f"arith.mulf {e}, {inverse}"), mask)
        return [write_vector(t, k, y, carried[0], at(j), mask, type_)]

    return along(t, k, [acc], [type_], scale)[0]


def layer_norm(
    k: RowShape,
    gamma: str,
    beta: str,
    t: Text,
    load: Load,
    finish: Finish,
    acc: str,
    r: str,
    type_: str,
    along,
) -> str:
    """One row: the mean, the variance of the centred row, then the normalised row written."""
    at = lambda j: f"{r}, {j}"  # noqa: E731
    row = f"tensor<{k.length}x{k.storage}>"

    # The row is centred on its first element before the mean: on a constant row x - x0 is
    # exactly 0, where sum(x) / n rounds and (x - mean) * rstd scales that by 1/sqrt(eps).
    first_mask = None
    if k.length < k.lanes:
        first_mask = t.fresh("mask")
        t(f"{first_mask} = vector.create_mask {t.c(k.length)} : vector<{k.lanes}xi1>")
    x0 = emit(t, k, f"vector.extract {load(t, t.c(0), '%zero', first_mask)}[0]", f"f32 from {k.vec}")
    shift = k.broadcast(t, x0)

    def total(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        d = emit(t, k, f"arith.subf {load(t, j, x0, mask)}, {shift}")  # masked lanes read x0: 0
        return [emit(t, k, f"arith.addf {carried[0]}, {d}")]

    def mean_of(value: str) -> str:
        return emit(t, k, f"arith.mulf {reduce(t, k, 'add', value)}, %inv_n", "f32")

    zero = [k.broadcast(t, "%zero")]
    centred = mean_of(along(t, k, zero, [k.vec], total, ways=WAYS, combine="addf")[0])
    mean = k.broadcast(t, emit(t, k, f"arith.addf {x0}, {centred}", "f32"))

    def squares(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        d = emit(t, k, f"arith.subf {load(t, j, '%zero', mask)}, {mean}")
        if mask:  # the padding is 0, not the mean
            d = emit(
                t, k, f"arith.select {mask}, {d}, {k.broadcast(t, '%zero')}", f"vector<{k.lanes}xi1>, {k.vec}"
            )
        return [emit(t, k, f"math.fma {d}, {d}, {carried[0]}")]

    var = mean_of(along(t, k, zero, [k.vec], squares, ways=WAYS, combine="addf")[0])
    root = emit(t, k, f"math.sqrt {emit(t, k, f'arith.addf {var}, %eps', 'f32')}", "f32")
    rstd = k.broadcast(t, emit(t, k, f"arith.divf %one, {root}", "f32"))

    def write(t: Text, j: str, mask: str | None, carried: list[str]) -> list[str]:
        v = load(t, j, "%zero", mask)
        g = read(t, k, gamma, j, "%zero", mask, row)
        b = read(t, k, beta, j, "%zero", mask, row)
        normed = emit(t, k, f"arith.mulf {emit(t, k, f'arith.subf {v}, {mean}')}, {rstd}")
        y = emit(t, k, f"math.fma {normed}, {g}, {b}")
        return [write_vector(t, k, finish(t, j, y, mask), carried[0], at(j), mask, type_)]

    return along(t, k, [acc], [type_], write)[0]
