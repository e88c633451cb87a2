"""versa-readonly-arguments: mark every tensor argument of a function as not writable.

    func.func @f(%a: tensor<4xf32>)  →  func.func @f(%a: tensor<4xf32> {bufferization.writable = false})

One-shot bufferization with `bufferize-function-boundaries` assumes by default that a function
may write into its argument buffers: an op that updates an argument tensor in place (an insert
into it, a linalg op with it as `outs`) then overwrites the caller's array. Inputs belong to
the caller, so they are read-only: bufferization copies an argument before writing to it.
An argument already marked keeps its mark: `versa-static-tiles`' group functions fill the
result buffer their caller passes (`bufferization.writable = true`).
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect

_WRITABLE = "bufferization.writable"


def _mark(function: ir.Operation) -> None:
    if not function.regions[0].blocks:
        return  # a declaration has no buffers of its own
    inputs = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value).inputs
    old = function.attributes["arg_attrs"] if "arg_attrs" in function.attributes else None
    attrs = []
    for index, t in enumerate(inputs):
        entries = {n.name: n.attr for n in ir.DictAttr(old[index])} if old is not None else {}
        if isinstance(t, ir.RankedTensorType):
            entries.setdefault(_WRITABLE, ir.BoolAttr.get(False))  # a pass that marked one writable knows
        attrs.append(ir.DictAttr.get(entries))
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


@dataclass(frozen=True)
class VersaReadonlyArguments(Pass):
    name = "versa-readonly-arguments"
    summary = "Mark tensor arguments bufferization.writable = false, so no input is overwritten"

    def run(self, module: ir.Operation) -> None:
        for function in collect(module, lambda op: op.name == "func.func"):
            _mark(function)
