"""versa-inline-alloca-scopes: the `memref.alloca_scope` around each OpenMP loop body, inlined
where it scopes no stack allocation.

`convert-scf-to-openmp` wraps every parallel loop's body in an alloca_scope. canonicalize
inlines it only where no op in the body (calls nested in loops aside) might allocate on the
stack, and a `func.call` might as far as it knows (it has no memory-effect interface): a
micro-kernel whose body calls its intrinsics (`@llvm.x86.avx512.vpdpbusd.512`) outside any
loop and holds a loop too keeps its scope, and `convert-scf-to-cf` then fails on it ("expects
region #0 to have 0 or 1 blocks": the scope's region must stay one block). A call allocates
nothing in its caller's frame, so a scope whose body holds no `memref.alloca` bounds nothing
and goes; one that does is kept (inlined, its allocas would pile up on the stack per
iteration). What is allocated later (vector-to-scf) lands in `omp.parallel`, itself a scope.

    omp.loop_nest (%i) ... { memref.alloca_scope { body } omp.yield }
  → omp.loop_nest (%i) ... { body omp.yield }
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect

_ALLOCATIONS = ("memref.alloca", "llvm.alloca")


@dataclass(frozen=True)
class VersaInlineAllocaScopes(Pass):
    name = "versa-inline-alloca-scopes"
    summary = "Inline memref.alloca_scope ops that scope no stack allocation (OpenMP loop bodies)"

    def run(self, module: ir.Operation) -> None:
        scopes = collect(module, lambda op: op.name == "memref.alloca_scope")
        for scope in scopes:  # nested ones too: moving an op keeps it valid
            if not collect(scope, lambda op: op.name in _ALLOCATIONS):
                _inline(scope)


def _inline(scope: ir.Operation) -> None:
    """Move `scope`'s body before it, its results replaced by what its terminator returns."""
    body = scope.regions[0].blocks[0]
    *ops, terminator = list(body.operations)
    for op in ops:
        op.operation.move_before(scope)
    for result, value in zip(scope.results, terminator.operands, strict=True):
        result.replace_all_uses_with(value)
    scope.erase()
