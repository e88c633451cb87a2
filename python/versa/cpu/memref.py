"""Calling JIT-compiled entry points with NumPy arrays, at low overhead.

`torch_mlir.runtime.np_to_memref` builds a new ctypes class for every descriptor it makes
(~0.1 ms per argument), which would dominate the timing of small kernels; so the descriptors
are built once per function (per tuple of argument shapes for one with dynamic dims:
`ShapedCalls`) and only the data pointers change per call. The layout is MLIR's ranked memref
descriptor: `{allocated, aligned, offset, shape[rank], strides[rank]}`.
"""

import ctypes
import math
import sys
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from versa.signature import TensorSpec

CACHE_LINE = 64  # bytes; the alignment of the arrays a compiled function hands out

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


def aligned_empty(shape: Sequence[int], dtype: np.dtype, alignment: int = CACHE_LINE) -> np.ndarray:
    """An uninitialised C-contiguous array whose data starts on an `alignment`-byte boundary
    (NumPy's large arrays start 16 bytes into their mmap). Its base is a ctypes array over the
    NumPy allocation, not an array: NumPy then makes it the base of every view taken of it, so
    a view keeps it referenced (the pool's test of whether a result is still held)."""
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    raw = np.empty(size + alignment, np.uint8)
    window = (ctypes.c_char * size).from_buffer(raw, -raw.ctypes.data % alignment)  # keeps raw
    return np.ndarray(tuple(shape), dtype, buffer=window)


class OutputPool:
    """The result arrays a function hands out, reused once nobody else holds them.

    NumPy takes large arrays straight from mmap, so a fresh result array costs a page fault per
    4 KiB on first write (~30% of a large memory-bound kernel). A pooled array is reused when its
    reference count shows that only the pool holds it (a view, a torch tensor or a memoryview of
    it keeps it alive), so results already handed out are never overwritten. Two per result let
    `y = f(x)` in a loop alternate between them; more held results get fresh arrays. Arrays are
    aligned to a cache line: outputs past the last-level cache are then written with
    non-temporal stores (`versa-streaming-stores`), which need aligned vectors."""

    KEEP = 2

    def __init__(self, specs: Sequence[TensorSpec]):
        self._specs = list(specs)
        self._arrays: list[list[np.ndarray]] = [[] for _ in specs]

    def take(self) -> list[np.ndarray]:
        return [self._take(i) for i in range(len(self._specs))]

    def _take(self, index: int) -> np.ndarray:
        kept = self._arrays[index]
        for slot in range(len(kept)):
            # References: the list slot and getrefcount's argument.
            if sys.getrefcount(kept[slot]) <= 2:
                return kept[slot]
        spec = self._specs[index]
        array = aligned_empty(spec.shape, spec.dtype)
        if len(kept) < self.KEEP:
            kept.append(array)
        else:  # every kept array is held: the oldest goes to its holders alone
            kept.pop(0)
            kept.append(array)
        return array


class ShapedCalls:
    """The calls of a function with dynamic dims, per tuple of argument shapes: the result
    shapes (`resolve`: the shape program, which raises on shapes the function does not take)
    and a `PackedCall` whose descriptors carry those sizes and strides, for the newest `CALLS`
    tuples; and an `OutputPool` per tuple of result shapes, for the newest `POOLS`, so that a
    loop over one shape reuses its results as a static function does, while the arrays kept for
    shapes no longer called stay bounded. A repeated shape costs two dict lookups."""

    CALLS = 64
    POOLS = 4

    def __init__(
        self,
        address: int,
        outputs: Sequence[TensorSpec],
        resolve: Callable[[tuple[tuple[int, ...], ...]], tuple[tuple[int, ...], ...]],
    ):
        self._address, self._outputs, self._resolve = address, outputs, resolve
        self._calls: dict[tuple, tuple[PackedCall, tuple, list[TensorSpec]]] = {}
        self._pools: dict[tuple, OutputPool] = {}

    def bind(self, shapes: tuple[tuple[int, ...], ...]) -> tuple[PackedCall, OutputPool, list[TensorSpec]]:
        found = self._calls.get(shapes)
        if found is None:
            results = self._resolve(shapes)
            specs = [spec.at(shape) for spec, shape in zip(self._outputs, results, strict=True)]
            call = PackedCall(self._address, [*shapes, *results])
            found = _remember(self._calls, shapes, (call, results, specs), self.CALLS)
        call, results, specs = found
        pool = self._pools.get(results)
        if pool is None:
            pool = _remember(self._pools, results, OutputPool(specs), self.POOLS)
        return call, pool, specs


def _remember(table: dict, key: tuple, value, limit: int):
    """`table[key] = value`, dropping the oldest entry past `limit`."""
    if len(table) >= limit:
        del table[next(iter(table))]
    table[key] = value
    return value
