"""The type a storage element type computes in: f16 and bf16 in f32, everything else in itself.

Half floats are loaded, extended to f32, computed on, and rounded once when stored, as
PyTorch's CPU kernels do for half softmax, layer_norm, gelu and sigmoid. x86 has no half
arithmetic short of AVX512-FP16: LLVM would extend and round around every single op (a
rounding each, and conversions that cost more than the op), and the f32 polynomials of
`versa-fast-math` would not apply at all. One place knows the pairing, so versa-fast-math, the
scalar emitters and the row kernels agree on it (and with `linalg_builders.accumulator`, the
type f16/bf16 contractions sum in).
"""

from collections.abc import Callable, Sequence

from versa.mlir import arith, ir

HALF_NAMES = ("f16", "bf16")


def is_half(element: ir.Type) -> bool:
    return isinstance(element, ir.F16Type | ir.BF16Type)


def compute_element(element: ir.Type) -> ir.Type:
    """f32 for f16 and bf16; the element itself otherwise."""
    return ir.F32Type.get() if is_half(element) else element


def compute_name(storage: str) -> str:
    """`compute_element` on a type's text ("f16" → "f32"), for kernels written as text."""
    return "f32" if storage in HALF_NAMES else storage


def element(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def with_element(t: ir.Type, new: ir.Type) -> ir.Type:
    """`t` (a scalar, vector or ranked tensor type) with `new` as its element type."""
    if isinstance(t, ir.VectorType):
        return ir.VectorType.get(t.shape, new, scalable=t.scalable_dims)
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get(t.shape, new)
    return new


def widened(t: ir.Type) -> ir.Type:
    """`t` (a scalar, vector or ranked tensor) with its element in the compute type."""
    return with_element(t, compute_element(element(t)))


def in_compute_type(compute: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    """`compute` on the operands extended to the compute type, its result rounded back once
    (the operands' own type when that is its compute type)."""

    def wrapped(*operands: ir.Value) -> ir.Value:
        given = operands[0].type
        if not is_half(element(given)):
            return compute(*operands)
        result = compute(*(arith.extf(widened(v.type), v) for v in operands))
        return arith.truncf(given, result)

    return wrapped


def wrap_scalar(scalar: Callable[[Sequence[ir.Value], ir.Type, dict], ir.Value]):
    """A scalar emitter (`scalar_emitters.Scalar`) computing in the operands' compute type."""

    def wrapped(xs: Sequence[ir.Value], out: ir.Type, attrs: dict) -> ir.Value:
        return in_compute_type(lambda *wide: scalar(wide, compute_element(out), attrs))(*xs)

    return wrapped
