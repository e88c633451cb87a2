"""versa-flatten-transfers: read the contiguous trailing dims of an n-D vector as one 1-D run.

`convert-vector-to-scf{full-unroll}` splits an n-D `vector.transfer_read` into reads of its
innermost dim. A window reduction reads `vector<rows x T x s>` (T outputs, a stride of s
elements each): T*s contiguous elements became T reads of `vector<s>` (4 x 110 loads of
`vector<2xf32>` for a 3x3 stride-2 max pool tile), which LLVM cannot merge back. When the
trailing dims of the read are whole dims of a contiguous part of the memref, this reads them
as one dim of a `memref.collapse_shape` and restores the shape with a `vector.shape_cast`:

    %v = vector.transfer_read %m[%i, %c0, %c0] : memref<2x55x2xf32, strided<[112, 2, 1]>>, vector<2x55x2xf32>
  → %f = memref.collapse_shape %m [[0], [1, 2]] : ... to memref<2x110xf32, strided<[112, 1]>>
    %r = vector.transfer_read %f[%i, %c0] : ..., vector<2x110xf32>
    %v = vector.shape_cast %r : vector<2x110xf32> to vector<2x55x2xf32>

No upstream pass does this on strided views (`flatten_vector_transfer_ops` wants the whole
vector contiguous). Only reads whose innermost dim is narrower than a vector register (the
target's) are rewritten: a micro-kernel's rows are one load each already. Runs after
bufferization, before `convert-vector-to-scf`.
"""

import math
from dataclasses import dataclass

from versa import targets
from versa.mlir import ir, memref

from ..common.base import Pass, collect, target_option
from ..common.memrefs import identity_layout


def _contiguous_tail(read: ir.Operation, vector_bits: int) -> int:
    """How many trailing dims (at least 2) of the read's vector are whole, contiguous, zero-
    indexed dims of its memref; 0 if fewer, or if its innermost dim fills a vector register
    already (a micro-kernel's rows: one load each is what it wants)."""
    vector = ir.VectorType(read.results[0].type)
    source = ir.MemRefType(read.operands[0].type)
    if vector.rank < 2 or len(read.operands) != 2 + source.rank:
        return 0  # (a mask operand follows the padding)
    if vector.shape[-1] * getattr(vector.element_type, "width", vector_bits) >= vector_bits:
        return 0
    if any(not bool(b) for b in ir.ArrayAttr(read.attributes["in_bounds"])):
        return 0
    permutation = ir.AffineMapAttr(read.attributes["permutation_map"]).value
    if permutation != ir.AffineMap.get_minor_identity(source.rank, vector.rank):
        return 0
    strides, _ = source.get_strides_and_offset()
    indices = list(read.operands[1 : 1 + source.rank])
    count, expected = 0, 1
    for d in range(1, vector.rank + 1):
        size, index = source.shape[-d], indices[-d]
        if vector.shape[-d] != size or strides[-d] != expected or not _is_zero(index):
            break
        count, expected = d, expected * size
    return count if count >= 2 else 0


def _is_zero(value: ir.Value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
        return False
    return ir.IntegerAttr(owner.attributes["value"]).value == 0


def _collapsed_type(source: ir.MemRefType, tail: int) -> ir.MemRefType:
    """The type memref.collapse_shape infers: identity layout stays identity, strides keep the
    outer strides and the offset."""
    strides, offset = source.get_strides_and_offset()
    shape = [*source.shape[:-tail], math.prod(source.shape[-tail:])]
    if identity_layout(source):
        return ir.MemRefType.get(shape, source.element_type, None, source.memory_space)
    layout_strides = [*strides[:-tail], 1]
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    text = ", ".join("?" if s == dynamic else str(s) for s in layout_strides)
    off = "?" if offset == dynamic else str(offset)
    layout = ir.Attribute.parse(f"strided<[{text}], offset: {off}>")
    return ir.MemRefType.get(shape, source.element_type, layout, source.memory_space)


def _flatten(read: ir.Operation, tail: int) -> None:
    vector = ir.VectorType(read.results[0].type)
    source_value, *rest = read.operands
    source = ir.MemRefType(source_value.type)
    indices, padding = rest[: source.rank], rest[source.rank]
    lead = source.rank - tail
    groups = [[d] for d in range(lead)] + [list(range(lead, source.rank))]
    flat_vector = ir.VectorType.get(
        [*vector.shape[:-tail], math.prod(vector.shape[-tail:])], vector.element_type
    )
    with ir.InsertionPoint(read), read.location:
        flat = memref.CollapseShapeOp(_collapsed_type(source, tail), source_value, groups).result
        rank = len(flat_vector.shape)
        minor = ir.AffineMap.get_minor_identity(lead + 1, rank)
        in_bounds = ir.ArrayAttr.get([ir.BoolAttr.get(True)] * rank)
        new = ir.Operation.create(
            "vector.transfer_read",
            results=[flat_vector],
            operands=[flat, *indices[:lead], indices[-1], padding],
            attributes={
                "permutation_map": ir.AffineMapAttr.get(minor),
                "in_bounds": in_bounds,
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, lead + 1, 1, 0]),
            },
        )
        shaped = ir.Operation.create("vector.shape_cast", results=[vector], operands=[new.result])
    read.results[0].replace_all_uses_with(shaped.result)
    read.erase()


@dataclass(frozen=True)
class VersaFlattenTransfers(Pass):
    name = "versa-flatten-transfers"
    summary = "Read contiguous trailing dims of n-D vector.transfer_reads as one dim (fewer, wider loads)"

    target: targets.Target = target_option()

    def run(self, module: ir.Operation) -> None:
        bits = self.target.vector_bits
        reads = collect(
            module,
            lambda op: op.name == "vector.transfer_read" and isinstance(op.operands[0].type, ir.MemRefType),
        )
        for read in reads:
            tail = _contiguous_tail(read, bits)
            if tail:
                _flatten(read, tail)
