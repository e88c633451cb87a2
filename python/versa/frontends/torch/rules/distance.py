"""torch.cdist and its gradient, following torch's two CPU algorithms so the rounding matches:

    p = 2 through matmul  (compute_mode 1, or the default when either side has more than 25
                          points): one matmul of augmented rows [-2·x1, |x1|², 1] · [x2, 1, |x2|²],
                          clamped at 0, then sqrt (torch's _euclidean_dist)
    otherwise, direct     the [..., P, R, M] differences reduced per p (0: nonzero count, 1: sum of
                          |d|, 2: root of sum of squares, inf: max |d|, else (sum |d|^p)^(1/p))

_cdist_backward (what autograd differentiates _cdist_forward with, for x1 and, transposed, x2):
sum over R of grad · ∂dist/∂x1, each p's derivative as torch's kernel writes it (0 where the
distance is 0).
"""

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from .common import element, rank, shape

INF = float("inf")


def _uses_matmul(p: float, compute_mode, points: int, others: int) -> bool:
    return p == 2 and (compute_mode == 1 or (compute_mode in (None, 0) and (points > 25 or others > 25)))


def _squares(x):
    return vb.reduce_sum(vb.mul(x, x), axes=[rank(x) - 1], keepdims=True)


def _euclidean(node: Node, x1, x2):
    ones1 = vb.broadcast_to(node.constant(1.0), [*shape(x1)[:-1], 1])
    ones2 = vb.broadcast_to(node.constant(1.0), [*shape(x2)[:-1], 1])
    left = vb.concat([vb.mul(x1, node.constant(-2.0)), _squares(x1), ones1], axis=rank(x1) - 1)
    right = vb.concat([x2, ones2, _squares(x2)], axis=rank(x2) - 1)
    perm = [*range(rank(right) - 2), rank(right) - 1, rank(right) - 2]
    squared = vb.matmul(left, vb.transpose(right, perm=perm))
    return vb.sqrt(vb.max(squared, node.constant(0.0)))


def _differences(x1, x2):
    """[..., P, R, M]: x1[..., p, :] - x2[..., r, :]."""
    a = vb.reshape(x1, [*shape(x1)[:-1], 1, shape(x1)[-1]])
    b = vb.reshape(x2, [*shape(x2)[:-2], 1, *shape(x2)[-2:]])
    return vb.sub(a, b)


def _direct(node: Node, diff, p: float):
    last = [rank(diff) - 1]
    if p == 0:
        nonzero = vb.compare(diff, node.constant(0.0), predicate="ne")
        return vb.reduce_sum(vb.select(nonzero, node.constant(1.0), node.constant(0.0)), axes=last)
    magnitude = vb.abs(diff)
    if p == 1:
        return vb.reduce_sum(magnitude, axes=last)
    if p == 2:
        return vb.sqrt(vb.reduce_sum(vb.mul(diff, diff), axes=last))
    if p == INF:
        return vb.reduce_max(magnitude, axes=last)
    total = vb.reduce_sum(vb.pow(magnitude, node.constant(float(p))), axes=last)
    return vb.pow(total, node.constant(1.0 / p))


@rule("torch.aten.cdist", "torch.aten._cdist_forward")
def cdist(node: Node, x1, x2, p=2.0, compute_mode=None):
    if element(x1) != "f32" or element(x2) != "f32":
        raise Unsupported(f"cdist of {element(x1)}")
    if p < 0:
        raise Unsupported(f"cdist with p={p}")
    if _uses_matmul(p, compute_mode, shape(x1)[-2], shape(x2)[-2]):
        return _euclidean(node, x1, x2)
    return _direct(node, _differences(x1, x2), p)


def _sign(node: Node, x):
    negative = vb.select(
        vb.compare(x, node.constant(0.0), predicate="lt"), node.constant(-1.0), node.constant(0.0)
    )
    return vb.select(vb.compare(x, node.constant(0.0), predicate="gt"), node.constant(1.0), negative)


@rule("torch.aten._cdist_backward")
def cdist_backward(node: Node, grad, x1, x2, p, dist):
    diff = _differences(x1, x2)  # [..., P, R, M]
    g = vb.reshape(grad, [*shape(grad), 1])
    d = vb.reshape(dist, [*shape(dist), 1])
    zero = node.constant(0.0)
    at_zero = vb.compare(d, zero, predicate="eq")
    if p == 0:
        return vb.broadcast_to(zero, list(shape(x1)))
    if p == 1:
        term = vb.mul(g, _sign(node, diff))
    elif p == 2:
        term = vb.select(at_zero, zero, vb.div(vb.mul(g, diff), d))
    elif p == INF:
        peak = vb.compare(vb.abs(diff), d, predicate="eq")
        term = vb.select(peak, vb.mul(g, _sign(node, diff)), zero)
    else:  # sign(d)·|d|^(p-1)·grad / dist^(p-1); below p = 1 a zero difference gives 0
        scaled = vb.div(vb.pow(vb.abs(diff), node.constant(p - 1.0)), vb.pow(d, node.constant(p - 1.0)))
        term = vb.mul(vb.mul(g, _sign(node, diff)), scaled)
        if p < 1:
            at_zero = vb.logical_or(at_zero, vb.compare(diff, zero, predicate="eq"))
        term = vb.select(at_zero, zero, term)
    total = vb.reduce_sum(term, axes=[rank(term) - 2])  # over R: [..., P, M]
    extra = rank(total) - rank(x1)
    broadcast = [
        i for i in range(rank(total)) if i < extra or (shape(x1)[i - extra] == 1 and shape(total)[i] != 1)
    ]
    if broadcast:  # x1's batch dims broadcast against x2's: sum back to x1's shape
        total = vb.reduce_sum(total, axes=broadcast, keepdims=True)
        total = vb.reshape(total, list(shape(x1)))
    return total
