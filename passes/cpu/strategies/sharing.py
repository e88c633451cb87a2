"""Kernels that are one function up to their name and their weights share that function.

A model repeats its layers: HF BERT-base holds twelve identical encoder layers of nine kernels
each. Outlined one by one (`kernels.py`) and inlined back, every copy had its transform script
interpreted and then its vector code compiled by LLVM again, twelve times over (the model's
compile time was mostly that). Here the kernels of one structure become one function whose
script runs once, and the calls stay: a call per kernel costs nothing next to the kernel.

Two kernels are the same when their functions print alike with large constants elided and
their scripts are the same (both with the name and the codegen tag masked), and then every
attribute of every op is equal, op by op, except the values of top-level `arith.constant`s
(the weights that `kernels.py` copied in). Those that differ within a group become arguments
of the shared function, and each call passes its own (the caller's constant that was copied),
so the twelve layers' weights reach one kernel. A kernel that nothing else matches is left as
it was: it is inlined back as before, its code unchanged. So is a kernel whose call would pass
a slice (`contiguous`: bufferization would copy it into a buffer of identity layout at every
call) and a convolution kernel (shared, HF ResNet-50 ran 7-12% slower with the same ops run;
the cause is not known).

The shared function is private, internal to the LLVM module and `noinline`: LLVM would
otherwise be free to paste the body back into each caller and compile it twelve times again.
Its buffers are planned as the caller's are (`versa-plan-buffers` takes a call of a function
of the module as a use); HF BERT-base bit for bit as before, its compile time 33 -> 19 s.
"""

from typing import Any

from versa.mlir import func, ir

from .script import Script

Kernel = Any  # kernels.Kernel (which imports this module to offer `share`)

# Dense constants with more elements print elided: compared by value (`differences`), and a
# weight where the kernels differ.
LARGE = 16
_INTERNAL = "#llvm.linkage<internal>"


def ops_of(function: ir.Operation) -> list[ir.Operation]:
    """Every op in `function`'s body, in one fixed (post-)order."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op.operation)
        return ir.WalkResult.ADVANCE

    for op in function.regions[0].blocks[0].operations:
        op.operation.walk(visit)
    return found


def _key(kernel: Kernel, scripts: dict[str, Script], tag: str) -> str:
    """The kernel's function and scripts as text, its name and tags masked, weights elided."""
    text = kernel.function.operation.get_asm(
        large_elements_limit=LARGE, use_local_scope=True, assume_verified=True
    )
    text = text.replace(f"@{kernel.name}(", "@kernel(", 1)
    for key in kernel.tags(tag):
        text = text.replace(f'{tag} = "{key}"', f'{tag} = "?"')
        text += scripts[key].text().replace(f'"{key}"', '"?"')
    return text


def differences(ops: list[ir.Operation], others: list[ir.Operation], function, tag: str) -> set | None:
    """Positions (in `ops_of` order) of the constants in which two kernels of one key differ;
    None where any other attribute differs (or a constant nested in a region)."""
    if len(ops) != len(others):
        return None
    differing = set()
    for index, (op, other) in enumerate(zip(ops, others, strict=True)):
        mine = {name: op.attributes[name] for name in op.attributes if name != tag}
        theirs = {name: other.attributes[name] for name in other.attributes if name != tag}
        if mine.keys() != theirs.keys() or op.name != other.name:
            return None
        if all(mine[name] == theirs[name] for name in mine):
            continue
        if op.name != "arith.constant" or op.parent != function or list(mine) != ["value"]:
            return None
        differing.add(index)
    return differing


# Convolution kernels stay per call site: shared, HF ResNet-50 ran 7-12% slower (interleaved
# calls, 2 threads), with the same ops executed and whether or not LLVM inlined them back.
_CONVS = ("linalg.conv", "linalg.depthwise_conv")
_FRESH = ("arith.constant", "tensor.empty", "tensor.pad", "func.call", "bufferization.alloc_tensor")
_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")
_LOOPS = ("scf.for", "scf.forall")


def contiguous(value: ir.Value) -> bool:
    """Whether `value` bufferizes to a buffer of identity layout (as a function's arguments and
    results are): a call's operand that does not (a slice, or what is written into one) is
    copied into a new buffer at each call. Conservative: False where unsure."""
    while isinstance(value.type, ir.RankedTensorType):
        owner = value.owner
        if isinstance(owner, ir.Block):  # a function's argument; a loop's iter_arg: unsure
            return owner.owner is not None and owner.owner.operation.name == "func.func"
        op = owner.operation
        if op.name in _FRESH:
            return True
        if op.name in _RESHAPES or op.name == "versa.reshape":
            value = op.operands[0]
        elif op.name.startswith("versa."):  # a new tensor, but for a slice (a view of its source)
            return op.name != "versa.slice"
        elif op.name == "tensor.insert_slice":
            value = op.operands[1]  # written into its destination
        elif op.name.startswith("linalg.") or op.name in _LOOPS:
            # written into its init: the last operands (linalg) or the loop's inits (the last)
            value = op.operands[len(op.operands) - len(op.results) + value.result_number]
        else:
            return False
    return True


def _movable(kernel: Kernel) -> bool:
    """Whether the kernel's call passes only buffers it can take as they are (`contiguous`)."""
    return all(contiguous(operand) for operand in kernel.call.operands)


def share(outlined: list[Kernel], scripts: dict[str, Script], tag: str) -> list[Kernel]:
    """The kernels left after each group of identical ones became one shared function (its
    `shared` set; the others' functions and scripts gone, their calls now calling it)."""
    buckets: dict[str, list[tuple[Kernel, list[ir.Operation], list[tuple]]]] = {}
    kept: list[Kernel] = []
    for kernel in outlined:
        if not _movable(kernel):
            kept.append(kernel)
            continue
        ops = ops_of(kernel.function.operation)
        if any(op.name.startswith(_CONVS) for op in ops):
            kept.append(kernel)
            continue
        bucket = buckets.setdefault(_key(kernel, scripts, tag), [])
        for first, first_ops, members in bucket:
            differing = differences(first_ops, ops, first.function.operation, tag)
            if differing is not None:
                members.append((kernel, ops, differing))
                break
        else:
            bucket.append((kernel, ops, [(kernel, ops, set())]))
            kept.append(kernel)
    for bucket in buckets.values():
        for first, _, members in bucket:
            if len(members) > 1:
                _merge(first, members, scripts, tag)
    return kept


def _merge(first: Kernel, members: list[tuple], scripts: dict[str, Script], tag: str) -> None:
    """`first`'s function called by every member's call, the differing constants as arguments."""
    weights = sorted(set().union(*(differing for _, _, differing in members)))
    name = ir.FlatSymbolRefAttr.get(first.name)
    for kernel, ops, _ in members:
        call = kernel.call
        with ir.InsertionPoint(call), call.location:
            passed = [_outside(kernel, ops[i]) for i in weights]  # each layer's own weights
            new = func.CallOp([r.type for r in call.results], name, [*call.operands, *passed])
        for old, result in zip(call.results, new.results, strict=True):
            old.replace_all_uses_with(result)
        call.operation.erase()
        kernel.call = new
        if kernel is not first:
            for key in kernel.tags(tag):
                scripts.pop(key)
            kernel.function.operation.erase()
    function = first.function.operation
    entry = function.regions[0].blocks[0]
    first_ops = members[0][1]
    for i in weights:
        constant = first_ops[i]
        argument = entry.add_argument(constant.results[0].type, constant.location)
        constant.results[0].replace_all_uses_with(argument)
        constant.erase()
    old_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs = [argument.type for argument in entry.arguments]
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, old_type.results))
    make_shared(function)
    first.shared = True


def _outside(kernel: Kernel, constant: ir.Operation) -> ir.Value:
    """The caller's constant that `constant` copies (else a copy of it, before the call)."""
    original = kernel.originals.get(constant)
    return (original or constant.clone(ip=ir.InsertionPoint(kernel.call))).results[0]


def make_shared(function: ir.Operation) -> None:
    """`function` private, internal and `noinline` for LLVM: compiled once, whatever calls it."""
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    function.attributes["llvm.linkage"] = ir.Attribute.parse(_INTERNAL)
    function.attributes["llvm.no_inline"] = ir.UnitAttr.get()
