"""Facts about memref types that several phases ask."""

from versa.mlir import ir


def identity_layout(t: ir.Type) -> bool:
    """An identity-layout memref: the only kind finalize-memref-to-llvm copies with memcpy."""
    t = ir.MemRefType(t)
    if not isinstance(t.layout, ir.AffineMapAttr):
        return False
    layout = t.layout.value
    return layout == ir.AffineMap.get_identity(layout.n_dims)
