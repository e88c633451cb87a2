"""Partial compilation: the ops Versa refuses run eagerly, the rest of the graph is compiled.

Users of `torch.compile` backends expect one unsupported op (topk, sort, cumprod) to cost that op,
not the whole graph. When a whole ATen graph fails, its refused FX nodes are found, torch's
`CapabilityBasedPartitioner` groups the other nodes into maximal partitions (none depends on
itself through an eager node), and each partition that computes something (more than views and
getitem) is compiled on its own; the refused nodes and the other partitions run eagerly.

Which nodes are refused, and why, is `support.py`'s. A partition that still fails to compile
runs eagerly as a whole: never a half-compiled partition, and no further splitting.
"""

from collections import Counter
from collections.abc import Callable

import torch
from torch._subclasses.fake_tensor import unset_fake_temporarily
from torch.fx import Graph, GraphModule, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from versa.diagnostics import CompileError, Diagnostic

from .sizes import is_size, read_from_operands
from .support import Support, is_compute, is_tensor, op_name, partition_refusals, refused_nodes

_ROUNDS = 4  # refusal rounds before the partitions stand (a partition that still fails runs eagerly)

# A compiled graph: called (boxed) with a list of tensors, returns the list of its outputs.
GraphCompiler = Callable[[GraphModule], Callable[[list], list]]


class _Compiled(torch.nn.Module):
    """A compiled partition in its submodule's place: positional tensors in, its outputs back."""

    def __init__(self, function: Callable[[list], list], single: bool):
        super().__init__()
        self.function = function
        self.single = single

    def forward(self, *args):
        results = self.function(list(args))
        return results[0] if self.single else tuple(results)


def mutated_attributes(graph: Graph) -> set[str]:
    """The attributes an op writes in place: the buffers `ExportedProgram.module()` copies a
    forward's mutations back into (`copy_(self.steps, add)`, after every read of them)."""
    return {
        value.target
        for node in graph.nodes
        for value in _written(node)
        if isinstance(value, Node) and value.op == "get_attr"
    }


def _written(node: Node) -> list:
    """The arguments `node` writes in place (`self` of add_ and copy_, `out=`)."""
    schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
    if schema is None or not schema.is_mutable:
        return []
    values = dict(zip((a.name for a in schema.arguments), node.args, strict=False)) | dict(node.kwargs)
    return [
        values.get(a.name) for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
    ]


def _take_attributes(module: GraphModule, name: str, mutated: set[str]) -> None:
    """The tensor attributes partition `name` reads (an export's weights, frozen parameters)
    moved inside it, where the import makes them literals the compiled code folds, not inputs.
    The `mutated` ones are state: they stay inputs, read at each call."""
    call = next(n for n in module.graph.nodes if n.op == "call_module" and n.target == name)
    submodule = getattr(module, name)
    kept = []
    for argument, placeholder in zip(call.args, submodule.graph.find_nodes(op="placeholder"), strict=True):
        stays_input = argument.op != "get_attr" or argument.target in mutated
        value = None if stays_input else _attribute(module, argument.target)
        if not isinstance(value, torch.Tensor):
            kept.append(argument)
            continue
        inner = argument.target.replace(".", "_")
        # AOTAutograd calls its compilers inside its FakeTensorMode: a real tensor (a constant
        # Dynamo lifted from `x[:, 0] = nan`) is detached outside it, or the mode refuses it
        with unset_fake_temporarily():
            submodule.register_buffer(inner, value.detach(), persistent=False)
        with submodule.graph.inserting_before(placeholder):
            attribute = submodule.graph.get_attr(inner)
        attribute.meta = dict(placeholder.meta)
        placeholder.replace_all_uses_with(attribute)
        submodule.graph.erase_node(placeholder)
    moved = [a for a in call.args if a not in kept]
    call.args = tuple(kept)
    for argument in moved:
        if not argument.users:
            module.graph.erase_node(argument)
    submodule.recompile()
    module.recompile()


def _attribute(module: torch.nn.Module, target: str):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def _proposed(graph_module: GraphModule, refused: dict[Node, str]) -> tuple:
    support = Support(refused)
    partitioner = CapabilityBasedPartitioner(graph_module, support, allows_single_node_partition=True)
    partitions = [p for p in partitioner.propose_partitions() if any(map(is_compute, p.nodes))]
    for partition in partitions:  # a size an op outside reads stays outside: no size crosses out
        while leaving := [n for n in partition.nodes if is_size(n) and set(n.users) - set(partition.nodes)]:
            for node in leaving:
                partition.remove_node(node)
    return support, partitioner, partitions


def _settled(graph_module: GraphModule, refused: dict[Node, str]) -> tuple:
    """Partitions proposed until none holds a node its own import refuses: each round adds
    those refusals and proposes again (a few rounds: each refusal only ever cuts further)."""
    for _ in range(_ROUNDS):
        support, partitioner, partitions = _proposed(graph_module, refused)
        found = {}
        for partition in partitions:
            found.update(partition_refusals(graph_module, set(partition.nodes)))
        if not found:
            break
        refused = refused | found
    return _proposed(graph_module, refused)


def _output(submodule: GraphModule):
    return next(n for n in submodule.graph.nodes if n.op == "output").args[0]


def _takes_tensors(submodule: GraphModule) -> bool:
    """Whether only tensors cross the partition's boundary, and sizes in: a dynamic dim's size
    is an input the compiled call takes as `versa.symbol`."""
    output = _output(submodule)
    placeholders = [n for n in submodule.graph.nodes if n.op == "placeholder"]
    values_in = [n.meta.get("val") for n in placeholders]
    if not all(isinstance(v, torch.SymInt | int) or is_tensor(v) for v in values_in):
        return False
    return all(is_tensor(n.meta.get("val")) for n in ([output] if isinstance(output, Node) else output))


class Partitioned:
    """`graph_module` with its supported partitions compiled in place; the rest runs eagerly."""

    def __init__(self, graph_module: GraphModule, compile_graph: GraphCompiler, only_if_most: bool = False):
        """`only_if_most`: a CompileError before anything compiles unless the partitions hold
        most of the compute ops and every one can be compiled (where something else can take
        the whole graph, a split that leaves much of it eager is not worth it)."""
        read_from_operands(graph_module.graph)
        graph_module.recompile()
        support, partitioner, partitions = _settled(graph_module, refused_nodes(graph_module))
        why = {n.name: support.refusal(n) for n in graph_module.graph.nodes}  # fusing copies the nodes
        self.module = partitioner.fuse_partitions(partitions, prefix="versa_partition_")
        self.compiled = 0
        self.compiled_ops = 0  # compute nodes inside the compiled partitions
        self.failures: list[str] = []
        # the compute nodes that run eagerly and why: the optimizer's report lists them
        self.left = {n: why[n.name] or "in no partition" for n in self.module.graph.nodes if is_compute(n)}
        self.eager = Counter(op_name(n) for n in self.left)
        self.mutated = mutated_attributes(self.module.graph)
        names = [
            n.target
            for n in self.module.graph.nodes
            if n.op == "call_module" and n.target.startswith("versa_partition_")
        ]
        for name in [n for n in names if not _takes_tensors(getattr(self.module, n))]:
            self._leave_eager(getattr(self.module, name), "a value that is not a tensor crosses its boundary")
            names.remove(name)
        inside = sum(sum(map(is_compute, getattr(self.module, n).graph.nodes)) for n in names)
        if only_if_most and (self.failures or 2 * inside <= inside + len(self.left)):
            why = f"the partitions would hold {inside} of {inside + len(self.left)} compute ops"
            raise CompileError([Diagnostic("error", "; ".join([why, *self.failures]))])
        for name in names:
            self._compile(name, compile_graph)

    def _compile(self, name: str, compile_graph: GraphCompiler) -> None:
        """Put the compiled submodule `name` in its place, or leave it to run eagerly."""
        submodule = getattr(self.module, name)
        single = isinstance(_output(submodule), Node)
        _take_attributes(self.module, name, self.mutated)
        try:
            function = compile_graph(submodule)
        except Exception as err:  # a bug in one partition must not fail the model
            self._leave_eager(submodule, " ".join(str(err).split()))
            return
        setattr(self.module, name, _Compiled(function, single))
        self.compiled += 1
        self.compiled_ops += sum(map(is_compute, submodule.graph.nodes))

    def _leave_eager(self, submodule: GraphModule, why: str) -> None:
        self.failures.append(why)
        left = [n for n in submodule.graph.nodes if is_compute(n)]
        self.left.update((n, f"its partition failed to compile: {why}") for n in left)
        self.eager.update(op_name(n) for n in left)

    def warning(self) -> str:
        """One line naming the ops that ran eagerly (and why a partition failed, if one did)."""
        ops = ", ".join(f"{count}x {name}" for name, count in sorted(self.eager.items()))
        why = f"; a partition failed to compile: {self.failures[0]}" if self.failures else ""
        total = sum(self.eager.values())
        return f"versa: {total} op(s) ran eagerly around {self.compiled} compiled partition(s): {ops}{why}"
