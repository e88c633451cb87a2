"""versa-lower-memref-copy: rewrite every strided `memref.copy` as a `linalg.copy`.

    memref.copy %a, %b : memref<6x3xf32, strided<[5, 1]>> to memref<6x3xf32, strided<[5, 1]>>
  → linalg.copy ins(%a : ...) outs(%b : ...)

`finalize-memref-to-llvm` turns a copy between identity-layout memrefs into an `llvm.memcpy`
intrinsic, but any other copy into a call of `memrefCopy` from MLIR's C runner library, which
the bindings do not ship: the JIT then cannot resolve it. Bufferization and
`buffer-results-to-out-params` leave such copies (views returned as results, out-of-place
inserts), so this runs after them; `linalg.copy` becomes plain loops (any rank, any strides)
that LLVM vectorises. Contiguous copies stay `memref.copy` and become memcpy.

Trailing dims that are contiguous in both memrefs are collapsed first: inserting a
2x17x33x33 input into channels 0..16 of a 2x53x33x33 concat is then two rows of 18513
elements (which LLVM turns into memcpy or long vector loops), not 1122 rows of 33.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir, linalg, memref

from ..common.base import Pass, collect
from ..common.memrefs import identity_layout


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
                groups = _contiguous_groups(source.type, target.type)
                if len(groups) < ir.MemRefType(source.type).rank:
                    source, target = _collapsed(source, groups), _collapsed(target, groups)
                linalg.copy(source, outs=[target])
            op.erase()


def _contiguous_groups(*types: ir.Type) -> list[list[int]]:
    """The dims of `types` (one shape, static strides) grouped so that each group after the
    first singleton groups is one contiguous run of elements in every type."""
    layouts = [ir.MemRefType(t) for t in types]
    shape = layouts[0].shape
    if not shape or any(not t.has_static_shape for t in layouts):
        return [[d] for d in range(len(shape))]
    strides = [t.get_strides_and_offset()[0] for t in layouts]
    if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for st in strides for s in st):
        return [[d] for d in range(len(shape))]
    groups = [[len(shape) - 1]]
    for d in range(len(shape) - 2, -1, -1):
        if all(st[d] == st[d + 1] * shape[d + 1] for st in strides) and groups[0][0] == d + 1:
            groups[0].insert(0, d)
        else:
            groups.insert(0, [d])
    return groups


def _collapsed(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    """`value` with each group of dims merged (memref.collapse_shape, strides kept)."""
    t = ir.MemRefType(value.type)
    strides, offset = t.get_strides_and_offset()
    shape = [math.prod(t.shape[d] for d in g) for g in groups]
    merged = [strides[g[-1]] for g in groups]
    layout = None if identity_layout(t) else ir.StridedLayoutAttr.get(offset, merged)
    result = ir.MemRefType.get(shape, t.element_type, layout, t.memory_space)
    return memref.collapse_shape(result, value, ir.ArrayAttr.get([_indices(g) for g in groups]))


def _indices(group: list[int]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d) for d in group])
