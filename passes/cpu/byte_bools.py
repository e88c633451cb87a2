"""versa-byte-bools: vectors of i1 read and written as one byte per element, as memrefs hold them.

A `memref<Nxi1>` stores a byte per element (LLVM's allocation size of i1), and NumPy's bools
are bytes too; but LLVM stores a `<16 x i1>` vector as 16 packed bits, so a vector load or store
of booleans that `convert-vector-to-llvm` emits would silently misread the memory. Pointers
are opaque in the LLVM dialect, so each such access becomes the same access of `<N x i8>`,
truncated after a load (the low bit: stored bytes are 0 or 1) and zero-extended before a store.
With this, comparisons, masks and selects on boolean tensors vectorize like any other type.

    %v = llvm.intr.masked.load %p, %m, %pass : (!llvm.ptr, vector<16xi1>, vector<16xi1>) -> vector<16xi1>
  → %b = llvm.intr.masked.load %p, %m, %pass8 : (..., vector<16xi8>) -> vector<16xi8>
    %v = llvm.trunc %b : vector<16xi8> to vector<16xi1>

The mask operands of masked accesses are registers, not memory, and stay i1.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect

# Each access: the position of the stored value among its operands (None for loads) and of
# the pass-through value that a masked load returns where its mask is off.
_ACCESSES = {
    "llvm.load": (None, None),
    "llvm.intr.masked.load": (None, 2),
    "llvm.intr.masked.gather": (None, 2),
    "llvm.store": (0, None),
    "llvm.intr.masked.store": (0, None),
    "llvm.intr.masked.scatter": (0, None),
}


def _bool_vector(t: ir.Type) -> bool:
    if not isinstance(t, ir.VectorType):
        return False
    element = ir.VectorType(t).element_type
    return isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1


def _bytes_of(t: ir.Type) -> ir.Type:
    v = ir.VectorType(t)
    return ir.VectorType.get(v.shape, ir.IntegerType.get_signless(8), scalable=v.scalable_dims)


def _cast(name: str, value: ir.Value, to: ir.Type) -> ir.Value:
    return ir.Operation.create(name, results=[to], operands=[value]).result


def _recreate(op: ir.Operation, operands: list[ir.Value], results: list[ir.Type]) -> ir.Operation:
    attributes = {name: op.attributes[name] for name in op.attributes}
    return ir.Operation.create(op.name, results=results, operands=operands, attributes=attributes)


def _rewrite(op: ir.Operation) -> bool:
    stored, passthrough = _ACCESSES[op.name]
    operands = list(op.operands)
    with ir.InsertionPoint(op), op.location:
        if stored is not None:
            if not _bool_vector(operands[stored].type):
                return False
            operands[stored] = _cast("llvm.zext", operands[stored], _bytes_of(operands[stored].type))
            _recreate(op, operands, [])
        else:
            if not _bool_vector(op.results[0].type):
                return False
            if passthrough is not None:
                operands[passthrough] = _cast(
                    "llvm.zext", operands[passthrough], _bytes_of(op.results[0].type)
                )
            loaded = _recreate(op, operands, [_bytes_of(op.results[0].type)]).result
            op.results[0].replace_all_uses_with(_cast("llvm.trunc", loaded, op.results[0].type))
    op.erase()
    return True


@dataclass(frozen=True)
class VersaByteBools(Pass):
    name = "versa-byte-bools"
    summary = "Load and store vectors of i1 as one byte per element (the memref layout), not packed bits"

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name in _ACCESSES):
            _rewrite(op)
