"""versa-share-functions: identical private functions become one, called where each was.

    func.func private @versa_layer_norm_0(...) { body }      func.func private @versa_layer_norm_0(...)
    func.func private @versa_layer_norm_1(...) { body }  →      attributes {llvm.no_inline, ...} { body }
    call @versa_layer_norm_0(%x) ; call @versa_layer_norm_1(%y)  call @versa_layer_norm_0(%x) {no_inline}
                                                                 call @versa_layer_norm_0(%y) {no_inline}

`versa-row-kernels` and `versa-pool-kernels` define a function per op, which the pipeline's
`inline` step pastes back: the twelve layers of BERT-base had their 37 row kernels lowered and
compiled by LLVM one by one, each the same code (softmax and two layer_norms a layer). Run
before `inline`, this pass merges the functions that print alike up to their name (large
constants elided, then every attribute compared op by op), repeatedly, so that kernels calling
identical helpers become identical too. A merged function called from more than one place keeps
its calls (`no_inline`, which `inline` respects) and is `noinline` and internal for LLVM, like
the kernels `versa-codegen` shares (`strategies/sharing.py`). Functions that are unique, or one
call site in the end, are left to `inline` as before: their code does not change.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect
from .strategies.sharing import LARGE, contiguous, differences, make_shared, ops_of


def _name(function: ir.Operation) -> str:
    return ir.StringAttr(function.attributes["sym_name"]).value


def _private(module: ir.Operation) -> list[ir.Operation]:
    return [
        op.operation
        for op in module.regions[0].blocks[0].operations
        if op.operation.name == "func.func"
        and op.operation.regions[0].blocks
        and "sym_visibility" in op.operation.attributes
        and ir.StringAttr(op.operation.attributes["sym_visibility"]).value == "private"
    ]


def _merge_round(module: ir.Operation) -> set[str]:
    """Merge each group of identical private functions into its first; the names kept."""
    first_of: dict[str, tuple[ir.Operation, list[ir.Operation]]] = {}
    renamed: dict[str, str] = {}
    merged: list[ir.Operation] = []
    sites = _sites(module)
    for function in _private(module):
        name = _name(function)
        if not all(contiguous(v) for call in sites.get(name, []) for v in call.operands):
            continue  # a call would copy a slice into a buffer of its own
        key = function.get_asm(
            large_elements_limit=LARGE, use_local_scope=True, assume_verified=True
        ).replace(f"@{name}(", "@f(", 1)
        ops = ops_of(function)
        first, first_ops = first_of.setdefault(key, (function, ops))
        if first != function and differences(first_ops, ops, first, "") == set():
            renamed[name] = _name(first)
            merged.append(function)
    for function in merged:
        function.erase()
    for callee, calls in _sites(module).items():
        for call in calls if callee in renamed else ():
            call.attributes["callee"] = ir.FlatSymbolRefAttr.get(renamed[callee])
    return set(renamed.values())


@dataclass(frozen=True)
class VersaShareFunctions(Pass):
    name = "versa-share-functions"
    summary = "Merge identical private functions into one, its calls kept (not inlined)"

    def run(self, module: ir.Operation) -> None:
        before = _sites(module)
        merged: set[str] = set()
        while kept := _merge_round(module):
            merged |= kept
        if not merged:
            return
        after = _sites(module)
        for function in _private(module):
            name = _name(function)
            calls = after.get(name, [])
            # shared: called from more places than before (a helper called ten times within
            # each of twelve merged kernels is still called ten times, and still inlined), and
            # as a kernel is, from a function's body (not a helper called per vector in loops)
            top = all(call.parent.operation.name == "func.func" for call in calls)
            if name in merged and top and len(calls) > len(before.get(name, [])):
                make_shared(function)
                for call in calls:
                    call.attributes["no_inline"] = ir.UnitAttr.get()


def _sites(module: ir.Operation) -> dict[str, list[ir.Operation]]:
    """The func.calls of each callee."""
    sites: dict[str, list[ir.Operation]] = {}
    for call in collect(module, lambda op: op.name == "func.call"):
        sites.setdefault(ir.FlatSymbolRefAttr(call.attributes["callee"]).value, []).append(call)
    return sites
