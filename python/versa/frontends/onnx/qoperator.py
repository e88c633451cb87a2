"""QOperator models (ORT's `quantize_static(quant_format=QOperator)`: QLinearConv, QLinearMatMul,
and ORT's com.microsoft QGemm, QLinearAdd, ...) rewritten to the QDQ form before shape inference:

    QLinearConv(x, sx, zx, w, sw, zw, sy, zy, B)
    →  QuantizeLinear(Conv(DequantizeLinear(x, sx, zx), DequantizeLinear(w, sw, zw){axis=0},
                           DequantizeLinear(B, f32(sx·sw), 0){axis=0}), sy, zy)

so that one form, QuantizeLinear / DequantizeLinear around float ops, reaches `quantized.py`
and the quantized-contraction fold, which makes qconv2d / qmatmul + requantize of it again.
Nothing is lost: ONNX defines QLinearConv / QLinearMatMul this way (the int32 bias in units of
sx·sw, which the fold rounds back to the same integers), and the fold's requantization rounds
once as ORT's does (its multiplier differs in the last f32 bit at most). ORT's QLinearAdd
(and Mul, the average pools, ...) computes in its own fixed arithmetic; through float ops a
result can differ by one step from ORT's where a value lies near a rounding midpoint.

Before shape inference, because onnx does not infer com.microsoft ops: afterwards every value
of the rewritten graph is typed. Other com.microsoft QLinear* ops are left to torch-mlir,
which refuses them by name.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from versa.diagnostics import CompileError, Diagnostic

# op: (float op, input triples (data, scale, zero point) as first indices, output (scale, zero
# point) index or None (a float result), bias index or None, the attributes the float op takes)
_CONV = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")
_POOL = ("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides")
_FORMS = {
    "QLinearConv": ("Conv", (0, 3), 6, 8, _CONV),
    "QLinearMatMul": ("MatMul", (0, 3), 6, None, ()),
    "QGemm": ("Gemm", (0, 3), 7, 6, ("transA", "transB")),
    "QLinearAdd": ("Add", (0, 3), 6, None, ()),
    "QLinearMul": ("Mul", (0, 3), 6, None, ()),
    "QLinearGlobalAveragePool": ("GlobalAveragePool", (0,), 3, None, ()),
    "QLinearAveragePool": ("AveragePool", (0,), 3, None, _POOL),
    "QLinearLeakyRelu": ("LeakyRelu", (0,), 3, None, ("alpha",)),
    "QLinearSigmoid": ("Sigmoid", (0,), 3, None, ()),
}
_DOMAINS = {"QLinearConv": "", "QLinearMatMul": ""}  # the others: com.microsoft


def _refuse(node: onnx.NodeProto, why: str) -> CompileError:
    return CompileError([Diagnostic("error", f"{node.op_type} '{node.name}': {why}")])


def _attr(node: onnx.NodeProto, name: str, default=None):
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def _given(node: onnx.NodeProto, index: int) -> str:
    return node.input[index] if len(node.input) > index else ""


class _Rewrite:
    def __init__(self, graph: onnx.GraphProto):
        self.graph, self.nodes = graph, []
        self.constants = {t.name: t for t in graph.initializer}
        for node in graph.node:
            if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
                self.constants[node.output[0]] = node.attribute[0].t

    def array(self, name: str) -> np.ndarray | None:
        return numpy_helper.to_array(self.constants[name]) if name in self.constants else None

    def constant(self, name: str, array: np.ndarray) -> str:
        tensor = numpy_helper.from_array(np.asarray(array), name)
        self.graph.initializer.append(tensor)
        self.constants[name] = tensor
        return name

    def dequantize(self, node: onnx.NodeProto, first: int, axis: int) -> str:
        out = f"{node.output[0]}__versa_in{first}"
        inputs = [i for i in (node.input[first], node.input[first + 1], _given(node, first + 2)) if i]
        self.nodes.append(helper.make_node("DequantizeLinear", inputs, [out], axis=axis))
        return out

    def bias(self, node: onnx.NodeProto, index: int) -> str:
        """The int32 bias in units of f32(sx·sw) (per channel), dequantized: a constant."""
        x_scale, w_scale = self.array(node.input[1]), self.array(node.input[4])
        if x_scale is None or w_scale is None:
            raise _refuse(node, "a bias with computed input or weight scales")
        unit = (x_scale.astype(np.float64) * w_scale.astype(np.float64)).astype(np.float32).reshape(-1)
        base = f"{node.output[0]}__versa_bias"
        scale = self.constant(f"{base}_scale", unit if unit.size > 1 else unit.reshape(()))
        zero = self.constant(f"{base}_zero", np.zeros(unit.shape if unit.size > 1 else (), np.int32))
        self.nodes.append(
            helper.make_node("DequantizeLinear", [node.input[index], scale, zero], [base], axis=0)
        )
        return base

    def rewrite(self, node: onnx.NodeProto) -> None:
        op, triples, output, bias, kept = _FORMS[node.op_type]
        if node.op_type == "QGemm" and _attr(node, "alpha", 1.0) != 1.0:
            raise _refuse(node, "alpha other than 1")
        if _attr(node, "channels_last", 0):
            raise _refuse(node, "channels_last (NHWC) is not supported")
        inputs = []
        for i, first in enumerate(triples):  # the weight's scales run along its output channels
            axis = 0 if op == "Conv" or (op == "Gemm" and _attr(node, "transB", 0)) else -1
            inputs.append(self.dequantize(node, first, axis if i == 1 else 1))
        if bias is not None and _given(node, bias):
            inputs.append(self.bias(node, bias))
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name in kept}
        if output is None or not _given(node, output):  # QGemm without y_scale: a float result
            self.nodes.append(helper.make_node(op, inputs, list(node.output), name=node.name, **attrs))
            return
        y = f"{node.output[0]}__versa_float"
        self.nodes.append(helper.make_node(op, inputs, [y], name=node.name, **attrs))
        quantized = [y, node.input[output], _given(node, output + 1)]
        self.nodes.append(helper.make_node("QuantizeLinear", [i for i in quantized if i], list(node.output)))


def to_qdq(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` with its QOperator ops in QDQ form; unchanged (the same object) without any."""
    nodes = proto.graph.node
    if not any(n.op_type in _FORMS and n.domain == _DOMAINS.get(n.op_type, "com.microsoft") for n in nodes):
        return proto
    rewrite = _Rewrite(proto.graph)
    for node in list(nodes):
        if node.op_type in _FORMS and node.domain == _DOMAINS.get(node.op_type, "com.microsoft"):
            rewrite.rewrite(node)
        else:
            rewrite.nodes.append(node)
    del proto.graph.node[:]
    proto.graph.node.extend(rewrite.nodes)
    return proto
