"""The distinct kernels of a program, each as a module of its own that the tuner can compile at
any point of its strategy's space and time alone.

The program goes through its compile up to `versa-codegen` (versa-optimize and lower-to-llvm's
first steps: the ops are then exactly those the strategies see); every op a strategy takes is
signed (`Signature`), and one op per signature is outlined with what its script reaches (its
fill, its epilogue: `strategies.kernels`, the codegen's own outlining) into a public function
`kernel`. Its weights (non-splat constants) become arguments, so the kernel module is small and
its inputs random. The kernel is signed again after the same steps: a signature that does not
come back (the steps changed the op) could not be looked up, and the kernel is skipped.
"""

import math
from dataclasses import dataclass

from versa import compiler
from versa.context import make_context
from versa.mlir import func, ir
from versa.options import CompileOptions
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.strategies import kernels, search_space, select
from versa.passes.cpu.strategies.signature import Signature
from versa.passes.cpu.strategies.space import Space
from versa.passes.cpu.strategies.strategy import Strategy

ENTRY = "kernel"


@dataclass(frozen=True)
class TuneKernel:
    signature: Signature
    strategy: str  # the family's class name
    space: Space
    text: str  # a module with one public func @kernel: linalg on tensors
    elements: int  # elements its operands and results hold: its share of the tuning budget
    uses: int  # ops of the program with this signature
    strategy_object: Strategy  # its analytic choice, which `strategy_at` rebuilds at points


def _codegen(options: CompileOptions) -> tuple[list, VersaCodegen]:
    """The steps of `options`' compile before versa-codegen, and that pass (its thread count is
    the code's: 1 without an OpenMP runtime, whatever `options.threads` says)."""
    steps = options.passes()
    cut = next(i for i, s in enumerate(steps) if isinstance(s, VersaCodegen))
    return steps[:cut], steps[cut]


def codegen_threads(options: CompileOptions) -> int:
    return _codegen(options)[1].threads


def _prefix(options: CompileOptions) -> list:
    return _codegen(options)[0]


def _signed(module: ir.Module, options: CompileOptions) -> list[tuple[ir.Operation, object, Signature]]:
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("linalg."):
            strategy = select(op, options.target, codegen_threads(options))
            if strategy is not None:
                found.append((op, strategy, Signature.of(op, strategy)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def distinct_kernels(text: str, options: CompileOptions) -> list[TuneKernel]:
    """The kernels of the versa program `text` with a non-empty search space, one per signature."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with module.context:
        compiler.run_passes(module, _prefix(options))
        signed = _signed(module, options)
        counts: dict[str, int] = {}
        for _, _, signature in signed:
            counts[signature.key] = counts.get(signature.key, 0) + 1
        roots = {op.operation for op, _, _ in signed}
        found: dict[str, TuneKernel] = {}
        for op, strategy, signature in signed:
            space = _measurable(search_space(strategy, options.target))
            if signature.key in found or not space.knobs or op.parent.name != "func.func":
                continue
            elements = sum(math.prod(v.type.shape) for v in (*op.operands, *op.results))
            # (the op moves into the kernel, and with it out of this module: not read after)
            kernel = kernels.Kernel.outline(op, f"__tune_{len(found)}", roots, strategy.fuses_producers())
            if kernel is None:
                continue
            body = _standalone(kernel.function)
            if body is None or signature.key not in _keys(body, options):
                continue
            found[signature.key] = TuneKernel(
                signature, type(strategy).__name__, space, body, elements, counts[signature.key], strategy
            )
    return list(found.values())


# Knobs a kernel module cannot show: its weights are arguments, so `prepack` (a constant B laid
# out at compile time, versa-pack-weights) would compile the same code either way, and a tuned
# point would record noise. Left out, a point takes the knob's analytic default.
UNMEASURABLE = frozenset({"prepack"})


def _measurable(space: Space) -> Space:
    return Space(tuple(k for k in space.knobs if k.name not in UNMEASURABLE))


def _keys(text: str, options: CompileOptions) -> set[str]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with module.context:
        compiler.run_passes(module, _prefix(options))
        return {s.key for _, _, s in _signed(module, options)}


def _standalone(function: func.FuncOp) -> str | None:
    """The outlined kernel as a module of one public func @kernel whose weights are arguments."""
    entry = function.regions[0].blocks[0]
    weights = [op for op in entry.operations if _is_weight(op)]
    inputs = [a.type for a in entry.arguments] + [w.results[0].type for w in weights]
    results = list(function.type.results)
    with ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            kernel = func.FuncOp(ENTRY, (inputs, results))
            block = kernel.add_entry_block()
    for old, new in zip([*entry.arguments, *(w.results[0] for w in weights)], block.arguments, strict=True):
        old.replace_all_uses_with(new)
    for op in list(entry.operations):
        if op not in weights:
            block.append(op.operation)
    for weight in weights:
        weight.operation.erase()
    function.operation.erase()
    try:
        module.operation.verify()
    except ir.MLIRError:
        return None
    return str(module)


def _is_weight(op) -> bool:
    if op.name != "arith.constant" or not isinstance(op.results[0].type, ir.RankedTensorType):
        return False
    if math.prod(op.results[0].type.shape) <= 1:
        return False
    try:
        return not ir.DenseElementsAttr(op.attributes["value"]).is_splat
    except (ValueError, TypeError):
        return True  # dense_resource: a weight
