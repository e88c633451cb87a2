"""versa-outline-dynamic: each op with dynamic shapes that `versa-static-tiles` left in a public
function (elementwise ops, transposes, a softmax over a dynamic row) runs in a private function
of its own, one per distinct body, so a model's layers share its code; an elementwise one runs
on one thread where the call's result is small.

    %r = linalg.generic ... outs(%e : tensor<?x768xf32>)
  → %small = arith.cmpi ult, %elements, %c32768          // the call's result size
    %r = scf.if %small { call @main__op3__serial(%e, %x, ...) } else { call @main__op3(%e, %x, ...) }
                                                        // private; %e filled in place, layers share them

Why functions: `common/group_functions.py` (a dynamic op is hundreds of ops of loops, masks and
thread splits once vectorized; inline, every layer repeats them for LLVM to compile). Static ops
stay where they are: their kernels are shared by `versa-share-functions` already.

Why the serial variant: `versa-vectorize` splits a static elementwise op across threads only
from `MIN_PARALLEL_ELEMENTS` elements on (below, a fork and join costs more than it saves) but
a dynamic one at every call, its size being unknown. A decoder at 16 tokens forked ~30 times a
layer for ops of 9-25K elements that its static compile runs serially. The copy marked
`versa.one_thread` (a function attribute: versa-vectorize gives its ops one thread) decides it per
call with the static compile's threshold: the same choice as a static compile of that size.
"""

from dataclasses import dataclass

from versa.mlir import arith, func, ir, scf, tensor

from ..common.base import Pass, collect
from ..common.group_functions import outline
from ..common.tile_functions import Functions, index_constant
from .strategies.strategy import MIN_PARALLEL_ELEMENTS, ONE_THREAD


def _dynamic(op: ir.Operation) -> bool:
    return any(isinstance(r.type, ir.RankedTensorType) and not r.type.has_static_shape for r in op.results)


def _in_public_function(op: ir.Operation) -> bool:
    parent = op.parent
    if parent is None or parent.name != "func.func":  # nested in a loop: part of something tiled
        return False
    visibility = parent.attributes["sym_visibility"] if "sym_visibility" in parent.attributes else None
    return visibility is None or ir.StringAttr(visibility).value != "private"


def _elementwise(op: ir.Operation) -> bool:
    """An all-parallel generic of rank 2 or more: the ops versa-vectorize splits across threads."""
    if op.name != "linalg.generic" or ir.RankedTensorType(op.results[0].type).rank < 2:
        return False
    return all("parallel" in str(i) for i in op.attributes["iterator_types"])


@dataclass(frozen=True)
class VersaOutlineDynamic(Pass):
    name = "versa-outline-dynamic"
    summary = "Move each linalg op with dynamic shapes into a private function, one per distinct body"
    serial_below: int = MIN_PARALLEL_ELEMENTS  # elementwise calls with fewer elements: one thread (0: never)

    def run(self, module: ir.Operation) -> None:
        functions = Functions()
        dead: list[ir.Operation] = []
        serial: dict[str, str] = {}  # a function -> its serial copy

        def outlined(op: ir.Operation) -> bool:
            if not op.name.startswith("linalg.") or op.name == "linalg.fill" or len(op.results) != 1:
                return False  # several results (a cumsum's row and running sum): left inline
            return _dynamic(op) and _in_public_function(op)

        for op in collect(module, outlined):
            user = next(iter(op.results[0].uses), None)
            dead += outline([op], functions, "op")
            if user is not None and self.serial_below > 0 and _elementwise(op):
                call = user.owner.operands[user.operand_number].owner.operation
                _per_call_threads(call, self.serial_below, serial)
        for op in dict.fromkeys(dead):  # ops erased last: the walk's list stays valid (facts.md)
            op.erase()


def _per_call_threads(call: ir.Operation, below: int, serial: dict[str, str]) -> None:
    """`call` of an outlined elementwise op becomes a choice per call: its serial copy where the
    result (its first argument, the buffer it fills) has fewer than `below` elements."""
    callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    if callee not in serial:
        serial[callee] = _serial_copy(call, callee)
    result, kind = call.operands[0], call.results[0].type
    with ir.InsertionPoint(call), call.location:
        elements = index_constant(1)
        for d, size in enumerate(ir.RankedTensorType(result.type).shape):
            dynamic = ir.ShapedType.is_dynamic_size(size)
            elements = arith.muli(
                elements, tensor.dim(result, index_constant(d)) if dynamic else index_constant(size)
            )
        small = arith.cmpi(arith.CmpIPredicate.ult, elements, index_constant(below))
        branch = scf.IfOp(small, [kind], has_else=True)
        for block, name in ((branch.then_block, serial[callee]), (branch.else_block, callee)):
            with ir.InsertionPoint(block):
                scf.YieldOp([func.CallOp([kind], name, list(call.operands)).result])
    call.results[0].replace_all_uses_with(branch.results[0])
    call.erase()


def _serial_copy(call: ir.Operation, callee: str) -> str:
    """A copy of the function `call` calls, `<callee>__serial`, marked `ONE_THREAD`."""
    parent = call.parent
    while parent.name != "builtin.module":
        parent = parent.parent
    original = ir.SymbolTable(parent)[callee]
    copy = original.operation.clone(ip=ir.InsertionPoint(original))
    copy.attributes["sym_name"] = ir.StringAttr.get(f"{callee}__serial")
    copy.attributes[ONE_THREAD] = ir.UnitAttr.get()
    return f"{callee}__serial"
