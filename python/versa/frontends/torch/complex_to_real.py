"""Complex tensors as real pairs: before import, an ATen graph's complex values become float
tensors with a trailing dim of 2 (view_as_real's layout).

Versa has no complex element type, and one complex value used to send the whole graph eagerly.
The common case is Meta-Llama's rotary embedding, view_as_complex(x.reshape(..., 2)) · freqs_cis
→ view_as_real → flatten: on pairs, view_as_complex and view_as_real are no-ops and the complex
multiply is four real ones (`complex_ops` has each op's real form). A graph with a complex op
not covered there is left as it is (the partitioner then runs only its complex nodes eagerly).
Complex inputs and outputs cross the compiled boundary as their real views (`compile_as_real`),
complex buffers of an export become real buffers (`program_as_real`).
"""

import contextlib

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx import Graph, GraphModule, Node
from torch.fx.node import map_arg

from .complex_ops import HANDLERS, Unhandled, is_complex, value

aten = torch.ops.aten

_VALUES = ("val", "tensor_meta", "example_value")  # what a new node must not inherit


class _Rewriter:
    """Copies `graph` node by node; `copies` maps each node to its copy, which for a complex
    node is its real pair."""

    def __init__(self, graph: Graph):
        self.graph = Graph()
        self.copies: dict[Node, Node] = {}
        self.complex_inputs: list[int] = []
        self.complex_outputs: list[int] = []
        self.meta: dict = {}
        fakes = (v for n in graph.nodes for v in torch.utils._pytree.tree_leaves(n.meta.get("val")))
        self.fake_mode = next((v.fake_mode for v in fakes if isinstance(v, FakeTensor)), None)
        placeholders = 0
        for node in graph.nodes:
            if node.op == "placeholder":
                self._placeholder(node, placeholders)
                placeholders += 1
            elif node.op == "output":
                self._output(node)
            elif node.op != "call_function" and is_complex(value(node)):
                raise Unhandled(f"a complex {node.op}")  # a constant attribute: no real copy of it
            elif node.op == "call_function" and is_complex([value(n) for n in (node, *node.all_input_nodes)]):
                handler = HANDLERS.get(getattr(node.target, "overloadpacket", node.target))
                if handler is None:
                    raise Unhandled(str(node.target))
                self.meta = {k: v for k, v in node.meta.items() if k not in _VALUES}
                self.copies[node] = handler(self, *node.args, **node.kwargs)
            else:
                self.copies[node] = self.graph.node_copy(node, self.copies.__getitem__)

    def _placeholder(self, node: Node, index: int) -> None:
        copy = self.graph.node_copy(node)
        if is_complex(value(node)):
            copy.meta["val"] = torch.view_as_real(value(node))
            copy.meta.pop("tensor_meta", None)
            self.complex_inputs.append(index)
        self.copies[node] = copy

    def _output(self, node: Node) -> None:
        outputs = node.args[0]
        flat = outputs if isinstance(outputs, tuple | list) else [outputs]
        self.complex_outputs = [i for i, n in enumerate(flat) if isinstance(n, Node) and is_complex(value(n))]
        self.graph.output(map_arg(outputs, self.copies.__getitem__))

    def __call__(self, target, *args, **kwargs) -> Node:
        """A new node computing target(*args) (new-graph nodes), its value found on fake tensors."""
        node = self.graph.create_node(
            "call_function", target, args, kwargs, name=f"as_real_{target.__name__}"
        )
        node.meta.update(self.meta)
        node.meta["val"] = target(*map_arg(args, value), **map_arg(kwargs, value))
        return node

    def factory(self, target, *args, **kwargs) -> Node:
        """A new node making a tensor from numbers alone (zeros), its value a fake tensor as
        the graph's others are (a real one would not mix with them)."""
        with self.fake_mode or contextlib.nullcontext():
            return self(target, *args, **kwargs)

    # operands and arithmetic on new-graph nodes
    def pair(self, x) -> Node:
        """The real pair of operand `x` (a complex or real tensor of the old graph)."""
        if not isinstance(x, Node):
            raise Unhandled("a complex op with a number operand")
        if is_complex(value(x)):
            return self.copies[x]
        real = self.copies[x]
        return self.join(real, self(aten.zeros_like.default, real))

    def parts(self, x) -> tuple:
        """(re, im) of a complex operand: nodes, or the numbers of a Python complex."""
        if isinstance(x, complex):
            return x.real, x.imag
        p = self.pair(x)
        return self(aten.select.int, p, -1, 0), self(aten.select.int, p, -1, 1)

    def join(self, re: Node, im: Node) -> Node:
        return self(aten.stack.default, [re, im], -1)

    def add(self, a, b) -> Node:
        return self(aten.add.Tensor, a, b)

    def sub(self, a, b) -> Node:
        return self(aten.sub.Tensor, a, b)

    def mul(self, a, b) -> Node:
        return self(aten.mul.Tensor, a, b)

    def rank(self, x: Node) -> int:
        return value(x).dim()


class RealGraph:
    """`graph_module` with complex values as real pairs: which inputs and outputs were complex."""

    def __init__(self, graph_module: GraphModule):
        rewriter = _Rewriter(graph_module.graph)
        self.module = GraphModule(graph_module, rewriter.graph)
        self.complex_inputs = rewriter.complex_inputs
        self.complex_outputs = rewriter.complex_outputs


def as_real(graph_module: GraphModule) -> RealGraph | None:
    """The real form of `graph_module`; None where it has no complex value or one not covered."""
    nodes = graph_module.graph.nodes
    if not any(is_complex(n.meta.get("val")) for n in nodes):
        return None
    try:
        return RealGraph(graph_module)
    except Unhandled:
        return None


class _RealBoundary:
    """A compiled real graph called as the complex one: complex inputs go in as their real views,
    complex outputs come back as complex views of the pairs (boxed, as AOTAutograd calls)."""

    def __init__(self, function, real: RealGraph):
        self.function = function
        self.real = real
        self.views: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # position: (complex, its view)
        self._boxed_call = True  # read from the instance (torch._dynamo.disable copies __dict__)

    def __call__(self, args: list) -> list:
        for i in self.real.complex_inputs:
            args[i] = self._real_view(i, args[i])
        boxed = getattr(self.function, "_boxed_call", False)
        outputs = list(self.function(args) if boxed else self.function(*args))
        for i in self.real.complex_outputs:
            outputs[i] = torch.view_as_complex(outputs[i].contiguous())
        return outputs

    def _real_view(self, position: int, value: torch.Tensor) -> torch.Tensor:
        """The same view for the same tensor (a rotary table, each call): a frozen graph binds
        its inputs by identity (`freezing`), and a view shares its base's version counter."""
        seen = self.views.get(position)
        if seen is None or seen[0] is not value or value.is_conj():
            seen = self.views[position] = (value, torch.view_as_real(value.resolve_conj()))
        return seen[1]


def compile_as_real(compile_graph):
    """A torch.compile graph compiler that compiles the real form of complex graphs."""

    def compile_real(graph_module: GraphModule, example_inputs):
        real = as_real(graph_module)
        if real is None:
            return compile_graph(graph_module, example_inputs)
        inputs = list(example_inputs)
        for i in real.complex_inputs:
            inputs[i] = torch.view_as_real(inputs[i])
        return _RealBoundary(compile_graph(real.module, inputs), real)

    return compile_real


def program_as_real(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """`program` with complex buffers and constants as real pairs (view_as_real's copy) and its
    complex values as pairs; unchanged where a user input, a parameter or an output is complex."""
    real = as_real(program.graph_module)
    if real is None or real.complex_outputs:
        return program
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    targets = {spec.arg.name: spec.target for spec in program.graph_signature.input_specs}
    state, constants = dict(program.state_dict), dict(program.constants)
    for i in real.complex_inputs:
        name = targets.get(placeholders[i].name)
        table = state if name in program.state_dict else constants if name in program.constants else None
        if table is None or isinstance(table[name], torch.nn.Parameter):
            return program
        table[name] = torch.view_as_real(table[name].resolve_conj()).clone()
    return program._update(real.module, program.graph_signature, state_dict=state, constants=constants)
