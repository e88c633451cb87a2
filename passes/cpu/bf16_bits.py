"""versa-bf16-bits: in the llvm dialect, bf16 values are the i16 of their bits.

By the end of `lower-to-llvm`, bf16 is only stored, loaded and moved: its arithmetic and math
run in f32 and its roundings are integer code (`arith-emulate-unsupported-floats`,
`arith-expand{include-bf16}`). LLVM still sees `bfloat` types, though, and on CPUs without
AVX512-BF16 its x86 backend handles some moves of them through f32: a masked load or store of
`<8 x bfloat>`, a select of `<7 x bfloat>` against a constant that InstCombine made from our
bitcasts, each becomes a call of compiler-rt's `__truncsfbf2`, which neither the JIT nor a
library of ours can resolve. So every bf16 value becomes an i16 value of the same bits, and
LLVM never sees a `bfloat` it could convert:

    %v = llvm.load %p : !llvm.ptr -> vector<8xbf16>
    %s = llvm.select %m, %v, %w : vector<8xi1>, vector<8xbf16>
  → %v = llvm.load %p : !llvm.ptr -> vector<8xi16>
    %s = llvm.select %m, %v, %w : vector<8xi1>, vector<8xi16>

Constants get the same bits as i16 (MLIR's own folder of `arith.bitcast` computes them); the
entry block's arguments keep the function's signature behind a bitcast. A function that still
computes in bf16 (an op this pass cannot retype) is left as it is.
"""

from dataclasses import dataclass

from versa.mlir import PassManager, ir

from ..common.base import Pass

# Ops that read bf16 as a number (retyped, they would compute on integers); the masked
# accesses among the intrinsics only move bits.
_ARITHMETIC = ("llvm.f", "llvm.sitofp", "llvm.uitofp", "llvm.intr.")
_MOVES = ("llvm.freeze", "llvm.intr.masked.load", "llvm.intr.masked.store", "llvm.intr.masked.gather",
          "llvm.intr.masked.scatter")  # fmt: skip
_CONSTANTS = ("llvm.mlir.constant",)


def _bits(t: ir.Type) -> ir.Type | None:
    """The type with i16 for every bf16 in it (a scalar, a vector, an array of vectors); None
    for a type without bf16. Type text holds no number that could contain "bf16"."""
    text = str(t)
    return ir.Type.parse(text.replace("bf16", "i16")) if "bf16" in text else None


def _ops(region: ir.Region) -> list[ir.Operation]:
    found = []
    for block in region.blocks:
        for op in block.operations:
            found.append(op.operation)
            for inner in op.operation.regions:
                found.extend(_ops(inner))
    return found


def _computes_in_bf16(ops: list[ir.Operation]) -> bool:
    return any(
        op.name.startswith(_ARITHMETIC)
        and op.name not in _MOVES
        and any(_bits(v.type) for v in [*op.operands, *op.results])
        for op in ops
    )


def _constant_bits(value: ir.Attribute, context: ir.Context) -> ir.Attribute:
    """`value` (a bf16 scalar, vector or tensor constant) as the i16 constant of its bits,
    folded by MLIR's `arith.bitcast` folder in a scratch module."""
    kind = ir.DenseElementsAttr if isinstance(value, ir.DenseElementsAttr) else ir.FloatAttr
    typed = kind(value).type
    bits = _bits(typed)
    scratch = ir.Module.parse(
        f"func.func @f() -> {bits} {{\n  %c = arith.constant {value}\n"
        f"  %b = arith.bitcast %c : {typed} to {bits}\n  return %b : {bits}\n}}",
        context,
    )
    PassManager.parse("builtin.module(canonicalize)", context).run(scratch.operation)
    body = scratch.body.operations[0].regions[0].blocks[0]
    folded = body.operations[0]
    if folded.operation.name != "arith.constant":
        raise ValueError(f"arith.bitcast did not fold {value}")
    return folded.attributes["value"]


def _bitcast(value: ir.Value, to: ir.Type, where: ir.InsertionPoint, location: ir.Location) -> None:
    """Hand `value`'s users its bits, as `to`, instead."""
    cast = ir.Operation.create("llvm.bitcast", results=[to], operands=[value], loc=location, ip=where)
    value.replace_all_uses_except(cast.result, cast)


def _retype(function: ir.Operation, ops: list[ir.Operation]) -> None:
    entry = function.regions[0].blocks[0]
    for argument in entry.arguments:  # the signature stays: bits from the first op on
        if (bits := _bits(argument.type)) is not None:
            _bitcast(argument, bits, ir.InsertionPoint.at_block_begin(entry), function.location)
    for op in [function, *ops]:
        for region in op.regions:
            for block in region.blocks:
                for argument in block.arguments if block != entry else ():
                    if (bits := _bits(argument.type)) is not None:
                        argument.set_type(bits)
        if op == function:
            continue
        for result in op.results:
            if (bits := _bits(result.type)) is None:
                continue
            if op.name in _CONSTANTS:
                op.attributes["value"] = _constant_bits(op.attributes["value"], op.context)
            result.set_type(bits)
        if "elem_type" in op.attributes:  # a GEP's or alloca's element: i16 has bf16's size
            if (bits := _bits(ir.TypeAttr(op.attributes["elem_type"]).value)) is not None:
                op.attributes["elem_type"] = ir.TypeAttr.get(bits)
    for op in ops:  # bitcasts between bf16 and its bits are no-ops now
        if op.name == "llvm.bitcast" and op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()


@dataclass(frozen=True)
class VersaBf16Bits(Pass):
    name = "versa-bf16-bits"
    summary = "Retype bf16 values in the llvm dialect as the i16 of their bits (bf16 is only moved by then)"

    def run(self, module: ir.Operation) -> None:
        for op in module.regions[0].blocks[0].operations:
            function = op.operation
            if function.name != "llvm.func" or not function.regions[0].blocks:
                continue
            ops = _ops(function.regions[0])
            if not _computes_in_bf16(ops):
                _retype(function, ops)
