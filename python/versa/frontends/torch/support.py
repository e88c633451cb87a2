"""Which FX nodes Versa takes, and why it leaves the others to PyTorch (the partitioner's
`OperatorSupportBase`, and the reasons the optimizer's report prints).

Refused nodes are found in one import: each node's location is set to its index, and the
conversion's refused ops lead back to nodes by location (a decomposed op keeps its node's
location: topk is refused as `torch.aten.sort`). When that names no node (an import error, a
whole-function failure), each compute node is probed alone, as a one-node graph.
"""

import operator
import re

import torch
from torch.fx import Graph, GraphModule, Node
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.fx.passes.operator_support import OperatorSupportBase

from versa.mlir import ir

from .convert import survey
from .importer import import_graph, make_torch_context
from .sizes import is_size
from .types import CONVERTIBLE, TORCH_DTYPES

_NODE_FILE = "versa.fx-node"
_NODE_LINE = re.compile(rf'"{re.escape(_NODE_FILE)}":(\d+):')


def op_name(node: Node) -> str:
    """The op as torch-mlir and Versa's errors spell it: aten.scatter.src is torch.aten.scatter.src."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return getattr(node.target, "__name__", str(node.target))
    overload = f".{schema.overload_name}" if schema.overload_name else ""
    return "torch." + schema.name.replace("::", ".") + overload


def is_compute(node: Node) -> bool:
    """Work worth compiling: a call that is neither a getitem, a size nor a view of its input."""
    if node.op != "call_function" or node.target is operator.getitem or is_size(node):
        return False
    return not (isinstance(node.target, torch._ops.OpOverload) and node.target.is_view)


def is_tensor(value) -> bool:
    return isinstance(value, torch.Tensor)


def _is_complex(value) -> bool:
    if isinstance(value, tuple | list):
        return any(map(_is_complex, value))
    return is_tensor(value) and value.is_complex()


def _versa_typed(value) -> bool:
    """No tensor of a dtype Versa has no type for (float64): one would cross a boundary."""
    if isinstance(value, tuple | list):
        return all(map(_versa_typed, value))
    if not is_tensor(value) or value.is_complex():  # complex: see `_is_complex`
        return True
    return TORCH_DTYPES.get(value.dtype) in CONVERTIBLE


def _data_independent(value) -> bool:
    """No size that depends on data (torch.export's unbacked u0 after nonzero / boolean
    indexing). Sizes of the inputs' dynamic dims (s0, 2*s1), which a dynamic compile keeps as
    `?` dims and the call's shapes give, are fine."""
    if isinstance(value, tuple | list):
        return all(map(_data_independent, value))
    if is_tensor(value) or isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        return not free_unbacked_symbols(value)
    return True


def _tensors_or_none(value) -> bool:
    """What a compiled graph can produce: a tensor, tensors, or nothing (a run-time check)."""
    if isinstance(value, tuple | list):
        return bool(value) and all(v is None or is_tensor(v) for v in value)
    return value is None or is_tensor(value)


_UNINITIALIZED = {
    torch.ops.aten.empty.memory_format,
    torch.ops.aten.empty_like.default,
    torch.ops.aten.empty_strided.default,
}


def _draws_random(node: Node) -> bool:
    """Whether `node` draws from torch's generator: ops tagged nondeterministic_seeded, less the
    ones whose arguments turn the randomness off (dropout in eval, attention without dropout),
    which Versa converts as the identity / plain attention."""
    if torch.Tag.nondeterministic_seeded not in getattr(node.target, "tags", ()):
        return False
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return True
    values = {a.name: a.default_value for a in schema.arguments if a.has_default_value()}
    values.update(zip((a.name for a in schema.arguments), node.args, strict=False))  # args may stop early
    values.update(node.kwargs)
    for switch in ("dropout_p", "train", "training"):
        if switch in values:
            return values[switch] is None or bool(values[switch])
    return True


class Support(OperatorSupportBase):
    """Calls Versa takes: not refused, not in place, tensor results; a getitem goes with the node
    it reads (a tuple never crosses a partition's boundary)."""

    def __init__(self, refused: dict[Node, str]):
        super().__init__()
        self.refused = refused

    def is_node_supported(self, submodules, node: Node) -> bool:
        return self.refusal(node) is None

    def refusal(self, node: Node) -> str | None:
        """Why `node` is left to PyTorch, in words (the optimizer's report says it); None: Versa takes it."""
        if node.op != "call_function":
            return "not a call"
        if node in self.refused:
            return self.refused[node]
        if node.target in _UNINITIALIZED or _draws_random(node):
            # random ops (bernoulli for stochastic depth, rand/randn_like) draw from torch's
            # generator only when eager; torch-mlir's lowering of bernoulli passes the survey but
            # fails codegen, taking the whole partition down. The uninitialized tensors they fill
            # (torch.empty) have nothing to compute either.
            return "draws from torch's random generator or makes an uninitialized tensor"
        if getattr(getattr(node.target, "_schema", None), "is_mutable", False):
            return "writes its input in place"  # compiled, it would lose its effect on its input
        if node.target is operator.getitem:
            return self.refusal(node.args[0])
        if is_size(node):  # read inside the partition of the op that takes it (`sizes.py`)
            return None
        if not all(_data_independent(n.meta.get("val")) for n in (node, *node.all_input_nodes)):
            # nonzero, torch.where(mask): a size no input's shape gives
            return "a data-dependent size (Versa compiles sizes the inputs' shapes give)"
        if any(_is_complex(n.meta.get("val")) for n in (node, *node.all_input_nodes)):
            return "a complex tensor (Versa has no complex type)"  # see complex_to_real
        if not all(_versa_typed(n.meta.get("val")) for n in (node, *node.all_input_nodes)):
            return "a tensor of a type Versa has none for (float64)"  # casts to double, what computes in it
        return None if _tensors_or_none(node.meta.get("val")) else "a result that is not a tensor"


def refused_nodes(graph_module: GraphModule) -> dict[Node, str]:
    """The nodes Versa cannot convert and why, by location; by probing each alone if that finds none."""
    found = _located(graph_module)
    if found:
        return found
    context = make_torch_context()
    probed = {n: _refusal(_alone(n), context) for n in graph_module.graph.nodes if is_compute(n)}
    return {n: why for n, why in probed.items() if why is not None}


def _reason(key: str) -> str:
    """The reason of a `Conversion.unsupported` key, `op: reason`."""
    return key.partition(": ")[2] or "no rule converts it"


def _located(graph_module: GraphModule) -> dict[Node, str] | None:
    """One import of a copy with node indices as locations; None where a refusal names no node."""
    nodes = list(graph_module.graph.nodes)
    graph = Graph()
    copies: dict[Node, Node] = {}
    for index, node in enumerate(nodes):
        if node.op == "get_attr":  # a weight (ExportedProgram.module()): the stateless import takes inputs
            copies[node] = graph.placeholder(node.name)
            copies[node].meta = dict(node.meta)
        else:
            copies[node] = graph.node_copy(node, copies.__getitem__)
        copies[node].meta["stack_trace"] = f'File "{_NODE_FILE}", line {index}, in forward\n'
    try:
        _, conversion = survey(import_graph(GraphModule(graph_module, graph), make_torch_context()))
    except Exception:  # the importer also asserts: no locations, probe instead
        return None
    found = {}
    for key, locations in conversion.where.items():
        for location in locations:
            lines = _NODE_LINE.findall(str(location))
            if not lines:
                return None
            found.update((nodes[int(line)], _reason(key)) for line in lines)
    return found


def partition_refusals(graph_module: GraphModule, nodes: set[Node]) -> dict[Node, str]:
    """The nodes of one proposed partition of `graph_module` that its own import refuses. The
    whole graph's import does not reach every op: one that reads a refused op's result is
    converted only when that result is an input, as it is in a partition (BERT's mask
    `expand` after a refused `arange`)."""
    graph = Graph()
    copies: dict[Node, Node] = {}
    for node in graph_module.graph.nodes:
        if node not in nodes:
            continue
        for source in node.all_input_nodes:
            if source not in nodes and source not in copies:
                with graph.inserting_before(next(iter(graph.nodes), None)):
                    copies[source] = graph.placeholder(source.name)
                copies[source].meta = dict(source.meta)
        copies[node] = graph.node_copy(node, copies.__getitem__)
    outputs = [copies[n] for n in nodes if is_tensor(n.meta.get("val")) and set(n.users) - nodes]
    graph.output(tuple(outputs))
    found = _located(GraphModule(graph_module, graph)) or {}
    originals = {copy: node for node, copy in copies.items()}
    return {originals[n]: why for n, why in found.items() if originals.get(n) in nodes}


def _alone(node: Node) -> GraphModule:
    """`node` in a graph of its own: its inputs as placeholders, its tensor results as outputs."""
    graph = Graph()
    inputs = {}
    for source in node.all_input_nodes:
        inputs[source] = graph.placeholder(source.name)
        inputs[source].meta = dict(source.meta)
    copy = graph.node_copy(node, inputs.__getitem__)
    value = node.meta.get("val")
    if isinstance(value, tuple | list):
        outputs = []
        for i in sorted({user.args[1] for user in node.users if user.target is operator.getitem}):
            outputs.append(graph.call_function(operator.getitem, (copy, i)))
            outputs[-1].meta["val"] = value[i]
        graph.output(tuple(outputs))
    else:
        graph.output((copy,) if is_tensor(value) else ())
    return GraphModule(torch.nn.Module(), graph)


def _refusal(graph_module: GraphModule, context: ir.Context) -> str | None:
    """Why the conversion refuses `graph_module` (None: it converts)."""
    try:
        _, conversion = survey(import_graph(graph_module, context))
    except Exception as err:  # the importer also asserts: not convertible
        return f"the import failed: {' '.join(str(err).split())[:200]}"
    return _reason(next(iter(conversion.unsupported))) if conversion.unsupported else None
