"""The reducer's shape steps: the same program on smaller tensors.

A finding cut down to its few ops still has the generator's shapes (tensor<4x5x3xf32>), and a
reader wants tensor<1x2xf32>. Sizes are tied across values (a matmul's K in both operands, an
image's channels in its filter, broadcast partners), so besides one dim of one written shape
(of an argument, constant, iota, reshape or broadcast_to) halved, set to 1 or dropped when it
is 1, each size is also replaced in every written shape at once. The other shapes are then
re-derived: results by the shape rules, the written shapes of reshape and broadcast_to fitted
to their new operand, slice bounds moved into the new input; whatever still does not fit, the
verifier refuses.
"""

import math
from collections.abc import Callable, Iterator

import numpy as np

from .program import Op, Program, Shape, Type, Value, full_attrs, retype

Resize = Callable[[Shape], Shape]
WRITTEN = ("constant", "iota", "reshape", "broadcast_to")  # ops whose result shape is written


def candidates(program: Program) -> Iterator[Program]:
    """Smaller-shaped variants of `program`: every use of a size first, then single dims."""
    written = _written(program)
    sizes = sorted({d for v in written for d in v.type.shape if d is not None and d > 1}, reverse=True)
    for size in sizes:
        for smaller in sorted({1, size // 2}):
            p = _resized(program, None, lambda s, a=size, b=smaller: tuple(b if d == a else d for d in s))
            if p is not None:
                yield p
    for index, value in enumerate(written):
        shape = value.type.shape
        for dim, size in enumerate(shape):
            if size is None:  # a dynamic dim's sizes are the calls' (`Program.sizes`)
                continue
            options = [(*shape[:dim], *shape[dim + 1 :])] if size == 1 else []
            options += [(*shape[:dim], n, *shape[dim + 1 :]) for n in sorted({1, size // 2} - {0, size})]
            for new in options:
                p = _resized(program, index, lambda s, new=new: new)
                if p is not None:
                    yield p


def _written(program: Program) -> list[Value]:
    return [*program.args, *(op for op in program.ops if op.name in WRITTEN)]


def _resized(program: Program, index: int | None, resize: Resize) -> Program | None:
    """`program` with `resize` applied to written shape `index` (to all of them when None)
    and the rest re-derived; None when nothing changed or a rule refuses."""
    p = program.copy()
    written = _written(p)
    changed = False
    for value in written if index is None else [written[index]]:
        changed |= _set_shape(value, resize(value.type.shape))
    return p if changed and retype(p, adjust=_fit) else None


def _set_shape(value: Value, shape: Shape) -> bool:
    old = value.type.shape
    if shape == old:
        return False
    if isinstance(value, Op) and value.name == "constant":
        array = np.asarray(value.attrs["value"])
        if len(shape) == len(old):
            array = array[tuple(slice(0, n) for n in shape)]
        value.attrs["value"] = array.reshape(shape)  # a dropped dim has size 1
    value.type = Type(shape, value.type.element)
    return True


def _fit(op: Op) -> None:
    """Make `op`'s declared shape or slice bounds fit its (new) operand shapes."""
    if not op.operands:
        return
    x = op.operands[0].type.shape
    if None in x:  # what a dynamic operand's declared result must be, the calls decide
        return
    if op.name == "reshape":
        op.type = Type(_refit(op.type.shape, math.prod(x)), op.type.element)
    elif op.name == "broadcast_to" and len(x) <= len(op.type.shape):
        declared = op.type.shape
        lead = declared[: len(declared) - len(x)]
        tail = tuple(d if s == 1 else s for s, d in zip(x, declared[len(lead) :], strict=True))
        op.type = Type((*lead, *tail), op.type.element)
    elif op.name == "slice" and len(op.attrs.get("limits", ())) == len(x):
        attrs = full_attrs(op)
        starts, limits = list(attrs["starts"]), list(attrs["limits"])
        for i, d in enumerate(x):
            shift = max(0, limits[i] - d)  # keep the extent where the input still holds it
            starts[i], limits[i] = max(0, starts[i] - shift), limits[i] - shift
        op.attrs["starts"], op.attrs["limits"] = starts, limits


def _refit(declared: Shape, elements: int) -> Shape:
    """A shape of `elements` elements close to `declared` (same rank where possible)."""
    total = math.prod(declared)
    if total == elements or not declared:
        return declared
    if elements and total % elements == 0:
        ratio = total // elements
        for i, d in enumerate(declared):
            if d % ratio == 0:
                return (*declared[:i], d // ratio, *declared[i + 1 :])
    return (*(1,) * (len(declared) - 1), elements)
