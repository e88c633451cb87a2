"""The unpadded input behind a depthwise conv's zero-point padding, for `versa-int8-kernels`.

qconv2d's lowering pads its input with the zero point (`window_builders.pad_spatial`: an empty
tensor, the four border strips filled, the input inserted in the middle; `crop_spatial` may
slice the trailing rows off) and the conv reads that copy. The depthwise kernel reads the input
in place instead and takes border taps as the fill byte itself (`int8_depthwise.py`), so the
sum is the same i32 value and the zero-point terms after it stay exact; the copy is left dead.
Only that form matches: one constant fill byte, static offsets, unit strides, fills that
cover everything outside the input (border strips, or the whole tensor first). Anything else
(a computed zero point) answers None and the kernel reads the padded tensor as before.
"""

from dataclasses import dataclass

import numpy as np
from versa.mlir import ir


@dataclass(frozen=True)
class Border:
    """`source` [n, h, w, c] sits at (top, left) of the padded tensor the conv read, every other
    element of which is the byte `fill` (signed i8 value)."""

    source: ir.Value
    top: int
    left: int
    fill: int

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(ir.RankedTensorType(self.source.type).shape)


def unpadded(x: ir.Value) -> Border | None:
    """x's unpadded source where x is pad_spatial's zero-point padding (maybe cropped)."""
    op = _producer(x, "tensor.extract_slice")
    if op is not None:  # crop_spatial: a leading slice at offset 0
        if _dynamic(op) or any(_ints(op, "static_offsets")) or set(_ints(op, "static_strides")) != {1}:
            return None
        x = op.operands[0]
    op = _producer(x, "tensor.insert_slice")
    if op is None or _dynamic(op) or set(_ints(op, "static_strides")) != {1}:
        return None
    source, dest = op.operands
    if len(_shape(source)) != 4:
        return None
    (n, h, w, c), padded = _shape(source), _shape(dest)
    offsets = _ints(op, "static_offsets")
    if offsets[0] or offsets[3] or (padded[0], padded[3]) != (n, c):
        return None
    top, left = offsets[1], offsets[2]
    filled = _strips(dest)
    if filled is None or len({fill for fill, _ in filled}) != 1:
        return None
    covered = np.zeros(padded[1:3], bool)  # every element outside x must hold the fill byte
    for _, (row, rows, column, columns) in filled:
        covered[row : row + rows, column : column + columns] = True
    covered[top : top + h, left : left + w] = True
    if not covered.all():
        return None
    return Border(source, top, left, filled[0][0])


def _strips(dest: ir.Value) -> list | None:
    """[(fill byte, (row, rows, column, columns))] of the constant fills that make `dest`:
    slices inserted into a tensor.empty or into one fill of the whole tensor."""
    strips = []
    while (op := _producer(dest, "tensor.insert_slice")) is not None:
        fill = _producer(op.operands[0], "linalg.fill")
        if fill is None or _dynamic(op) or set(_ints(op, "static_strides")) != {1}:
            return None
        offsets, sizes = _ints(op, "static_offsets"), _ints(op, "static_sizes")
        if offsets[0] or offsets[3] or sizes[0] != _shape(dest)[0] or sizes[3] != _shape(dest)[3]:
            return None
        strips.append((_byte(fill.operands[0]), (offsets[1], sizes[1], offsets[2], sizes[2])))
        dest = op.operands[1]
    fill = _producer(dest, "linalg.fill")
    if fill is not None:  # the whole tensor filled first
        shape = _shape(dest)
        strips.append((_byte(fill.operands[0]), (0, shape[1], 0, shape[2])))
        dest = fill.operands[1]
    if _producer(dest, "tensor.empty") is None or any(byte is None for byte, _ in strips):
        return None
    return strips


def _producer(value: ir.Value, name: str) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != name:
        return None
    return owner.operation


def _dynamic(op: ir.Operation) -> bool:
    """Offsets, sizes or strides given as values (the slice ops' operands past source/dest)."""
    fixed = 1 if op.name == "tensor.extract_slice" else 2
    return len(op.operands) != fixed


def _ints(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _byte(value: ir.Value) -> int | None:
    """The i8 constant `value` as a signed byte, or None."""
    op = _producer(value, "arith.constant")
    if op is None:
        return None
    attribute = op.attributes["value"]
    if not isinstance(attribute, ir.IntegerAttr) or ir.IntegerType(attribute.type).width != 8:
        return None
    byte = ir.IntegerAttr(attribute).value & 0xFF
    return byte - 256 * (byte >= 128)
