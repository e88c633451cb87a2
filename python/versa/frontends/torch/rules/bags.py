"""nn.EmbeddingBag / F.embedding_bag forward: gathered rows summed, averaged or maxed per bag.

Bags are runs of the flat index list that start at `offsets`. Row n belongs to bag b when
offsets[b] <= n < offsets[b + 1] (the list's end for the last bag), so membership is a [bags, n]
comparison of an iota against the offsets: a sum is that one-hot matrix times the gathered rows
(a matmul the codegen vectorizes), a max a masked reduction over n. O(bags · n · dim), fine for
the bag sizes models use. The other results only feed the backward; they are PyTorch's CPU
values (sum mode: an empty offset2bag unless there is a padding_idx, zero bag sizes; mean and
max: the bag of each row and the counted rows per bag; max: the weight row of each maximum),
so an eager backward would read what it expects. The backward (`_embedding_bag_backward`)
recomputes the bags from the offsets: each row's grad is its bag's (the membership matrix
transposed, times the output grad), scaled, then scatter-added into the weight rows.
"""

import numpy as np

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, Unsupported, rule
from .common import as_tensor, element, rank, shape

SUM, MEAN, MAX = 0, 1, 2


def _membership(node: Node, indices, offsets, include_last_offset: bool, bags: int | None = None):
    """([bags, n] i1: row n is in bag b, [bags, 1] i64: each bag's first row, n), from flat
    indices with offsets (`bags` of them, when the caller knows), or one bag per row of 2-d
    indices."""
    i64 = types.element_type("i64")
    if rank(indices) == 2:
        bags, length = shape(indices)
        n = bags * length
        starts = vb.reshape(vb.mul(vb.iota([bags], i64, axis=0), node.constant(length, "i64")), [bags, 1])
        ends = vb.add(starts, node.constant(length, "i64"))
    else:
        n = shape(indices)[0]
        offsets = as_tensor(node, offsets, "i64")
        count = shape(offsets)[0]
        bags = bags or (count - 1 if include_last_offset else count)
        starts = vb.reshape(vb.slice(offsets, starts=[0], limits=[bags], strides=[1]), [bags, 1])
        if count > bags:  # the offset after each bag's: include_last_offset
            ends = vb.slice(offsets, starts=[1], limits=[bags + 1], strides=[1])
        else:
            rest = [vb.slice(offsets, starts=[1], limits=[count], strides=[1])] if count > 1 else []
            ends = (
                vb.concat([*rest, node.constant([n], "i64")], axis=0) if rest else node.constant([n], "i64")
            )
        ends = vb.reshape(ends, [bags, 1])
    positions = vb.iota([1, n], i64, axis=1)
    inside = vb.logical_and(
        vb.compare(positions, starts, predicate="ge"), vb.compare(positions, ends, predicate="lt")
    )
    return inside, starts, n


def _counted(node: Node, inside, flat, padding_idx):
    """Membership without the rows equal to padding_idx (they count in no bag)."""
    if padding_idx is None or padding_idx < 0:
        return inside
    counted = vb.compare(flat, node.constant(padding_idx, "i64"), predicate="ne")
    return vb.logical_and(inside, vb.reshape(counted, [1, shape(flat)[0]]))


@rule(
    "torch.aten.embedding_bag.padding_idx",
    "torch.aten._embedding_bag",
    "torch.aten._embedding_bag_forward_only",
    "torch.aten.embedding_bag",
)
def embedding_bag(
    node: Node,
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=SUM,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    if mode not in (SUM, MEAN, MAX):
        raise Unsupported(f"embedding_bag mode {mode}")
    if rank(indices) not in (1, 2):
        raise Unsupported("embedding_bag with indices of rank > 2")
    inside, starts, n = _membership(node, indices, offsets, bool(include_last_offset))
    flat = vb.reshape(as_tensor(node, indices, "i64"), [n])
    rows = vb.gather(weight, flat, axis=0)  # [n, dim]
    if per_sample_weights is not None:
        rows = vb.mul(rows, vb.reshape(per_sample_weights, [n, 1]))
    inside = _counted(node, inside, flat, padding_idx)
    elem = types.element_type(element(weight))
    bags, dim = shape(inside)[0], shape(weight)[1]
    if mode == MAX:
        lowest = node.constant(float("-inf"), element(weight))
        members = vb.reshape(inside, [*shape(inside), 1])
        picked = vb.select(members, vb.reshape(rows, [1, n, dim]), lowest)
        out = vb.reduce_max(picked, axes=[1])
        empty = vb.compare(out, lowest, predicate="eq")  # an empty bag is 0, as PyTorch's
        out = vb.select(empty, node.constant(0.0, element(weight)), out)
        source = vb.gather(flat, vb.reduce_argmax(picked, axis=1), axis=0)  # [bags, dim] weight rows
        maximum = vb.select(empty, node.constant(0, "i64"), source)
    else:
        one_hot = vb.cast(inside, elem)
        out = vb.matmul(one_hot, rows)
        if mode == MEAN:
            count = vb.max(
                vb.reduce_sum(one_hot, axes=[1], keepdims=True), node.constant(1.0, element(weight))
            )
            out = vb.div(out, count)
    if mode == SUM:  # PyTorch's CPU sum fills in neither bag sizes nor (without padding) bags
        padded = padding_idx is not None and padding_idx >= 0
        offset2bag = _offset2bag(starts, n) if padded else node.constant(np.zeros(0), "i64")
        unset = [node.constant(np.zeros(_declared(node, i, (bags,))), "i64") for i in (2, 3)]
        return [out, offset2bag, *unset]
    counted_bags = vb.reduce_sum(vb.cast(inside, types.element_type("i64")), axes=[1])
    extras = [_offset2bag(starts, n), counted_bags, maximum if mode == MAX else counted_bags]
    return [out, *(_padded(node, i + 1, x) for i, x in enumerate(extras))]


def _padded(node: Node, index: int, value):
    """`value` with zero bags appended up to the shape torch declares for result `index`:
    embedding_bag.padding_idx's meta function counts include_last_offset's last offset as a bag
    (its CPU kernel does not)."""
    want, have = _declared(node, index, tuple(shape(value))), tuple(shape(value))
    if want == have:
        return value
    if len(want) != len(have) or want[0] < have[0] or want[1:] != have[1:]:
        raise Unsupported(f"embedding_bag result {index}: declared {list(want)}, computed {list(have)}")
    rest = node.constant(np.zeros((want[0] - have[0], *have[1:])), "i64")
    return vb.concat([value, rest], axis=0)


def _declared(node: Node, index: int, default: tuple) -> tuple:
    """The shape torch declares for result `index` (a sum's unset bag sizes: one per offset,
    the last one included, in embedding_bag.padding_idx), else `default`."""
    declared = node.results[index] if index < len(node.results) else None
    return tuple(declared.shape) if declared is not None else default


def _offset2bag(starts, n: int):
    """[n] i64: the bag of each row, the last bag that starts at or before it (PyTorch's)."""
    i64 = types.element_type("i64")
    begun = vb.compare(starts, vb.iota([1, n], i64, axis=1), predicate="le")  # [bags, n]
    return vb.sub(vb.reduce_sum(vb.cast(begun, i64), axes=[0]), vb.constant(np.ones(1, np.int64)))


@rule("torch.aten._embedding_bag_backward")
def embedding_bag_backward(
    node: Node,
    grad,
    indices,
    offsets,
    offset2bag,
    bag_size,
    maximum,
    num_weights,
    by_freq,
    mode,
    sparse,
    psw,
    *pad,
):
    """d out / d weight: row n of the bags' input gets its bag's grad (times its sample weight,
    over the bag's count for a mean; for a max only the maximum's row, per dim), scatter-added
    into the weight rows it read; padding rows get none. The bags come from the offsets (a sum's
    offset2bag is empty)."""
    if by_freq:
        raise Unsupported("embedding_bag's backward with scale_grad_by_freq")
    padding_idx = pad[0] if pad else None
    bags, dim = shape(grad)
    inside, _, n = _membership(node, indices, offsets, False, bags)
    flat = vb.reshape(as_tensor(node, indices, "i64"), [n])
    inside = _counted(node, inside, flat, padding_idx)
    elem = types.element_type(element(grad))
    zeros = vb.broadcast_to(node.constant(0.0, element(grad)), [num_weights, dim])
    if mode == MAX:  # grad[b, d] to weight[maximum[b, d], d], for the bags that are not empty
        filled = vb.compare(
            vb.reduce_sum(vb.cast(inside, elem), axes=[1], keepdims=True),
            node.constant(0.0, element(grad)),
            predicate="gt",
        )
        rows = vb.select(filled, as_tensor(node, maximum, "i64"), node.constant(num_weights, "i64"))
        columns = vb.broadcast_to(vb.iota([1, dim], types.element_type("i64"), axis=1), [bags, dim])
        where = vb.concat([vb.reshape(rows, [bags, dim, 1]), vb.reshape(columns, [bags, dim, 1])], axis=2)
        return vb.scatter(zeros, where, grad, reduction="add")
    one_hot = vb.cast(inside, elem)
    if mode == MEAN:
        count = vb.max(vb.reduce_sum(one_hot, axes=[1], keepdims=True), node.constant(1.0, element(grad)))
        grad = vb.div(grad, count)
    per_row = vb.matmul(vb.transpose(one_hot, perm=[1, 0]), grad)  # [n, dim]: 0 for uncounted rows
    if psw is not None:
        per_row = vb.mul(per_row, vb.reshape(psw, [n, 1]))
    return vb.scatter(zeros, vb.reshape(flat, [n, 1]), per_row, reduction="add")


@rule("torch.aten._embedding_bag_per_sample_weights_backward")
def per_sample_weights_backward(node: Node, grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    """d out / d per_sample_weights[n] = <grad of n's bag, weight[indices[n]]> (sum mode only);
    0 for padding rows."""
    if mode != SUM:
        raise Unsupported("per_sample_weights outside sum mode")
    bags, dim = shape(grad)
    inside, _, n = _membership(node, indices, offsets, False, bags)
    flat = vb.reshape(as_tensor(node, indices, "i64"), [n])
    inside = _counted(node, inside, flat, padding_idx)
    per_row = vb.matmul(vb.transpose(vb.cast(inside, types.element_type(element(grad))), perm=[1, 0]), grad)
    return vb.reduce_sum(vb.mul(per_row, vb.gather(weight, flat, axis=0)), axes=[1])
