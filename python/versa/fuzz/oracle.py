"""Judge one program in this process: compile it through every pipeline and compare.

Oracles, in order: the program verifies; its NumPy reference is finite and well conditioned
(a tiny relative perturbation of the float inputs must move the outputs by at most ~10x as
much, and integer/boolean outputs not at all), else the program is skipped, not judged; each
pipeline compiles (the verifier runs after every pass) and two calls give identical outputs;
outputs match the reference within `versa.tolerance`; pipelines agree with each other (-O0
being the baseline) within twice that. Crashes and hangs are caught one level up, by
`worker.py`, which runs this in a subprocess.

A function with dynamic dims (`dynamic.py`) is compiled once per pipeline and called once per
size its text names: the compiled call must refuse (ShapeError) exactly the sizes the
reference refuses, and match it on the others.
"""

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from versa import compiler, tolerance
from versa.call_shapes import ShapeError
from versa.context import make_context
from versa.cpu.runtime import JitFunction, find_function
from versa.diagnostics import CompileError
from versa.dialects.core import dims_of
from versa.mlir import func, ir
from versa.reference import interpret

from . import inputs as fuzz_inputs
from .dynamic import specialized
from .program import SIZES_ATTR, SYMBOL, from_function

PIPELINES = {  # threads=2: the same code on every machine, whatever its core count
    "O0": "lower-to-llvm{opt-level=0}",
    "O1": "lower-to-llvm{opt-level=1}",
    "O2": "lower-to-llvm{opt-level=2}",
    "O3": "lower-to-llvm{opt-level=3 threads=2}",
    "fused": "versa-optimize,lower-to-llvm{opt-level=3 threads=2}",
}
PERTURBATION, CONDITION_LIMIT = 1e-4, 10.0
DEFAULT_SIZES = (2, 1, 4)  # the calls of a dynamic function whose text names no `fuzz.sizes`


@dataclass(frozen=True)
class Verdict:
    """status: "ok", "skipped" (not judgeable), "invalid" (does not verify) or "finding";
    kind (findings): "compile-error", "runtime-error", "mismatch", "disagreement",
    "nondeterministic", "reference-error", "shape-check" (a dynamic function's call refused by
    one of the compiled code and the reference only), "signal" or "timeout"."""

    status: str
    kind: str = ""
    pipeline: str = ""
    message: str = ""

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def signature(self) -> tuple[str, str]:
        return (self.kind, self.pipeline)


def judge(
    text: str, pipelines: Sequence[str] = tuple(PIPELINES), on_stage: Callable[[str], None] = print
) -> list[Verdict]:
    """Every finding of `text` (one "ok"/"skipped"/"invalid" verdict when there is none).
    `on_stage(name)` is called before each pipeline, so a crash can be attributed."""
    try:
        module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
        function = find_function(module, None)
    except CompileError as err:
        return [Verdict("invalid", message=err.format("<program>"))]
    calls = reference_calls(function)
    if isinstance(calls, Verdict):
        return [calls]
    outputs: dict[str, dict[int, list[np.ndarray]]] = {}
    findings = []
    for name in pipelines:
        on_stage(name)
        outputs[name], problems = run_pipeline(text, name, calls)
        findings += problems
    findings += disagreements(outputs, calls)
    return findings or [Verdict("ok")]


@dataclass
class Call:
    """One call the oracle makes: `size` is the dynamic dims' (None for a static function);
    `want` is None where the reference refuses the call's sizes (`refusal` says why)."""

    size: int | None
    args: list[np.ndarray]
    want: list[np.ndarray] | None
    refusal: str = ""
    tolerances: list[tolerance.Tolerance] = field(default_factory=list)

    @property
    def where(self) -> str:
        return "" if self.size is None else f"{SYMBOL}={self.size}: "


def reference_calls(function: func.FuncOp) -> list[Call] | Verdict:
    """The calls to judge with their reference results, or the verdict that ends the judging:
    one call of a static function, one per size of a dynamic one (`fuzz.sizes`, else
    `DEFAULT_SIZES`), where sizes whose result the reference cannot judge are left out."""
    calls, reason = [], ""
    for size in call_sizes(function):
        try:
            args = fuzz_inputs.for_function(function, size=size)
        except (ValueError, MemoryError) as err:  # a verified type too large to allocate
            return Verdict("skipped", message=f"cannot draw inputs: {err}")
        where = "" if size is None else f"{SYMBOL}={size}: "
        try:
            want = interpret(function, args)
        except Exception as err:  # a program that verifies must have a reference result...
            if size is not None and isinstance(err, CompileError):  # ...unless a rule refuses the sizes
                calls.append(Call(size, args, None, err.format("<program>").strip()))
                continue
            return Verdict("finding", "reference-error", "reference", f"{where}{type(err).__name__}: {err}")
        problem = unjudgeable(function, args, want)
        if problem:
            reason = problem
            continue
        calls.append(Call(size, args, want, tolerances=tolerances_at(function, size)))
    return calls or Verdict("skipped", message=reason)


def call_sizes(function: func.FuncOp) -> tuple[int | None, ...]:
    """(None,) for a function with static types, else the sizes its dynamic dims take."""
    types = [*function.type.inputs, *function.type.results]
    if all(None not in dims_of(t) for t in types):
        return (None,)
    if SIZES_ATTR in function.attributes:
        return tuple(ir.DenseI64ArrayAttr(function.attributes[SIZES_ATTR]))
    return DEFAULT_SIZES


def tolerances_at(function: func.FuncOp, size: int | None) -> list[tolerance.Tolerance]:
    """The results' tolerances at one call: those of the static program the call runs, since
    a reduction's length may be a dynamic dim (the function's own where it has no such form)."""
    program = None if size is None else from_function(function)
    static = None if program is None else specialized(program, size)
    if static is not None:
        try:
            module = compiler.parse_module(compiler.Chunk(static.text(), 1), make_context())
            return tolerance.for_function(find_function(module, None))
        except CompileError:  # a static form that does not verify
            pass
    return tolerance.for_function(function)


def unjudgeable(function, args: list[np.ndarray], want: list[np.ndarray]) -> str:
    """Why the reference cannot judge this program ("" when it can)."""
    if any(w.dtype.kind == "f" and not np.all(np.isfinite(w)) for w in want):
        return "the reference result is not finite"
    rng = np.random.default_rng(1)
    for _ in range(2):
        nudged = [nudge(a, rng) for a in args]
        again = interpret(function, nudged)
        limit = tolerance.Tolerance(PERTURBATION * CONDITION_LIMIT, PERTURBATION * CONDITION_LIMIT)
        for w, a in zip(want, again, strict=True):
            if tolerance.check(a, w, limit if w.dtype.kind == "f" else tolerance.EXACT):
                return "ill-conditioned: a 1e-4 relative change of the inputs moves the result too far"
    return ""


def nudge(array: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if array.dtype.kind != "f":
        return array
    factor = 1 + PERTURBATION * rng.uniform(-1, 1, array.shape)
    return (array.astype(np.float64) * factor).astype(array.dtype)


def run_pipeline(text: str, name: str, calls: list[Call]) -> tuple[dict[int, list], list[Verdict]]:
    """Compile once, make every call twice; the outputs of the calls that ran, by index."""
    pipeline = PIPELINES[name]
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    try:
        jit = JitFunction(module, pipeline=pipeline, llvm_opt_level=opt_level(pipeline))
    except CompileError as err:
        return {}, [Verdict("finding", "compile-error", name, err.format("<program>"))]
    except Exception as err:
        return {}, [Verdict("finding", "runtime-error", name, f"{type(err).__name__}: {err}")]
    outputs, findings = {}, []
    for index, call in enumerate(calls):
        try:
            got = jit(*call.args)
            again = jit(*call.args)
        except ShapeError as err:
            if call.want is not None:
                message = f"{call.where}the call is refused ({err}), the reference runs it"
                findings.append(Verdict("finding", "shape-check", name, message))
            continue
        except Exception as err:
            message = f"{call.where}{type(err).__name__}: {err}"
            findings.append(Verdict("finding", "runtime-error", name, message))
            break
        if call.want is None:
            message = f"{call.where}the call runs, the reference refuses it: {call.refusal}"
            findings.append(Verdict("finding", "shape-check", name, message))
            continue
        outputs[index] = got
        findings += compare(name, call, got, again)
    return outputs, findings


def compare(name: str, call: Call, got: list[np.ndarray], again: list[np.ndarray]) -> list[Verdict]:
    """A call's two outputs against each other and the reference."""
    findings = []
    for i, (g, a, w, tol) in enumerate(zip(got, again, call.want, call.tolerances, strict=True)):
        if tolerance.check(a, g):
            message = f"{call.where}result{i}: two calls differ"
            findings.append(Verdict("finding", "nondeterministic", name, message))
        problem = tolerance.check(g, w, tol)
        if problem:
            findings.append(Verdict("finding", "mismatch", name, f"{call.where}result{i}: {problem}"))
    return findings


def disagreements(outputs: dict[str, dict[int, list]], calls: list[Call]) -> list[Verdict]:
    """Pipelines whose outputs differ from -O0's by more than twice the tolerance, per call."""
    baseline = outputs.get("O0", {})
    findings = []
    for name, by_call in outputs.items():
        for index in sorted(by_call.keys() & baseline.keys() if name != "O0" else ()):
            call = calls[index]
            pairs = zip(by_call[index], baseline[index], call.tolerances, strict=True)
            for i, (g, b, tol) in enumerate(pairs):
                problem = tolerance.check(g, b, tol + tol)
                if problem:
                    message = f"{call.where}result{i} vs O0: {problem}"
                    findings.append(Verdict("finding", "disagreement", name, message))
    return findings


def opt_level(pipeline: str) -> int:
    """The `opt-level` a pipeline string names (3, lower-to-llvm's default, if none)."""
    _, found, rest = pipeline.rpartition("opt-level=")
    return int(rest[0]) if found else 3
