"""The optimizer's measurements of a compiled model: accuracy against the framework, the
before/after times (interleaved calls, medians, same threads), and memory."""

import statistics
import time

import numpy as np

from versa import tolerance
from versa.cpu.runtime import JitFunction
from versa.signature import find_function

from .profile import result_bytes
from .sources import Source


def interleaved(calls: dict, rounds: int) -> dict[str, float]:
    """Median ms of each callable, called in turn each round (after one warm-up call each)."""
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: 1e3 * statistics.median(t) for name, t in times.items()}


def accuracy(source: Source, got: list[np.ndarray], want: list[np.ndarray], policy: list) -> dict:
    outputs = []
    for i, (g, w, tol) in enumerate(zip(got, want, policy, strict=True)):
        w = np.asarray(w)
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64)) if g.size else np.zeros(0)
        max_abs = float(np.nanmax(diff)) if diff.size else 0.0
        max_rel = (
            float(np.nanmax(diff / np.maximum(np.abs(w.astype(np.float64)), 1e-30))) if diff.size else 0.0
        )
        ok = tolerance.check(g, w.astype(g.dtype) if w.dtype != g.dtype else w, tol) is None
        outputs.append(
            {
                "name": f"output{i}",
                "shape": list(g.shape),
                "dtype": str(g.dtype),
                "max_abs": max_abs,
                "max_rel": min(max_rel, 1e300),
                "atol": tol.atol,
                "rtol": tol.rtol,
                "ok": ok,
            }
        )
    return {
        "reference": source.reference_name,
        "verdict": "pass" if all(o["ok"] for o in outputs) else "fail",
        "policy": "versa.tolerance: per op by element type and family, summed over each output's "
        "cone; |got - want| <= atol * max(1, max|want|) + rtol * |want|",
        "outputs": outputs,
    }


def _weights_bytes(module) -> int:
    total = 0
    for op in find_function(module, None).regions[0].blocks[0].operations:
        if op.operation.name == "versa.constant":
            total += result_bytes(op.operation)
    return total


def benchmark(source: Source, function: JitFunction, options, settings, report: dict, entry: dict) -> None:
    calls = {"versa": lambda: function(*source.inputs)}
    if source.timed_reference:
        if source.reference_name == "torch":
            import torch

            torch.set_num_threads(options.threads)
        calls["reference"] = lambda: source.reference(source.inputs)
    medians = interleaved(calls, settings.rounds)
    reference_ms = medians.get("reference")
    report["timing"] = {
        "reference": source.reference_name,
        "reference_ms": reference_ms,
        "versa_ms": medians["versa"],
        "speedup": reference_ms / medians["versa"] if reference_ms else None,
        "rounds": settings.rounds,
        "threads": options.threads,
    }
    entry["detail"] = f"{settings.rounds} interleaved rounds"


def memory(source: Source, function: JitFunction) -> dict:
    use = function.memory
    weights = _weights_bytes(source.module)
    buffers = [
        {"name": n, "bytes": int(a.nbytes), "kind": "input"}
        for n, a in zip(source.input_names, source.inputs, strict=True)
    ]
    outputs = function(*source.inputs) if any(not s.is_static for s in function.outputs) else None
    buffers += [  # a dynamic result's size is this call's
        {"name": f"output{i}", "bytes": int(outputs[i].nbytes) if outputs else s.nbytes, "kind": "output"}
        for i, s in enumerate(function.outputs)
    ]
    buffers.append({"name": "arena (intermediates)", "bytes": use.arena, "kind": "arena"})
    buffers.append({"name": "weights (constants)", "bytes": weights, "kind": "weight"})
    return {
        "weights_bytes": weights,
        "arena_bytes": use.arena,
        "inputs_bytes": use.inputs,
        "outputs_bytes": use.outputs,
        "peak_bytes": use.peak + weights,
        "reference_peak_bytes": None,  # reference_memory.measure, in a fresh process
        "buffers": buffers,
    }
