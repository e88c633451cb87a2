"""What the integer dot-product kernels (`int8_dot.py`, `int8_depthwise.py`) compute with and
on: the instruction (`Isa`: vpdpbusd, vpmaddwd, AArch64's sdot/udot in `int8_dot_aarch64.py`)
and a contraction's shapes (`ConvShape`)."""

from dataclasses import dataclass

from versa.mlir import ir

from .int8_epilogue import Epilogue


@dataclass(frozen=True)
class Isa:
    """One way to multiply-accumulate bytes: `group` K elements of `element` per i32 lane."""

    intrinsic: str
    lanes: int  # i32 lanes per vector
    element: str  # i8 (vpdpbusd, sdot/udot) or i16 (vpmaddwd on widened operands)
    group: int  # K elements summed into one lane
    # Same-sign byte dot products (AArch64 sdot/udot): `intrinsic` is s8 x s8, this one u8 x u8,
    # so neither operand changes range. Empty: a mixed u8 x s8 one (vpdpbusd) or vpmaddwd.
    unsigned_intrinsic: str = ""

    @property
    def accumulates(self) -> bool:
        """vpdpbusd and sdot/udot add into their accumulator operand; vpmaddwd's products are
        added after."""
        return self.element == "i8"

    @property
    def flips(self) -> bool:
        """vpdpbusd multiplies u8 by s8: x's top bit flips, the packing's start values take the
        shift (int8_pack.py); sdot/udot read both operands in the range the op reads them."""
        return self.accumulates and not self.unsigned_intrinsic

    def intrinsics(self) -> tuple[str, ...]:
        return (self.intrinsic, self.unsigned_intrinsic) if self.unsigned_intrinsic else (self.intrinsic,)

    def call(self, unsigned: bool) -> str:
        """The intrinsic for operands read unsigned (u8) or signed."""
        return self.unsigned_intrinsic if unsigned and self.unsigned_intrinsic else self.intrinsic

    def declaration(self) -> str:
        v, w = f"vector<{self.lanes}xi32>", f"vector<{self.lanes * self.group}x{self.element}>"
        inputs = f"{v}, {w}, {w}" if self.accumulates else f"{w}, {w}"
        return "\n".join(f"func.func private @{name}({inputs}) -> {v}" for name in self.intrinsics())


ISAS = {
    "vnni512": Isa("llvm.x86.avx512.vpdpbusd.512", 16, "i8", 4),
    "vnni256": Isa("llvm.x86.avx512.vpdpbusd.256", 8, "i8", 4),
    "pmaddwd512": Isa("llvm.x86.avx512.pmaddw.d.512", 16, "i16", 2),
    "pmaddwd256": Isa("llvm.x86.avx2.pmadd.wd", 8, "i16", 2),
}


@dataclass(frozen=True)
class ConvShape:
    """What the kernel computes: x [n, h, w, c] (i8) → [n, oh, ow, fp] (i32), padded C and F."""

    x: tuple[int, int, int, int]
    window: tuple[int, int]
    out: tuple[int, int, int]  # n, oh, ow
    filters: int  # F padded to whole panels
    strides: tuple[int, int]
    dilations: tuple[int, int]
    channels: int  # C padded to a multiple of the group
    epilogue: Epilogue | None = None  # the consumer computed on each accumulator (int8_epilogue.py)
    shifted: bool = False  # x holds the signed values + 128 (u8: `int8_unflip.py`)
    # x's place (top, left) in the padded input the conv reads, every other element of which is
    # the byte `fill` (`int8_dot_borders.py`); None: x is the conv's input itself
    pad: tuple[int, int] = (0, 0)
    fill: int | None = None

    @property
    def element(self) -> str:
        """The output's element type: the epilogue's, else the i32 sums."""
        return self.epilogue.element if self.epilogue else "i32"

    def packed(self, isa: Isa, panel: int) -> str:
        kh, kw = self.window
        groups, width = self.channels // isa.group, panel * isa.group
        return f"tensor<{self.filters // panel}x{kh}x{kw}x{groups}x{width}x{isa.element}>"


def define_declaration(module: ir.Operation, isa: Isa) -> None:
    """The intrinsics' declarations that `module` lacks, at its top (functions named `llvm.*`)."""
    body = module.regions[0].blocks[0]
    names = {
        ir.StringAttr(o.attributes["sym_name"]).value for o in body.operations if "sym_name" in o.attributes
    }
    declaration = ir.Module.parse(isa.declaration(), module.context)
    for op in list(declaration.body.operations):
        if ir.StringAttr(op.attributes["sym_name"]).value not in names:
            op.operation.move_before(body.operations[0])
