"""JIT execution through MLIR's ExecutionEngine.

The entry point is compiled with `llvm.emit_c_interface`; after `lower-to-llvm` its results are
out-params (`buffer-results-to-out-params`), so `_mlir_ciface_<entry>` takes one memref
descriptor pointer per input and then one per result. The wrapper checks that count against the
lowered signature rather than assuming it.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from versa import compiler, openmp
from versa.diagnostics import CompileError, Diagnostic
from versa.memref import PackedCall
from versa.mlir import ExecutionEngine, func, ir
from versa.reference import numpy_dtype
from versa.symbols import check_external_symbols


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: np.dtype

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


class JitFunction:
    """A versa function compiled to machine code; call it with NumPy arrays."""

    def __init__(
        self,
        module: ir.Module,
        entry: str | None = None,
        *,
        pipeline: Sequence[compiler.Element] | str = "lower-to-llvm",
        opt_level: int = 3,
    ):
        function = find_function(module, entry)
        self.name = function.attributes["sym_name"].value
        self.inputs = [TensorSpec.of(t) for t in function.type.inputs]
        self.outputs = [TensorSpec.of(t) for t in function.type.results]
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(module.context)
        elements = compiler.parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
        compiler.run_passes(module, elements)
        self._check_signature(module)
        check_external_symbols(module, openmp.provides)
        libraries = [openmp.runtime_library()] if openmp.runtime_library() else []
        try:
            self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libraries)
            address = self.engine.raw_lookup(f"_mlir_ciface_{self.name}")
        except (RuntimeError, ValueError) as err:
            raise CompileError([Diagnostic("error", f"JIT compilation failed: {err}")]) from None
        if not address:  # LLVM could not materialise the function: never call address 0
            raise CompileError(
                [Diagnostic("error", f"JIT compilation failed: no code for '_mlir_ciface_{self.name}'")]
            )
        self.module = module
        self._call = PackedCall(address, [s.shape for s in (*self.inputs, *self.outputs)])

    def _check_signature(self, module: ir.Module) -> None:
        wrapper = f"_mlir_ciface_{self.name}"
        for op in module.body.operations:
            if op.operation.name == "llvm.func" and op.attributes["sym_name"].value == wrapper:
                count = len(op.regions[0].blocks[0].arguments)
                expected = len(self.inputs) + len(self.outputs)
                if count != expected:
                    raise CompileError(
                        [
                            Diagnostic(
                                "error",
                                f"'{wrapper}' takes {count} arguments"
                                f", expected {expected} (inputs + out-params)",
                            )
                        ]
                    )
                return
        raise CompileError([Diagnostic("error", f"lowered module has no '{wrapper}'")])

    def __call__(self, *arrays: np.ndarray) -> list[np.ndarray]:
        if len(arrays) != len(self.inputs):
            raise ValueError(f"{self.name} takes {len(self.inputs)} inputs, got {len(arrays)}")
        ins = [self._coerce(a, s, i) for i, (a, s) in enumerate(zip(arrays, self.inputs, strict=True))]
        outs = [np.empty(spec.shape, spec.dtype) for spec in self.outputs]
        self._call([*ins, *outs])
        return outs

    def _coerce(self, array: np.ndarray, spec: TensorSpec, index: int) -> np.ndarray:
        array = np.asarray(array)
        if array.shape != spec.shape or array.dtype != spec.dtype:
            raise ValueError(
                f"argument {index} must be {spec.dtype}{list(spec.shape)}, "
                f"got {array.dtype}{list(array.shape)}"
            )
        return np.ascontiguousarray(array)

    def time(self, arrays: Sequence[np.ndarray], repeat: int) -> list[float]:
        """Wall-clock seconds of `repeat` calls (after one warm-up call)."""
        self(*arrays)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self(*arrays)
            times.append(time.perf_counter() - start)
        return times
