"""`torch.compile(model, backend="versa")`: forward (and, in training, backward) graphs to Versa.

AOTAutograd hands us functional ATen graphs: the forward graph, and the backward graph when
inputs require grad. Each is imported with torch-mlir, converted to versa and JIT-compiled for
the example inputs' static shapes, for the host CPU or, with
`torch.compile(model, backend="versa", options={"target": "cuda"})`, an NVIDIA GPU. A graph with
ops Versa cannot take is split (`partition`): those ops run eagerly, after one warning naming
them, and the partitions between them are compiled. A graph with dynamic shapes (Dynamo's
automatic dynamic shapes, after a second batch size, or `dynamic=True`) compiles once with its
dims dynamic (`symbolic.py`) when the whole graph converts so, else split with its partitions'
dims dynamic, else once per concrete shape (`specialize`). Registered as the
`torch_dynamo_backends` entry point `versa`, so it works without importing versa first.
"""

import contextlib
import copy
import warnings
from collections.abc import Sequence
from unittest import mock

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from versa.diagnostics import CompileError, Diagnostic
from versa.options import CompileOptions

from .complex_to_real import compile_as_real
from .decompositions import DECOMPOSITIONS, INFERENCE_DECOMPOSITIONS, RECURRENT, attention_math
from .executable import DEFAULT_OPT_LEVEL, VersaGraph
from .executable import compile_options as compile_options_for
from .freezing import Frozen, freezable_inputs, tensor_positions
from .partition import Partitioned
from .specialize import OneCompile, ShapeSpecialized, is_dynamic

# Dynamo runs nn.LSTM / nn.GRU / nn.RNN eagerly, without a word, unless told otherwise; Versa
# compiles them (their ATen ops are unrolled by PyTorch's decompositions). Set on import: the
# `torch_dynamo_backends` entry point is loaded when torch.compile looks "versa" up, before tracing.
torch._dynamo.config.allow_rnn = True


def _compiler(options: CompileOptions, freeze: bool = False):
    def compile_static(graph_module: torch.fx.GraphModule, example_inputs: Sequence):
        try:
            return VersaGraph(graph_module, options)
        except CompileError:
            partitioned = Partitioned(graph_module, lambda part: VersaGraph(part, options))
            warnings.warn(partitioned.warning(), stacklevel=2)
            return make_boxed_func(partitioned.module.forward)

    def compile_graph(graph_module: torch.fx.GraphModule, example_inputs: Sequence):
        frozen = freezable_inputs(example_inputs) if freeze and options.on_cpu else []
        if is_dynamic(example_inputs):
            if frozen:
                positions = tensor_positions(example_inputs, frozen)

                def per_shape(static: torch.fx.GraphModule, _) -> Frozen:
                    return Frozen(static, positions, compile_static)

                specialized = ShapeSpecialized(graph_module, per_shape)
                whole = Frozen(graph_module, frozen, lambda gm, _: _dynamic(gm, options))
                return OneCompile(whole, specialized)
            if options.on_cpu:
                with contextlib.suppress(CompileError):
                    return _dynamic(graph_module, options)
            return ShapeSpecialized(graph_module, compile_static)
        return (
            Frozen(graph_module, frozen, compile_static)
            if frozen
            else compile_static(graph_module, example_inputs)
        )

    return compile_as_real(compile_graph)


def _dynamic(graph_module: torch.fx.GraphModule, options: CompileOptions):
    """A graph with dynamic dims compiled once: whole, or, when it does not convert whole,
    split as a static graph is, its partitions' dims dynamic and the refused ops eager. A
    CompileError when the split would leave half the ops or more eager, or a partition failed:
    then a compile per concrete shape takes the whole graph (static graphs convert ops a dynamic
    one refuses: `arange` of a size), which serves better than a mostly eager graph. The split
    is made on a copy of the graph, which that per-shape compile traces."""
    try:
        return VersaGraph(graph_module, options)
    except CompileError:
        split = torch.fx.GraphModule(graph_module, copy.deepcopy(graph_module.graph))
        partitioned = Partitioned(split, lambda part: VersaGraph(part, options), only_if_most=True)
        if partitioned.failures:  # a partition that failed to compile
            raise CompileError([Diagnostic("error", partitioned.warning())]) from None
    warnings.warn(partitioned.warning(), stacklevel=2)
    return make_boxed_func(partitioned.module.forward)


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
    compile_options: CompileOptions | None = None,
):
    """The `torch.compile` backend: AOTAutograd graphs → Versa. `options` (torch.compile's)
    may name a `target` (as versa.compile takes it), an `opt_level`, and `freeze` (default True:
    inference graphs on the host take their parameters and buffers as constants, `freezing`).
    `compile_options` are versa.compile's own, where it hands a model over to torch.compile."""
    options = dict(options or {})
    target = options.pop("target", None)
    opt_level = options.pop("opt_level", opt_level)
    freeze = options.pop("freeze", True)
    if options:
        raise CompileError([Diagnostic("error", f"versa: unknown torch.compile options {sorted(options)}")])
    compile_options = compile_options or compile_options_for(target, opt_level)
    compiler = _compiler(compile_options)
    # oneDNN off while tracing: with it, CPU LSTMs trace to `mkldnn_rnn_layer`, not to the
    # `lstm` that RECURRENT unrolls.
    with _AttentionAsMath(), _without_onednn():
        return aot_autograd(
            fw_compiler=compiler,
            bw_compiler=compiler,
            inference_compiler=_compiler(compile_options, freeze),
            decompositions=(DECOMPOSITIONS if _needs_autograd(example_inputs) else INFERENCE_DECOMPOSITIONS)
            | RECURRENT,
        )(graph_module, example_inputs)


@contextlib.contextmanager
def _without_onednn():
    """(`torch.backends.mkldnn.flags` also sets TF32 flags, which warns on every call.)"""
    enabled = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(False)
    try:
        yield
    finally:
        torch._C._set_mkldnn_enabled(enabled)


def _needs_autograd(example_inputs: Sequence) -> bool:
    """AOTAutograd's own test for tracing a joint (forward + backward) graph."""
    return torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    )
