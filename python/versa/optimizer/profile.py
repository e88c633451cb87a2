"""The per-layer profile: a profiling compile's kernel times joined to the source ops.

Before lowering, each top-level op of the optimised versa module (a fused group counts as one)
gets a tag in its location, `loc("@k12"(<its location>))`; lowering keeps locations, so the
kernels that `versa-profile-kernels` times carry the tags of the ops they came from (and the
source names: torch module paths, ONNX node names, lines of a .mlir file). An op may become
several kernels (a conv's padding copy, then the conv): its FLOPs are credited to the longest
of them, the others are timed and shown as data movement of that op. The code is compiled
exactly as without profiling but for the marks; their cost is measured (the instrumented total
against the uninstrumented one) and reported, never subtracted.
"""

import math
import statistics
import time
from dataclasses import dataclass

import numpy as np

from versa.cpu.profile import KernelCounters
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.passes.common.source_names import source_names

TAG = "@k"
_FREE = ("versa.constant",)  # no kernel: a global the code reads
_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "ui8": 1, "i1": 1}


@dataclass(frozen=True)
class SourceOp:
    """A top-level op of the optimised module: what it computes and where it came from."""

    tag: str
    op: str  # "conv2d", or a fused group's members "conv2d+add+relu"
    sources: tuple[str, ...]
    flops: float | None  # 2 per multiply-add of a contraction; None for the rest
    bytes: int  # its operands and results, once each


@dataclass(frozen=True)
class Layer:
    kernel: str
    family: str
    sources: tuple[str, ...]
    calls: int
    ms: float
    percent: float
    flops: float | None
    bytes: int | None
    rate: float | None
    rate_unit: str | None


def result_bytes(op: ir.Operation) -> int:
    """The bytes of `op`'s results (static tensors; 0 for others)."""
    return sum(map(_nbytes, op.results))


def _nbytes(value: ir.Value) -> int:
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return 0
    return math.prod(t.shape) * _BYTES.get(str(t.element_type), 4)


def _shape(value: ir.Value) -> list[int]:
    return list(value.type.shape)


def _contraction_flops(op: ir.Operation) -> float | None:
    name = op.name
    if name in ("versa.matmul", "versa.qmatmul"):  # a quantized one: integer multiply-adds
        a, b = _shape(op.operands[0]), _shape(op.operands[1])
        return 2.0 * math.prod(_shape(op.results[0])) * (a[-1] if len(a) > 1 else a[0]) if b else None
    if name in ("versa.conv2d", "versa.qconv2d"):
        out, weights = _shape(op.results[0]), _shape(op.operands[1])
        channels = out[-1] if ir.StringAttr(op.attributes["layout"]).value == "NHWC" else out[1]
        return 2.0 * math.prod(out) * math.prod(weights) / channels
    if name == "versa.conv_transpose2d":
        image, weights = _shape(op.operands[0]), _shape(op.operands[1])
        return 2.0 * math.prod(image) * math.prod(weights) / weights[0]
    return None


def _members(op: ir.Operation) -> list[ir.Operation]:
    if op.name != "versa.fused":
        return [op]
    return [inner.operation for inner in op.regions[0].blocks[0].operations if inner.name != "versa.yield"]


def _outside_operands(op: ir.Operation, members: list[ir.Operation]) -> list[ir.Value]:
    inside = {r for m in members for r in m.results}
    values = [v for m in members for v in m.operands if v not in inside]
    return list(dict.fromkeys(values))


def tag_ops(module: ir.Module) -> dict[str, SourceOp]:
    """Tag every top-level op of the public functions of `module` (versa IR); the tags' ops."""
    ops: dict[str, SourceOp] = {}
    for function in module.body.operations:
        if function.operation.name != "func.func" or "sym_visibility" in function.attributes:
            continue
        for op in function.regions[0].blocks[0].operations:
            op = op.operation
            if op.name in _FREE or op.name == "func.return":
                continue
            tag = f"{TAG}{len(ops)}"
            members = _members(op)
            contractions = [f for f in map(_contraction_flops, members) if f is not None]
            values = [*_outside_operands(op, members), *op.results]
            ops[tag] = SourceOp(
                tag,
                "+".join(m.name.removeprefix("versa.") for m in members),
                # the members first (a group's contraction leads): a kernel is named by them
                tuple(dict.fromkeys(n for m in [*members, op] for n in source_names(m.location))),
                sum(contractions) if contractions else None,
                sum(map(_nbytes, values)),
            )
            with module.context:  # a fused group's members lower with their own locations
                for tagged in dict.fromkeys([op, *members]):
                    tagged.location = ir.Location.name(tag, childLoc=tagged.location)
    return ops


def layers(readings, ops: dict[str, SourceOp], runs: int) -> list[Layer]:
    """Per kernel, per model call: time, share, and the rate of what its source op computes."""
    readings = [(kernel, ns / runs / 1e6, calls // max(runs, 1)) for kernel, ns, calls in readings]
    total = sum(ms for _, ms, _ in readings) or 1.0
    longest: dict[str, float] = {}
    for kernel, ms, _ in readings:
        for tag in (n for n in kernel.sources if n.startswith(TAG)):
            longest[tag] = max(longest.get(tag, 0.0), ms)
    found = []
    for kernel, ms, calls in readings:
        tags = [n for n in kernel.sources if n.startswith(TAG) and n in ops]
        sources = tuple(dict.fromkeys(s for t in tags for s in ops[t].sources)) or tuple(
            n for n in kernel.sources if not n.startswith(TAG)
        )
        main = [t for t in tags if longest.get(t) == ms]
        flops = sum(ops[t].flops for t in main if ops[t].flops) or None
        nbytes = sum(ops[t].bytes for t in main) or None
        family = "+".join(dict.fromkeys(ops[t].op for t in tags)) or "+".join(kernel.ops)
        if tags and not main:
            family = f"data movement ({family})"
        seconds = ms / 1e3
        if flops and seconds > 0:
            rate, unit = flops / seconds / 1e9, "GFLOP/s"
        elif nbytes and seconds > 0:
            rate, unit = nbytes / seconds / 1e9, "GB/s"
        else:
            rate, unit = None, None
        label = f"#{kernel.id} {sources[0]}" if sources else f"{kernel.function}#{kernel.id}"
        found.append(Layer(label, family, sources, calls, ms, 100 * ms / total, flops, nbytes, rate, unit))
    return found


@dataclass(frozen=True)
class Profile:
    layers: list[Layer]
    instrumented_ms: float  # median time of a call of the profiling compile
    uninstrumented_ms: float  # of the normal compile, in the same rounds
    attributed_ms: float  # the kernels' sum, per call

    @property
    def overhead_percent(self) -> float:
        return 100 * (self.instrumented_ms / self.uninstrumented_ms - 1)

    @property
    def unattributed_ms(self) -> float:
        """Time in a call that no kernel holds: the Python call, argument checks, result arrays."""
        return self.instrumented_ms - self.attributed_ms


def measure(
    instrumented: JitFunction, plain: JitFunction, ops: dict[str, SourceOp], inputs, rounds: int = 20
) -> Profile:
    """Interleaved calls of both compiles (warmed up first); kernels' times from the counters."""
    counters = KernelCounters.of(instrumented)
    if counters is None:
        raise ValueError("the instrumented function was not compiled with profile=1")
    inputs = [np.ascontiguousarray(a) for a in inputs]
    for _ in range(2):
        instrumented(*inputs)
        plain(*inputs)
    counters.reset()
    timed: dict[int, list[float]] = {0: [], 1: []}
    for _ in range(rounds):
        for which, function in ((0, instrumented), (1, plain)):
            start = time.perf_counter()
            function(*inputs)
            timed[which].append(time.perf_counter() - start)
    found = layers(counters.read(), ops, rounds)
    return Profile(
        found,
        1e3 * statistics.median(timed[0]),
        1e3 * statistics.median(timed[1]),
        sum(layer.ms for layer in found),
    )


def copy_module(module: ir.Module) -> ir.Module:
    """A deep copy of `module` (same context, locations kept): compiles consume their input."""
    clone = module.operation.clone()
    copy = ir.Module.create(module.operation.location)
    for name in clone.attributes:
        copy.operation.attributes[name.name] = name.attr
    ops = list(clone.regions[0].blocks[0].operations)
    at = ir.InsertionPoint(copy.body)
    for op in ops:
        at.insert(op.detach_from_parent())
    return copy


def profile_module(
    module: ir.Module, options, inputs, rounds: int = 20, plain: JitFunction | None = None
) -> Profile:
    """Compile versa `module` with `options` (CompileOptions; the input is left as it was) with
    kernel marks at the same tile choices, and time it interleaved with `plain`, the usual
    compile (compiled here when the caller has none)."""
    if plain is None:
        plain = JitFunction(copy_module(module), pipeline=options.passes())
    tagged = copy_module(module)
    from versa import compiler  # the driver sits above the runtime

    compiler.run_passes(tagged, options.versa_passes())
    ops = tag_ops(tagged)
    # Through the compile cache like any compile: a hit keeps the kernel table with the code.
    instrumented = JitFunction(tagged, pipeline=options.lowering(profile=True))
    return measure(instrumented, plain, ops, inputs, rounds)


def as_report(profile: Profile, peak_gflops: float | None = None) -> dict:
    """The report's `profile` section (report_schema.json); a contraction's share of the FMA
    peak where `peak_gflops` is known."""
    return {
        "instrumented_total_ms": profile.instrumented_ms,
        "uninstrumented_total_ms": profile.uninstrumented_ms,
        "overhead_percent": profile.overhead_percent,
        "unattributed_ms": profile.unattributed_ms,
        "layers": [
            {
                "kernel": layer.kernel,
                "family": layer.family,
                "sources": list(layer.sources),
                "calls": layer.calls,
                "ms": layer.ms,
                "percent": layer.percent,
                "flops": layer.flops,
                "bytes": layer.bytes,
                "rate": layer.rate,
                "rate_unit": layer.rate_unit,
                "percent_of_limit": (
                    100 * layer.rate / peak_gflops if peak_gflops and layer.rate_unit == "GFLOP/s" else None
                ),
            }
            for layer in profile.layers
        ],
    }
