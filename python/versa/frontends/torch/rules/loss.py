"""Losses: NLLLoss and CrossEntropyLoss (class indices or probabilities, weights, ignore_index,
label smoothing), and the elementwise losses torch.export keeps whole (BCE, smooth L1, Huber,
margin and embedding losses, Poisson NLL), each in PyTorch's formula.

The target's log-probability is one gather per target (`nn.gather`, take_along_axis), not a
one-hot product over the classes: C times less work, and a -inf log-probability of another
class (masked logits) cannot turn the sum into -inf · 0 = NaN. Cross-entropy picks the logit
and subtracts the row's log-sum-exp, so log_softmax's C-wide result is never written.
"""

import math

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from ..types import is_float
from .common import as_tensor, element, promoted, rank, shape
from .elementwise import _softplus
from .nn import gather, log_softmax
from .reduce import pairwise_distance


def _nll(node: Node, logp, target, weight, reduction: int, ignore_index: int):
    """-logp[n, target[n], ...] · weight[target] (0 where target == ignore_index), reduced as torch
    does (0 none, 1 mean over the weights of the counted targets, 2 sum)."""
    return _nll_and_total(node, _picked(node, logp, target), target, weight, reduction, ignore_index)[0]


def _picked(node: Node, values, target):
    """values[n, target[n], d1, ...]: the class axis (1) taken at each target (clamped into it:
    an ignore_index reads some class, whose value the caller discards)."""
    if rank(values) == 1:  # one unbatched sample: values [C], a 0-d target
        picked = gather(node, values, 0, vb.reshape(as_tensor(node, target, "i64"), [1]))
        return vb.reshape(picked, [])
    t = vb.reshape(as_tensor(node, target, "i64"), [shape(target)[0], 1, *shape(target)[1:]])
    return vb.reshape(gather(node, values, 1, t), list(shape(target)))


def _nll_and_total(node: Node, picked, target, weight, reduction: int, ignore_index: int):
    """The loss of the targets' log-probabilities `picked` and nll_loss_forward's total_weight
    (the counted targets' weights, which the backward of the mean divides by; 0 for an
    unreduced batch, as PyTorch's)."""
    t = as_tensor(node, target, "i64")
    keep = vb.compare(t, node.constant(ignore_index, "i64"), predicate="ne")
    zero = node.constant(0.0, element(picked))
    w = node.constant(1.0, element(picked)) if weight is None else vb.gather(weight, t, axis=0)
    chosen = vb.select(keep, vb.broadcast_to(w, list(shape(t))) if weight is None else w, zero)
    losses = vb.select(keep, vb.neg(vb.mul(picked, chosen)), zero)  # never an ignored -inf · 0
    if reduction == 0 and rank(t) > 0:
        return losses, node.constant(0.0, element(picked))
    total_weight = vb.reduce_sum(chosen, axes=list(range(rank(chosen))))
    if reduction == 0:
        return losses, total_weight
    total = vb.reduce_sum(losses, axes=list(range(rank(losses))))
    return (total if reduction == 2 else vb.div(total, total_weight)), total_weight


@rule("torch.aten.nll_loss_nd", "torch.aten.nll_loss2d")
def nll_loss(node: Node, logp, target, weight=None, reduction=1, ignore_index=-100):
    return _nll(node, logp, target, weight, reduction, ignore_index)


@rule("torch.aten.nll_loss_forward", "torch.aten.nll_loss2d_forward")
def nll_loss_forward(node: Node, logp, target, weight=None, reduction=1, ignore_index=-100):
    return list(_nll_and_total(node, _picked(node, logp, target), target, weight, reduction, ignore_index))


@rule("torch.aten.nll_loss_backward", "torch.aten.nll_loss2d_backward")
def nll_loss_backward(node: Node, grad, logp, target, weight, reduction: int, ignore_index: int, total):
    """d loss / d logp: -grad · weight[t] at each target's class (the gradient is C wide, so here
    the one-hot select is the output itself), 0 elsewhere and at ignored targets; the mean
    divides by total_weight. (torch-mlir lowers the 1-d form, not the 2-d one.)"""
    axis = 0 if rank(logp) == 1 else 1  # an unbatched sample: logp [C], a 0-d target
    c = shape(logp)[axis]
    classes = [1] * rank(logp)
    classes[axis] = c
    t = as_tensor(node, target, "i64")
    t = vb.reshape(t, [1] if axis == 0 else [shape(target)[0], 1, *shape(target)[1:]])
    hit = vb.compare(t, node.constant(np.arange(c).reshape(classes), "i64"), predicate="eq")
    hit = vb.logical_and(hit, vb.compare(t, node.constant(ignore_index, "i64"), predicate="ne"))
    scale = vb.neg(grad if reduction != 1 else vb.div(grad, total))
    if reduction == 0:
        scale = vb.reshape(scale, list(shape(t)))
    if weight is not None:
        scale = vb.mul(scale, vb.reshape(weight, classes))
    zero = node.constant(0.0, element(logp))
    return vb.select(hit, vb.broadcast_to(scale, list(shape(logp))), zero)


@rule("torch.aten.cross_entropy_loss")
def cross_entropy(node: Node, x, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    if is_float(element(target)):
        return _cross_entropy_probabilities(node, x, target, weight, reduction, label_smoothing)
    d = 0 if rank(x) == 1 else 1  # the class axis (an unbatched sample has only it)
    if not label_smoothing:  # log_softmax at the targets only: x[t] - max - log Σ exp(x - max)
        top = vb.reduce_max(x, axes=[d], keepdims=True)
        total = vb.reduce_sum(vb.exp(vb.sub(x, top)), axes=[d])
        shifted = vb.sub(_picked(node, x, target), vb.reshape(top, list(shape(target))))
        logp = vb.sub(shifted, vb.log(total))
        return _nll_and_total(node, logp, target, weight, reduction, ignore_index)[0]
    logp = log_softmax(node, x, d)
    loss = _nll(node, logp, target, weight, reduction, ignore_index)
    if weight is not None:
        raise Unsupported("cross_entropy with label_smoothing and class weights")
    keep = vb.compare(as_tensor(node, target, "i64"), node.constant(ignore_index, "i64"), predicate="ne")
    smooth = vb.select(keep, vb.neg(vb.reduce_sum(logp, axes=[d])), node.constant(0.0))
    every = list(range(rank(smooth)))
    if reduction == 1:
        count = vb.reduce_sum(vb.cast(keep, logp.type.element_type), axes=every)
        smooth = vb.div(vb.reduce_sum(smooth, axes=every), count)
    elif reduction == 2:
        smooth = vb.reduce_sum(smooth, axes=every)
    c = shape(x)[d]
    return vb.add(
        vb.mul(loss, node.constant(1.0 - label_smoothing)), vb.mul(smooth, node.constant(label_smoothing / c))
    )


def _cross_entropy_probabilities(node: Node, x, target, weight, reduction: int, label_smoothing: float):
    """-Σ_c w_c · t_c · log_softmax(x)_c, t smoothed towards 1/C; the mean is over the batch
    (every element but the class axis), not over the weights."""
    d = 0 if rank(x) == 1 else 1  # the class axis (an unbatched sample has only it)
    c = shape(x)[d]
    logp = log_softmax(node, x, d)
    if label_smoothing:
        target = vb.add(
            vb.mul(target, node.constant(1.0 - label_smoothing)), node.constant(label_smoothing / c)
        )
    terms = vb.mul(logp, target)
    if weight is not None:
        classes = [1] * rank(x)
        classes[d] = c
        terms = vb.mul(terms, vb.reshape(weight, classes))
    losses = vb.neg(vb.reduce_sum(terms, axes=[d]))
    if reduction == 1:
        every = list(range(rank(losses)))
        return vb.div(vb.reduce_sum(losses, axes=every), node.constant(float(np.prod(shape(losses)))))
    return _reduce(node, losses, reduction)


def _reduce(node: Node, losses, reduction: int):
    """torch's reduction enum: 0 none, 1 mean, 2 sum (over every element)."""
    if reduction == 0:
        return losses
    every = list(range(rank(losses)))
    return vb.reduce_mean(losses, axes=every) if reduction == 1 else vb.reduce_sum(losses, axes=every)


@rule("torch.aten.binary_cross_entropy")
def binary_cross_entropy(node: Node, p, target, weight=None, reduction=1):
    """-w · (t · max(log p, -100) + (1 - t) · max(log(1 - p), -100)): PyTorch clamps each log
    at -100, so p = 0 or 1 gives a finite loss."""
    p, target = promoted(node, p, target)
    floor = node.constant(-100.0)
    log_p = vb.max(vb.log(p), floor)
    log_q = vb.max(vb.log(vb.sub(node.constant(1.0), p)), floor)
    losses = vb.neg(vb.add(vb.mul(target, log_p), vb.mul(vb.sub(node.constant(1.0), target), log_q)))
    return _reduce(node, losses if weight is None else vb.mul(losses, weight), reduction)


@rule("torch.aten.binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(node: Node, x, target, weight=None, pos_weight=None, reduction=1):
    """(1 - t) · x + (1 + (pos_weight - 1) · t) · softplus(-x), PyTorch's overflow-free form."""
    x, target = promoted(node, x, target)
    log_weight = node.constant(1.0)
    if pos_weight is not None:
        log_weight = vb.add(vb.mul(vb.sub(pos_weight, node.constant(1.0)), target), node.constant(1.0))
    losses = vb.add(
        vb.mul(vb.sub(node.constant(1.0), target), x), vb.mul(log_weight, _softplus(node, vb.neg(x)))
    )
    return _reduce(node, losses if weight is None else vb.mul(losses, weight), reduction)


@rule("torch.aten.smooth_l1_loss")
def smooth_l1_loss(node: Node, x, target, reduction=1, beta=1.0):
    d = vb.abs(vb.sub(*promoted(node, x, target)))
    if beta == 0:
        return _reduce(node, d, reduction)
    quadratic = vb.mul(vb.mul(d, d), node.constant(0.5 / beta))
    linear = vb.sub(d, node.constant(0.5 * beta))
    return _reduce(
        node, vb.select(vb.compare(d, node.constant(beta), predicate="lt"), quadratic, linear), reduction
    )


@rule("torch.aten.huber_loss")
def huber_loss(node: Node, x, target, reduction=1, delta=1.0):
    d = vb.abs(vb.sub(*promoted(node, x, target)))
    quadratic = vb.mul(vb.mul(d, d), node.constant(0.5))
    linear = vb.mul(vb.sub(d, node.constant(0.5 * delta)), node.constant(delta))
    return _reduce(
        node, vb.select(vb.compare(d, node.constant(delta), predicate="lt"), quadratic, linear), reduction
    )


@rule("torch.aten.soft_margin_loss")
def soft_margin_loss(node: Node, x, target, reduction=1):
    x, target = promoted(node, x, target)
    return _reduce(node, _softplus(node, vb.neg(vb.mul(x, target))), reduction)


@rule("torch.aten.margin_ranking_loss")
def margin_ranking_loss(node: Node, a, b, target, margin=0.0, reduction=1):
    a, b, target = promoted(node, a, b, target)
    losses = vb.relu(vb.add(vb.neg(vb.mul(target, vb.sub(a, b))), node.constant(margin)))
    return _reduce(node, losses, reduction)


def _where_target(node: Node, target, value: float, x):
    """x where target == value, else 0."""
    hit = vb.compare(target, node.constant(value, element(target)), predicate="eq")
    return vb.select(hit, x, node.constant(0.0))


@rule("torch.aten.hinge_embedding_loss")
def hinge_embedding_loss(node: Node, x, target, margin=1.0, reduction=1):
    (x,) = promoted(node, x)
    clamped = vb.relu(vb.sub(node.constant(margin), x))
    ne = vb.compare(target, node.constant(1, element(target)), predicate="ne")
    ne_neg = vb.compare(target, node.constant(-1, element(target)), predicate="ne")
    losses = vb.add(vb.select(ne, clamped, node.constant(0.0)), vb.select(ne_neg, x, node.constant(0.0)))
    return _reduce(node, losses, reduction)


@rule("torch.aten.cosine_embedding_loss")
def cosine_embedding_loss(node: Node, a, b, target, margin=0.0, reduction=1):
    """1 - cos(a, b) where target is 1, max(0, cos - margin) where -1; PyTorch's 1e-12 in each norm."""
    a, b = promoted(node, a, b)
    last = [rank(a) - 1]
    eps = node.constant(1e-12)
    dot = vb.reduce_sum(vb.mul(a, b), axes=last)
    norms = vb.mul(
        vb.add(vb.reduce_sum(vb.mul(a, a), axes=last), eps),
        vb.add(vb.reduce_sum(vb.mul(b, b), axes=last), eps),
    )
    cos = vb.div(dot, vb.sqrt(norms))
    positive = _where_target(node, target, 1, vb.sub(node.constant(1.0), cos))
    negative = _where_target(node, target, -1, vb.relu(vb.sub(cos, node.constant(margin))))
    return _reduce(node, vb.add(positive, negative), reduction)


@rule("torch.aten.triplet_margin_loss")
def triplet_margin_loss(
    node: Node, anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1
):
    d_pos = pairwise_distance(node, anchor, positive, p, eps)
    d_neg = pairwise_distance(node, anchor, negative, p, eps)
    if swap:
        d_neg = vb.min(d_neg, pairwise_distance(node, positive, negative, p, eps))
    return _reduce(node, vb.relu(vb.add(vb.sub(d_pos, d_neg), node.constant(margin))), reduction)


@rule("torch.aten.poisson_nll_loss")
def poisson_nll_loss(node: Node, x, target, log_input=True, full=False, eps=1e-8, reduction=1):
    """exp(x) - t·x (log_input) or x - t·log(x + eps), plus Stirling's t·log t - t + ½·log(2πt)
    where t > 1 when `full`."""
    x, target = promoted(node, x, target)
    if log_input:
        losses = vb.sub(vb.exp(x), vb.mul(target, x))
    else:
        losses = vb.sub(x, vb.mul(target, vb.log(vb.add(x, node.constant(eps)))))
    if full:
        stirling = vb.add(
            vb.sub(vb.mul(target, vb.log(target)), target),
            vb.mul(vb.log(vb.mul(target, node.constant(2 * math.pi))), node.constant(0.5)),
        )
        above = vb.compare(target, node.constant(1.0), predicate="gt")
        losses = vb.add(losses, vb.select(above, stirling, node.constant(0.0)))
    return _reduce(node, losses, reduction)
