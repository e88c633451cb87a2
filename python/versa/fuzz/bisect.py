"""Find the first pass of a pipeline after which a program's results drift from the reference.

The pipeline runs one element at a time on the program; after each step the IR is judged:

* while it is still versa (versa, func and `versa.fused` ops), by the NumPy interpreter, so a
  versa-level pass (canonicalize, fuse, or any test pass) is judged on its own output;
* while it is on tensors but no longer versa (linalg, vector, ...), by completing it with the
  plainest lowering, `lower-to-llvm{opt-level=0}`, and JIT-running it, so optimising tensor
  passes (codegen, vectorize, ...) are isolated too (assuming the -O0 path is sound);
* once bufferized, by completing it with the rest of the pipeline itself: past that point a
  drift can only be placed at or after the first buffer-level step.

A stage whose completion does not compile is passed over. At the first drifting step, every
op of that step's input is cut out as a one-op program, with its operands as arguments holding
the values they had; the smallest one that drifts through the rest of the pipeline is the
minimal reproducer. When that input is no longer versa, the ops are cut from the original
program and run through the whole pipeline instead.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu import openmp
from versa.cpu.memref import PackedCall
from versa.cpu.runtime import TensorSpec, find_function
from versa.diagnostics import CompileError
from versa.dialects.versa import OPS
from versa.mlir import ExecutionEngine, func, ir
from versa.passes.common.base import Pass, collect
from versa.passes.optimize.fuse import unfuse
from versa.reference import interpret, interpret_op

from . import inputs as fuzz_inputs
from .program import Arg, Op, Program, from_function

BASELINE = "lower-to-llvm{opt-level=0 threads=1}"
VERSA_LEVEL = {"func.func", "func.return", "builtin.module"}


@dataclass
class Culprit:
    step: int
    name: str
    message: str
    reproducer: str | None = None
    reproducer_inputs: list[np.ndarray] | None = None
    failed: bool = False  # the step raised an error rather than computing something else


def name_of(element: compiler.Element) -> str:
    return element.name if isinstance(element, Pass) else str(element)


def parse(text: str) -> ir.Module:
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def bisect(
    text: str, elements: Sequence[compiler.Element], args: list[np.ndarray] | None = None
) -> Culprit | None:
    """The first element of `elements` after which `text`'s results drift (None: no drift)."""
    module = parse(text)
    function = find_function(module, None)
    entry = Entry(function)
    args = args if args is not None else fuzz_inputs.for_function(function)
    want = interpret(function, args)
    tolerances = tolerance.for_function(function)
    before = text
    for step, element in enumerate(elements):
        try:
            compiler.run_passes(module, [element])
        except CompileError as err:
            return Culprit(step, name_of(element), err.format("<stage>"), failed=True)
        after = str(module)
        got = evaluate(after, elements[step + 1 :], entry, args)
        drift = first_drift(got, want, tolerances) if got is not None else None
        if drift:
            culprit = Culprit(step, name_of(element), drift)
            source, rest = (before, elements[step:]) if is_versa(parse(before)) else (text, elements)
            culprit.reproducer, culprit.reproducer_inputs = smallest_failing_op(source, rest, args)
            return culprit
        before = after
    return None


class Entry:
    """The entry function's name and result specs, which lowering no longer shows."""

    def __init__(self, function: func.FuncOp):
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(function.context)
        self.name = function.attributes["sym_name"].value
        self.outputs = [TensorSpec.of(t) for t in function.type.results]


def first_drift(got: list[np.ndarray], want: list[np.ndarray], tolerances) -> str | None:
    for i, (g, w, tol) in enumerate(zip(got, want, tolerances, strict=True)):
        problem = tolerance.check(g, w, tol)
        if problem:
            return f"result{i}: {problem}"
    return None


def is_versa(module: ir.Module) -> bool:
    names: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        names.add(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return all(n in VERSA_LEVEL or n in OPS for n in names)


def is_bufferized(module: ir.Module) -> bool:
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    return not functions or any(
        isinstance(t, ir.MemRefType) for f in functions for t in (*f.type.inputs, *f.type.results)
    )


def evaluate(
    text: str, rest: Sequence[compiler.Element], entry: Entry, args: list[np.ndarray]
) -> list[np.ndarray] | None:
    """The results of a stage's IR (see the module docstring); None when it cannot be run."""
    module = parse(text)
    if is_versa(module):
        return interpret(find_function(module, None), args)
    completion = list(rest) if is_bufferized(module) else compiler.parse_pipeline(BASELINE)
    return execute(module, completion, entry, args)


def run_through(
    text: str, rest: Sequence[compiler.Element], args: list[np.ndarray]
) -> list[np.ndarray] | None:
    """`text` after all of `rest`: interpreted if still versa, else JIT-run."""
    module = parse(text)
    entry = Entry(find_function(module, None))
    try:
        compiler.run_passes(module, rest)
    except CompileError:
        return None
    if is_versa(module):
        return interpret(find_function(module, None), args)
    return execute(module, [], entry, args)


def execute(
    module: ir.Module, completion: Sequence[compiler.Element], entry: Entry, args: list[np.ndarray]
) -> list[np.ndarray] | None:
    """Lower `module` with `completion`, JIT it and call the entry; None if that fails."""
    try:
        compiler.run_passes(module, completion)
        engine = ExecutionEngine(module, opt_level=0, shared_libs=openmp.shared_libraries())
        address = engine.raw_lookup(f"_mlir_ciface_{entry.name}")
    except (CompileError, RuntimeError, ValueError):
        return None
    if not address:
        return None
    results = [np.empty(s.shape, s.dtype) for s in entry.outputs]
    PackedCall(address, [a.shape for a in args] + [r.shape for r in results])([*args, *results])
    return results


def smallest_failing_op(
    text: str, rest: Sequence[compiler.Element], args: list[np.ndarray]
) -> tuple[str | None, list[np.ndarray] | None]:
    """The smallest one-op program cut from `text` that drifts through `rest`."""
    module = parse(text)
    for fused in collect(module.operation, lambda op: op.name == "versa.fused"):
        unfuse(fused)
    function = find_function(module, None)
    program = from_function(function)
    if program is None:
        return None, None
    values = all_values(function, args)
    cut = [one_op_program(program, i, values) for i in range(len(program.ops))]
    for candidate, inputs in sorted(cut, key=lambda c: c[0].size()):
        candidate_module = parse(candidate.text())
        candidate_function = find_function(candidate_module, None)
        want = interpret(candidate_function, inputs)
        got = run_through(candidate.text(), rest, inputs)
        if got is not None and first_drift(got, want, tolerance.for_function(candidate_function)):
            return candidate.text(), inputs
    return None, None


def all_values(function: func.FuncOp, args: list[np.ndarray]) -> list[np.ndarray]:
    """Every value of a versa-only `function` from NumPy: the arguments, then each op's result."""
    block = function.regions[0].blocks[0]
    env = dict(zip(block.arguments, args, strict=True))
    values = list(args)
    for op in block.operations:
        if op.operation.name in OPS:
            env[op.results[0]] = interpret_op(op, [env[v] for v in op.operands])
            values.append(env[op.results[0]])
    return values


def one_op_program(
    program: Program, index: int, values: list[np.ndarray]
) -> tuple[Program, list[np.ndarray]]:
    """Op `index` alone: its constant operands kept, the others as arguments with their values."""
    position = {id(v): k for k, v in enumerate(program.values())}
    op, alone, inputs = program.ops[index], Program(), []
    replaced: dict[int, Arg | Op] = {}
    for v in op.operands:
        if id(v) in replaced:
            continue
        if isinstance(v, Op) and v.name == "constant":
            replaced[id(v)] = Op("constant", [], dict(v.attrs), v.type)
            alone.ops.append(replaced[id(v)])
        else:
            replaced[id(v)] = Arg(v.type)
            alone.args.append(replaced[id(v)])
            inputs.append(values[position[id(v)]])
    copy = Op(op.name, [replaced[id(v)] for v in op.operands], dict(op.attrs), op.type)
    alone.ops.append(copy)
    alone.results = [copy]
    return alone, inputs
