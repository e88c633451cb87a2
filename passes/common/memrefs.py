"""Facts about memref types that several phases ask."""

from versa.mlir import ir


def identity_layout(t: ir.Type) -> bool:
    """An identity-layout memref: the only kind finalize-memref-to-llvm copies with memcpy."""
    t = ir.MemRefType(t)
    if not isinstance(t.layout, ir.AffineMapAttr):
        return False
    layout = t.layout.value
    return layout == ir.AffineMap.get_identity(layout.n_dims)


# Constant globals of fewer bytes are not worth storing as bytes (versa-byte-globals).
BYTES_AT_LEAST = 4096


def element_bytes(element: ir.Type) -> int | None:
    """The bytes of a number whose bytes are its value in memory as in an LLVM constant (not i1:
    bit-packed in MLIR's storage; not i8: bytes already; not bf16: moved as i16 bits by then,
    `versa-bf16-bits`), else None."""
    if isinstance(element, ir.F32Type | ir.F64Type | ir.F16Type):
        return ir.FloatType(element).width // 8
    if isinstance(element, ir.IntegerType) and element.width in (16, 32, 64):
        return element.width // 8
    return None


def stored_as_bytes(element: ir.Type, count: int, alignment: int) -> bool:
    """Whether `versa-byte-globals` stores a constant global of `count` `element`s aligned to
    `alignment` as one i8 array (whatever its shape): such numbers, large enough, aligned as
    their element (an i8 array would drop the alignment to 1)."""
    natural = element_bytes(element)
    return natural is not None and count * natural >= BYTES_AT_LEAST and alignment >= natural
