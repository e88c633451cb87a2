"""What `versa.compile` makes of one input signature (`api.CompiledModule`): the export compiled
whole (`WholeGraph`), or a module torch runs with compiled pieces inside (`EagerHosted`: a
partitioned export, or torch.compile's graphs), each called with the inputs as given."""

import weakref
from typing import NamedTuple

import numpy as np
import torch
from torch.fx import _pytree as fx_pytree
from torch.utils import _pytree as pytree

from versa.diagnostics import CompileError, Diagnostic
from versa.gpu import Program

from .executable import Executable, on_gpu
from .signatures import flat_leaves
from .state import State


class Evicted(LookupError):
    """A compiled function's executable has left the executable cache: it is compiled again."""


class WholeGraph(NamedTuple):
    """The export compiled as one function: tensor leaves in, eager's output structure back.
    Its executable is the executable cache's (`executable_cache`): referenced weakly, so that
    what the cache evicts is freed, and `evicted` once it is."""

    function: weakref.ref[Executable]
    in_spec: object
    out_spec: object
    nones: list[int]
    state: State | None  # the buffers the forward mutates: read, then written back, at each call

    @property
    def evicted(self) -> bool:
        return self.function() is None

    def __call__(self, args: tuple, kwargs: dict):
        leaves = fx_pytree.tree_flatten_spec((args, kwargs), self.in_spec) if kwargs else flat_leaves(args)
        tensors = [x for x in leaves if isinstance(x, torch.Tensor | np.ndarray)]
        function = self.function()
        if function is None:  # evicted since the caller looked (another thread's compile)
            raise Evicted
        outputs = function(self.state.arguments(tensors) if self.state else tensors)
        for position in self.nones:  # e.g. (hidden, None) from a model without a cache
            outputs.insert(position, None)
        if self.state:
            outputs = self.state.write_back(outputs, leaves)
        return outputs[0] if self.out_spec.is_leaf() else pytree.tree_unflatten(outputs, self.out_spec)

    def program(self) -> Program:
        program = self.function().program
        if program is None:
            raise ValueError("a program exists for GPU targets only (target='cuda')")
        return program


class EagerHosted:
    """A module run by torch on the host with compiled pieces inside: eager's input and output
    structure; NumPy in, NumPy out; no autograd history, as compiled outputs have none."""

    evicted = False  # it holds its compiled pieces

    def __init__(self, forward, why: str):
        self.forward, self.why = forward, why

    def __call__(self, args: tuple, kwargs: dict):
        leaves = pytree.tree_leaves((args, kwargs))
        returns_numpy = bool(leaves) and all(isinstance(x, np.ndarray) for x in leaves)
        with torch.no_grad():
            args, kwargs = pytree.tree_map(host_tensor, (args, kwargs))
            outputs = self.forward(*args, **kwargs)
        return (
            pytree.tree_map(lambda y: y.numpy() if isinstance(y, torch.Tensor) else y, outputs)
            if returns_numpy
            else outputs
        )

    def program(self) -> Program:
        message = f"versa.compile: a GPU or AOT program needs the whole graph, and {self.why}"
        raise CompileError([Diagnostic("error", message)])


def host_tensor(a):
    """The export runs on the host: CUDA tensors go as CPU copies, NumPy arrays as tensors."""
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a)
    return a.cpu() if on_gpu(a) else a
