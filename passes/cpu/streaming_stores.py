"""versa-streaming-stores: write outputs larger than the last-level cache with non-temporal stores.

A plain store to a line that is not in cache first reads the line (read for ownership), so
writing an output that cannot stay in cache moves its bytes twice: relu over 64 MB moves 192 MB
where 128 MB must move. A non-temporal store writes the line straight to memory. It only pays
where the line is not read again soon, so it is used for an output that is

- a function argument (an out-param) whose static size is at least the target's last-level
  cache (a smaller output is often still in cache for its reader: there it would cost);
- never read by the function (a kernel that writes a row and then rescales it in cache, as
  softmax does, keeps plain stores), reached only through views.

Each full, unmasked, contiguous vector write of such an output becomes

    scf.if (address % vector bytes == 0) { vector.store {nontemporal, alignment} } else { vector.store }

The test is a couple of integer ops per 64 B stored: the JIT allocates its outputs aligned to 64 B
(`versa.cpu.runtime`), but a caller's array may not be (NumPy's large arrays are 16 B aligned), and
LLVM splits an under-aligned non-temporal vector store into scalar ones. Non-temporal stores are
weakly ordered: a `seq_cst` fence (x86 `mfence`, AArch64 `dmb ish`) follows each outermost loop
that issues them, inside the thread that ran it, before its results are read by anyone else.

Runs after `convert-vector-to-scf` (writes are 1-D vectors on memrefs), before the llvm lowering.
"""

import math
from dataclasses import dataclass

from versa import targets
from versa.mlir import arith, ir, memref, scf

from ..common.base import Pass, collect, target_option

VIEWS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast")
METADATA = ("memref.dim", "memref.extract_strided_metadata", "memref.extract_aligned_pointer_as_index")
SEQ_CST = 7  # LLVM's AtomicOrdering::SequentiallyConsistent, llvm.fence's `ordering`
# Control flow a fence may be hoisted out of: ops that run within the same thread.
# (scf.parallel too: the loops OpenMP runs are omp ops by now, what is left runs serially.)
SERIAL = ("scf.for", "scf.parallel", "scf.if", "scf.while", "scf.execute_region", "memref.alloca_scope")


def _only_written(arg: ir.Value) -> list[ir.Operation] | None:
    """The vector.transfer_writes into `arg` through its views, or None if anything else
    (a read, a call, an unknown view) uses it."""
    writes, pending = [], [arg]
    while pending:
        value = pending.pop()
        for use in value.uses:
            op = use.owner
            if op.name in VIEWS and use.operand_number == 0:
                pending.append(op.results[0])
            elif op.name == "vector.transfer_write" and use.operand_number == 1:
                writes.append(op)
            elif op.name not in METADATA:
                return None
    return writes


def _streamable(write: ir.Operation) -> int:
    """The bytes of a write that can stream (1-D, unmasked, in bounds, into a unit-stride
    innermost dim), a power of two of at least 16; else 0."""
    vector = ir.VectorType(write.operands[0].type)
    dest = ir.MemRefType(write.operands[1].type)
    if vector.rank != 1 or len(write.operands) != 2 + dest.rank or dest.rank == 0:
        return 0  # (a mask operand follows the indices)
    if [bool(b) for b in ir.ArrayAttr(write.attributes["in_bounds"])] != [True]:
        return 0
    permutation = ir.AffineMapAttr(write.attributes["permutation_map"]).value
    if permutation != ir.AffineMap.get_minor_identity(dest.rank, 1):
        return 0
    strides, _ = dest.get_strides_and_offset()
    element = vector.element_type
    bits = element.width if hasattr(element, "width") else 0
    size = vector.shape[0] * bits // 8
    if strides[-1] != 1 or bits % 8 or size < 16 or size & (size - 1):
        return 0
    return size


def _stream(write: ir.Operation, size: int) -> ir.Operation:
    """Replaces `write` by the aligned test and its two stores; returns the test."""
    value, dest, *indices = write.operands
    index = ir.IndexType.get()
    rank = ir.MemRefType(dest.type).rank
    with ir.InsertionPoint(write), write.location:
        meta = memref.ExtractStridedMetadataOp(dest)
        offset, strides = meta.results[1], list(meta.results[2 + rank :])
        element = arith.addi(offset, _dot(indices, strides))
        bytes_ = arith.constant(index, size // ir.VectorType(value.type).shape[0])
        address = arith.addi(memref.extract_aligned_pointer_as_index(dest), arith.muli(element, bytes_))
        misaligned = arith.andi(address, arith.constant(index, size - 1))
        aligned = arith.cmpi(arith.CmpIPredicate.eq, misaligned, arith.constant(index, 0))
        branch = scf.IfOp(aligned, [], has_else=True)
        for block, streaming in ((branch.then_block, True), (branch.else_block, False)):
            with ir.InsertionPoint(block):
                attributes = {}
                if streaming:
                    alignment = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), size)
                    attributes = {"nontemporal": ir.BoolAttr.get(True), "alignment": alignment}
                ir.Operation.create("vector.store", operands=[value, dest, *indices], attributes=attributes)
                scf.YieldOp([])
    write.erase()
    return branch.operation


def _dot(indices: list[ir.Value], strides: list[ir.Value]) -> ir.Value:
    total = arith.muli(indices[0], strides[0])
    for i, s in zip(indices[1:], strides[1:], strict=True):
        total = arith.addi(total, arith.muli(i, s))
    return total


def _outermost_serial(op: ir.Operation) -> ir.Operation:
    while op.parent is not None and op.parent.name in SERIAL:
        op = op.parent
    return op


def _fence_after(op: ir.Operation) -> None:
    with ir.InsertionPoint(op), op.location:
        i64 = ir.IntegerType.get_signless(64)
        fence = ir.Operation.create("llvm.fence", attributes={"ordering": ir.IntegerAttr.get(i64, SEQ_CST)})
    fence.move_after(op)


@dataclass(frozen=True)
class VersaStreamingStores(Pass):
    name = "versa-streaming-stores"
    summary = "Write outputs larger than the last-level cache with non-temporal vector stores"
    target: targets.Target = target_option()

    def run(self, module: ir.Operation) -> None:
        threshold = self.target.caches[2]
        nests: list[ir.Operation] = []  # the outermost serial ops with streaming stores
        for function in collect(module, lambda op: op.name == "func.func"):
            if not function.regions[0].blocks:
                continue
            for arg in function.regions[0].blocks[0].arguments:
                if not isinstance(arg.type, ir.MemRefType) or not ir.MemRefType(arg.type).has_static_shape:
                    continue
                t = ir.MemRefType(arg.type)
                bits = getattr(t.element_type, "width", 0)
                if math.prod(t.shape) * bits // 8 < threshold:
                    continue
                for write in _only_written(arg) or []:
                    size = _streamable(write)
                    if size:
                        nest = _outermost_serial(_stream(write, size))
                        if not any(nest == other for other in nests):
                            nests.append(nest)
        for nest in nests:
            _fence_after(nest)
