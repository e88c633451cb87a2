"""A matmul whose B is a constant weight, packed once at compile time (versa-pack-weights).

The FP32 matmul strategy (matmul.py) copies B's kc x nc cache block into register panels on
every call where that pays (`MatmulStrategy.packs`): a linear layer's 768x3072 weights, 9 MB,
are packed again each call, and where too few rows reuse a block (a 1x1 conv at 7x7: 49 rows)
they are not packed and the kernel reads B's rows N·4 bytes apart. A constant B is packed here
once instead, as ONNX Runtime and OpenVINO do:

    B [K, N]  ->  panels [N/nr][K][nr]      (nr: the register tile's width, from the target)

and the matmul becomes a contraction over (panel p, row m, lane l, k) that reads it in place,
its C [M, N] viewed as [M, N/nr, nr] (a `tensor.expand_shape`: the same bytes):

    C[m, p, l] += A[m, k] · Bp[p, k, l]         linalg.generic, marked `versa.packed_b`

So every register tile reads one contiguous run of K·nr floats. The matmul strategy takes this
contraction as a batch matmul over panels (`packed_form`: batch = panels, n = nr) with B never
copied; its cache block over the batch dim is `panels` panels (the nc of the unpacked form),
so the loop order stays Goto's (panel block, k block, m block, then panel, row tile, k).
"""

import numpy as np
from versa.mlir import ir
from versa.targets import Target

MARK = "versa.packed_b"  # on the packed contraction: the matmul strategy's batch is its panels


def packed_form(op: ir.Operation) -> tuple[int, int, int, int] | None:
    """(panels, M, nr, K) of a contraction versa-pack-weights built, else None."""
    if op.name != "linalg.generic" or MARK not in op.attributes or len(op.operands) != 3:
        return None
    (m, k), (panels, _, nr) = (ir.RankedTensorType(v.type).shape for v in op.operands[:2])
    return panels, m, nr, k


def constant_weight(value: ir.Value) -> ir.Operation | None:
    """The `arith.constant` holding `value` as dense f32 elements, else None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    if not isinstance(owner.operation.attributes["value"], ir.DenseElementsAttr):
        return None  # a dense_resource blob: not read here
    element = ir.RankedTensorType(value.type).element_type
    return owner.operation if isinstance(element, ir.F32Type) else None


def has_constant_b(op: ir.Operation) -> bool:
    """Whether `op` is a static 2-D matmul whose B is a constant f32 weight."""
    if op.name != "linalg.matmul" or constant_weight(op.operands[1]) is None:
        return False
    return all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands)


def prepacks(mm, target: Target) -> bool:
    """Whether the analytic choice packs a constant B at compile time (`mm`: the matmul's
    strategy without it): where it can, and B does not fit in L1 (read in place from L1, it
    costs nothing that packing would save)."""
    return can_prepack(mm) and mm.k * mm.n * 4 > target.l1


def can_prepack(mm) -> bool:
    """Whether `mm`'s B can be pre-packed: a matmul, not the row-by-row or dot-product kernels."""
    return not (mm.batch or mm.dot_width or mm.rows_outer or mm.panels)


def pack(weights: np.ndarray, nr: int) -> np.ndarray:
    """`weights` [K, N] as panels [ceil(N/nr), K, nr], contiguous; the last panel's columns
    past N are zeros (they add 0 to columns of C that are never read)."""
    k, n = weights.shape
    panels = -(-n // nr)
    padded = np.zeros((k, panels * nr), weights.dtype)
    padded[:, :n] = weights
    return np.ascontiguousarray(padded.reshape(k, panels, nr).transpose(1, 0, 2))
