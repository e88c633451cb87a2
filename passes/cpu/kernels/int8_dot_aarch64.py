"""AArch64's byte dot products for `versa-int8-kernels`: NEON `sdot` / `udot` (FEAT_DotProd).

`sdot v.4s, a.16b, b.16b` adds to each i32 lane the sum of 4 byte products, s8 x s8 (`udot`:
u8 x u8): the shape of x86's `vpdpbusd` (4 lanes of G = 4), so the kernel text and the packing
are the x86 ones (`int8_dot.py`, `int8_pack.py`) with this `Isa`.

Bit-exact without any shift. The contraction this pass replaces already reads both operands in
one range (`versa_to_linalg/lowering/zero_points.py` flips the top bit of the operand stored in
the other one and moves its zero point by 128): qmatmul reads u8 x u8 (`cast_unsigned`, for
x86's vpmaddwd), qconv2d s8 x s8. So a matmul calls `udot`, a conv `sdot`, on the activations as
they are and the filter bytes as packed, accumulators starting at 0: each lane's products are
exactly the op's (|p| ≤ 255², four of them far from i32's range), and the sum wraps in i32 as the
reference's does. The u8 x s8 case (`usdot`, FEAT_I8MM) never arises, hence no +i8mm kernel;
vpdpbusd's ±128·ΣW start values (int8_pack.py) are not needed (`Isa.flips` is false).

The SVE target uses it too: its vectors are fixed at 128 bits (targets.py) and SVE CPUs have
NEON. An SVE kernel (`llvm.aarch64.sve.sdot.nxv4i32`) would need panels of 4·vscale filters,
which packing at compile time cannot know.
"""

from versa import targets

from .int8_isa import Isa

NEON_DOT = Isa(
    "llvm.aarch64.neon.sdot.v4i32.v16i8", 4, "i8", 4, unsigned_intrinsic="llvm.aarch64.neon.udot.v4i32.v16i8"
)


def aarch64_isa(target: targets.Target) -> Isa | None:
    """sdot/udot where the target names FEAT_DotProd (`+dotprod`), else the portable path."""
    return NEON_DOT if target.has("dotprod") else None
