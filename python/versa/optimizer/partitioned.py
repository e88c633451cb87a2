"""A torch model Versa cannot import whole, optimised as `versa.compile` runs it: the export split
around the ops Versa does not take (`frontends/torch/partition.py`, through `api.partition_model`),
those ops left to PyTorch eager, each partition between them compiled as Versa code.

The steps on the partitioned model, and why:

* compile: every partition, as `VersaGraph` compiles it; pass times are summed per pass over
  the partitions, and each partition's fusion and layout decisions are read from its own
  optimised IR. The report lists each op left to PyTorch (its op, module path, source line and
  the partitioner's reason) and the share of ops compiled. If no partition compiles, nothing
  of the model is Versa's: the step fails with the whole import's located error.
* validate, benchmark: the partitioned model against torch eager, as for a whole model; the
  tolerance of an output is the sum of the tolerances (`versa.tolerance`'s cones) of the
  compiled partition results it depends on. Ops left to PyTorch add none: they run the same
  kernels as the reference.
* profile, memory, artifact: skipped, saying why. Each describes one compiled function: the
  profile's shares are of one function's call, Versa's peak memory is one function's arena and
  weights, the artifact is one library with a C header. Here PyTorch runs ops and holds tensors
  between the partitions, so per-partition figures would leave out what a user most needs to
  know (the eager part), and a library without the eager ops is not the model.
"""

import logging
import operator
import re
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch.fx import GraphModule, Node

from versa import compiler, tolerance
from versa.diagnostics import CompileError, Diagnostic
from versa.frontends.torch.api import partition_model
from versa.frontends.torch.convert import convert_module, none_results
from versa.frontends.torch.executable import VersaGraph
from versa.frontends.torch.importer import import_graph, make_torch_context
from versa.frontends.torch.locations import module_path
from versa.frontends.torch.partition import Partitioned
from versa.frontends.torch.support import op_name
from versa.signature import find_function

from . import compile_log, measure
from .decisions import decisions
from .sources import Source

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass
class _Part:
    """A compiled partition, called as `VersaGraph` is (a list of tensors in, a list out), with
    the tolerance of each of its results and the decisions versa-optimize made on it."""

    graph: VersaGraph
    tolerances: list[tolerance.Tolerance]
    decisions: list[dict]

    def __call__(self, args: list) -> list:
        return self.graph(args)


def _compile_part(part: GraphModule, options) -> _Part:
    """`part` compiled by `VersaGraph`, and read from an import of its own (VersaGraph keeps no
    versa module): the tolerances of its results (None results: exact) and its decisions."""
    graph = VersaGraph(part, options)
    torch_module = import_graph(part, make_torch_context())
    nones = none_results(torch_module)
    module = convert_module(torch_module)
    tolerances = tolerance.for_function(find_function(module, None))
    for position in nones:
        tolerances.insert(position, tolerance.EXACT)
    compiler.run_passes(module, options.versa_passes())
    return _Part(graph, tolerances, decisions(module))


class PartitionedModel:
    """The partitioned model, called on NumPy arrays as the reference is: its tensor outputs
    (the top-level tuple's or list's) as NumPy arrays."""

    def __init__(self, partitioned: Partitioned):
        self.partitioned = partitioned
        module = partitioned.module
        self.parts = {
            name: sub.function
            for name, sub in module.named_children()
            if isinstance(getattr(sub, "function", None), _Part)
        }

    def __call__(self, *arrays: np.ndarray) -> list[np.ndarray]:
        with torch.no_grad():  # `forward`: the export's pre-hook would check each input's shape
            out = self.partitioned.module.forward(*[torch.from_numpy(np.array(a)) for a in arrays])
        leaves = out if isinstance(out, tuple | list) else [out]
        return [t.detach().numpy() for t in leaves if isinstance(t, torch.Tensor)]

    def tolerances(self, count: int) -> list[tolerance.Tolerance]:
        """Per output: the sum of the tolerances of the compiled results in its cone (a result
        that two of a partition's outputs share is counted in each: an upper bound). Where the
        graph's tensor outputs are not the `count` outputs the call returns (nested outputs),
        each gets the sum over every compiled result."""
        graph = self.partitioned.module.graph
        held: dict[Node, frozenset] = {}
        for node in graph.nodes:
            held[node] = frozenset().union(*(held[n] for n in node.all_input_nodes))
            part = self.parts.get(node.target) if node.op == "call_module" else None
            if part is not None and len(part.tolerances) == 1:
                held[node] |= {(node.target, 0)}
            source = node.args[0] if node.target is operator.getitem else None
            if isinstance(source, Node) and source.op == "call_module" and source.target in self.parts:
                held[node] |= {(source.target, node.args[1])}
        output = next(n for n in graph.nodes if n.op == "output")
        flat = torch.utils._pytree.tree_leaves(output.args[0])
        values = [n for n in flat if isinstance(n, Node) and isinstance(n.meta.get("val"), torch.Tensor)]
        if len(values) != count:
            every = frozenset((name, i) for name, p in self.parts.items() for i in range(len(p.tolerances)))
            return [self._sum(every)] * count
        return [self._sum(held[n]) if n.meta["val"].is_floating_point() else tolerance.EXACT for n in values]

    def _sum(self, cone: frozenset) -> tolerance.Tolerance:
        return sum((self.parts[name].tolerances[i] for name, i in cone), tolerance.EXACT)

    def fallbacks(self) -> list[dict]:
        """The report's `fallbacks`: each op left to PyTorch, where it is and why."""
        return [
            {
                "op": op_name(node),
                "module": module_path(node),
                "source": source_line(node),
                "reason": f"{why}; runs in PyTorch eager",
            }
            for node, why in self.partitioned.left.items()
        ]

    def summary(self, why: str) -> dict:
        """The report's `partitioning` section."""
        compiled, left = self.partitioned.compiled_ops, len(self.partitioned.left)
        return {
            "partitions": self.partitioned.compiled,
            "failed_partitions": len(self.partitioned.failures),
            "ops": compiled + left,
            "compiled_ops": compiled,
            "compiled_percent": 100.0 * compiled / (compiled + left) if compiled + left else 0.0,
            "reason": why,
        }


def source_line(node: Node) -> str | None:
    """`file:line` of the innermost frame of the node's stack trace outside PyTorch itself."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    user = [f for f in frames if "/torch/" not in f[0].replace("\\", "/")]
    file, line = (user or frames or [(None, None)])[-1]
    return f"{file}:{line}" if file else None


SKIPPED = {  # why each step that describes one compiled function does not run (the docstring)
    "profile": "the per-layer profile times one compiled function; PyTorch runs ops between the partitions",
    "memory": "Versa's peak is one compiled function's arena and weights; PyTorch holds tensors in between",
    "artifact": "a library and C header hold one compiled function; the ops left to PyTorch need PyTorch",
}


def run_steps(source: Source, settings, options, report: dict, steps, out_dir: str | None) -> None:
    """compile, validate and benchmark the partitioned model; the other steps skipped (above)."""
    why = " ".join(str(source.refused).split())  # the whole import's error: the ops and their lines
    with steps.step("compile") as entry, compile_log.records("compiler", logging.INFO) as passes:
        with compile_log.records("codegen", logging.DEBUG) as chosen:
            start = time.perf_counter()
            parts = partition_model(
                source.torch_model,
                [torch.from_numpy(np.array(a)) for a in source.inputs],
                lambda part: _compile_part(part, options),
            )
            model = PartitionedModel(parts)
        report["fallbacks"] = model.fallbacks()
        report["partitioning"] = model.summary(why)
        if not model.parts:  # one line: the step's detail and the command's error show it whole
            raise CompileError([Diagnostic("error", f"no part of the model compiles: {why}")])
        report["compile"] = {
            "seconds": time.perf_counter() - start,
            "cache": _cache(passes),
            "passes": _summed(compile_log.pass_times(passes)),
        }
        for part in model.parts.values():
            report["decisions"] += part.decisions
        report["decisions"] += compile_log.strategies(chosen)
        tuned = "; --tune is not applied to a partitioned model" if settings.tune_s > 0 else ""
        entry["detail"] = (
            f"{parts.compiled} partition(s) compiled, {len(parts.left)} op(s) left to PyTorch{tuned}"
        )
    with steps.step("validate"):
        got = model(*source.inputs)
        want = source.reference(source.inputs)
        report["model"]["outputs"] = [
            {"name": f"output{i}", "shape": list(g.shape), "dtype": str(g.dtype)} for i, g in enumerate(got)
        ]
        report["accuracy"] = measure.accuracy(source, got, want, model.tolerances(len(got)))
    with steps.step("benchmark") as entry:
        measure.benchmark(source, model, options, settings, report, entry)
    for name, reason in SKIPPED.items():
        asked = name != "artifact" or (settings.artifact and out_dir is not None)
        steps.skip(name, f"the model runs partitioned: {reason}" if asked else "not asked for")


def _summed(times: list[dict]) -> list[dict]:
    """Each pass's time summed over the partitions' compiles, in pipeline order."""
    total: dict[str, float] = {}
    for entry in times:
        total[entry["name"]] = total.get(entry["name"], 0.0) + entry["seconds"]
    return [{"name": name, "seconds": seconds} for name, seconds in total.items()]


def _cache(passes: list) -> str:
    """Whether the partitions came from the compile cache: off (no cache), hit (no pass ran), miss."""
    from versa.cache import jit as cached

    if cached.store() is None:
        return "off"
    return "miss" if compile_log.pass_times(passes) else "hit"
