"""versa-byte-globals: constant weights reach LLVM as byte arrays, not arrays of numbers.

LLVM's AsmPrinter writes a ConstantDataArray of i8 with one `emitBytes` of the whole buffer,
but one of f32 (or any other element type) element by element through the MC streamer. A
model's weights are hundreds of MB of f32: HF GPT-2 small's 500 MB took 7.5 of its 7.9 s of
JIT time (LLVM -O0 with every function body removed: 7.5 s; the same globals as bytes: 1.9 s;
no globals: 0.01 s). So every constant global with a dense numeric initializer becomes an
`!llvm.array<N x i8>` of the same bytes, its alignment kept:

    llvm.mlir.global private constant @w(dense<[...]> : tensor<589824xf32>) {alignment = 64}
        : !llvm.array<589824 x f32>
  → llvm.mlir.global private constant @w(dense<"0x..."> : tensor<2359296xi8>) {alignment = 64}
        : !llvm.array<2359296 x i8>

Nothing else changes: with opaque pointers a global is only its address (`llvm.mlir.addressof`),
and every access names its own element type (`llvm.getelementptr ... : f32`, `llvm.load ... ->
f32`), so the code reads the same bytes as before. A global used other than through its address
is left alone, as are splats (a fill, cheap already), i1 (bit-packed in MLIR's storage) and
globals without the alignment of their element (an i8 array would drop it to 1). Runs on the
llvm dialect, after `convert-func-to-llvm`.
"""

from dataclasses import dataclass

import numpy as np
from versa.mlir import ir

from ..common.base import Pass

MIN_BYTES = 4096  # smaller globals: not worth a rewrite


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
    element = ir.ShapedType(value.type).element_type
    if not isinstance(element, ir.F32Type | ir.F64Type | ir.F16Type | ir.IntegerType):
        return None
    if isinstance(element, ir.IntegerType) and element.width not in (16, 32, 64):
        return None  # i8 is bytes already; i1 is bit-packed
    array = np.asarray(value)
    natural = array.dtype.itemsize
    alignment = op.attributes["alignment"].value if "alignment" in op.attributes else 0
    if array.nbytes < MIN_BYTES or alignment < natural:
        return None
    return np.ascontiguousarray(array).view(np.int8).reshape(-1)


def _retype(op: ir.Operation, data: np.ndarray) -> None:
    op.attributes["value"] = ir.DenseElementsAttr.get(data, context=op.context)
    op.attributes["global_type"] = ir.TypeAttr.get(
        ir.Type.parse(f"!llvm.array<{data.size} x i8>", op.context)
    )
