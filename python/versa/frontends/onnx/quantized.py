"""ONNX's integer ops in one canonical form: QuantizeLinear / DequantizeLinear with constant
scales and zero points around float ops. The torch rules (`frontends/torch/rules/
quantized_onnx.py`) make versa.quantize / versa.dequantize of torch-mlir's conversion of that
form, and the quantized-contraction fold (passes/optimize/rules/fold_quantized.py) turns
dequantize → conv / matmul → quantize into versa.qconv2d / qmatmul + requantize:

    DequantizeLinear(int32 constant)   →  its f32 values, f32(b - z) * s as ORT computes them
    MatMulInteger(a, b, za, zb)        →  Cast<int32>(MatMul(DQ(a, 1, za), DQ(b, 1, zb)))
    ConvInteger(x, w, zx, zw)          →  Cast<int32>(Conv(DQ(x, 1, zx), DQ(w, 1, zw)))
        a zero point computed at run time (DynamicQuantizeLinear's) comes out of the contraction:
        (a - za)·(b - zb) = a·(b - zb) - za · Σ(b - zb), the sum a constant (a conv of ones)
    DynamicQuantizeLinear(x)           →  ORT's min/max arithmetic in float ops, rounded and
                                          clamped, then QuantizeLinear(·, 1, 0): exact
    MaxPool / Reshape / ... of 8 bits  →  the same op between DQ(·, 1, 0) and Q(·, 1, 0), exact
                                          (QOperator models move uint8 data)

QOperator ops (QLinearConv, QLinearMatMul, ORT's QGemm, QLinearAdd, ...) were rewritten to
this form before shape inference (`qoperator.py`).

Why rewrite at the ONNX level: torch-mlir converts each integer op to a form of its own (a
per-channel QLinearConv into float `sub`/`mul`, MatMulInteger into an si32 `matmul`, ConvInteger
and QLinearMatMul into `convolution`/`mm` of `!torch.quint8` tensors, a computed scale through
`aten.item`), so rules for its output would chase each; its QuantizeLinear / DequantizeLinear
forms are the only ones that carry the parameters as constants. (Versa's own nodes cannot pass
it: `torch-reduce-op-variants` marks every unknown `torch.operator` illegal.) An integer result
goes through f32 here: exact while |sum| < 2^24, as ORT's Cast to float that follows rounds
it anyway; the fold computes the contraction itself in i32.
"""

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

from versa.diagnostics import CompileError, Diagnostic

EIGHT_BITS = (TensorProto.UINT8, TensorProto.INT8)
# ops that only move, select or compare values: exact on the integers themselves
_DATA = {"MaxPool", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Identity", "Slice", "Concat"}


def _refuse(node: onnx.NodeProto, why: str) -> CompileError:
    return CompileError([Diagnostic("error", f"{node.op_type} '{node.name}': {why}")])


def _attr(node: onnx.NodeProto, name: str, default=None):
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


class _Graph:
    """The graph being rewritten: its types and constants, and the nodes and types it gains."""

    def __init__(self, proto: onnx.ModelProto):
        g = proto.graph
        self.graph, self.nodes, self.count = g, [], 0
        self.types = {v.name: v.type.tensor_type for v in (*g.input, *g.value_info, *g.output)}
        self.constants = {t.name: t for t in g.initializer}
        for node in g.node:  # Constant nodes too (torch's exporter writes some)
            if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
                self.constants[node.output[0]] = node.attribute[0].t

    def array(self, name: str) -> np.ndarray | None:
        tensor = self.constants.get(name)
        return None if tensor is None else numpy_helper.to_array(tensor)

    def element(self, name: str) -> int:
        if name in self.constants:
            return self.constants[name].data_type
        return self.types[name].elem_type if name in self.types else TensorProto.UNDEFINED

    def dims(self, name: str) -> list | None:
        if name in self.constants:
            return list(self.constants[name].dims)
        t = self.types.get(name)
        if t is None or not t.HasField("shape"):
            return None
        return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim]

    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}__versa_q{self.count}"

    def constant(self, base: str, array) -> str:
        name = self.fresh(base)
        self.graph.initializer.append(numpy_helper.from_array(np.asarray(array), name))
        self.constants[name] = self.graph.initializer[-1]
        return name

    def emit(self, op: str, inputs: list[str], elem: int, dims: list | None, out: str = "", **attrs) -> str:
        """A node of one result, typed `elem` `dims` (inference ran before it existed)."""
        out = out or self.fresh(inputs[0] or op)
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        if out not in self.types:
            info = helper.make_tensor_value_info(out, elem, dims)
            self.graph.value_info.append(info)
            self.types[out] = info.type.tensor_type
        return out

    def dequantize(self, name: str, zero: str = "") -> str:
        """DQ(name, 1, zero): the integers as exact f32 values."""
        zero = zero or self.constant(name, np.zeros((), helper.tensor_dtype_to_np_dtype(self.element(name))))
        return self.emit(
            "DequantizeLinear", [name, self.constant(name, np.float32(1)), zero], 1, self.dims(name)
        )


def _constant_parameters(g: _Graph, node: onnx.NodeProto) -> None:
    """Scales and zero points the rules can read: constants, one per tensor (or channel)."""
    given = [i for i in node.input[1:3] if i]
    if any(g.array(i) is None for i in given):
        raise _refuse(node, "scales or zero points computed at run time (Versa takes constants)")
    if _attr(node, "block_size", 0):
        raise _refuse(node, "blocked quantization (block_size) is not supported")


def _quantize(g: _Graph, node: onnx.NodeProto) -> None:
    elem = g.element(node.output[0])
    if elem not in EIGHT_BITS:
        raise _refuse(node, f"quantization to {TensorProto.DataType.Name(elem)} (uint8 and int8 only)")
    _constant_parameters(g, node)
    if g.array(node.input[1]).size > 1:
        raise _refuse(node, "per-channel quantization of a computed tensor (per tensor only)")
    g.nodes.append(node)


def _dequantize(g: _Graph, node: onnx.NodeProto) -> None:
    data, elem = node.input[0], g.element(node.input[0])
    _constant_parameters(g, node)
    if elem == TensorProto.INT32:  # a bias: a constant, made f32 here as ORT computes it
        values, scale = g.array(data), g.array(node.input[1])
        zero = g.array(node.input[2]) if len(node.input) > 2 and node.input[2] else np.zeros((), np.int32)
        if values is None:
            raise _refuse(node, "int32 data that is not a constant")
        axis = _attr(node, "axis", 1) % max(values.ndim, 1)
        shape = [-1 if i == axis else 1 for i in range(values.ndim)] if scale.size > 1 else []
        centred = (values.astype(np.int64) - zero.reshape(shape).astype(np.int64)).astype(np.float32)
        result = centred * scale.astype(np.float32).reshape(shape)
        g.emit("Constant", [], 1, list(values.shape), node.output[0], value=numpy_helper.from_array(result))
        return
    if elem not in EIGHT_BITS:
        raise _refuse(node, f"dequantization of {TensorProto.DataType.Name(elem)} (uint8 and int8 only)")
    g.nodes.append(node)


def _zero(g: _Graph, node: onnx.NodeProto, index: int) -> tuple[str, np.ndarray | None]:
    """(a contraction's zero point input, its constant value as a 0-d array, or None where it is
    computed); one value for every row or channel."""
    name = node.input[index] if len(node.input) > index else ""
    if not name:
        return "", np.zeros((), np.int64)
    values = g.array(name)
    if values is None:
        if g.dims(name) not in ([], [1]):
            raise _refuse(node, "a computed zero point that is not one value")
        return name, None
    if np.unique(values).size != 1:
        raise _refuse(node, "zero points that differ per row or channel")
    return g.constant(name, values.reshape(-1)[:1].reshape(())), values.reshape(-1)[0]


def _integer(g: _Graph, node: onnx.NodeProto) -> None:
    """MatMulInteger / ConvInteger as a float contraction of exactly dequantized integers."""
    for data in node.input[:2]:
        if g.element(data) not in EIGHT_BITS:
            raise _refuse(node, "operands that are not uint8 or int8")
    (za, za_value), (zb, zb_value) = _zero(g, node, 2), _zero(g, node, 3)
    b = g.array(node.input[1])
    if zb_value is None or (za_value is None and b is None):
        raise _refuse(node, "computed zero points (Versa takes one for a constant right operand only)")
    a = g.dequantize(node.input[0], za if za_value is not None else "")
    out_dims = g.dims(node.output[0])
    conv = node.op_type == "ConvInteger"
    if conv and (_attr(node, "auto_pad", b"NOTSET") not in (b"NOTSET", b"VALID") or b.ndim != 4):
        raise _refuse(node, "2-D convolutions with explicit pads only")
    kept = {at.name: helper.get_attribute_value(at) for at in node.attribute if at.name != "auto_pad"}
    y = g.emit("Conv" if conv else "MatMul", [a, g.dequantize(node.input[1], zb)], 1, out_dims, **kept)
    if za_value is None:  # a·(b - zb) - za · Σ(b - zb)
        centred = torch.from_numpy(b.astype(np.float64) - float(zb_value))
        if conv:
            ones = torch.ones(
                [1, b.shape[1] * _attr(node, "group", 1), *g.dims(node.input[0])[2:]], dtype=torch.float64
            )
            sums = _conv_of_ones(node, ones, centred)
        else:
            sums = centred.sum(0).numpy()
        correction = g.emit(
            "Mul", [g.dequantize(za), g.constant(za, sums.astype(np.float32))], 1, list(sums.shape)
        )
        y = g.emit("Sub", [y, correction], 1, out_dims)
    g.emit("Cast", [y], TensorProto.INT32, out_dims, node.output[0], to=TensorProto.INT32)


def _conv_of_ones(node: onnx.NodeProto, ones: torch.Tensor, w: torch.Tensor) -> np.ndarray:
    """Σ(w - zw) over the taps of each output position that fall inside the input."""
    pads = _attr(node, "pads", [0, 0, 0, 0])
    if pads[:2] != pads[2:]:
        ones = torch.nn.functional.pad(ones, [pads[1], pads[3], pads[0], pads[2]])
        pads = [0, 0, 0, 0]
    return torch.nn.functional.conv2d(
        ones,
        w,
        stride=_attr(node, "strides", [1, 1]),
        padding=pads[:2],
        dilation=_attr(node, "dilations", [1, 1]),
        groups=_attr(node, "group", 1),
    ).numpy()[0]


def _dynamic_quantize(g: _Graph, node: onnx.NodeProto) -> None:
    """ORT's DynamicQuantizeLinear (onnxruntime/core/providers/cpu/quantization): the range
    widened to hold 0, scale = (max - min) / 255 (1 where the range is empty), zero point =
    round_half_even(clamp(0 - min / scale, 0, 255)), y = saturate(rint(x / scale) + zero point)."""
    x, dims = node.input[0], g.dims(node.input[0])
    outputs = list(node.output) + [""] * (3 - len(node.output))
    y, scale, zero = (name or g.fresh(f"{x}_dynamic") for name in outputs)
    f32 = lambda v: g.constant(x, np.float32(v))  # noqa: E731
    lo = g.emit("Min", [g.emit("ReduceMin", [x], 1, [], keepdims=0), f32(0)], 1, [])
    hi = g.emit("Max", [g.emit("ReduceMax", [x], 1, [], keepdims=0), f32(0)], 1, [])
    span = g.emit("Sub", [hi, lo], 1, [])
    empty = g.emit("Equal", [span, f32(0)], TensorProto.BOOL, [])
    g.emit("Where", [empty, f32(1), g.emit("Div", [span, f32(255)], 1, [])], 1, [], scale)
    start = g.emit("Sub", [f32(0), g.emit("Div", [lo, scale], 1, [])], 1, [])
    z = g.emit("Round", [g.emit("Clip", [start, f32(0), f32(255)], 1, [])], 1, [])
    q = g.emit("Add", [g.emit("Round", [g.emit("Div", [x, scale], 1, dims)], 1, dims), z], 1, dims)
    q = g.emit("Clip", [q, f32(0), f32(255)], 1, dims)
    none = g.constant(x, np.uint8(0))
    g.emit("QuantizeLinear", [z, f32(1), none], TensorProto.UINT8, [], zero)
    g.emit("QuantizeLinear", [q, f32(1), none], TensorProto.UINT8, dims, y)


def _data(g: _Graph, node: onnx.NodeProto) -> None:
    """An op moving 8-bit values, on their exact f32 values."""
    inputs = [
        g.dequantize(i) if i and g.element(i) in EIGHT_BITS and i not in g.constants else i
        for i in node.input
    ]
    outputs = [g.fresh(o) for o in node.output]
    for out, name in zip(outputs, node.output, strict=True):
        info = helper.make_tensor_value_info(out, TensorProto.FLOAT, g.dims(name))
        g.graph.value_info.append(info)
    copy = helper.make_node(node.op_type, inputs, outputs, name=node.name)
    copy.attribute.extend(node.attribute)
    g.nodes.append(copy)
    for out, name in zip(outputs, node.output, strict=True):
        none = g.constant(name, np.zeros((), helper.tensor_dtype_to_np_dtype(g.element(name))))
        g.emit("QuantizeLinear", [out, g.constant(name, np.float32(1)), none], g.element(name), None, name)


_REWRITES = {
    "QuantizeLinear": _quantize,
    "DequantizeLinear": _dequantize,
    "MatMulInteger": _integer,
    "ConvInteger": _integer,
    "DynamicQuantizeLinear": _dynamic_quantize,
}


def canonical_qdq(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (shapes inferred) with its integer ops in the canonical form; unchanged without any."""
    g = _Graph(proto)
    if not any(n.op_type in _REWRITES for n in g.graph.node):
        return proto
    for node in g.graph.node:
        if node.domain in ("", "ai.onnx") and node.op_type in _REWRITES:
            _REWRITES[node.op_type](g, node)
        elif node.op_type in _DATA and node.input and g.element(node.input[0]) in EIGHT_BITS:
            _data(g, node)
        else:
            g.nodes.append(node)
    del g.graph.node[:]
    g.graph.node.extend(g.nodes)
    return proto
