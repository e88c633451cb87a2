"""The public PyTorch API: `versa.import_torch` and `versa.compile`.

    compiled = versa.compile(model, (x,))        # nn.Module or ExportedProgram
    y = compiled(x)                              # torch tensors (or NumPy arrays) in and out

Shapes are static: a call with other shapes or dtypes exports and compiles again, cached by
the inputs' signature. Outputs have eager's structure (tensor, tuple, list, dict).
"""

from collections.abc import Sequence

import numpy as np
import torch
from torch.utils import _pytree as pytree

from versa import runtime
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

from .convert import convert_module
from .importer import import_program, make_torch_context

DEFAULT_PIPELINE = "versa-layout,versa-canonicalize,versa-fuse,lower-to-llvm{{opt-level={opt_level}}}"


def import_torch(model, example_inputs: Sequence) -> ir.Module:
    """The versa module of `model` called on `example_inputs` (weights as constants)."""
    module, _ = _import(model, example_inputs)
    return module


def _import(model, example_inputs: Sequence) -> tuple[ir.Module, object]:
    torch_module, program = import_program(model, tuple(example_inputs), make_torch_context())
    return convert_module(torch_module), program


def _signature(leaves: list) -> tuple:
    """Shapes and dtypes (torch and NumPy spell them alike here) and the non-tensor values."""
    return tuple(
        (tuple(x.shape), str(x.dtype).removeprefix("torch.")) if hasattr(x, "shape") else ("const", repr(x))
        for x in leaves
    )


def to_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().contiguous().numpy()
    return np.asarray(x)


class CompiledModule:
    """`model` compiled by Versa for each input signature it is called with."""

    def __init__(self, model, example_inputs: Sequence, *, target: str | None = None, opt_level: int = 2):
        if target not in (None, "host", "x86-64", "cpu"):
            raise CompileError(
                [Diagnostic("error", f"versa.compile runs on the host CPU; target {target!r}")]
            )
        self.model = model
        self.opt_level = opt_level
        self._compiled: dict[tuple, tuple[runtime.JitFunction, object]] = {}
        self._compile(tuple(example_inputs))

    def _compile(self, args: tuple) -> tuple[runtime.JitFunction, object]:
        """The compiled function and output structure for `args`' signature (compiled once)."""
        key = _signature(pytree.tree_leaves(args))
        if key not in self._compiled:
            args = pytree.tree_map(lambda a: torch.from_numpy(a) if isinstance(a, np.ndarray) else a, args)
            module, program = _import(self.model, args)
            function = runtime.JitFunction(module, pipeline=DEFAULT_PIPELINE.format(opt_level=self.opt_level))
            self._compiled[key] = (function, program.call_spec.out_spec)
        return self._compiled[key]

    def __call__(self, *args):
        function, out_spec = self._compile(args)
        leaves = [x for x in pytree.tree_leaves(args) if isinstance(x, torch.Tensor | np.ndarray)]
        returns_numpy = bool(leaves) and all(isinstance(x, np.ndarray) for x in leaves)
        outputs = function(*[to_numpy(x) for x in leaves])
        results = [out if returns_numpy else torch.from_numpy(out) for out in outputs]
        return pytree.tree_unflatten(results, out_spec)


def compile(
    model, example_inputs: Sequence, *, target: str | None = None, opt_level: int = 2
) -> CompiledModule:  # noqa: A001
    """Compile `model` (an nn.Module or ExportedProgram) for `example_inputs`' shapes."""
    return CompiledModule(model, example_inputs, target=target, opt_level=opt_level)
