"""versa-flat-globals: constant n-D memref.globals stored flat, viewed in their shape.

MLIR translates a constant global of type memref<A x B x C x f32> into LLVM's nested arrays,
one ConstantDataArray per innermost row: A·B constants of C floats each, which LLVM builds,
hashes and emits one by one. Weights packed into register panels (versa-pack-weights: [N/nr,
K, nr], rows of 16-64 floats) made that 24x more rows than the [K, N] matrices they replace,
and HF BERT-base's LLVM time grew from 12 to 19 s. Here each such global holds its elements as
one 1-D array and every `memref.get_global` of it is an `expand_shape` of the flat one (the
same bytes, a view): a single ConstantDataArray per global.

    memref.global "private" constant @w : memref<24x768x32xf32> = dense<...>
    %w = memref.get_global @w : memref<24x768x32xf32>
  → memref.global "private" constant @w : memref<589824xf32> = dense<...>
    %0 = memref.get_global @w : memref<589824xf32>
    %w = memref.expand_shape %0 [[0, 1, 2]] output_shape [24, 768, 32] : ...

Only constant globals with a dense initial value, an identity layout and a static shape whose
innermost rows are short (MAX_ROW elements or fewer) change: a long row already is one array.
Neither do those that `versa-byte-globals` will store as one array of bytes anyway (f32 weights
and the like: `memrefs.stored_as_bytes`), whose flat copy here was a copy of a model's packed
weights hashed into the context once more (~0.3 s of a 135M-parameter model's compile).
"""

from dataclasses import dataclass

import numpy as np
from versa.mlir import ir, memref

from ..common.base import Pass
from ..common.memrefs import stored_as_bytes

MAX_ROW = 256  # innermost rows of at most this many elements are flattened


def _strided(kind: ir.MemRefType) -> bool:
    """Whether `kind` has a layout other than the identity (row-major, no offset)."""
    return kind.layout != ir.AffineMapAttr.get(ir.AffineMap.get_identity(kind.rank))


def _flat_candidate(op: ir.Operation) -> ir.DenseElementsAttr | None:
    if "constant" not in op.attributes or "initial_value" not in op.attributes:
        return None
    value = op.attributes["initial_value"]
    if not isinstance(value, ir.DenseElementsAttr) or value.is_splat:
        return None
    kind = ir.MemRefType(ir.TypeAttr(op.attributes["type"]).value)
    if kind.rank < 2 or not kind.has_static_shape or _strided(kind):
        return None
    alignment = op.attributes["alignment"].value if "alignment" in op.attributes else 0
    if stored_as_bytes(kind.element_type, int(np.prod(kind.shape)), alignment):
        return None  # versa-byte-globals makes it one array of bytes, whatever its shape
    return value if kind.shape[-1] <= MAX_ROW else None


@dataclass(frozen=True)
class VersaFlatGlobals(Pass):
    name = "versa-flat-globals"
    summary = "Store constant n-D memref.globals with short rows as 1-D arrays, viewed in their shape"

    def run(self, module: ir.Operation) -> None:
        flattened: dict[str, ir.MemRefType] = {}  # name -> its old type
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "memref.global":
                continue
            value = _flat_candidate(op)
            if value is None:
                continue
            kind = ir.MemRefType(ir.TypeAttr(op.attributes["type"]).value)
            count = int(np.prod(kind.shape))
            # a view of the old attribute's elements (the new one copies them)
            flat = ir.DenseElementsAttr.get(np.asarray(value).reshape(count), type=kind.element_type)
            op.attributes["initial_value"] = flat
            op.attributes["type"] = ir.TypeAttr.get(ir.MemRefType.get([count], kind.element_type))
            flattened[ir.StringAttr(op.attributes["sym_name"]).value] = kind
        if not flattened:
            return
        uses: list[ir.Operation] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "memref.get_global":
                if ir.FlatSymbolRefAttr(op.attributes["name"]).value in flattened:
                    uses.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for op in uses:
            name = ir.FlatSymbolRefAttr(op.attributes["name"]).value
            kind = flattened[name]
            with ir.InsertionPoint(op), op.location:
                count = int(np.prod(kind.shape))
                flat = memref.get_global(ir.MemRefType.get([count], kind.element_type), name)
                i64 = ir.IntegerType.get_signless(64)
                groups = ir.ArrayAttr.get(
                    [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in range(kind.rank)])]
                )
                view = memref.expand_shape(kind, flat, groups, [], list(kind.shape))
            op.results[0].replace_all_uses_with(view)
            op.erase()
