"""versa-gpu-transpose: transposes that move the innermost dimension, as a tiled GPU kernel.

`versa-gpu-map` gives a transpose one thread per output element: its writes are coalesced, its
reads a whole row apart, and on an H200 a 4096² f32 transpose ran at 25% of the copy
bandwidth. A permutation that keeps some leading dimensions and swaps the two groups after them
(NCHW → NHWC is (0, 2, 3, 1): N kept, C swapped with H·W) is a batch of 2-D transposes of the
collapsed groups, which `gpu_operands.transpose_kernel` does through 32 x 33 shared-memory tiles,
reading and writing whole rows. Smaller ones (a group under 32 elements) stay for versa-gpu-map.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir, memref

from ..common.base import Pass, collect
from ..common.kernel_text import splice
from ..common.memrefs import identity_layout
from .kernels.operands import TILE, transpose_kernel

ELEMENTS = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8")  # a shared-memory tile of them


def swapped_groups(permutation: list[int]) -> tuple[int, int] | None:
    """(p, q) where `permutation` keeps dims 0..p-1 and then lists q..r-1 before p..q-1, else None."""
    rank = len(permutation)
    p = 0
    while p < rank and permutation[p] == p:
        p += 1
    if p >= rank - 1:
        return None
    q = permutation[p]
    expected = list(range(p)) + list(range(q, rank)) + list(range(p, q))
    return (p, q) if permutation == expected else None


def _transposable(op: ir.Operation) -> bool:
    if op.name != "linalg.transpose":
        return False
    source, target = op.operands
    if not all(
        isinstance(v.type, ir.MemRefType) and ir.MemRefType(v.type).has_static_shape for v in (source, target)
    ):
        return False
    if not (identity_layout(source.type) and identity_layout(target.type)):
        return False
    if str(ir.MemRefType(source.type).element_type) not in ELEMENTS:
        return False
    groups = swapped_groups(list(ir.DenseI64ArrayAttr(op.attributes["permutation"])))
    if groups is None:
        return False
    shape = ir.MemRefType(source.type).shape
    return min(math.prod(shape[groups[0] : groups[1]]), math.prod(shape[groups[1] :])) >= TILE


def _collapsed(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    """`value` collapsed to one dimension per group (the identity when each group is one)."""
    shape = ir.MemRefType(value.type).shape
    sizes = [math.prod(shape[d] for d in group) for group in groups if group]
    element = ir.MemRefType(value.type).element_type
    reassociation = ir.ArrayAttr.get(
        [
            ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d) for d in g])
            for g in groups
            if g
        ]
    )
    return memref.CollapseShapeOp(ir.MemRefType.get(sizes, element), value, reassociation).result


@dataclass(frozen=True)
class VersaGpuTranspose(Pass):
    name = "versa-gpu-transpose"
    summary = "Transposes that move the innermost dimension as a tiled GPU kernel (32 x 33 shared tiles)"

    def run(self, module: ir.Operation) -> None:
        for count, op in enumerate(collect(module, _transposable)):
            source, target = op.operands
            rank = len(ir.MemRefType(source.type).shape)
            p, q = swapped_groups(list(ir.DenseI64ArrayAttr(op.attributes["permutation"])))
            lead = [list(range(p))] if p else []
            with ir.InsertionPoint(op), op.location:
                flat_source = _collapsed(source, lead + [list(range(p, q)), list(range(q, rank))])
                flat_target = _collapsed(
                    target, lead + [list(range(p, p + rank - q)), list(range(p + rank - q, rank))]
                )
            shape = ir.MemRefType(flat_source.type).shape
            batch, k, n = (shape[0] if p else 0), shape[-2], shape[-1]
            element = str(ir.MemRefType(source.type).element_type)
            name = f"versa_gpu_transpose_{count}"
            kernel, launch = transpose_kernel(name, batch, k, n, False, element)
            text = "\n".join(
                [
                    "module attributes {gpu.container_module} {",
                    kernel,
                    f"func.func private @launch(%B: {flat_source.type}, %Bt: {flat_target.type}) {{",
                    "  %one = arith.constant 1 : index",
                    launch,
                    "  return",
                    "}",
                    "}",
                ]
            )
            splice(op, text, [flat_source, flat_target])
