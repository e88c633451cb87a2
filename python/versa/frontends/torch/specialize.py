"""Dynamic shapes under `torch.compile`: one static Versa compile per concrete shape, where
the graph does not convert with its dims dynamic.

Dynamo marks a dim dynamic once a graph is seen with two sizes of it (automatic dynamic
shapes: a second batch size, a last batch that is smaller), and from then on hands the backend
one graph with symbolic sizes (`s0`) and SymInt inputs. The backend first compiles it as it is
(`OneCompile`: its dims dynamic); when Versa refuses that, such a graph is retraced at its first
call with each new signature (`make_fx` on fake tensors of the concrete shapes, the SymInt
inputs closed over as constants) and that static graph compiled, cached by the signature.
Constants among a static graph's outputs (a size the forward saves for the backward) do not go
through Versa: they are put back in their places on every call.
"""

from collections.abc import Callable, Sequence

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from versa.diagnostics import CompileError

StaticCompiler = Callable[[torch.fx.GraphModule, list], Callable[[list], list]]


def is_dynamic(example_inputs: Sequence) -> bool:
    """Whether a graph's example inputs have symbolic sizes (or are SymInts themselves)."""
    for value in example_inputs:
        if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
            return True
        if isinstance(value, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in value.shape):
            return True
    return False


def _signature(args: Sequence) -> tuple:
    return tuple(
        (tuple(a.shape), a.dtype, a.stride()) if isinstance(a, torch.Tensor) else (type(a), a) for a in args
    )


class ShapeSpecialized:
    """A symbolic-shape graph, called (boxed) with concrete inputs: compiles per signature."""

    def __init__(self, graph_module: torch.fx.GraphModule, compile_static: StaticCompiler):
        self.graph_module = graph_module
        self.compile_static = compile_static
        self.compiled: dict[tuple, tuple[Callable[[list], list], dict[int, object]]] = {}
        self._boxed_call = True  # AOTAutograd's calling convention (read from the instance): one list

    def __call__(self, args: list) -> list:
        inputs = list(args)
        args.clear()  # the boxed convention: the callee may free its inputs
        key = _signature(inputs)
        if key not in self.compiled:
            self.compiled[key] = self._compile(inputs)
        function, constants = self.compiled[key]
        results = list(function([a for a in inputs if isinstance(a, torch.Tensor)]))
        for position in sorted(constants):
            results.insert(position, constants[position])
        return results

    def _compile(self, inputs: list) -> tuple[Callable[[list], list], dict[int, object]]:
        """The static graph of these inputs: traced on their tensors, with their other values
        (the SymInts' sizes) closed over as constants."""
        tensors = [a for a in inputs if isinstance(a, torch.Tensor)]

        def with_constants(*traced: torch.Tensor) -> object:
            supply = iter(traced)
            return self.graph_module(*(next(supply) if isinstance(a, torch.Tensor) else a for a in inputs))

        with torch.no_grad():
            static = make_fx(with_constants, tracing_mode="fake")(*tensors)
        constants = _strip_constant_outputs(static)
        return self.compile_static(static, tensors), constants


def _strip_constant_outputs(graph_module: torch.fx.GraphModule) -> dict[int, object]:
    """Drop the outputs that are not graph values (ints, None); their positions and values."""
    output = next(n for n in graph_module.graph.nodes if n.op == "output")
    results = output.args[0]
    results = list(results) if isinstance(results, tuple | list) else [results]
    constants = {i: r for i, r in enumerate(results) if not isinstance(r, torch.fx.Node)}
    if constants:
        output.args = (tuple(r for r in results if isinstance(r, torch.fx.Node)),)
        graph_module.recompile()
    return constants


class OneCompile:
    """A symbolic graph called (boxed): `whole` (its dims dynamic, compiled at the first call:
    `freezing.Frozen` binds that call's weights) serves every call, unless that compile raises
    a CompileError; then `specialized` (a ShapeSpecialized) serves them."""

    def __init__(self, whole: Callable[[list], list], specialized: ShapeSpecialized):
        self.whole, self.specialized = whole, specialized
        self.function: Callable[[list], list] | None = None
        self._boxed_call = True  # AOTAutograd's calling convention (read from the instance): one list

    def __call__(self, args: list) -> list:
        inputs = list(args)
        args.clear()  # the boxed convention: the callee may free its inputs
        if self.function is None:
            try:
                results = self.whole(list(inputs))
            except CompileError:
                self.function = self.specialized
            else:
                self.function = self.whole
                return results
        return self.function(inputs)
