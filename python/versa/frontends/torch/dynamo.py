"""`torch.compile(model, backend="versa")`: forward (and, in training, backward) graphs to Versa.

AOTAutograd hands us functional ATen graphs: the forward graph, and the backward graph when
inputs require grad. Each is imported with torch-mlir, converted to versa and JIT-compiled for
the example inputs' static shapes, for the host CPU or, with
`torch.compile(model, backend="versa", options={"target": "cuda"})`, an NVIDIA GPU. A graph with
ops Versa cannot take is split (`partition`): those ops run eagerly, after one warning naming
them, and the partitions between them are compiled. A graph with dynamic shapes (Dynamo's
automatic dynamic shapes, after a second batch size) compiles once per concrete shape
(`specialize`). Registered as the `torch_dynamo_backends` entry point `versa`, so it works
without importing versa first.
"""

import warnings
from collections.abc import Sequence
from unittest import mock

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from versa import targets
from versa.diagnostics import CompileError, Diagnostic

from .api import DEFAULT_OPT_LEVEL, VersaGraph, gpu_target
from .decompositions import DECOMPOSITIONS, attention_math
from .partition import Partitioned
from .specialize import ShapeSpecialized, is_dynamic


def _compiler(target: targets.Target | None, opt_level: int):
    def compile_static(graph_module: torch.fx.GraphModule, example_inputs: Sequence):
        try:
            return VersaGraph(graph_module, target, opt_level)
        except CompileError:
            partitioned = Partitioned(graph_module, lambda part: VersaGraph(part, target, opt_level))
            warnings.warn(partitioned.warning(), stacklevel=2)
            return make_boxed_func(partitioned.module.forward)

    def compile_graph(graph_module: torch.fx.GraphModule, example_inputs: Sequence):
        if is_dynamic(example_inputs):
            return ShapeSpecialized(graph_module, compile_static)
        return compile_static(graph_module, example_inputs)

    return compile_graph


class _AttentionAsMath(torch.overrides.TorchFunctionMode):
    """scaled_dot_product_attention → `attention_math` while AOTAutograd traces, also inside
    library code such as multi_head_attention_forward, before autograd picks a fused kernel."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch._C._nn.scaled_dot_product_attention:
            return attention_math(*args, **kwargs)
        if func is torch.nn.functional.multi_head_attention_forward:
            # It dispatches to this mode itself (handle_torch_function), and a mode is popped
            # while its __torch_function__ runs: the sdpa call inside would reach PyTorch's CPU
            # flash kernel, whose backward then runs eagerly on statistics the compiled forward
            # never produced (wrong gradients for nn.MultiheadAttention / TransformerEncoder).
            with mock.patch.object(torch.nn.functional, "scaled_dot_product_attention", attention_math):
                return func(*args, **kwargs)
        return func(*args, **kwargs)


def backend(
    graph_module: torch.fx.GraphModule,
    example_inputs: Sequence,
    *,
    opt_level: int = DEFAULT_OPT_LEVEL,
    options: dict | None = None,
):
    """The `torch.compile` backend: AOTAutograd graphs → Versa. `options` (torch.compile's)
    may name a `target` (as versa.compile takes it) and an `opt_level`."""
    options = dict(options or {})
    target = gpu_target(options.pop("target", None))
    opt_level = options.pop("opt_level", opt_level)
    if options:
        raise CompileError([Diagnostic("error", f"versa: unknown torch.compile options {sorted(options)}")])
    compiler = _compiler(target, opt_level)
    with _AttentionAsMath():
        return aot_autograd(fw_compiler=compiler, bw_compiler=compiler, decompositions=DECOMPOSITIONS)(
            graph_module, example_inputs
        )
