"""versa-plan-buffers: put a function's intermediate buffers into one arena planned by liveness.

    %a = memref.alloc() : memref<64x512xf32>
    ... last use of %a ...
    %b = memref.alloc() : memref<64x512xf32>
    memref.dealloc %a; memref.dealloc %b
  →
    memref.global "private" @__versa_arena_f : memref<131072xi8> = uninitialized {alignment = 64}
    %g = memref.get_global @__versa_arena_f : memref<131072xi8>      (at the function entry)
    %a = memref.view %g[%c0][] : memref<131072xi8> to memref<64x512xf32>
    ... last use of %a ...
    %b = memref.view %g[%c0][] : memref<131072xi8> to memref<64x512xf32>  (%a's bytes; no deallocs)

After bufferization and `buffer-deallocation-pipeline` every call of an entry function mallocs
and frees each intermediate buffer: fresh pages, page faults, allocator work. This pass plans
the statically shaped allocs of a function body's top-level block at compile time instead: a
buffer lives from its first use to its last (a use nested in a region counts at its ancestor op
in the block; uses of subviews, views, casts and reshapes of it count too; deallocs do not),
buffers whose lifetimes do not overlap share bytes, and offsets (64-byte aligned) come from
first fit in order of decreasing size. The arena is a private, uninitialised `memref.global`
(`.bss`): allocated once per compiled module and reused by every call. The function records
its size as `versa.arena_bytes` (i64), which `arena_bytes(module)` reads back.

A planned function is not reentrant: two threads calling it at once, or a recursive call,
share one arena. Threads inside one call (OpenMP) are fine: they share these buffers anyway.

Left alone (still malloc'd): allocs in nested regions (loops, parallel and OpenMP regions),
dynamic shapes, non-identity layouts, memory spaces, alignments above 64, and buffers that may
escape: returned or yielded, passed to a call, stored, or flowing into any other op that
produces a memref (an `scf.for` iter_arg, `arith.select`, ...). Unplanned buffers of the
top-level block that do not escape are at least allocated right before their first use and
freed right after their last (`buffer-deallocation-pipeline` frees at the end of the block):
a call then holds only the live ones, and `versa-buffer-cache` hands a freed block to the
next alloc. A call of a function defined in
the module that returns no memref is a use, not an escape: the kernels that `versa-codegen`
shares between a model's layers (`strategies/sharing.py`) are such calls, and their buffers
are the model's largest; a callee's own buffers are in its own arena. (A callee could still
keep an argument's address in memory; no function Versa emits does.)
"""

from dataclasses import dataclass

from versa.mlir import arith, ir, memref

from ..common.base import Pass
from ..common.memrefs import identity_layout

ALIGNMENT = 64
ATTRIBUTE = "versa.arena_bytes"
# Ops whose memref results are views of their source operand: a use of them is a use of it.
_ALIASES = frozenset(
    {
        "memref.subview",
        "memref.view",
        "memref.cast",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.reinterpret_cast",
        "memref.reshape",
        "memref.transpose",
        "memref.extract_strided_metadata",
    }
)
# Ops through which the buffer's address may leave the function or outlive the dealloc.
_ESCAPES = frozenset(
    {
        "bufferization.dealloc",
        "memref.extract_aligned_pointer_as_index",
        "builtin.unrealized_conversion_cast",
        "func.call",
        "func.call_indirect",
        "llvm.call",
    }
)


@dataclass
class Buffer:
    """One planned alloc: its size in bytes, its live interval as op indices in the block."""

    alloc: ir.Operation
    size: int
    start: int
    end: int
    deallocs: list[ir.Operation]
    offset: int = 0


def _align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def _static_bytes(alloc: ir.Operation) -> int | None:
    """The byte size of a plannable alloc (static, identity layout, default memory space,
    int/float/index elements), else None. Elements take LLVM's allocation size (i1: one byte)."""
    t = ir.MemRefType(alloc.results[0].type)
    align = alloc.attributes["alignment"].value if "alignment" in alloc.attributes else 0
    if not t.has_static_shape or t.memory_space is not None or align > ALIGNMENT:
        return None
    if not identity_layout(t):
        return None
    element = t.element_type
    if isinstance(element, ir.IndexType):
        width = 64
    elif isinstance(element, ir.IntegerType | ir.FloatType):
        width = element.width
    else:
        return None
    element_bytes = 1 << max(0, (width - 1).bit_length() - 3)
    count = 1
    for d in t.shape:
        count *= d
    return count * element_bytes


def _escapes(user: ir.Operation, operand: int, local: frozenset[str]) -> bool:
    if user.name == "func.call" and ir.FlatSymbolRefAttr(user.attributes["callee"]).value in local:
        return False
    if user.name in _ESCAPES or user.has_trait(ir.IsTerminatorTrait):
        return True
    if user.name == "memref.store" and operand == 0:  # the buffer itself is the stored value
        return True
    produces_memref = any(isinstance(r.type, ir.MemRefType) for r in user.results)
    return produces_memref and user.name not in _ALIASES


def _liveness(
    alloc: ir.Operation, body: ir.Operation, index: dict[ir.Operation, int], local: frozenset[str]
) -> Buffer | None:
    """The buffer of `alloc` with its interval and deallocs, following aliases; None if it escapes.
    The interval starts at the first use, not at the alloc: bufferization hoists allocs, and no
    op touches the bytes before that use."""
    uses = []
    buffer = Buffer(alloc, 0, 0, 0, [])
    pending = [alloc.results[0]]
    while pending:
        for use in pending.pop().uses:
            user = use.owner.operation
            if user.name == "memref.dealloc":
                buffer.deallocs.append(user)
                continue
            if _escapes(user, use.operand_number, local):
                return None
            if user.name in _ALIASES:
                pending.extend(r for r in user.results if isinstance(r.type, ir.MemRefType))
            while user.parent != body:
                user = user.parent
            uses.append(index[user])
    buffer.start, buffer.end = min(uses, default=index[alloc]), max(uses, default=index[alloc])
    return buffer


def _place(buffers: list[Buffer]) -> int:
    """First fit, largest first, against the placed buffers live at the same time; the arena size."""
    placed: list[Buffer] = []
    for b in sorted(buffers, key=lambda b: (-b.size, b.start)):
        taken = sorted((p.offset, p.offset + p.size) for p in placed if p.start <= b.end and b.start <= p.end)
        for low, high in taken:
            if b.offset + b.size <= low:
                break
            b.offset = max(b.offset, _align(high))
        placed.append(b)
    return max((_align(b.offset + b.size) for b in buffers), default=0)


def _narrow(buffer: Buffer, ops: list[ir.Operation]) -> None:
    """A buffer left on the heap is allocated right before its first use and freed right after
    its last, not where bufferization put them (allocs hoisted to the top, deallocs at the
    block's end): each layer's intermediates are then freed before the next layer allocates
    its own, as the arena shares bytes (a 4-layer BERT-base at 16 x 512 held 5 GB at once)."""
    block = buffer.alloc.parent
    if any(d.parent != block for d in buffer.deallocs) or buffer.end >= len(ops) - 1:
        return
    if ops.index(buffer.alloc) < buffer.start:
        buffer.alloc.move_before(ops[buffer.start])
    for dealloc in buffer.deallocs:
        dealloc.move_after(ops[buffer.end])


def _plan(function: ir.Operation, symbols: ir.SymbolTable, local: frozenset[str]) -> None:
    block = function.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    index = {op: i for i, op in enumerate(ops)}
    buffers = []
    for op in ops:
        if op.name != "memref.alloc":
            continue
        size = _static_bytes(op)
        buffer = _liveness(op, function, index, local)
        if buffer is not None and size is not None:
            buffer.size = size
            buffers.append(buffer)
        elif buffer is not None:
            _narrow(buffer, ops)
    arena_size = _place(buffers)
    i64 = ir.IntegerType.get_signless(64)
    function.attributes[ATTRIBUTE] = ir.IntegerAttr.get(i64, arena_size)
    if not buffers:
        return
    arena_type = ir.MemRefType.get([arena_size], ir.IntegerType.get_signless(8))
    name = function.attributes["sym_name"].value
    with ir.InsertionPoint(function), function.location:
        arena = memref.GlobalOp(
            f"__versa_arena_{name}",
            ir.TypeAttr.get(arena_type),
            sym_visibility="private",
            initial_value=ir.UnitAttr.get(),
            alignment=ALIGNMENT,
        )
    symbol = symbols.insert(arena.operation).value  # renamed if the name is taken
    with ir.InsertionPoint.at_block_begin(block), function.location:
        base = memref.get_global(arena_type, symbol)
    for b in buffers:
        with ir.InsertionPoint(b.alloc), b.alloc.location:
            offset = arith.constant(ir.IndexType.get(), b.offset)
            view = memref.view(b.alloc.results[0].type, base, offset, [])
        b.alloc.results[0].replace_all_uses_with(view)
        for op in (b.alloc, *b.deallocs):
            op.erase()


@dataclass(frozen=True)
class VersaPlanBuffers(Pass):
    name = "versa-plan-buffers"
    summary = "Plan static intermediate buffers into one reused arena (memref.global) by liveness"

    def run(self, module: ir.Operation) -> None:
        symbols = ir.SymbolTable(module)
        functions = [
            op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"
        ]
        local = frozenset(
            f.attributes["sym_name"].value
            for f in functions
            if f.regions[0].blocks
            and not any(
                isinstance(t, ir.MemRefType)
                for t in ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value).results
            )
        )
        for function in functions:
            if len(function.regions[0].blocks) == 1:
                _plan(function, symbols, local)


def arena_bytes(module: ir.Module | ir.Operation) -> dict[str, int]:
    """Arena bytes per planned function (func.func or, once lowered, llvm.func)."""
    found = {}
    for op in module.operation.regions[0].blocks[0].operations:
        name = op.attributes["sym_name"].value if "sym_name" in op.attributes else ""
        if ATTRIBUTE in op.attributes and not name.startswith("_mlir_ciface_"):
            found[name] = op.attributes[ATTRIBUTE].value
    return found
