"""Zero points out of an integer contraction's inner loop, as gemmlowp, TOSA and IREE take them:

    Σ_k (a - za)(b - zb) = Σ_k a·b  -  zb · Σ_k a  -  za · Σ_k (b - zb)

The first sum is a plain i8 x i8 → i32 contraction (`linalg.matmul`, `conv_2d_*`), which the
CPU's codegen strategies tile and vectorize as they do f32; the second is a sum of the
activations per output row (per output pixel's window for a conv), built only where zb is not
known to be 0 (symmetric weights: every PT2E model); the third, per output column (filter), is
a constant when the weights and za are (folded here, at compile time), else a sum over the
weights at run time. Everything is i32 arithmetic, which wraps as the reference's single wrap
of its int64 sum does: the result is bit-exact.

The contraction reads both operands alike (a named op's one `cast`), so an operand stored in
the other range is moved first: a ui8 byte u read signed is u ^ 0x80 = u - 128, and
(u - z) = ((u - 128) - (z - 128)): its zero point moves with it (an i8 byte read unsigned
likewise, by +128). A constant operand is moved at compile time.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import arith, ir, tensor

from ...common import extents
from ...common import linalg_builders as build
from .lower_quant import is_unsigned, signless, widen

Scalar = int | ir.Value  # a zero point: known (a Python int) or an i32 value


def i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def constant_of(value: ir.Value) -> np.ndarray | None:
    """The int64 values of a `versa.constant` or `arith.constant` tensor, else None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name not in ("versa.constant", "arith.constant"):
        return None
    array = elements_to_numpy(owner.operation.attributes["value"])
    return (array.view(np.uint8) if is_unsigned(value) and array.dtype == np.int8 else array).astype(np.int64)


@dataclass(frozen=True)
class Operand:
    """An 8-bit operand as the contraction reads it: its bytes (i8), zero point, and values
    when constant (in the reading's range: [-128, 127] signed, [0, 255] unsigned)."""

    value: ir.Value
    zero: Scalar
    array: np.ndarray | None


def read(x: ir.Value, zero: ir.Value, unsigned: bool) -> Operand:
    """`x` and its 0-d zero point moved into the range the contraction reads (`unsigned` or
    signed): a byte of the other range flips its top bit, a shift by 128 that the zero point
    takes too (see the module docstring); constants are moved at compile time."""
    stored = is_unsigned(x)
    shift = 0 if stored == unsigned else (128 if stored else -128)  # read = stored - shift
    known = constant_of(zero)
    if known is not None:
        z: Scalar = int(known) - shift
    else:
        z = widen(tensor.extract(signless(zero), []), stored, i32())
        z = arith.subi(z, build.scalar(i32(), shift)) if shift else z
    i8 = ir.IntegerType.get_signless(8)
    array = constant_of(x)
    if array is not None:
        array = array - shift
        value = build.dense((array & 0xFF).astype(np.uint8).view(np.int8)) if shift else signless(x)
    elif shift:
        flip = build.scalar(i8, -128)
        value = build.elementwise([signless(x)], build.shape_of(x), [i8], lambda v: [arith.xori(v, flip)])[0]
    else:
        value = signless(x)
    return Operand(value, z, array)


def is_zero(value: Scalar) -> bool:
    return isinstance(value, int) and value == 0


def sums(x: ir.Value, axes: Sequence[int], unsigned: bool) -> ir.Value:
    """Σ of the i8 (or i32) tensor `x` over `axes` in i32, its bytes read `unsigned` or
    signed, the axes kept as size-1 dims."""
    shape = extents.of(x)  # index values for dynamic dims
    kept = tuple(s for d, s in enumerate(shape) if d not in axes)

    def add(v: ir.Value, acc: ir.Value) -> ir.Value:
        return arith.addi(acc, v if v.type == acc.type else widen(v, unsigned, acc.type))

    total = build.reduce(x, sorted(axes), build.filled(kept, i32(), 0), add)
    return build.expand(
        total,
        tuple(1 if d in axes else s for d, s in enumerate(shape)),
        build.keepdims_groups(len(shape), axes),
    )


def column_term(
    a: Operand, b: Operand, axes: Sequence[int], shape: Sequence[int], unsigned: bool
) -> tuple[ir.Value, Scalar, Scalar] | None:
    """za · Σ(b - zb) over b's reduced `axes` as (tensor t, factor f, offset o) with the term
    f · (t - o), t reshaped to `shape` (which broadcasts against the result): a folded constant
    (f = 1, o = 0) where b, za and zb are known; None where za is 0."""
    if is_zero(a.zero):
        return None
    count = int(np.prod([build.shape_of(b.value)[d] for d in axes]))
    if b.array is not None and isinstance(a.zero, int) and isinstance(b.zero, int):
        folded = a.zero * (b.array - b.zero).sum(axis=tuple(axes), keepdims=True)
        return build.dense(folded.astype(np.int32).reshape(shape)), 1, 0
    if b.array is not None:
        total = build.dense(b.array.sum(axis=tuple(axes)).astype(np.int32).reshape(shape))
    else:
        total = build.reshape(sums(b.value, axes, unsigned), tuple(shape))
    offset = count * b.zero if isinstance(b.zero, int) else arith.muli(b.zero, build.scalar(i32(), count))
    return total, a.zero, offset


def subtract(
    core: ir.Value, terms: Sequence[tuple[ir.Value, Scalar, Scalar]], shape: Sequence[int]
) -> ir.Value:
    """`core` (i32, `shape`) minus each term f · (t - o), its tensor t broadcast NumPy-style
    (size-1 dims): one elementwise generic."""
    if not terms:
        return core
    tensors = [core, *(t for t, _, _ in terms)]

    def body(acc: ir.Value, *values: ir.Value) -> list[ir.Value]:
        return [minus(acc, values, terms)]

    return build.elementwise(tensors, tuple(shape), [i32()], body)[0]


def minus(
    acc: ir.Value, values: Sequence[ir.Value], terms: Sequence[tuple[ir.Value, Scalar, Scalar]]
) -> ir.Value:
    """The i32 scalar `acc` minus each term f · (t - o) at one point, `values` the t read there:
    `subtract`'s body, and a fused epilogue's where the contraction is its anchor."""
    for v, (_, factor, offset) in zip(values, terms, strict=True):
        v = v if is_zero(offset) else arith.subi(v, _value(offset))
        v = v if factor == 1 else arith.muli(v, _value(factor))
        acc = arith.subi(acc, v)
    return acc


def row_term(b: Operand, row_sums: Callable[[], ir.Value]) -> list[tuple[ir.Value, Scalar, Scalar]]:
    """zb · (Σ of the activations each output reads), built by `row_sums` only where zb may be
    non-zero."""
    return [] if is_zero(b.zero) else [(row_sums(), b.zero, 0)]


def _value(v: Scalar) -> ir.Value:
    return build.scalar(i32(), v) if isinstance(v, int) else v
