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

    @classmethod
    def from_dict(cls, fields: dict) -> "Kernel":
        """A kernel as the compile cache keeps it (JSON: lists for tuples)."""
        return cls(fields["id"], fields["function"], tuple(fields["sources"]), tuple(fields["ops"]))


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

    def __init__(self, code, kernels: list[Kernel]):
        self.kernels = kernels
        slots = len(kernels) + 1
        self._code = code  # the ExecutionEngine or the cached library: keeps the globals alive
        self._ns = self._view(code, NANOSECONDS, slots)
        self._calls = self._view(code, CALLS, slots)

    @staticmethod
    def _view(code, symbol: str, slots: int) -> np.ndarray:
        # The packed wrapper of `<symbol>_address`: void(void **args), the result's slot last;
        # the engine's raw_lookup prefixes `_mlir_`, as the cached library's symbol is named.
        if isinstance(code, ctypes.CDLL):
            found = getattr(code, f"_mlir_{symbol}_address", None)
            getter = ctypes.cast(found, ctypes.c_void_p).value if found is not None else None
        else:
            getter = code.raw_lookup(f"{symbol}_address")
        if not getter:
            raise RuntimeError(f"the profiling compile has no '{symbol}_address'")
        address = ctypes.c_void_p()
        slots_of_args = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(address), ctypes.c_void_p))
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(getter)(slots_of_args)
        return np.ctypeslib.as_array((ctypes.c_int64 * slots).from_address(address.value))

    @classmethod
    def of(cls, function) -> "KernelCounters | None":
        """The counters of a `JitFunction` compiled with profile=1 (compiled now or loaded from
        the compile cache), else None."""
        if not function.kernels:
            return None
        return cls(function.engine or function.library, function.kernels)

    def reset(self) -> None:
        self._ns[:] = 0
        self._calls[:] = 0

    def read(self) -> list[tuple[Kernel, int, int]]:
        """(kernel, nanoseconds, calls) for every kernel, in the order they run."""
        return [(k, int(self._ns[k.id]), int(self._calls[k.id])) for k in self.kernels]
