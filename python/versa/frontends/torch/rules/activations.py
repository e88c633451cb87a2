"""Elementwise ops beyond `elementwise`'s: shrinkage, floating-point remainders, hypot, xlogy.

torch.export keeps these whole and torch-mlir either has no lowering for them (fmod.Scalar,
hypot, xlogy) or gets one wrong (softshrink on negative inputs), so each is a short composition.
"""

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, rule
from .common import promoted


@rule("torch.aten.softshrink")
def softshrink(node: Node, x, lambd=0.5):
    """x - clamp(x, -λ, λ): x - λ above λ, x + λ below -λ, 0 between."""
    (x,) = promoted(node, x)
    return vb.sub(x, vb.clamp(x, min=-lambd, max=lambd))


@rule("torch.aten.fmod.Scalar", "torch.aten.fmod.Tensor")
def fmod(node: Node, a, b):
    """a - trunc(a / b) · b with the sign of a, corrected by one b where the rounded quotient
    was one off (|r| ≥ |b|, or r of the other sign than a), as C's fmod."""
    a, b = promoted(node, a, b)
    if not types.is_float(node.out.element):
        return vb.sub(a, vb.mul(vb.div(a, b), b))  # integer division truncates toward zero
    r = vb.sub(a, vb.mul(vb.trunc(vb.div(a, b)), b))
    zero = node.constant(0.0)
    step = vb.select(vb.compare(a, zero, predicate="lt"), vb.neg(vb.abs(b)), vb.abs(b))  # |b|·sign(a)
    too_far = vb.compare(vb.abs(r), vb.abs(b), predicate="ge")
    r = vb.select(too_far, vb.sub(r, step), r)
    wrong_sign = vb.compare(vb.mul(r, a), zero, predicate="lt")
    return vb.select(wrong_sign, vb.add(r, step), r)


@rule("torch.aten.hypot")
def hypot(node: Node, a, b):
    """m · sqrt((a/m)² + (b/m)²), m = max(|a|, |b|): no overflow for large inputs, 0 at (0, 0)."""
    a, b = (vb.abs(v) for v in promoted(node, a, b))
    m = vb.max(a, b)
    zero = node.constant(0.0)
    safe = vb.select(vb.compare(m, zero, predicate="eq"), node.constant(1.0), m)
    ra, rb = vb.div(a, safe), vb.div(b, safe)
    return vb.mul(m, vb.sqrt(vb.add(vb.mul(ra, ra), vb.mul(rb, rb))))


@rule("torch.aten.xlogy.Tensor")
def xlogy(node: Node, x, y):
    """x · log(y), 0 where x == 0 (even for y == 0), NaN where y is NaN."""
    x, y = promoted(node, x, y)
    product = vb.select(
        vb.compare(x, node.constant(0.0), predicate="eq"), node.constant(0.0), vb.mul(x, vb.log(y))
    )
    return vb.select(vb.compare(y, y, predicate="ne"), y, product)
