"""Prefix scans other than cumsum: cumprod and logcumsumexp, as log-depth (Hillis-Steele) scans;
and their inverse, torch.diff (GPT-2's and Llama's mask code without an attention mask).

Step s = 1, 2, 4, ... combines each element with the one s places before it: after ceil(log2 n)
steps element i holds the combination of elements 0..i. Each step is two slices, one
elementwise combine and a concat; nothing is approximated:
    cumprod       multiplies (no exp(cumsum(log|x|)): zeros, signs, infinities stay exact). Each
                  output is a product tree of depth ceil(log2 n): relative error <= depth · 2^-24
                  in f32, below a sequential f32 product's (n · 2^-24); torch accumulates in f64.
    logcumsumexp  logaddexp(a, b) = max + log(1 + exp(min - max)), the stable pairwise form torch
                  uses too (an equal pair of infinities adds log 2, not NaN); absolute error about
                  depth · 2^-24 · max(|result|, 1) (there is no log1p: 1 + e rounds where e < 2^-24).
"""

from collections.abc import Callable

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from .common import axis, element, promoted, rank, require_float, shape


def _cut(x, d: int, start: int, limit: int):
    starts, limits = [0] * rank(x), list(shape(x))
    starts[d], limits[d] = start, limit
    return vb.slice(x, starts=starts, limits=limits)


def scan(x, d: int, combine: Callable):
    """The inclusive prefix scan of `x` along `d` with the associative `combine`."""
    if rank(x) == 0:
        return x
    n, step = shape(x)[d], 1
    while step < n:
        head = _cut(x, d, 0, step)  # already complete
        tail = combine(_cut(x, d, step, n), _cut(x, d, 0, n - step))
        x = vb.concat([head, tail], axis=d)
        step *= 2
    return x


@rule("torch.aten.cumprod")
def cumprod(node: Node, x, dim, dtype=None):
    (x,) = promoted(node, x)
    return scan(x, axis(dim, x), vb.mul)


def logaddexp(node: Node, a, b):
    """log(exp(a) + exp(b)) without overflow; -inf is its identity (exactly)."""
    hi, lo = vb.max(a, b), vb.min(a, b)
    zero = node.constant(0.0)
    gap = vb.select(vb.compare(lo, hi, predicate="eq"), zero, vb.sub(lo, hi))  # ±inf - ±inf: NaN
    return vb.add(hi, vb.log(vb.add(node.constant(1.0), vb.exp(gap))))


@rule("torch.aten.logcumsumexp")
def logcumsumexp(node: Node, x, dim):
    (x,) = promoted(node, x)
    require_float(x, "logcumsumexp")
    return scan(x, axis(dim, x), lambda a, b: logaddexp(node, a, b))


@rule("torch.aten.diff")
def diff(node: Node, x, n=1, dim=-1, prepend=None, append=None):
    """torch.diff: prepend, x and append joined along `dim`, then n times x[1:] - x[:-1] there
    (for bool tensors x[1:] != x[:-1], an xor, as torch). Exact: one subtraction per step, as
    eager's. A result empty along `dim` (n at least the joined length) is left to PyTorch."""
    if rank(x) == 0:
        raise Unsupported("diff of a 0-d tensor")
    d = axis(dim, x)
    joined = [t for t in (prepend, x, append) if t is not None]
    if any(rank(t) != rank(x) for t in joined):
        raise Unsupported("prepend/append of another rank than the input")
    x = vb.concat([promoted(node, t)[0] for t in joined], axis=d) if len(joined) > 1 else x
    if shape(x)[d] <= n:
        raise Unsupported("a diff empty along its dim")
    for _ in range(n):
        size = shape(x)[d]
        later, earlier = _cut(x, d, 1, size), _cut(x, d, 0, size - 1)
        if element(x) == "i1":  # xor: versa.and/or/not only
            x = vb.logical_and(vb.logical_or(later, earlier), vb.logical_not(vb.logical_and(later, earlier)))
        else:
            x = vb.sub(later, earlier)
    return x
