"""Gradients of the piecewise activations: relu's (threshold_backward), leaky_relu's, hardtanh's.

Each is one select, computed as eager computes it: grad and the input promoted to the result's
element type (an int64 grad of a float input is a float gradient; the importer retraces
threshold_backward so that its declared type says so, `importer.RETRACED`), the bounds taken
in that type (an integer input compares with int(threshold), truncated, as torch's kernel).
Without these rules the ops went to torch-mlir's linalg lowering, whose leaky_relu_backward
is wrong (grad + slope·x where x < 0, not grad·slope).
"""

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, rule
from .common import promoted


def _bound(node: Node, value: float):
    """`value` as a constant of the result's element type (integers: truncated, as torch)."""
    return node.constant(value if types.is_float(node.out.element) else int(value))


@rule("torch.aten.threshold_backward")
def threshold_backward(node: Node, grad, x, threshold):
    """0 where x <= threshold, else grad (a NaN x passes grad on, as eager)."""
    grad, x = promoted(node, grad, x)
    cut = vb.compare(x, _bound(node, threshold), predicate="le")
    return vb.select(cut, node.constant(0), grad)


@rule("torch.aten.leaky_relu_backward")
def leaky_relu_backward(node: Node, grad, x, slope, self_is_result=False):
    """grad where x > 0, else grad·slope (x may be the result: same sign, as eager assumes)."""
    grad, x = promoted(node, grad, x)
    positive = vb.compare(x, node.constant(0), predicate="gt")
    return vb.select(positive, grad, vb.mul(grad, node.constant(slope)))


@rule("torch.aten.hardtanh_backward")
def hardtanh_backward(node: Node, grad, x, low, high):
    """grad where low < x < high, else 0 (a NaN x: 0, as eager's vector kernel)."""
    grad, x = promoted(node, grad, x)
    inside = vb.logical_and(
        vb.compare(x, _bound(node, low), predicate="gt"), vb.compare(x, _bound(node, high), predicate="lt")
    )
    return vb.select(inside, grad, node.constant(0))
