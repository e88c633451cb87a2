"""Kernel functions: each strategy's ops sit in a private function of their own while the
transform script runs, and are inlined back after it, unless several kernels are one function
up to their weights (the layers of a model): those share one function and stay calls
(`sharing.py`).

The strategies apply their pattern sets to the enclosing function, and must: a vectorized
fill outside the loops folds into the accumulators' first read only there. With a model in
one function, that function holds every other kernel too, the earlier ones already lowered to
vector code, so the script cost the square of the model's size (MobileNetV2: 5 s of codegen,
32 inverted residuals: 24 s). As IREE forms dispatch regions, each tagged op is outlined with
what its script can reach: the epilogue consumer it fuses, and the untagged tilable producers
(fills, pads, broadcasts) that `structured.fuse` pulls into its tiles. Operand-free ops
(constants, tensor.empty) are copied in, so the patterns still fold them; a producer that other
ops use as well is copied in, the original stays for them; everything else is an argument.
"""

from versa.mlir import func, ir

from .consumers import epilogue_consumer
from .sharing import share as share  # the kernels of one structure as one function (codegen)

_FREE = ("arith.constant", "tensor.empty")  # copied into each kernel that uses them


def _is_tilable(op: ir.Operation) -> bool:
    return op.name.startswith("linalg.") or op.name == "tensor.pad"


def _top(op: ir.Operation, body: ir.Operation) -> ir.Operation | None:
    """The ancestor of `op` directly in `body` (a function), or None."""
    while op is not None and op.parent is not None:
        if op.parent == body:
            return op
        op = op.parent
    return None


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner.owner.operation if owner.owner is not None else None
    return owner.operation


def _operands(op: ir.Operation) -> list[tuple[ir.Operation, int, ir.Value]]:
    """Every operand of `op` and of the ops nested in it: (user, index, value)."""
    found = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        inner = inner.operation
        found.extend((inner, i, v) for i, v in enumerate(inner.operands))
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


def _members(root: ir.Operation, body: ir.Operation, tagged: set, fuses: bool) -> list | None:
    """What the script of `root` reaches, in block order: `root`, the producers of its inits
    (a fill, which it fuses into its tiles), its untagged epilogue consumer and, when its
    strategy runs `structured.fuse` (`fuses`), every untagged tilable producer of those,
    transitively. None when an init comes from elsewhere (the script's `get_producer_of_operand`
    needs the producer in the kernel)."""
    members = [root]
    for init in root.operands[len(root.operands) - len(root.results) :]:
        producer = _top(_defining_op(init), body)
        if producer is not None and producer.name in _FREE:
            continue
        if producer is None or producer in tagged or not _is_tilable(producer):
            return None
        if producer not in members:
            members.append(producer)
    consumer = epilogue_consumer(root) if len(root.results) == 1 else None
    if consumer is not None and consumer.operation not in tagged:
        members.append(consumer.operation)
    work = list(members) if fuses else []
    while work:
        for _, _, value in _operands(work.pop()):
            producer = _top(_defining_op(value), body)
            if (
                producer is not None
                and producer not in members
                and producer not in tagged
                and _is_tilable(producer)
            ):
                members.append(producer)
                work.append(producer)
    # (not members.sort: the list reads empty while it is sorted)
    return sorted(members, key=lambda op: sum(1 for other in members if other.is_before_in_block(op)))


class Kernel:
    """One outlined kernel: its private function and the call that stands for it."""

    def __init__(self, function: func.FuncOp, call: func.CallOp):
        self.function, self.call = function, call
        self.name = ir.StringAttr(function.attributes["sym_name"]).value  # for `rebind`
        self.shared = False  # called from several places (`share`): stays a function
        self.originals: dict = {}  # each constant copied in -> the caller's own

    @staticmethod
    def outline(root: ir.Operation, name: str, tagged: set, fuses: bool) -> "Kernel | None":
        """The kernel of `root` outlined as `name`, or None where the call could not stand
        where the kernel was (a result used between its ops)."""
        body = root.parent
        members = _members(root, body, tagged, fuses)
        if members is None:
            return None
        shared: set = set()  # producers other ops use too: copied in, the original stays

        def outside(user: ir.Operation) -> bool:
            top = _top(user.operation, body)
            return top is None or top not in members or top in shared

        changed = True
        while changed:
            changed = False
            for op in members:
                if op not in (root, members[-1]) and op not in shared:
                    if any(outside(use.owner) for r in op.results for use in r.uses):
                        shared.add(op)
                        changed = True
        moving = [op for op in members if op not in shared]
        results = [r for op in moving for r in op.results if any(outside(u.owner) for u in r.uses)]
        last = members[-1]
        if any(
            outside(u.owner) and not last.is_before_in_block(_top(u.owner.operation, body))
            for r in results
            for u in r.uses
        ):
            return None
        arguments: list[ir.Value] = []
        for op in members:
            for _, _, value in _operands(op):
                definer = _defining_op(value)
                top = _top(definer, body) if definer is not None else None
                inside = top is not None and top in members
                free = definer is not None and definer.name in _FREE and not definer.operands
                if not inside and not free and value not in arguments:
                    arguments.append(value)
        module = body.parent
        while module.name != "builtin.module":
            module = module.parent
        with ir.InsertionPoint(module.regions[0].blocks[0]), root.location:
            function = func.FuncOp(name, ([v.type for v in arguments], [r.type for r in results]))
            entry = function.add_entry_block()
        with ir.InsertionPoint(entry), root.location:
            ret = func.ReturnOp([])
        with ir.InsertionPoint(last), root.location:
            call = func.CallOp([r.type for r in results], ir.FlatSymbolRefAttr.get(name), arguments)
        call.operation.move_after(last)
        for result, replacement in zip(results, call.results, strict=True):
            for use in list(result.uses):
                if outside(use.owner):
                    use.owner.operation.operands[use.operand_number] = replacement
        mapping = dict(zip(arguments, entry.arguments, strict=True))
        for op in members:
            if op in shared:
                copy = op.clone(ip=ir.InsertionPoint(ret))
                mapping.update(zip(op.results, copy.results, strict=True))
            else:
                op.move_before(ret)
        copies: dict = {}
        for op in list(entry.operations):
            for user, i, value in _operands(op):
                if value in mapping:
                    user.operands[i] = mapping[value]
                    continue
                definer = _defining_op(value)
                if _top(definer, function.operation) is not None:
                    continue
                if definer.name not in _FREE:
                    raise AssertionError(f"kernel {name}: operand of {definer.name} left outside")
                if definer not in copies:  # copied to the entry's start
                    copies[definer] = definer.clone(ip=ir.InsertionPoint.at_block_begin(entry))
                user.operands[i] = copies[definer].results[value.result_number]
        with ir.InsertionPoint(ret), root.location:
            func.ReturnOp([mapping.get(r, r) for r in results])
        ret.operation.erase()
        kernel = Kernel(function, call)
        kernel.originals = {copy: definer for definer, copy in copies.items()}
        return kernel

    def tags(self, tag: str) -> list[str]:
        """The values of the attribute `tag` on the ops inside the kernel (its tagged root)."""
        found: list[str] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if tag in op.attributes:
                found.append(ir.StringAttr(op.attributes[tag]).value)
            return ir.WalkResult.ADVANCE

        self.function.operation.walk(visit)
        return found

    def restore(self, function: ir.Operation, copy: ir.Operation) -> ir.Operation:
        """`copy` (a detached clone of the kernel's function) in place of `function`."""
        ir.InsertionPoint(function).insert(copy)
        function.erase()
        self.function = copy.opview
        return copy

    def rebind(self, module: ir.Operation) -> None:
        """The function and call of this kernel found again by name in `module` (whose body
        was replaced by a copy: the old handles are stale, never to be read)."""
        name = self.name

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
                self.function = op.opview
            elif op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == name:
                self.call = op.opview
            return ir.WalkResult.ADVANCE

        module.walk(visit)

    def close(self) -> None:
        """After its script: a kernel called once goes back where it was (`inline`); a shared
        one stays a function (`sharing.py`)."""
        if not self.shared:
            self.inline()

    def inline(self) -> None:
        """Put the function's body back in place of the call; drop both."""
        entry = self.function.regions[0].blocks[0]
        ops = list(entry.operations)
        ret = ops[-1]
        for argument, operand in zip(entry.arguments, self.call.operands, strict=True):
            argument.replace_all_uses_with(operand)
        for result, value in zip(self.call.results, ret.operands, strict=True):
            result.replace_all_uses_with(value)
        for op in ops[:-1]:
            op.operation.move_before(self.call)
        self.call.operation.erase()
        self.function.operation.erase()


def outline(roots: list[tuple[ir.Operation, bool]]) -> list[Kernel]:
    """A kernel function for each (root, its strategy fuses producers) whose root is directly
    in a func.func and whose inits come from fills or empties; the others stay in place."""
    tagged = {op.operation for op, _ in roots}
    kernels = []
    for op, fuses in roots:
        op = op.operation
        if op.parent is not None and op.parent.name == "func.func":
            kernel = Kernel.outline(op, f"__versa_kernel_{len(kernels)}", tagged, fuses)
            kernels += [kernel] if kernel else []
    return kernels
