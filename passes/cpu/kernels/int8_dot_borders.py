"""Borders of the dot-product kernel (`int8_dot.py`) without a padded copy of its input.

qconv2d's lowering pads the input with the zero point every call (fills and an insert_slice,
`int8_borders.py`); the conv reading that copy costs a pass over the image before each conv
(ResNet-50's 3x3 convs, the 7x7 stem). Where the padding is that form, the kernel reads the
unpadded input x instead, the conv's padded coordinates x's shifted by (top, left): a tap
outside x reads the fill byte, so the i32 sum is the value the copy gave and the zero-point
terms after the kernel stay exact. Which output rows and pixel tiles read outside x is known
from the shape, so the kernel picks per tile (one `scf.if`): an interior tile reads x with no
checks, a border tile reads clamped rows and columns and selects the fill word where the
unclamped index is outside (`select`). Only the border tiles pay for the checks.
"""

from ...common.kernel_text import Text
from .int8_borders import Border, unpadded
from .int8_isa import ConvShape, Isa


def sole_padding(x, op) -> Border | None:
    """x's unpadded source where x is the zero-point padding and `op` its only reader: where
    the padded copy feeds something else too (the window sums of a weight zero point,
    `lower_qcontract._window_sums`), it is made anyway and the kernel reads it unchecked."""
    border = unpadded(x)
    if border is None:
        return None
    value = x
    while value != border.source:
        if len(list(value.uses)) != 1:
            return None
        owner = value.owner.operation
        if owner.name == "tensor.insert_slice":
            return border
        value = owner.operands[0]  # the crop's source
    return border


def placement(border: Border | None, shifted: bool) -> tuple[tuple[int, int], int | None]:
    """`ConvShape`'s (pad, fill) for `border`: the fill byte as x holds it (`shifted`: the u8
    bytes before the lowering's flip, `int8_unflip.py`)."""
    if border is None:
        return (0, 0), None
    return (border.top, border.left), border.fill ^ (-128 if shifted else 0)


def fill_word(isa: Isa, fill: int, shifted: bool) -> int:
    """The i32 that G fill elements make once read as the kernel reads x (flipped to u8 for
    vpdpbusd, widened to i16 for vpmaddwd: unsigned where x holds the u8 bytes), as signed."""
    if isa.element == "i8":
        byte = (fill & 0xFF) ^ (0x80 if isa.flips and not shifted else 0)
        word = byte * 0x01010101
    else:
        half = (fill & 0xFF) if shifted else fill & 0xFFFF
        word = half * 0x10001
    return word - (1 << 32) * (word >= 1 << 31)


def offset(expression: str, shift: int) -> str:
    """`expression - shift` as affine text."""
    return f"{expression} - {shift}" if shift >= 0 else f"{expression} + {-shift}"


def interior(t: Text, s: ConvShape, oh: str, w0: str, pixels: int) -> str:
    """An i1: output row `oh` and pixels `w0` .. `w0 + pixels - 1` read only inside x."""
    (_, h, w, _), (kh, kw) = s.x, s.window
    (sh, sw), (dh, dw), (top, left) = s.strides, s.dilations, s.pad
    bounds = [  # first and last output row / tile start whose reads stay inside x
        (oh, -(-top // sh), (h - 1 + top - (kh - 1) * dh) // sh),
        (w0, -(-left // sw), (w - 1 + left - (kw - 1) * dw) // sw - (pixels - 1)),
    ]
    checks = []
    for value, low, high in bounds:
        for predicate, bound in (("sge", low), ("sle", high)):
            check = t.fresh("in")
            t(f"{check} = arith.cmpi {predicate}, {value}, {t.c(bound)} : index")
            checks.append(check)
    while len(checks) > 1:
        both = t.fresh("in")
        t(f"{both} = arith.andi {checks[0]}, {checks[1]} : i1")
        checks = [both, *checks[2:]]
    return checks[0]


def clamped(t: Text, index: str, extent: int) -> tuple[str, str]:
    """`index` clamped into [0, extent) and an i1: whether it was inside already."""
    inside, low, high = t.fresh("in"), t.fresh("i"), t.fresh("i")
    t(f"{inside} = arith.cmpi ult, {index}, {t.c(extent)} : index")  # negative: a huge unsigned
    t(f"{low} = arith.maxsi {index}, {t.c(0)} : index")
    t(f"{high} = arith.minsi {low}, {t.c(extent - 1)} : index")
    return high, inside


def choose(t: Text, condition: str, tile_type: str, inside, outside) -> str:
    """`scf.if condition` yielding the tile `inside()` writes, else the one `outside()` writes."""
    result = t.fresh("tile")
    t(f"{result} = scf.if {condition} -> ({tile_type}) {{")
    t(f"  scf.yield {inside()} : {tile_type}")
    t("} else {")
    t(f"  scf.yield {outside()} : {tile_type}")
    t("}")
    return result
