"""Deterministic inputs for a program, chosen so that its NumPy reference is well conditioned.

The inputs follow from the IR alone (so a saved regression file, `versa-bisect` and a replay
see exactly what the campaign saw): floats uniform in [-1, 1], integers in [-5, 5], booleans
fair coins, except arguments read directly where a positive value is needed (log, log1p, sqrt
and rsqrt inputs, divisors, pow bases, variances), which are drawn from [0.5, 2] (integers
[1, 5]), and 8-bit arguments of the quantized ops (data and zero points), drawn over their
whole range: a contraction's hard cases are its corners (255 against -128). Programs that
need positivity deeper inside (the generator's) condition it in IR. A dynamic program's
inputs are drawn per call, from the IR and the call's size.
"""

import zlib
from collections.abc import Sequence

import numpy as np

from versa.dialects.core import dims_of
from versa.mlir import func, ir
from versa.reference import numpy_dtype

POSITIVE_OPERANDS = {
    "versa.log": 0,
    "versa.log1p": 0,
    "versa.sqrt": 0,
    "versa.rsqrt": 0,
    "versa.div": 1,
    "versa.pow": 0,
    "versa.batch_norm": 4,
}


QUANTIZED_OPS = ("versa.qmatmul", "versa.qconv2d", "versa.dequantize")


def positive_arguments(function: func.FuncOp) -> set[int]:
    """Indices of the arguments that an op reads where only positive values are sensible."""
    block = function.regions[0].blocks[0]
    positions = {arg: i for i, arg in enumerate(block.arguments)}
    positive = set()
    for op in block.operations:
        index = POSITIVE_OPERANDS.get(op.operation.name)
        if index is not None and index < len(op.operands) and op.operands[index] in positions:
            positive.add(positions[op.operands[index]])
    return positive


def byte_arguments(function: func.FuncOp) -> set[int]:
    """Indices of the 8-bit arguments that a quantized op reads."""
    block = function.regions[0].blocks[0]
    positions = {arg: i for i, arg in enumerate(block.arguments)}
    return {
        positions[v]
        for op in block.operations
        if op.operation.name in QUANTIZED_OPS
        for v in op.operands
        if v in positions and str(v.type.element_type) in ("i8", "ui8")
    }


def draw(
    shape: Sequence[int], dtype: np.dtype, positive: bool, rng: np.random.Generator, whole: bool = False
) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if whole:
        return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1, shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1 if positive else -5, 6, shape).astype(dtype)
    low, high = (0.5, 2.0) if positive else (-1.0, 1.0)
    return rng.uniform(low, high, shape).astype(dtype)


def for_function(function: func.FuncOp, seed: int = 0, size: int | None = None) -> list[np.ndarray]:
    """One array per argument of `function`, from `seed` and the function's name; every
    dynamic dim is `size` (one call of a dynamic program, whose sizes also seed the draw)."""
    name = function.attributes["sym_name"].value
    entropy = [seed, zlib.crc32(name.encode())] + ([] if size is None else [size])
    rng = np.random.default_rng(entropy)
    positive, whole = positive_arguments(function), byte_arguments(function)
    arrays = []
    for i, t in enumerate(function.type.inputs):
        assert isinstance(t, ir.RankedTensorType)
        shape = tuple(size if d is None else d for d in dims_of(t))
        if None in shape:
            raise ValueError(f"argument {i} has dynamic dims and no size was given")
        arrays.append(draw(shape, numpy_dtype(t.element_type), i in positive, rng, i in whole))
    return arrays
