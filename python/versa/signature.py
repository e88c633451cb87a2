"""A compiled function's signature, for every target: its entry `func.func` and the static
shapes and dtypes of its tensors (what the JIT's and the GPU's callers check arguments against)."""

import math
from dataclasses import dataclass

import numpy as np

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import func, ir
from versa.reference import numpy_dtype


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @staticmethod
    def of(t: ir.Type) -> "TensorSpec":
        if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
            raise CompileError(
                [Diagnostic("error", f"can only pass statically shaped tensors to and from the JIT, got {t}")]
            )
        return TensorSpec(tuple(t.shape), numpy_dtype(t.element_type))


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
