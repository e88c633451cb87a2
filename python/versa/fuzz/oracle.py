"""Judge one program in this process: compile it through every pipeline and compare.

Oracles, in order: the program verifies; its NumPy reference is finite and well conditioned
(a tiny relative perturbation of the float inputs must move the outputs by at most ~10x as
much, and integer/boolean outputs not at all), else the program is skipped, not judged; each
pipeline compiles (the verifier runs after every pass) and two calls give identical outputs;
outputs match the reference within `versa.tolerance`; pipelines agree with each other (-O0
being the baseline) within twice that. Crashes and hangs are caught one level up, by
`worker.py`, which runs this in a subprocess.
"""

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import JitFunction, find_function
from versa.diagnostics import CompileError
from versa.reference import interpret

from . import inputs as fuzz_inputs

PIPELINES = {  # threads=2: the same code on every machine, whatever its core count
    "O0": "lower-to-llvm{opt-level=0}",
    "O1": "lower-to-llvm{opt-level=1}",
    "O2": "lower-to-llvm{opt-level=2}",
    "O3": "lower-to-llvm{opt-level=3 threads=2}",
    "fused": "versa-optimize,lower-to-llvm{opt-level=3 threads=2}",
}
PERTURBATION, CONDITION_LIMIT = 1e-4, 10.0


@dataclass(frozen=True)
class Verdict:
    """status: "ok", "skipped" (not judgeable), "invalid" (does not verify) or "finding";
    kind (findings): "compile-error", "runtime-error", "mismatch", "disagreement",
    "nondeterministic", "reference-error", "signal" or "timeout"."""

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
    try:
        args = fuzz_inputs.for_function(function)
    except (ValueError, MemoryError) as err:  # a verified type too large to allocate
        return [Verdict("skipped", message=f"cannot draw inputs: {err}")]
    try:
        want = interpret(function, args)
    except Exception as err:  # a program that verifies must have a reference result
        return [Verdict("finding", "reference-error", "reference", f"{type(err).__name__}: {err}")]
    reason = unjudgeable(function, args, want)
    if reason:
        return [Verdict("skipped", message=reason)]
    tolerances = tolerance.for_function(function)
    outputs: dict[str, list[np.ndarray]] = {}
    findings = []
    for name in pipelines:
        on_stage(name)
        got, problems = run_pipeline(text, name, args, want, tolerances)
        findings += problems
        if got is not None:
            outputs[name] = got
    findings += disagreements(outputs, tolerances)
    return findings or [Verdict("ok")]


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


def run_pipeline(
    text: str,
    name: str,
    args: list[np.ndarray],
    want: list[np.ndarray],
    tolerances: list[tolerance.Tolerance],
) -> tuple[list[np.ndarray] | None, list[Verdict]]:
    pipeline = PIPELINES[name]
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    try:
        jit = JitFunction(module, pipeline=pipeline, llvm_opt_level=opt_level(pipeline))
        got = jit(*args)
        again = jit(*args)
    except CompileError as err:
        return None, [Verdict("finding", "compile-error", name, err.format("<program>"))]
    except Exception as err:
        return None, [Verdict("finding", "runtime-error", name, f"{type(err).__name__}: {err}")]
    findings = []
    for i, (g, a, w, tol) in enumerate(zip(got, again, want, tolerances, strict=True)):
        if tolerance.check(a, g):
            findings.append(Verdict("finding", "nondeterministic", name, f"result{i}: two calls differ"))
        problem = tolerance.check(g, w, tol)
        if problem:
            findings.append(Verdict("finding", "mismatch", name, f"result{i}: {problem}"))
    return got, findings


def disagreements(outputs: dict[str, list[np.ndarray]], tolerances: list[tolerance.Tolerance]) -> list:
    """Pipelines whose outputs differ from -O0's by more than twice the tolerance."""
    baseline = outputs.get("O0")
    findings = []
    for name, got in outputs.items() if baseline is not None else ():
        for i, (g, b, tol) in enumerate(zip(got, baseline, tolerances, strict=True)):
            problem = tolerance.check(g, b, tol + tol)
            if problem and name != "O0":
                findings.append(Verdict("finding", "disagreement", name, f"result{i} vs O0: {problem}"))
    return findings


def opt_level(pipeline: str) -> int:
    """The `opt-level` a pipeline string names (3, lower-to-llvm's default, if none)."""
    _, found, rest = pipeline.rpartition("opt-level=")
    return int(rest[0]) if found else 3
