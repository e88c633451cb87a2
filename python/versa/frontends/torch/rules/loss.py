"""Losses: NLLLoss and CrossEntropyLoss (class indices, weights, ignore_index, label smoothing).

The target's class is picked by a one-hot select against the class axis (no gather), which
also gives the weight of each counted target for the mean.
"""

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Refused, Unsupported, rule
from ..types import is_float
from .common import as_tensor, element, rank, shape
from .nn import log_softmax


def _nll(node: Node, logp, target, weight, reduction: int, ignore_index: int):
    """-logp[n, target[n], ...] · weight[target] (0 where target == ignore_index), reduced as torch
    does (0 none, 1 mean over the weights of the counted targets, 2 sum); a one-hot select."""
    c = shape(logp)[1]
    classes = [1] * rank(logp)
    classes[1] = c
    t = vb.reshape(as_tensor(node, target, "i64"), [shape(target)[0], 1, *shape(target)[1:]])
    hit = vb.compare(t, node.constant(np.arange(c).reshape(classes), "i64"), predicate="eq")
    keep = vb.compare(t, node.constant(ignore_index, "i64"), predicate="ne")
    w = node.constant(np.ones(classes)) if weight is None else vb.reshape(weight, classes)
    chosen = vb.select(vb.logical_and(hit, keep), vb.broadcast_to(w, list(shape(logp))), node.constant(0.0))
    losses = vb.neg(vb.reduce_sum(vb.mul(logp, chosen), axes=[1]))
    if reduction == 0:
        return losses
    total = vb.reduce_sum(losses, axes=list(range(rank(losses))))
    if reduction == 2:
        return total
    return vb.div(total, vb.reduce_sum(chosen, axes=list(range(rank(chosen)))))


@rule("torch.aten.nll_loss_nd", "torch.aten.nll_loss2d")
def nll_loss(node: Node, logp, target, weight=None, reduction=1, ignore_index=-100):
    return _nll(node, logp, target, weight, reduction, ignore_index)


@rule("torch.aten.nll_loss_forward", "torch.aten.nll_loss2d_forward")
def nll_loss_forward(node: Node, logp, target, weight=None, reduction=1, ignore_index=-100):
    return [_nll(node, logp, target, weight, reduction, ignore_index), Refused("nll_loss total_weight")]


@rule("torch.aten.cross_entropy_loss")
def cross_entropy(node: Node, x, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    if is_float(element(target)):
        raise Unsupported("cross_entropy with class probabilities")
    logp = log_softmax(node, x, 1)
    loss = _nll(node, logp, target, weight, reduction, ignore_index)
    if not label_smoothing:
        return loss
    if weight is not None:
        raise Unsupported("cross_entropy with label_smoothing and class weights")
    keep = vb.compare(as_tensor(node, target, "i64"), node.constant(ignore_index, "i64"), predicate="ne")
    smooth = vb.select(keep, vb.neg(vb.reduce_sum(logp, axes=[1])), node.constant(0.0))
    every = list(range(rank(smooth)))
    if reduction == 1:
        count = vb.reduce_sum(vb.cast(keep, logp.type.element_type), axes=every)
        smooth = vb.div(vb.reduce_sum(smooth, axes=every), count)
    elif reduction == 2:
        smooth = vb.reduce_sum(smooth, axes=every)
    c = shape(x)[1]
    return vb.add(
        vb.mul(loss, node.constant(1.0 - label_smoothing)), vb.mul(smooth, node.constant(label_smoothing / c))
    )
