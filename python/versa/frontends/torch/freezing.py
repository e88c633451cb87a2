"""Freezing under `torch.compile`: an inference graph's parameters and buffers become constants.

Dynamo lifts every parameter and buffer to a graph input, so each call converted each one at the
boundary and the compiled code could not fold them: batch-norm statistics stayed a separate
scale and shift, conv weights were re-laid out (NCHW to NHWC) on every call, and a small model
paid more for its arguments than for its arithmetic. For an inference graph (no grad:
AOTAutograd's `inference_compiler`), the inputs AOTAutograd marks static (parameters, buffers,
`mark_static_address`) and the graph neither mutates nor returns as an alias are bound, at the
first call, to the tensors that call passes: literals in the import, as `versa.compile` treats
an export's weights.

Each later call checks that every bound input is the same tensor at the same version (in-place
updates under no_grad, optimizer steps and `load_state_dict` bump a tensor's version counter).
The first call that finds one changed recompiles that graph with them as inputs, for good.
Writes through `.data` leave the version alone and go unseen, as with Inductor's freezing:
`torch.compile(..., options={"freeze": False})` keeps every input an input.
"""

from collections.abc import Callable, Sequence

import torch

from .specialize import StaticCompiler


def freezable_inputs(example_inputs: Sequence) -> list[int]:
    """The positions AOTAutograd marks static (parameters, buffers), less those the graph
    mutates or returns views of (their updates and aliases must reach the caller's tensors)."""
    context = torch._guards.TracingContext.try_get()
    metadata = context.fw_metadata if context is not None else None
    if metadata is None or len(metadata.input_info) != len(example_inputs):
        return []
    aliased = {out.base_idx for out in metadata.output_info if out.base_idx is not None}
    return [
        i
        for i in metadata.static_input_indices
        if isinstance(example_inputs[i], torch.Tensor)
        and not (metadata.input_info[i].mutates_data or metadata.input_info[i].mutates_metadata)
        and i not in aliased
    ]


def tensor_positions(example_inputs: Sequence, positions: Sequence[int]) -> list[int]:
    """`positions` (of tensor inputs) counted among the tensor inputs only, which is how
    `specialize.ShapeSpecialized` passes a symbolic graph's inputs to its static compiles."""
    tensors = [i for i, a in enumerate(example_inputs) if isinstance(a, torch.Tensor)]
    return [tensors.index(i) for i in positions]


def _bound(graph_module: torch.fx.GraphModule, values: dict[int, torch.Tensor]) -> torch.fx.GraphModule:
    """A copy of the graph whose placeholders at `values`' positions read those tensors (as
    attributes, so the copy still runs eagerly should it be partitioned)."""
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(graph_module.graph, {}))
    module = torch.fx.GraphModule(graph_module, graph)
    placeholders = graph.find_nodes(op="placeholder")
    for position, tensor in values.items():
        name = f"_frozen_{position}"
        module.register_buffer(name, tensor.detach(), persistent=False)
        with graph.inserting_before(placeholders[position]):
            attribute = graph.get_attr(name)
        attribute.meta = dict(placeholders[position].meta)
        placeholders[position].replace_all_uses_with(attribute)
        graph.erase_node(placeholders[position])
    module.recompile()
    return module


class Frozen:
    """An inference graph (called boxed) compiled at its first call with the inputs at
    `positions` bound to that call's tensors; see the module docstring for the guard."""

    def __init__(
        self, graph_module: torch.fx.GraphModule, positions: Sequence[int], compile_static: StaticCompiler
    ):
        self.graph_module = graph_module
        self.positions = list(positions)
        self.compile_static = compile_static
        self.function: Callable[[list], list] | None = None
        self.bound: list[tuple[int, torch.Tensor, int]] = []  # (position, tensor, version)
        self.kept: list[int] = []  # the positions still passed at each call
        self._boxed_call = True  # AOTAutograd's calling convention (read from the instance): one list

    def __call__(self, args: list) -> list:
        inputs = list(args)
        args.clear()  # the boxed convention: the callee may free its inputs
        if self.function is None:
            self._freeze(inputs)
        elif self.bound and not all(inputs[i] is t and t._version == v for i, t, v in self.bound):
            self.function = self.compile_static(self.graph_module, inputs)  # thawed, for good
            self.bound, self.kept = [], list(range(len(inputs)))
        return self.function([inputs[i] for i in self.kept])

    def _freeze(self, inputs: list) -> None:
        values = {i: inputs[i] for i in self.positions}
        self.kept = [i for i in range(len(inputs)) if i not in values]
        self.function = self.compile_static(_bound(self.graph_module, values), [inputs[i] for i in self.kept])
        self.bound = [(i, t, t._version) for i, t in values.items()]
