"""The u8 bytes behind a conv's signed input, for `versa-int8-kernels`.

qconv2d's lowering reads both operands signed (`versa_to_linalg/lowering/zero_points.py`), so
a u8 activation reaches the conv through an xor-0x80 generic (u8 - 128), then the zero-point
padding (fills of the moved zero point and an insert_slice, `window_builders.pad_spatial`) and
a crop (extract_slice). vpdpbusd wants x unsigned: its kernel would flip the bytes back, a
second pass over the input that cancels the first. `unflipped` rebuilds that chain on the
bytes before the xor (fill values flipped too), so the kernel reads them directly: they are
the op's values + 128, which the kernels' start values (-128·Σw) already take. Where x is not
such a chain (an i8 activation, a computed pad value) it answers None and the kernel flips.
"""

from versa.mlir import arith, ir


def unflipped(x: ir.Value, at: ir.Operation) -> ir.Value | None:
    """A value holding x ^ 0x80, built before `at` from x's producers without the xor, or None."""
    owner = x.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    if op.name == "linalg.generic" and _is_flip(op):
        return op.operands[0]
    if op.name == "tensor.empty":
        return x
    sources = {"tensor.extract_slice": [0], "tensor.insert_slice": [0, 1], "linalg.fill": [1]}.get(op.name)
    if sources is None:
        return None
    operands = {}
    for i in sources:
        value = unflipped(op.operands[i], at)
        if value is None:
            return None
        operands[i] = value
    if op.name == "linalg.fill":
        fill = _constant_byte(op.operands[0])
        if fill is None:
            return None
        with ir.InsertionPoint(at), op.location:
            operands[0] = arith.constant(ir.IntegerType.get_signless(8), (fill ^ 0x80) - 256 * (fill >= 128))
    clone = op.clone(ir.InsertionPoint(at))
    for i, value in operands.items():
        clone.operands[i] = value
    return clone.results[0]


def _is_flip(op: ir.Operation) -> bool:
    """An elementwise generic (identity maps, one input) whose body is `xori %in, -128` on i8."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(op.operands) != 2 or len(body) != 2 or body[0].operation.name != "arith.xori":
        return False
    rank = ir.RankedTensorType(op.results[0].type).rank
    identity = ir.AffineMap.get_identity(rank)
    if any(ir.AffineMapAttr(m).value != identity for m in op.attributes["indexing_maps"]):
        return False
    xor = body[0].operation
    a, b = xor.operands
    other = b if a == block.arguments[0] else a if b == block.arguments[0] else None
    return other is not None and _constant_byte(other) == 0x80 and body[1].operands[0] == xor.results[0]


def _constant_byte(value: ir.Value) -> int | None:
    """The i8 constant `value` as an unsigned byte, or None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    attribute = owner.operation.attributes["value"]
    if not isinstance(attribute, ir.IntegerAttr) or ir.IntegerType(attribute.type).width != 8:
        return None
    return ir.IntegerAttr(attribute).value & 0xFF
