"""versa-share-ops: the linalg ops no strategy took, one function per structure, called per layer.

    %a = linalg.generic {..} ins(%x, %w0) outs(%e)        func.func private @__versa_op_0(%x, %w)
    ...                                               →       attributes {llvm.no_inline, ...}
    %b = linalg.generic {..} ins(%y, %w1) outs(%e)        %a = call @__versa_op_0(%x, %w0)
                                                          %b = call @__versa_op_0(%y, %w1)

`versa-codegen` shares the kernels of its strategies between a model's identical layers
(`strategies/sharing.py`); what it leaves in the model's function stayed there once per layer:
the norms' scale and shift, activations, RoPE's rotations, transposes and copies of heads, the
attention mask. `versa-vectorize` and the loop lowering then turned each copy into vector code,
which LLVM compiled again per layer: in a Llama-style decoder (30 layers) the model's function
held ~95% of the module's ops and LLVM took 4x BERT-base's time. Here each such op is outlined
into a function of its own (with the constants it reads copied in, the tensors it writes into
arguments the callee may write: `bufferization.writable`), and the functions that are one up to
their weights become one, as `versa-codegen`'s kernels do (`sharing.share`: the same key, the
same checks, the weights as arguments). Functions nothing else matches go back where they were,
unchanged; so does an op whose call would pass a slice (bufferization would copy it per call).

Inserts into a slice at static offsets (RoPE's halves concatenated: a copy once bufferized)
are shared alike, and a slice an op reads at static offsets is taken inside its function (the
argument is the sliced tensor). Only ops that another op could match are outlined (equal name,
attributes, types and body ops), so a model without repeated layers pays a walk. Runs on
tensors after `versa-codegen` (whose kernels are calls by then) and before
`versa-collapse-elementwise` and `versa-vectorize`, which then work on the shared functions once.
Llama-style 135M (30 layers): its model function 144K -> 85K llvm-dialect ops, LLVM's O3 and
code generation of the module 18.4 -> 1.9 s; run time unchanged (facts.md).
"""

import itertools
from dataclasses import dataclass

from versa.mlir import func, ir

from ..common.base import Pass
from .strategies.kernels import Kernel
from .strategies.sharing import share

_FREE = ("arith.constant", "tensor.empty")  # copied into the function (the weights: compared)
_WRITABLE = "bufferization.writable"
# A fill is an init (versa-unshare-inits rematerialises it per use): cheap, and no layer's code.
_KEPT = ("linalg.fill",)


def _static(op: ir.Operation) -> bool:
    values = (*op.operands, *op.results)
    return all(
        not isinstance(v.type, ir.ShapedType) or ir.ShapedType(v.type).has_static_shape for v in values
    )


def _candidates(function: ir.Operation) -> list[ir.Operation]:
    """The ops directly in `function`'s body that could be shared."""
    if not function.regions[0].blocks:
        return []
    return [op.operation for op in function.regions[0].blocks[0].operations if _shareable(op.operation)]


def _shareable(op: ir.Operation) -> bool:
    """A linalg op but a fill, or an insert of a tensor at static offsets (a copy into a slice
    once bufferized), on static tensors."""
    linalg = op.name.startswith("linalg.") and op.name not in _KEPT
    insert = op.name == "tensor.insert_slice" and len(op.operands) == 2
    return (linalg or insert) and _static(op)


def _signature(op: ir.Operation) -> tuple:
    """What two ops of one structure share whatever their operands (a cheap first sort)."""
    body: list[str] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        body.append(inner.name)
        return ir.WalkResult.ADVANCE

    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner.operation.walk(visit)
    attributes = tuple(sorted((name, str(op.attributes[name])) for name in op.attributes))
    types = tuple(str(v.type) for v in (*op.operands, *op.results))
    return (op.name, attributes, types, tuple(body))


def _is_static_slice(value: ir.Value) -> bool:
    """Whether `value` is a `tensor.extract_slice` with static offsets, sizes and strides."""
    definer = _defining_op(value)
    return definer is not None and definer.name == "tensor.extract_slice" and len(definer.operands) == 1


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _outside_values(op: ir.Operation) -> list[ir.Value]:
    """The values `op` and the ops nested in it use that are defined outside `op`, in order."""
    inside: set = set()
    used: list[ir.Value] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        inner = inner.operation
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        inside.update(inner.results)
        used.extend(inner.operands)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    seen: list[ir.Value] = []
    for value in used:
        if value not in inside and value not in seen:
            seen.append(value)
    return seen


@dataclass
class _Outlined:
    kernel: Kernel
    writable: list[int]  # the arguments the op writes into (its inits)


def _outline(op: ir.Operation, name: str) -> _Outlined:
    """`op` alone in a private function `name`, called where it was."""
    caller = op.parent  # the function whose body holds `op`: the new one goes before it
    values = _outside_values(op)
    inits = list(op.operands)[len(op.operands) - len(op.results) :] if op.results else []
    # a slice read is taken inside (the argument is its source, of identity layout: a slice
    # passed would be copied per call); one written is not
    slices = [v for v in values if _is_static_slice(v) and v not in inits]
    values = [_defining_op(v).operands[0] if v in slices else v for v in values]
    free: list[ir.Value] = []
    arguments: list[ir.Value] = []
    for value in values:
        definer = _defining_op(value)
        copied = definer is not None and definer.name in _FREE and not definer.operands
        listed = free if copied else arguments
        if value not in listed:
            listed.append(value)
    writable = [i for i, v in enumerate(arguments) if v in inits]
    with ir.InsertionPoint(caller), op.location:
        function = func.FuncOp(name, ([v.type for v in arguments], [r.type for r in op.results]))
        entry = function.add_entry_block()
    with ir.InsertionPoint(op), op.location:
        call = func.CallOp([r.type for r in op.results], ir.FlatSymbolRefAttr.get(name), arguments)
    for old, new in zip(op.results, call.results, strict=True):
        old.replace_all_uses_with(new)
    mapping: dict = dict(zip(arguments, entry.arguments, strict=True))
    originals: dict = {}
    with ir.InsertionPoint(entry), op.location:
        ret = func.ReturnOp(list(op.results))
    for value in free:
        definer = _defining_op(value)
        copy = definer.clone(ip=ir.InsertionPoint(ret))
        originals[copy] = definer
        mapping[value] = copy.results[value.result_number]
    for value in slices:
        definer = _defining_op(value)
        copy = definer.clone(ip=ir.InsertionPoint(ret))
        copy.operands[0] = mapping[definer.operands[0]]
        mapping[value] = copy.results[0]
    op.move_before(ret.operation)

    def remap(inner: ir.Operation) -> ir.WalkResult:
        inner = inner.operation
        for i, value in enumerate(inner.operands):
            if value in mapping:
                inner.operands[i] = mapping[value]
        return ir.WalkResult.ADVANCE

    op.walk(remap)
    kernel = Kernel(function, call)
    kernel.originals = originals
    return _Outlined(kernel, writable)


def _mark_writable(function: ir.Operation, writable: list[int]) -> None:
    """The arguments at `writable` may be written by the callee; the others get no attributes."""
    count = len(function.regions[0].blocks[0].arguments)
    attrs = [
        ir.DictAttr.get({_WRITABLE: ir.BoolAttr.get(True)} if i in writable else {}) for i in range(count)
    ]
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


@dataclass(frozen=True)
class VersaShareOps(Pass):
    name = "versa-share-ops"
    summary = "Outline the linalg ops left in functions; those equal up to weights share one function"

    def run(self, module: ir.Operation) -> None:
        groups: dict[tuple, list[ir.Operation]] = {}
        for function in module.regions[0].blocks[0].operations:
            if function.operation.name == "func.func":
                for op in _candidates(function.operation):
                    groups.setdefault(_signature(op), []).append(op)
        taken = {
            ir.StringAttr(op.attributes["sym_name"]).value
            for op in module.regions[0].blocks[0].operations
            if "sym_name" in op.attributes
        }
        names = (name for i in itertools.count() if (name := f"__versa_op_{i}") not in taken)
        outlined: list[_Outlined] = []
        for ops in groups.values():
            for op in ops if len(ops) > 1 else ():
                outlined.append(_outline(op, next(names)))
        if not outlined:
            return
        writable = {id(o.kernel): o.writable for o in outlined}
        for kernel in share([o.kernel for o in outlined], {}, "versa.share-ops"):
            if kernel.shared:
                _mark_writable(kernel.function.operation, writable[id(kernel)])
            else:
                kernel.inline()
