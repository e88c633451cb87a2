"""The counters of a profiling compile (`lower-to-llvm{profile=1}`, versa-profile-kernels),
read back from the JIT: per kernel, the nanoseconds and calls since the last reset.

The counters are globals of the compiled module, looked up by name in its ExecutionEngine and
read in place (ctypes views of the engine's memory, at the address a generated function
returns): no copy, no call into the code per read.
"""

import ctypes
from dataclasses import dataclass

import numpy as np

from versa.mlir import ir
from versa.passes.cpu.profile_kernels import CALLS, NANOSECONDS, TABLE


@dataclass(frozen=True)
class Kernel:
    """One instrumented kernel: its slot, function, source names and the ops it began as."""

    id: int
    function: str
    sources: tuple[str, ...]
    ops: tuple[str, ...]


def kernel_table(module: ir.Module) -> list[Kernel]:
    """The kernels versa-profile-kernels instrumented in `module` ([] if it did not run)."""
    attributes = module.operation.attributes
    if TABLE not in attributes:
        return []
    table = []
    for entry in attributes[TABLE]:
        entry = ir.DictAttr(entry)
        table.append(
            Kernel(
                ir.IntegerAttr(entry["id"]).value,
                ir.StringAttr(entry["function"]).value,
                tuple(ir.StringAttr(s).value for s in entry["sources"]),
                tuple(ir.StringAttr(s).value for s in entry["ops"]),
            )
        )
    return table


class KernelCounters:
    """Live views of a profiling compile's counters (slot 0 is the entry mark, not a kernel)."""

    def __init__(self, engine, kernels: list[Kernel]):
        self.kernels = kernels
        slots = len(kernels) + 1
        self._engine = engine  # keeps the code and its globals alive
        self._ns = self._view(engine, NANOSECONDS, slots)
        self._calls = self._view(engine, CALLS, slots)

    @staticmethod
    def _view(engine, symbol: str, slots: int) -> np.ndarray:
        # raw_lookup gives the engine's packed wrapper: void(void **args), the result's slot last.
        getter = engine.raw_lookup(f"{symbol}_address")
        if not getter:
            raise RuntimeError(f"the profiling compile has no '{symbol}_address'")
        address = ctypes.c_void_p()
        slots_of_args = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(address), ctypes.c_void_p))
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(getter)(slots_of_args)
        return np.ctypeslib.as_array((ctypes.c_int64 * slots).from_address(address.value))

    @classmethod
    def of(cls, function) -> "KernelCounters | None":
        """The counters of a `JitFunction` compiled with profile=1, else None."""
        kernels = kernel_table(function.module)
        return cls(function.engine, kernels) if kernels else None

    def reset(self) -> None:
        self._ns[:] = 0
        self._calls[:] = 0

    def read(self) -> list[tuple[Kernel, int, int]]:
        """(kernel, nanoseconds, calls) for every kernel, in the order they run."""
        return [(k, int(self._ns[k.id]), int(self._calls[k.id])) for k in self.kernels]
