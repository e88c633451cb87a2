"""nn.EmbeddingBag / F.embedding_bag forward: gathered rows summed, averaged or maxed per bag.

Bags are runs of the flat index list that start at `offsets`. Row n belongs to bag b when
offsets[b] <= n < offsets[b + 1] (the list's end for the last bag), so membership is a [bags, n]
comparison of an iota against the offsets: a sum is that one-hot matrix times the gathered rows
(a matmul the codegen vectorizes), a max a masked reduction over n. O(bags · n · dim), fine for
the bag sizes models use; the other results (offset2bag, bag sizes, argmax) only feed the
backward, which stays eager: a training graph that returns them for it runs this op eagerly
(`Refused`), and the rest of the graph compiles.
"""

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, Refused, Unsupported, rule
from .common import as_tensor, element, rank, shape

SUM, MEAN, MAX = 0, 1, 2


def _membership(node: Node, indices, offsets, include_last_offset: bool):
    """[bags, n] i1: row n is in bag b (flat indices with offsets, or one bag per row of 2-d indices)."""
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
        bags = count - 1 if include_last_offset else count
        starts = vb.reshape(vb.slice(offsets, starts=[0], limits=[bags], strides=[1]), [bags, 1])
        if include_last_offset:
            ends = vb.slice(offsets, starts=[1], limits=[count], strides=[1])
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
    return inside, n


@rule("torch.aten.embedding_bag.padding_idx", "torch.aten._embedding_bag", "torch.aten.embedding_bag")
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
    inside, n = _membership(node, indices, offsets, bool(include_last_offset))
    flat = vb.reshape(as_tensor(node, indices, "i64"), [n])
    rows = vb.gather(weight, flat, axis=0)  # [n, dim]
    if per_sample_weights is not None:
        rows = vb.mul(rows, vb.reshape(per_sample_weights, [n, 1]))
    if padding_idx is not None and padding_idx >= 0:  # padding rows count in no bag
        counted = vb.compare(flat, node.constant(padding_idx, "i64"), predicate="ne")
        inside = vb.logical_and(inside, vb.reshape(counted, [1, n]))
    elem = types.element_type(element(weight))
    if mode == MAX:
        dim = shape(weight)[1]
        lowest = node.constant(float("-inf"), element(weight))
        members = vb.reshape(inside, [*shape(inside), 1])
        picked = vb.select(members, vb.reshape(rows, [1, n, dim]), lowest)
        out = vb.reduce_max(picked, axes=[1])
        empty = vb.compare(out, lowest, predicate="eq")  # an empty bag is 0, as PyTorch's
        out = vb.select(empty, node.constant(0.0, element(weight)), out)
    else:
        one_hot = vb.cast(inside, elem)
        out = vb.matmul(one_hot, rows)
        if mode == MEAN:
            count = vb.max(
                vb.reduce_sum(one_hot, axes=[1], keepdims=True), node.constant(1.0, element(weight))
            )
            out = vb.div(out, count)
    extra = Refused("embedding_bag's offset2bag, bag sizes and argmax (only its backward reads them)")
    return [out, extra, extra, extra]
