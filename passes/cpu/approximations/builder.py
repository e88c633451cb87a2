"""The op builder the polynomial approximations of versa-fast-math are written with."""

from versa.mlir import arith, ir, math

from ...common.compute_types import with_element

_F = arith.CmpFPredicate


class Builder:
    """Constants and ops of one f32 (shaped or scalar) type `ftype` and its i32 twin `itype`
    (`approximations/trig.py` adds f64 and i64 twins through `compute_types.with_element`)."""

    def __init__(self, ftype: ir.Type):
        self.ftype = ftype
        self.itype = with_element(ftype, ir.IntegerType.get_signless(32))

    @staticmethod
    def constant(t: ir.Type, attr: ir.Attribute) -> ir.Value:
        """`attr` as a constant of type `t`, splat where `t` is shaped."""
        if isinstance(t, ir.ShapedType):
            attr = ir.DenseElementsAttr.get_splat(t, attr)
        return arith.constant(t, attr)

    def f(self, value: float) -> ir.Value:
        return self.constant(self.ftype, ir.FloatAttr.get_f32(value))

    def i(self, value: int) -> ir.Value:
        return self.constant(self.itype, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value))

    def horner(self, t: ir.Value, coefficients: list[float]) -> ir.Value:
        """c0 t^k + c1 t^(k-1) + ... + ck (highest degree first), one fma per step."""
        acc = self.f(coefficients[0])
        for c in coefficients[1:]:
            acc = math.fma(acc, t, self.f(c))
        return acc

    def clamp_keep_nan(self, x: ir.Value, lo: float, hi: float) -> ir.Value:
        """min(max(x, lo), hi) with ordered compares: a NaN passes through unchanged."""
        low, high = self.f(lo), self.f(hi)
        x = arith.select(arith.cmpf(_F.OLT, x, low), low, x)
        return arith.select(arith.cmpf(_F.OGT, x, high), high, x)

    def as_float(self, bits: ir.Value) -> ir.Value:
        return arith.bitcast(self.ftype, bits)

    def as_int(self, x: ir.Value) -> ir.Value:
        return arith.bitcast(self.itype, x)
