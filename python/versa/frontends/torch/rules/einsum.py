"""torch.einsum of any number of operands, contracted pairwise left to right (as torch does
without opt_einsum) into `versa.matmul`s:

    "bclhn,bcshn,bhcls,bcshp->bclhp"
        C·B   over n (batch b c h)      -> bchls
        ·Lm   nothing to contract       -> bchls   (a broadcast multiplication)
        ·X    over s (batch b c h)      -> bchlp   -> transposed to bclhp

Before each pair, a letter only one side has and nothing later needs is summed out; a letter
both have is a batch dim if a later operand or the output needs it, else it is contracted.
Ellipses become fresh letters (right-aligned; a size-1 dim broadcasts). Refused, for torch-mlir's
lowering: integer operands and a letter repeated within one operand (a diagonal).
"""

import math
from dataclasses import dataclass

from versa.dialects import builders as vb
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import element, shape, transpose

_FRESH = 0x100  # ellipsis dims become the letters from here (never in an equation)


@dataclass(frozen=True)
class _Term:
    letters: str
    value: ir.Value


def _parse(equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """Each operand's letters and the output's, with ellipses spelled out."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(ranks):
        raise Unsupported(f"einsum '{equation}' with {len(ranks)} operands")
    widths = [r - (len(t) - 3) for t, r in zip(inputs, ranks, strict=True) if "..." in t]
    fresh = "".join(chr(_FRESH + i) for i in range(max(widths, default=0)))
    spelled = []
    for t, r in zip(inputs, ranks, strict=True):
        width = r - (len(t) - 3) if "..." in t else 0
        spelled.append(t.replace("...", fresh[len(fresh) - width :]))
    if arrow:
        return spelled, rhs.replace("...", fresh)
    counts = "".join(spelled)
    return spelled, fresh + "".join(sorted(c for c in set(counts) if counts.count(c) == 1 and c not in fresh))


def _sum_out(term: _Term, keep: set[str]) -> _Term:
    gone = [i for i, c in enumerate(term.letters) if c not in keep]
    if not gone:
        return term
    letters = "".join(c for c in term.letters if c in keep)
    return _Term(letters, vb.reduce_sum(term.value, axes=gone))


def _arranged(term: _Term, order: str, dims: list[int]) -> ir.Value:
    """term's value transposed to `order` and reshaped to `dims`."""
    perm = [term.letters.index(c) for c in order]
    value = term.value if perm == sorted(perm) else transpose(term.value, perm)
    return value if list(shape(value)) == dims else vb.reshape(value, dims)


def _pair(a: _Term, b: _Term, keep: set[str], sizes: dict[str, int]) -> _Term:
    """a·b summed over the letters both have and `keep` lacks."""
    a = _sum_out(a, keep | set(b.letters))
    b = _sum_out(b, keep | set(a.letters))
    batch = "".join(c for c in a.letters if c in b.letters and c in keep)
    inner = "".join(c for c in a.letters if c in b.letters and c not in keep)
    left = "".join(c for c in a.letters if c not in b.letters)
    right = "".join(c for c in b.letters if c not in a.letters)
    size = [sizes[c] for c in batch + left + right]
    if not inner:  # an outer product along left x right: a broadcast multiplication
        lhs = _arranged(a, batch + left, [*(sizes[c] for c in batch + left), *[1] * len(right)])
        rhs = _arranged(
            b, batch + right, [*(sizes[c] for c in batch), *[1] * len(left), *(sizes[c] for c in right)]
        )
        return _Term(batch + left + right, vb.mul(lhs, rhs))
    m, k, n = (math.prod(sizes[c] for c in part) for part in (left, inner, right))
    lead = [math.prod(sizes[c] for c in batch)] if batch else []
    product = vb.matmul(
        _arranged(a, batch + left + inner, [*lead, m, k]), _arranged(b, batch + inner + right, [*lead, k, n])
    )
    return _Term(batch + left + right, vb.reshape(product, size) if list(shape(product)) != size else product)


def _sizes(inputs: list[str], operands: list[ir.Value]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for letters, value in zip(inputs, operands, strict=True):
        if len(set(letters)) != len(letters):
            raise Unsupported(f"einsum with a repeated index in '{letters}' (a diagonal)")
        for c, n in zip(letters, shape(value), strict=True):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise Unsupported(f"einsum index '{c}' of sizes {sizes[c]} and {n}")
            sizes[c] = max(sizes.get(c, 1), n)
    return sizes


@rule("torch.aten.einsum")
def einsum(node: Node, equation, operands, path=None):
    if any(not types.is_float(element(x)) for x in operands):
        raise Unsupported("einsum of integer tensors")
    inputs, output = _parse(equation, [len(shape(x)) for x in operands])
    sizes = _sizes(inputs, operands)
    terms = []
    for letters, value in zip(inputs, operands, strict=True):
        full = [sizes[c] for c in letters]
        terms.append(_Term(letters, value if list(shape(value)) == full else vb.broadcast_to(value, full)))
    later = [set("".join(t.letters for t in terms[i + 1 :])) for i in range(len(terms))]
    current = _sum_out(terms[0], set(output) | later[0])
    for i, term in enumerate(terms[1:], start=1):
        current = _pair(current, term, set(output) | later[i], sizes)
    current = _sum_out(current, set(output))
    return _arranged(current, output, [sizes[c] for c in output])
