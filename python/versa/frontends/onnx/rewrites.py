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

from .fold import forget_shapes, static_shape


@dataclass
class _Scope:
    """The graph being rewritten: its value types, and where new initializers go."""

    graph: onnx.GraphProto
    types: dict[str, onnx.TypeProto.Tensor] = field(init=False)
    stale: set[str] = field(default_factory=set)  # values onnx's inference typed wrongly

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


def pool_ceil_mode(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """MaxPool / AveragePool{ceil_mode=1} → the same pool at ceil_mode 0, its end pads those the
    last (partial) window reaches. torch-mlir's conversion pads the overhang but keeps
    count_include_pad, so an average divided a partial window by the whole kernel; MaxPool kept
    ceil_mode and failed in torch-mlir's linalg lowering where onnx's inferred shape was not
    torch's. The output size is torch's (and onnx's reference evaluator's): ceil((size + pads -
    span) / stride) + 1, less a last window that would start in the end padding, which onnx's
    shape inference still counts (that value's types are then inferred again). An average with
    count_include_pad divides by the window inside the input and its declared pads, never the
    overhang: the declared pads become a zero Pad, and the pool pads only the overhang, uncounted."""
    if not _attr(node, "ceil_mode", 0) or _attr(node, "auto_pad", b"NOTSET") not in (b"NOTSET", b""):
        return None
    dims, kernel = scope.dims(node.input[0]), _attr(node, "kernel_shape")
    if dims is None or kernel is None or len(dims) != len(kernel) + 2:
        return None
    n = len(kernel)
    strides, dilations = _attr(node, "strides", [1] * n), _attr(node, "dilations", [1] * n)
    pads = _attr(node, "pads", [0] * 2 * n)
    average = node.op_type == "AveragePool"
    if average and any(d != 1 for d in dilations):
        return None
    out, ends, floors = [], [], []
    for size, k, s, d, lo, hi in zip(dims[2:], kernel, strides, dilations, pads[:n], pads[n:], strict=True):
        span = d * (k - 1) + 1
        if size + lo + hi < span:
            return None
        o = -(-(size + lo + hi - span) // s) + 1
        o -= (o - 1) * s >= size + lo  # a window starting in the end padding is dropped
        end = max((o - 1) * s + span - size - lo, 0)  # the end padding the last window reaches
        if (size + lo + end - span) // s + 1 != o:
            return None
        out.append(o)
        ends.append(end)
        floors.append((size + lo + hi - span) // s + 1)
    attrs, nodes = {"ceil_mode": 0}, [node]
    if floors != out:  # a partial last window: the end pads reach it
        attrs["pads"] = [*pads[:n], *ends]
    if floors != out and average and _attr(node, "count_include_pad", 0):  # declared pads count
        declared = [min(hi, end) for hi, end in zip(pads[n:], ends, strict=True)]
        if any(pads[:n]) or any(declared):
            x, padded = node.input[0], f"{node.output[0]}__versa_padded"
            widths = np.array([0, 0, *pads[:n], 0, 0, *declared], np.int64)
            nodes.insert(0, helper.make_node("Pad", [x, scope.constant(f"{padded}_pads", widths)], [padded]))
            node.input[0] = padded
        attrs["pads"] = [0] * n + [end - hi for hi, end in zip(declared, ends, strict=True)]
        attrs["count_include_pad"] = 0  # the overhang does not count
    kept = [a for a in node.attribute if a.name not in attrs]
    del node.attribute[:]
    node.attribute.extend([*kept, *(helper.make_attribute(k, v) for k, v in attrs.items())])
    if scope.dims(node.output[0]) != [*dims[:2], *out]:
        scope.stale.update(o for o in node.output if o)
    return nodes


def max_pool_flat_indices(node: onnx.NodeProto, scope: _Scope) -> list[onnx.NodeProto] | None:
    """MaxPool's indices → indices + (n · C + c) · H · W: ONNX's count over the whole N, C, H, W
    tensor, the torch ones torch-mlir's conversion gives restart at each plane. With uneven pads
    (a ceil-mode pool's overhang), its conversion pads x first and counts over the padded plane:
    x is padded here, and a table maps each padded position to the input's."""
    dims = scope.dims(node.input[0])
    if len(node.output) < 2 or not node.output[1] or dims is None or len(dims) < 3:
        return None
    n, plane = len(dims) - 2, int(np.prod(dims[2:]))
    offset = (np.arange(dims[0] * dims[1], dtype=np.int64) * plane).reshape(dims[:2] + [1] * n)
    flat, per_plane = node.output[1], f"{node.output[1]}__versa_per_plane"
    add = helper.make_node("Add", [per_plane, scope.constant(f"{flat}__versa_offset", offset)], [flat])
    node.output[1] = per_plane
    pads = list(_attr(node, "pads", [0] * 2 * n))
    if pads[:n] == pads[n:]:
        return [node, add]
    tag, dtype = f"{flat}__versa_padded", helper.tensor_dtype_to_np_dtype(scope.element(node.input[0]))
    lowest = scope.constant(
        f"{tag}_low", np.array(-np.inf if dtype.kind == "f" else np.iinfo(dtype).min, dtype)
    )
    widths = scope.constant(f"{tag}_pads", np.array([0, 0, *pads[:n], 0, 0, *pads[n:]], np.int64))
    pad = helper.make_node("Pad", [node.input[0], widths, lowest], [tag])
    # a position in the padding is never the max: each window holds an element of x
    table = np.pad(
        np.arange(plane, dtype=np.int64).reshape(dims[2:]), list(zip(pads[:n], pads[n:], strict=True))
    )
    gather = helper.make_node(
        "Gather", [scope.constant(f"{tag}_table", table.reshape(-1)), f"{tag}_index"], [per_plane]
    )
    node.input[0], node.output[1] = tag, f"{tag}_index"
    kept = [a for a in node.attribute if a.name != "pads"]
    del node.attribute[:]
    node.attribute.extend(kept)
    return [pad, node, gather, add]


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


REWRITES: dict[str, tuple[Rewrite, ...]] = {
    "Gemm": (gemm_alpha_without_c,),
    "MaxPool": (pool_ceil_mode, max_pool_flat_indices),
    "AveragePool": (pool_ceil_mode,),
    "DepthToSpace": (depth_to_space_crd,),
    "ReduceLogSumExp": (reduce_log_sum_exp_stable,),
}
# before the shape arithmetic folds: a Shape of a ceil-mode pool must read its true shape
BEFORE_FOLDING: dict[str, tuple[Rewrite, ...]] = {
    "MaxPool": (pool_ceil_mode,),
    "AveragePool": (pool_ceil_mode,),
}


def rewrite(
    proto: onnx.ModelProto, rules: dict[str, tuple[Rewrite, ...]] = REWRITES, f64: bool = True
) -> onnx.ModelProto:
    """`proto` (static shapes) with `rules` applied (and, with `f64`, f64 computed in f32), shapes
    re-inferred. An op's rules apply in turn, each to the node of that op the last one left."""
    graph, nodes, changed = proto.graph, [], False
    scope = _Scope(graph)
    for node in graph.node:
        new = [node]
        for rule in rules.get(node.op_type, ()) if node.domain in ("", "ai.onnx") else ():
            at = next((i for i, n in enumerate(new) if n.op_type == node.op_type), None)
            done = rule(new[at], scope) if at is not None else None
            if done is not None:
                new[at : at + 1], changed = done, True
        nodes.extend(new)
    if changed:
        del graph.node[:]
        graph.node.extend(nodes)
        forget_shapes(graph, scope.stale)
    if (f64 and compute_f64_in_f32(graph)) or changed:  # new or retyped values: type them
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
