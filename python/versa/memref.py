"""Calling JIT-compiled entry points with NumPy arrays, at low overhead.

`torch_mlir.runtime.np_to_memref` builds a new ctypes class for every descriptor it makes
(~0.1 ms per argument), which would dominate the timing of small kernels; the signatures here
are static, so the descriptors are built once per function and only the data pointers change
per call. The layout is MLIR's ranked memref descriptor:
`{allocated, aligned, offset, shape[rank], strides[rank]}`.
"""

import ctypes
from collections.abc import Sequence
from functools import cache

import numpy as np

_I64 = ctypes.c_int64


@cache
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", _I64)]
    if rank:
        fields += [("shape", _I64 * rank), ("strides", _I64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _descriptor(shape: Sequence[int]) -> ctypes.Structure:
    """A descriptor for a C-contiguous array of `shape` (strides in elements)."""
    desc = descriptor_type(len(shape))()
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    if shape:
        desc.shape[:] = list(shape)
        desc.strides[:] = strides[::-1]
    return desc


class PackedCall:
    """`_mlir_ciface_<name>(memref*...)` called through MLIR's packed interface: one `void*`
    per argument, each pointing at the argument (here: a pointer to a descriptor)."""

    def __init__(self, address: int, shapes: Sequence[Sequence[int]]):
        self._fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self._descriptors = [_descriptor(tuple(s)) for s in shapes]
        self._pointers = [ctypes.c_void_p(ctypes.addressof(d)) for d in self._descriptors]
        self._packed = (ctypes.c_void_p * len(shapes))(*[ctypes.addressof(p) for p in self._pointers])

    def __call__(self, arrays: Sequence[np.ndarray]) -> None:
        """Run on `arrays` (C-contiguous, of the shapes given at construction)."""
        for desc, array in zip(self._descriptors, arrays, strict=True):
            desc.allocated = desc.aligned = array.ctypes.data
        self._fn(self._packed)
