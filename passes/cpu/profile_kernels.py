"""versa-profile-kernels: time each kernel of the entry function (a profiling compile).

After bufferization the entry function is a sequence of kernels: loop nests, thread-parallel
foralls, calls of shared kernels, copies, each located at the source op it came from, with
free ops between them (views, reshapes, constants, arena slices). Consecutive kernel ops of the
same source (`common/source_names.py`) form one kernel; after each, a call of
`versa_profile_mark(id)` adds the monotonic-clock time since the previous mark to
`versa_profile_ns[id]` and counts a call in `versa_profile_calls[id]` (one more mark at entry
starts the clock; slot 0 is that entry mark, never a kernel). The table of kernels (id, source
names, op names) is the module's `versa.profile` attribute; `versa.cpu.profile` reads the
counters back through the JIT, at the addresses `<counter>_address()` returns (MLIR's
ExecutionEngine finds functions by name, not data globals).

Instrumented code, not sampling or a guess: a mark costs one `clock_gettime` (vDSO, ~20 ns)
and a few loads and stores, outside any parallel region. Runs after versa-plan-buffers (the
kernels' order is final; later passes only lower them) and before threads are lowered.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass
from ..common.source_names import source_names

MARK = "versa_profile_mark"
NANOSECONDS = "versa_profile_ns"
CALLS = "versa_profile_calls"
TABLE = "versa.profile"
# What costs nothing at run time: views and casts of buffers, constants, the arena's slices.
_FREE_PREFIXES = ("memref.", "arith.constant", "ub.", "llvm.mlir.")
_NOT_FREE = ("memref.copy",)

_RUNTIME = """
llvm.mlir.global external @{ns}(dense<0> : tensor<{n}xi64>) : !llvm.array<{n} x i64>
llvm.mlir.global external @{calls}(dense<0> : tensor<{n}xi64>) : !llvm.array<{n} x i64>
llvm.mlir.global internal @versa_profile_last(0 : i64) : i64
llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
llvm.func @{mark}(%id: i64) attributes {{sym_visibility = "private", no_inline}} {{
  %one = llvm.mlir.constant(1 : i32) : i32
  %time = llvm.alloca %one x !llvm.struct<(i64, i64)> : (i32) -> !llvm.ptr
  %monotonic = llvm.mlir.constant(1 : i32) : i32
  %status = llvm.call @clock_gettime(%monotonic, %time) : (i32, !llvm.ptr) -> i32
  %seconds = llvm.load %time : !llvm.ptr -> i64
  %nanos_at = llvm.getelementptr %time[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, i64)>
  %nanos = llvm.load %nanos_at : !llvm.ptr -> i64
  %billion = llvm.mlir.constant(1000000000 : i64) : i64
  %scaled = llvm.mul %seconds, %billion : i64
  %now = llvm.add %scaled, %nanos : i64
  %last_at = llvm.mlir.addressof @versa_profile_last : !llvm.ptr
  %last = llvm.load %last_at : !llvm.ptr -> i64
  %elapsed = llvm.sub %now, %last : i64
  %ns = llvm.mlir.addressof @{ns} : !llvm.ptr
  %ns_at = llvm.getelementptr %ns[0, %id] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<{n} x i64>
  %ns_old = llvm.load %ns_at : !llvm.ptr -> i64
  %ns_new = llvm.add %ns_old, %elapsed : i64
  llvm.store %ns_new, %ns_at : i64, !llvm.ptr
  %calls = llvm.mlir.addressof @{calls} : !llvm.ptr
  %calls_at = llvm.getelementptr %calls[0, %id] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<{n} x i64>
  %calls_old = llvm.load %calls_at : !llvm.ptr -> i64
  %unit = llvm.mlir.constant(1 : i64) : i64
  %calls_new = llvm.add %calls_old, %unit : i64
  llvm.store %calls_new, %calls_at : i64, !llvm.ptr
  llvm.store %now, %last_at : i64, !llvm.ptr
  llvm.return
}}
llvm.func @{ns}_address() -> !llvm.ptr {{
  %at = llvm.mlir.addressof @{ns} : !llvm.ptr
  llvm.return %at : !llvm.ptr
}}
llvm.func @{calls}_address() -> !llvm.ptr {{
  %at = llvm.mlir.addressof @{calls} : !llvm.ptr
  llvm.return %at : !llvm.ptr
}}
func.func private @versa_profile_template() {{
  %id = llvm.mlir.constant(0 : i64) : i64
  llvm.call @{mark}(%id) : (i64) -> ()
  return
}}
"""


def _is_free(op: ir.Operation) -> bool:
    name = op.name
    return name not in _NOT_FREE and name.startswith(_FREE_PREFIXES)


def _kernels(block: ir.Block) -> list[tuple[tuple[str, ...], list[ir.Operation]]]:
    """Consecutive non-free ops of one source, in order: (source names, ops)."""
    kernels: list[tuple[tuple[str, ...], list[ir.Operation]]] = []
    for op in block.operations:
        op = op.operation
        if op.name == "func.return" or _is_free(op):
            continue
        names = source_names(op.location)
        if kernels and kernels[-1][0] == names:
            kernels[-1][1].append(op)
        else:
            kernels.append((names, [op]))
    return kernels


@dataclass(frozen=True)
class VersaProfileKernels(Pass):
    name = "versa-profile-kernels"
    summary = "Time each kernel of the public functions with clock marks (a profiling compile)"

    def run(self, module: ir.Operation) -> None:
        entries = [
            op
            for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func"
            and "sym_visibility" not in op.attributes
            and op.regions[0].blocks
        ]
        plan = [(entry, _kernels(entry.regions[0].blocks[0])) for entry in entries]
        count = 1 + sum(len(kernels) for _, kernels in plan)
        text = _RUNTIME.format(ns=NANOSECONDS, calls=CALLS, mark=MARK, n=count)
        runtime = ir.Module.parse(text, module.context)
        body = module.regions[0].blocks[0]
        template, first = None, body.operations[0]
        for op in list(runtime.body.operations):
            if op.operation.name == "func.func":
                template = op
                continue
            op.operation.move_before(first)  # in the text's order, ahead of the module's ops
        constant, call = list(template.regions[0].blocks[0].operations)[:2]
        table, next_id = [], 1

        def mark(after: ir.Operation | None, block: ir.Block, index: int) -> None:
            """The mark `index` right after `after` (None: at the start of `block`)."""
            ip = ir.InsertionPoint(after) if after is not None else ir.InsertionPoint.at_block_begin(block)
            value = constant.operation.clone(ip)
            value.attributes["value"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), index)
            made = call.operation.clone(ip)
            made.operands[0] = value.results[0]
            if after is not None:  # cloned before `after`: moved behind it
                value.move_after(after)
                made.move_after(value)

        for entry, kernels in plan:
            block = entry.regions[0].blocks[0]
            function = entry.attributes["sym_name"].value
            mark(None, block, 0)
            for names, ops in kernels:
                mark(ops[-1], block, next_id)
                table.append(_entry(next_id, function, names, ops))
                next_id += 1
        module.attributes[TABLE] = ir.ArrayAttr.get(table)


def _entry(index: int, function: str, names: tuple[str, ...], ops: list[ir.Operation]) -> ir.Attribute:
    strings = lambda items: ir.ArrayAttr.get([ir.StringAttr.get(s) for s in items])  # noqa: E731
    return ir.DictAttr.get(
        {
            "id": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), index),
            "function": ir.StringAttr.get(function),
            "sources": strings(names),
            "ops": strings(dict.fromkeys(op.name for op in ops)),
        }
    )
