"""Calling JIT-compiled entry points with NumPy arrays, at low overhead.

`torch_mlir.runtime.np_to_memref` builds a new ctypes class for every descriptor it makes
(~0.1 ms per argument), which would dominate the timing of small kernels; the signatures here
are static, so the descriptors are built once per function and only the data pointers change
per call. The layout is MLIR's ranked memref descriptor:
`{allocated, aligned, offset, shape[rank], strides[rank]}`.
"""

import ctypes
import sys
from collections.abc import Sequence
from functools import cache

import numpy as np

_I64 = ctypes.c_int64
_POINTER = ctypes.c_void_p
_HEADER = object.__basicsize__  # PyObject_HEAD: the reference count and the type pointer


@cache
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", _I64)]
    if rank:
        fields += [("shape", _I64 * rank), ("strides", _I64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _descriptor_words(shape: Sequence[int]) -> list[int]:
    """The descriptor of a C-contiguous array of `shape` as int64 words, pointers left 0:
    allocated, aligned, offset, sizes, strides (in elements)."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return [0, 0, 0, *shape, *strides[::-1]]


def _read_data_field(array: np.ndarray) -> int:
    """The array's data pointer read from its object: in CPython `id` is the object's address,
    and NumPy's `PyArrayObject_fields` starts with `char *data` right after the object header.
    `array.ctypes.data` builds a ctypes helper object per call (~1.6 µs, a third of the budget
    of a small call); this read costs ~0.2 µs."""
    return _POINTER.from_address(id(array) + _HEADER).value or 0


def _ctypes_data(array: np.ndarray) -> int:
    return array.ctypes.data


def _pick_data_pointer():
    """The fast read where this interpreter's layout is checked to match, else NumPy's own."""
    if sys.implementation.name != "cpython":
        return _ctypes_data
    probes = [np.empty(n, np.float32) for n in (1, 17, 1 << 16)]
    if all(_read_data_field(a) == a.ctypes.data for a in probes):
        return _read_data_field
    return _ctypes_data


data_pointer = _pick_data_pointer()


class PackedCall:
    """`_mlir_ciface_<name>(memref*...)` called through MLIR's packed interface: one `void*`
    per argument, each pointing at the argument (here: a pointer to a descriptor).

    All descriptors live in one int64 buffer, so a call only writes two integers per argument
    (the allocated and aligned pointers) instead of setting ctypes structure fields."""

    def __init__(self, address: int, shapes: Sequence[Sequence[int]]):
        self._fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        words = [_descriptor_words(tuple(s)) for s in shapes]
        self._buffer = (_I64 * sum(len(w) for w in words))()
        self._slots, offset = [], 0
        for w in words:
            self._buffer[offset : offset + len(w)] = w
            self._slots.append(offset)
            offset += len(w)
        base = ctypes.addressof(self._buffer)
        self._pointers = (ctypes.c_void_p * len(shapes))(*[base + 8 * slot for slot in self._slots])
        self._packed = (ctypes.c_void_p * len(shapes))(
            *[ctypes.addressof(self._pointers) + 8 * i for i in range(len(shapes))]
        )

    def __call__(self, arrays: Sequence[np.ndarray]) -> None:
        """Run on `arrays` (C-contiguous ndarrays, of the shapes given at construction)."""
        buffer = self._buffer
        for slot, array in zip(self._slots, arrays, strict=True):
            buffer[slot] = buffer[slot + 1] = data_pointer(array)
        self._fn(self._packed)
