"""versa-lower-memref-copy: rewrite every strided `memref.copy` as a `linalg.copy`.

    memref.copy %a, %b : memref<6x3xf32, strided<[5, 1]>> to memref<6x3xf32, strided<[5, 1]>>
  → linalg.copy ins(%a : ...) outs(%b : ...)

`finalize-memref-to-llvm` turns a copy between identity-layout memrefs into an `llvm.memcpy`
intrinsic, but any other copy into a call of `memrefCopy` from MLIR's C runner library, which
the bindings do not ship: the JIT then cannot resolve it. Bufferization and
`buffer-results-to-out-params` leave such copies (views returned as results, out-of-place
inserts), so this runs after them; `linalg.copy` becomes plain loops (any rank, any strides)
that LLVM vectorises. Contiguous copies stay `memref.copy` and become memcpy.
"""

from dataclasses import dataclass

from versa.mlir import ir, linalg

from .base import Pass, collect


def identity_layout(t: ir.Type) -> bool:
    """An identity-layout memref: the only kind finalize-memref-to-llvm copies with memcpy."""
    t = ir.MemRefType(t)
    if not isinstance(t.layout, ir.AffineMapAttr):
        return False
    layout = t.layout.value
    return layout == ir.AffineMap.get_identity(layout.n_dims)


@dataclass(frozen=True)
class VersaLowerMemrefCopy(Pass):
    name = "versa-lower-memref-copy"
    summary = "Rewrite memref.copy between strided memrefs as linalg.copy (no runtime library call)"

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name == "memref.copy"):
            source, target = op.operands
            if identity_layout(source.type) and identity_layout(target.type):
                continue
            with ir.InsertionPoint(op), op.location:
                linalg.copy(source, outs=[target])
            op.erase()
