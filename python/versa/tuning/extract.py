"""The distinct kernels of a program, each as a module of its own that the tuner can compile at
any point of its strategy's space and time alone.

The program goes through its compile up to `versa-codegen` (versa-optimize and lower-to-llvm's
first steps: the ops are then exactly those the strategies see); every op a strategy takes is
signed (`Signature`), and one op per signature is outlined with what its script reaches (its
fill, its epilogue: `strategies.kernels`, the codegen's own outlining) into a public function
`kernel`. Its weights (non-splat constants) become arguments, so the kernel module is small and
its inputs random. The kernel is signed again after the same steps: a signature that does not
come back (the steps changed the op) could not be looked up, and the kernel is skipped.

One weight stays a constant: a matmul's constant f32 B, which `versa-pack-weights` may pack at
compile time (the `prepack` knob, read from the database like every other). Those matmuls are
taken from a first cut of the steps that stops before that pass, so the candidates' compiles
run it at their own point; the weight travels as a placeholder (a zero splat marked with a
seed) that `materialize` turns into random values where the module is parsed, so the text
stays small. The second cut, up to versa-codegen, gives every other kernel, the contractions
the analytic choice pre-packed included (their own tiles are knobs too).
"""

import math
from dataclasses import dataclass

import numpy as np

from versa import compiler
from versa.context import make_context
from versa.mlir import func, ir
from versa.options import CompileOptions
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.pack_weights import VersaPackWeights
from versa.passes.cpu.strategies import MatmulStrategy, kernels, search_space, select
from versa.passes.cpu.strategies.packed_matmul import constant_weight
from versa.passes.cpu.strategies.signature import Signature
from versa.passes.cpu.strategies.space import Space
from versa.passes.cpu.strategies.strategy import Strategy

ENTRY = "kernel"
RANDOM = "versa.tune_random"  # on a kept weight's placeholder: the seed of its values


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


def _prefixes(options: CompileOptions) -> tuple[list, list]:
    """(the steps before the static versa-pack-weights, the steps before versa-codegen)."""
    steps = _codegen(options)[0]
    static = (i for i, s in enumerate(steps) if isinstance(s, VersaPackWeights) and not s.dynamic_rows)
    return steps[: next(static, len(steps))], steps


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
    """The kernels of the versa program `text` with a non-empty search space, one per signature:
    the matmuls of a constant B first (cut before versa-pack-weights, B kept), then the rest."""
    unpacked, steps = _prefixes(options)
    found: dict[str, TuneKernel] = {}
    _collect(text, options, unpacked, True, found)
    _collect(text, options, steps, False, found)
    return list(found.values())


def _collect(text: str, options: CompileOptions, steps: list, keep_b: bool, found: dict) -> None:
    """Into `found`, the kernels of `text` after `steps`: those whose constant B `keep_b` keeps
    (the matmuls pre-packing is a choice for), or with `keep_b` False, all the others."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with module.context:
        compiler.run_passes(module, steps)
        signed = _signed(module, options)
        counts: dict[str, int] = {}
        for _, _, signature in signed:
            counts[signature.key] = counts.get(signature.key, 0) + 1
        roots = {op.operation for op, _, _ in signed}
        for op, strategy, signature in signed:
            space = search_space(strategy, options.target)
            if signature.key in found or not space.knobs or op.parent.name != "func.func":
                continue
            if _has_constant_b(strategy) != keep_b:
                continue
            elements = sum(math.prod(v.type.shape) for v in (*op.operands, *op.results))
            # (the op moves into the kernel, and with it out of this module: not read after)
            kernel = kernels.Kernel.outline(op, f"__tune_{len(found)}", roots, strategy.fuses_producers())
            if kernel is None:
                continue
            kept = constant_weight(op.operands[1]) if keep_b else None  # (the kernel's copy)
            body = _standalone(kernel.function, kept)
            if body is None or signature.key not in _keys(body, options, steps):
                continue
            found[signature.key] = TuneKernel(
                signature, type(strategy).__name__, space, body, elements, counts[signature.key], strategy
            )


def _has_constant_b(strategy: Strategy) -> bool:
    """Whether `strategy` is a matmul's (alone or with its epilogue) whose B is a constant f32
    weight: the op versa-pack-weights decides on (its space has `prepack`)."""
    mm = getattr(strategy, "matmul", strategy)
    return isinstance(mm, MatmulStrategy) and mm.constant_b


def _keys(text: str, options: CompileOptions, steps: list) -> set[str]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with module.context:
        materialize(module)
        compiler.run_passes(module, steps)
        return {s.key for _, _, s in _signed(module, options)}


def _standalone(function: func.FuncOp, kept: ir.Operation | None) -> str | None:
    """The outlined kernel as a module of one public func @kernel whose weights are arguments,
    but `kept` (a constant of it), which stays a constant, its values a placeholder."""
    entry = function.regions[0].blocks[0]
    weights = [op for op in entry.operations if _is_weight(op) and (kept is None or op.operation != kept)]
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
    if kept is not None:
        tensor = ir.RankedTensorType(kept.results[0].type)
        zero = ir.FloatAttr.get(tensor.element_type, 0.0, loc=ir.Location.unknown())
        kept.attributes["value"] = ir.DenseElementsAttr.get_splat(tensor, zero)
        kept.attributes[RANDOM] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)
    try:
        module.operation.verify()
    except ir.MLIRError:
        return None
    return str(module)


def materialize(module: ir.Module) -> None:
    """The kept weights of a kernel module (`RANDOM` placeholders) as random f32 constants,
    seeded: every process that parses the kernel builds the same values, so the outputs of
    candidates compiled in different workers compare. Run right after the parse, before any
    pass could fold the placeholder's splat."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "arith.constant" and RANDOM in op.attributes:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        tensor = ir.RankedTensorType(op.results[0].type)
        rng = np.random.default_rng(ir.IntegerAttr(op.attributes[RANDOM]).value)
        values = rng.standard_normal(tensor.shape).astype(np.float32)
        op.attributes["value"] = ir.DenseElementsAttr.get(values, type=tensor)
        del op.attributes[RANDOM]


def _is_weight(op) -> bool:
    if op.name != "arith.constant" or not isinstance(op.results[0].type, ir.RankedTensorType):
        return False
    if math.prod(op.results[0].type.shape) <= 1:
        return False
    try:
        return not ir.DenseElementsAttr(op.attributes["value"]).is_splat
    except (ValueError, TypeError):
        return True  # dense_resource: a weight
