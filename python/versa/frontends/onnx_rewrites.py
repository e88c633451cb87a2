"""ONNX forms torch-mlir's conversion gets wrong, or turns into what versa lacks, rewritten first.

Each rewrite in `REWRITES` takes one node of a graph whose shapes are inferred and static (the
shape arithmetic folded) and returns the nodes that replace it, or None to keep it:

    DepthToSpace{mode="CRD", blocksize=2}(x: [1, 8, 3, 5])
    →  Reshape(Transpose{perm=[0, 1, 4, 2, 5, 3]}(Reshape(x, [1, 2, 2, 2, 3, 5])), [1, 2, 6, 10])

`compute_f64_in_f32` then rewrites the whole graph: versa has no f64.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from versa.diagnostics import CompileError, Diagnostic

from .onnx_fold import static_shape


@dataclass
class _Scope:
    """The graph being rewritten: its value types, and where new initializers go."""

    graph: onnx.GraphProto
    types: dict[str, onnx.TypeProto.Tensor] = field(init=False)

    def __post_init__(self) -> None:
        graph = self.graph
        self.types = {v.name: v.type.tensor_type for v in (*graph.input, *graph.value_info, *graph.output)}

    def dims(self, name: str) -> list[int] | None:
        return static_shape(self.types.get(name))

    def element(self, name: str) -> int:
        return self.types[name].elem_type if name in self.types else TensorProto.FLOAT

    def constant(self, name: str, array: np.ndarray) -> str:
        self.graph.initializer.append(numpy_helper.from_array(array, name))
        return name


Rewrite = Callable[[onnx.NodeProto, _Scope], list[onnx.NodeProto] | None]


def _attr(node: onnx.NodeProto, name: str, default=None):
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def gemm_alpha_without_c(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """Gemm{alpha}(a, b) → Gemm{alpha}(a, b, 0): torch-mlir's conversion drops alpha when there is no C."""
    if (len(node.input) > 2 and node.input[2]) or _attr(node, "alpha", 1.0) == 1.0:
        return None
    zero = f"{node.output[0]}__versa_zero_c"
    scope.graph.initializer.append(helper.make_tensor(zero, scope.element(node.input[0]), [], [0]))
    del node.input[2:]
    node.input.append(zero)
    return [node]


def max_pool_flat_indices(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """MaxPool's indices → indices + (n · C + c) · H · W: ONNX's count over the whole N, C, H, W
    tensor, the torch ones torch-mlir's conversion gives restart at each plane."""
    dims = scope.dims(node.input[0])
    if len(node.output) < 2 or not node.output[1] or dims is None or len(dims) < 3:
        return None
    plane = int(np.prod(dims[2:]))
    offset = (np.arange(dims[0] * dims[1], dtype=np.int64) * plane).reshape(dims[:2] + [1] * (len(dims) - 2))
    flat, per_plane = node.output[1], f"{node.output[1]}__versa_per_plane"
    node.output[1] = per_plane
    add = helper.make_node("Add", [per_plane, scope.constant(f"{flat}__versa_offset", offset)], [flat])
    return [node, add]


def depth_to_space_crd(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """DepthToSpace{CRD}(x) → Reshape(Transpose{perm=[0, 1, 4, 2, 5, 3]}(Reshape(x, [N, C/b², b, b,
    H, W])), [N, C/b², H·b, W·b]). torch-mlir's conversion gets DCR right, but for CRD (torch's
    PixelShuffle export) it views x as DCR's [N, b, b, C/b², H, W]: right only where C/b² == b."""
    if _attr(node, "mode", b"DCR") != b"CRD":
        return None
    dims, b = scope.dims(node.input[0]), _attr(node, "blocksize")
    if dims is None or len(dims) != 4:
        message = f"DepthToSpace mode CRD at node '{node.name}' needs an input of static rank-4 shape"
        raise CompileError([Diagnostic("error", message)])
    (n, c, h, w), tag = dims, f"{node.output[0]}__versa_crd"
    split = scope.constant(f"{tag}_split", np.array([n, c // (b * b), b, b, h, w], np.int64))
    merged = scope.constant(f"{tag}_merged", np.array([n, c // (b * b), h * b, w * b], np.int64))
    return [
        helper.make_node("Reshape", [node.input[0], split], [f"{tag}_6d"]),
        helper.make_node("Transpose", [f"{tag}_6d"], [f"{tag}_t"], perm=[0, 1, 4, 2, 5, 3]),
        helper.make_node("Reshape", [f"{tag}_t", merged], [node.output[0]]),
    ]


def reduce_log_sum_exp_stable(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """ReduceLogSumExp(x) → Log(ReduceSum(Exp(x - m))) + m, m = ReduceMax(x) clipped to finite.
    torch-mlir's conversion sums exp(x) in f64 so that it does not overflow, and versa has no f64;
    subtracting the max keeps it from overflowing in x's own type."""
    x, y = node.input[0], node.output[0]
    dims = scope.dims(y)
    if dims is None or scope.element(x) not in (TensorProto.FLOAT, TensorProto.FLOAT16):
        return None
    dtype = helper.tensor_dtype_to_np_dtype(scope.element(x))
    tag = f"{y}__versa_lse"
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name != "keepdims"}
    axes = attrs.pop("axes", None)  # opsets before 18 (ReduceMax's too); later, the second input
    sum_axes = scope.constant(f"{tag}_axes", np.array(axes, np.int64)) if axes is not None else None
    if axes is None and len(node.input) > 1 and node.input[1]:
        sum_axes = node.input[1]
    lo = scope.constant(f"{tag}_lo", np.array(np.finfo(dtype).min, dtype))
    hi = scope.constant(f"{tag}_hi", np.array(np.finfo(dtype).max, dtype))
    summed = [f"{tag}_e"] if sum_axes is None else [f"{tag}_e", sum_axes]
    nodes = [
        helper.make_node("ReduceMax", list(node.input), [f"{tag}_max"], keepdims=1, axes=axes, **attrs),
        # an all -inf (or +inf) row: x - m would be nan; with m clipped, the result is -inf (+inf)
        helper.make_node("Clip", [f"{tag}_max", lo, hi], [f"{tag}_m"]),
        helper.make_node("Sub", [x, f"{tag}_m"], [f"{tag}_d"]),
        helper.make_node("Exp", [f"{tag}_d"], [f"{tag}_e"]),
        helper.make_node("ReduceSum", summed, [f"{tag}_s"], keepdims=1, **attrs),
        helper.make_node("Log", [f"{tag}_s"], [f"{tag}_l"]),
        helper.make_node("Add", [f"{tag}_l", f"{tag}_m"], [f"{tag}_kept"]),
    ]
    shape = scope.constant(f"{tag}_shape", np.array(dims, np.int64))
    return [*nodes, helper.make_node("Reshape", [f"{tag}_kept", shape], [y])]


REWRITES: dict[str, Rewrite] = {
    "Gemm": gemm_alpha_without_c,
    "MaxPool": max_pool_flat_indices,
    "DepthToSpace": depth_to_space_crd,
    "ReduceLogSumExp": reduce_log_sum_exp_stable,
}


def rewrite(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (static shapes) with `REWRITES` applied and f64 computed in f32, shapes re-inferred."""
    graph, nodes, changed = proto.graph, [], False
    scope = _Scope(graph)
    for node in graph.node:
        rule = REWRITES.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        new = rule(node, scope) if rule else None
        nodes.extend(new or [node])
        changed |= new is not None
    if changed:
        del graph.node[:]
        graph.node.extend(nodes)
    if compute_f64_in_f32(graph) or changed:  # new or retyped values: type them
        return onnx.shape_inference.infer_shapes(proto)
    return proto


def compute_f64_in_f32(graph: onnx.GraphProto) -> bool:
    """Every f64 tensor of `graph` and its subgraphs made f32, where no graph input or output is
    f64; whether any was. Exporters widen to f64 inside f32 models (torch.nan_to_num: Cast(to=DOUBLE)
    -> IsInf); versa has no f64, and the model's results are f32 whichever way they are computed.
    The cost: an intermediate past f32's range becomes inf, an integer past 2²⁴ inexact."""
    if any(v.type.tensor_type.elem_type == TensorProto.DOUBLE for v in (*graph.input, *graph.output)):
        return False
    return _demote(graph)


def _demote(graph: onnx.GraphProto) -> bool:
    changed = False
    for value in (*graph.input, *graph.output, *graph.value_info):
        if value.type.tensor_type.elem_type == TensorProto.DOUBLE:
            value.type.tensor_type.elem_type, changed = TensorProto.FLOAT, True
    for tensor in graph.initializer:
        changed |= _demote_tensor(tensor)
    for node in graph.node:
        for attr in node.attribute:
            if (
                attr.name in ("to", "dtype")
                and attr.type == onnx.AttributeProto.INT
                and attr.i == TensorProto.DOUBLE
            ):
                attr.i, changed = TensorProto.FLOAT, True  # Cast, EyeLike, RandomNormal...
            elif attr.type == onnx.AttributeProto.TENSOR:
                changed |= _demote_tensor(attr.t)  # Constant, ConstantOfShape
            for sub in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
                changed |= _demote(sub)
    return changed


def _demote_tensor(tensor: onnx.TensorProto) -> bool:
    if tensor.data_type != TensorProto.DOUBLE:
        return False
    tensor.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float32), tensor.name))
    return True
