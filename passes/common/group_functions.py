"""Ops with dynamic shapes moved into private functions of their own, one per distinct body.

A dynamic op's code is loops, index arithmetic and calls around its kernels (a cascade of
static tiles, masked vectors split across threads per call): a few hundred ops each, repeated
by every layer of a model. Inline in the entry function that made BERT-base's entry 200k lines
of LLVM IR, which took LLVM 107 s to compile. As functions, equal ones are one
(`tile_functions.Functions.keep`), as the static tiles are, and the entry is a list of calls.

A function takes what its ops read (less the constants it copies in) and, first, the buffer of
its result, which it fills in place: that argument is `bufferization.writable` and is what it
returns, so one-shot-bufferize makes the return an alias of it and
`drop-equivalent-buffer-results` drops it (a function returning a new dynamic buffer is what
`buffer-results-to-out-params` cannot take). The empty tensors its ops fill are its own.
"""

from collections.abc import Callable

from versa.mlir import func, ir, tensor

from .outlining import captured, clone_with, is_constant, rebind
from .tile_functions import Functions, copied_in

WRITABLE = "bufferization.writable"


def unfilled(out: ir.Value) -> tuple[ir.Value, ir.Operation | None]:
    """The tensor a result is built in, and the fill to redo, if `out` is a `linalg.fill`."""
    owner = out.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "linalg.fill":
        return owner.operation.operands[1], owner.operation
    return out, None


def _is_empty(v: ir.Value) -> bool:
    return isinstance(v.owner, ir.OpView) and v.owner.operation.name == "tensor.empty"


def _out(op: ir.Operation) -> ir.Value:
    return op.operands[len(op.operands) - 1]


def outline(ops: list[ir.Operation], functions: Functions, kind: str, build: Callable | None = None) -> list:
    """Replace `ops` (each the only user of the one before; the last's result is theirs) by a
    call of a private function holding copies of them and their fills; returns the ops now
    dead, users first. `build(copies, dest)` makes the function's result from the copies and
    its result buffer (tiles them: `versa-static-tiles`); without it, the last copy writes
    into the buffer itself."""
    last = ops[-1]
    fills = [f for op in ops if (f := unfilled(_out(op))[1]) is not None]
    inner = [*dict.fromkeys(fills), *ops]  # in program order: fills come first
    reads: list[ir.Value] = []
    for op in inner:
        for v in [*op.operands, *captured(op)]:
            if not (isinstance(v.owner, ir.OpView) and v.owner.operation in inner) and v not in reads:
                reads.append(v)
    init = unfilled(_out(last))[0]
    empties = [v for v in reads if _is_empty(v) and (build is not None or v != init)]
    reads = list(dict.fromkeys([*reads, *(size for v in empties for size in v.owner.operation.operands)]))
    args = [init, *(v for v in reads if v != init and v not in empties and not copied_in(v))]
    with ir.InsertionPoint(last), last.location:
        constants = [v for v in reads if copied_in(v)]
        function = _function(last, kind, functions, inner, len(ops), args, constants, empties, build)
        result = func.CallOp(functions.keep(function), args).result
    last.results[0].replace_all_uses_with(result)
    dead = list(reversed(ops))
    for fill in dict.fromkeys(fills):
        if all(use.owner.operation in ops for use in fill.results[0].uses):
            dead.append(fill)
    return dead


def _function(last, kind, functions, inner, count, args, constants, empties, build) -> func.FuncOp:
    """The private function of `outline`: `inner` (fills, then the `count` ops) copied in."""
    parent = last.parent
    while parent.name != "func.func":
        parent = parent.parent
    name = f"{parent.attributes['sym_name'].value}__{kind}{next(functions.count)}"
    with ir.InsertionPoint(parent):
        function = func.FuncOp(name, ([a.type for a in args], [last.results[0].type]))
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    marks = [
        {WRITABLE: ir.BoolAttr.get(i == 0)} if isinstance(a.type, ir.RankedTensorType) else {}
        for i, a in enumerate(args)
    ]
    function.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(m) for m in marks])
    with ir.InsertionPoint(function.add_entry_block()):
        mapping = list(zip(args, function.arguments, strict=True))
        mapping += [(v, v.owner.operation.clone().result) for v in constants]

        def inside(v: ir.Value) -> ir.Value:
            return next(mine for theirs, mine in mapping if theirs == v)

        for v in empties:
            mapping.insert(0, (v, _empty_like(v, [inside(size) for size in v.owner.operation.operands])))
        copies = []
        for op in inner:
            copies.append(clone_with(op, [inside(v) for v in op.operands], inside).owner.operation)
            mapping.append((op.results[0], copies[-1].results[0]))
        if build is None:
            func.ReturnOp([copies[-1].results[0]])
            return function
        func.ReturnOp([build(copies[len(inner) - count :], function.arguments[0])])
    for op in reversed(copies):
        op.erase()
    return function


def _empty_like(v: ir.Value, sizes: list[ir.Value]) -> ir.Value:
    """A `tensor.empty` of `v`'s type on `sizes` (its dynamic dims')."""
    t = ir.RankedTensorType(v.type)
    dims = iter(sizes)
    mixed = [next(dims) if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape]
    return tensor.EmptyOp(mixed, t.element_type).result


def outline_tail(
    block: ir.Block, start: int, acc: ir.Value, result: ir.Value, functions: Functions, kind: str
):
    """The ops of `block` from position `start` on, just built to fill `acc` (their `result`),
    moved into a private function that takes `acc` first (writable) and what they read, and
    a call of it in their place. `versa-static-tiles` puts each inner cascade of tiles (the
    columns of one row of tiles) there. Why: one-shot-bufferize computes a loop's buffer type
    from its init's and its yielded value's, recursively and without a cache, so a cascade of
    loops nested in each loop of another cascade costs it exponential time (a dynamic batch
    matmul's tiles of 256 took over 375 s); across a call it stops at the callee's signature."""
    ops = list(block.operations)[start:]
    reads: list[ir.Value] = []
    for op in ops:
        for v in [*op.operands, *captured(op)]:
            mine = isinstance(v.owner, ir.OpView) and v.owner.operation in ops
            if not mine and v != acc and v not in reads:
                reads.append(v)
    constants = [v for v in reads if is_constant(v)]
    args = [acc, *(v for v in reads if v not in constants)]
    parent = block.owner
    while parent.name != "func.func":
        parent = parent.parent
    name = f"{parent.attributes['sym_name'].value}__{kind}{next(functions.count)}"
    with ir.InsertionPoint(parent), parent.location:
        function = func.FuncOp(name, ([a.type for a in args], [acc.type]))
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    marks = [
        {WRITABLE: ir.BoolAttr.get(i == 0)} if isinstance(a.type, ir.RankedTensorType) else {}
        for i, a in enumerate(args)
    ]
    function.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(m) for m in marks])
    entry = function.add_entry_block()
    with ir.InsertionPoint(entry), parent.location:
        mapping = [(v, v.owner.operation.clone().result) for v in constants]
        returned = func.ReturnOp([result])
    for op in ops:
        op.move_before(returned)
    mapping += list(zip(args, entry.arguments, strict=True))
    for op in ops:
        for theirs, mine in mapping:
            rebind(op, theirs, mine)
    return func.CallOp(functions.keep(function), args).result
