"""A compiled function's signature, for every target: its entry `func.func` and the shapes and
dtypes of its tensors (what the JIT's and the GPU's callers check arguments against). A shape
holds None for a dynamic dim (`?`): its size is one call's (`versa.call_shapes`)."""

import math
from dataclasses import dataclass

import numpy as np

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import func, ir
from versa.reference import numpy_dtype


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int | None, ...]  # None: a dynamic dim
    dtype: np.dtype

    @property
    def is_static(self) -> bool:
        return None not in self.shape

    @property
    def nbytes(self) -> int:
        """The tensor's bytes; of a dynamic spec, only once a call gives its size (`at`)."""
        if not self.is_static:
            raise ValueError(f"{self} has dynamic dims: its size is known per call")
        return math.prod(self.shape) * self.dtype.itemsize

    def at(self, shape: tuple[int, ...]) -> "TensorSpec":
        """This spec with one call's sizes."""
        return TensorSpec(tuple(shape), self.dtype)

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join('?' if d is None else str(d) for d in self.shape)}]"

    @staticmethod
    def of(t: ir.Type) -> "TensorSpec":
        if not isinstance(t, ir.RankedTensorType):
            raise CompileError(
                [Diagnostic("error", f"can only pass ranked tensors to and from the JIT, got {t}")]
            )
        shape = tuple(None if t.is_dynamic_dim(i) else d for i, d in enumerate(t.shape))
        return TensorSpec(shape, numpy_dtype(t.element_type))


def find_function(module: ir.Module, name: str | None) -> func.FuncOp:
    """The entry `func.func` (by name, or the module's only/last public one)."""
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    named = {op.attributes["sym_name"].value: op for op in funcs}
    if name is not None and name in named:
        return named[name]
    if name is None and funcs:
        return funcs[-1]
    if name is None:
        raise CompileError([Diagnostic("error", "the module has no func.func to run")])
    known = ", ".join(named) or "none"
    raise CompileError([Diagnostic("error", f"no function '{name}' in the module (have: {known})")])
