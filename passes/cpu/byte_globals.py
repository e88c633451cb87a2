"""versa-byte-globals: constant weights reach LLVM as byte arrays, not arrays of numbers.

LLVM's AsmPrinter writes a ConstantDataArray of i8 with one `emitBytes` of the whole buffer,
but one of f32 (or any other element type) element by element through the MC streamer. A
model's weights are hundreds of MB of f32: HF GPT-2 small's 500 MB took 7.5 of its 7.9 s of
JIT time (LLVM -O0 with every function body removed: 7.5 s; the same globals as bytes: 1.9 s;
no globals: 0.01 s). So every constant global with a dense numeric initializer (of any shape:
a nested array too) becomes an `!llvm.array<N x i8>` of the same bytes, a resource blob, its
alignment kept:

    llvm.mlir.global private constant @w(dense<[...]> : tensor<589824xf32>) {alignment = 64}
        : !llvm.array<589824 x f32>
  → llvm.mlir.global private constant @w(dense_resource<w> : tensor<2359296xi8>) {alignment = 64}
        : !llvm.array<2359296 x i8>

Nothing else changes: with opaque pointers a global is only its address (`llvm.mlir.addressof`),
and every access names its own element type (`llvm.getelementptr ... : f32`, `llvm.load ... ->
f32`), so the code reads the same bytes as before. A global used other than through its address
is left alone, as are splats (a fill, cheap already), i1 (bit-packed in MLIR's storage) and
globals without the alignment of their element (an i8 array would drop it to 1). Runs on the
llvm dialect, after `convert-func-to-llvm`.
"""

import ctypes
import math
from dataclasses import dataclass

import numpy as np
from versa.mlir import ir

from ..common.base import Pass
from ..common.memrefs import stored_as_bytes


@dataclass(frozen=True)
class VersaByteGlobals(Pass):
    name = "versa-byte-globals"
    summary = "Store constant numeric LLVM globals as byte arrays (LLVM emits those in one write)"

    def run(self, module: ir.Operation) -> None:
        body = module.regions[0].blocks[0]
        addressed = _only_addressed(module)
        for op in body.operations:
            op = op.operation
            if op.name == "llvm.mlir.global" and op.attributes["sym_name"].value in addressed:
                data = _bytes_of(op)
                if data is not None:
                    _retype(op, data)


def _only_addressed(module: ir.Operation) -> set[str]:
    """Names of globals whose every use is an `llvm.mlir.addressof` (any other reference, say a
    symbol attribute, might read the global's type)."""
    addressed, other = set(), set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "llvm.mlir.addressof":
            addressed.add(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value)
        elif op.name not in ("llvm.mlir.global", "builtin.module"):
            for key in op.attributes:
                if isinstance(op.attributes[key], ir.FlatSymbolRefAttr):
                    other.add(ir.FlatSymbolRefAttr(op.attributes[key]).value)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return addressed - other


def _bytes_of(op: ir.Operation) -> np.ndarray | None:
    """The initializer's bytes, if `op` is a constant global worth storing as bytes."""
    if "constant" not in op.attributes or "value" not in op.attributes:
        return None
    value = op.attributes["value"]
    if not isinstance(value, ir.DenseElementsAttr) or value.is_splat:
        return None
    shaped = ir.ShapedType(value.type)
    alignment = op.attributes["alignment"].value if "alignment" in op.attributes else 0
    if not stored_as_bytes(shaped.element_type, math.prod(shaped.shape), alignment):
        return None  # before NumPy reads it: NumPy has no bf16
    return np.asarray(value).reshape(-1).view(np.int8)


def _retype(op: ir.Operation, data: np.ndarray) -> None:
    """`op` holds `data` (its initializer's bytes) as an i8 array. The bytes become a resource
    blob, not a dense attribute, which would copy and hash them into the context (~1 GB/s: half
    a second for a 135M-parameter model). The blob reads them where the old attribute keeps
    them (the context's storage, which lives as long as the blob: both go with the context),
    through a buffer that holds no reference to that attribute: its Python object holds the
    context, which would then never be freed."""
    i8 = ir.IntegerType.get_signless(8, op.context)
    name = ir.StringAttr(op.attributes["sym_name"]).value
    if not _owns_its_data(data):  # the attribute's storage, not a copy NumPy made
        data = np.frombuffer((ctypes.c_int8 * data.size).from_address(data.ctypes.data), np.int8)
    op.attributes["value"] = ir.DenseResourceElementsAttr.get_from_buffer(
        data, name, ir.RankedTensorType.get([data.size], i8), context=op.context
    )
    op.attributes["global_type"] = ir.TypeAttr.get(
        ir.Type.parse(f"!llvm.array<{data.size} x i8>", op.context)
    )


def _owns_its_data(array: np.ndarray) -> bool:
    """Whether `array`'s memory is NumPy's own (a copy), not a buffer it views."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array.flags.owndata
