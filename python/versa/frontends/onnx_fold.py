"""Shape arithmetic folded to initializers, so every tensor of an ONNX graph has a static shape.

Every input shape is static, so `Shape` is a constant, and so is every small integer computation
on it that feeds Reshape/Slice/Expand/Pad. Folded, onnx's inference (which reads initializers)
gives every tensor a static shape; left alone, a tensor whose shape depends on it has none,
torch-mlir's importer types it as rank 0 and its conversion fails:

    s = Shape(x); n = Gather(s, 0); t = Concat(Unsqueeze(n), [-1]); y = Reshape(x, t)
    →  t = initializer [2, -1]; y = Reshape(x, t)
"""

from collections.abc import Iterable, Iterator

import numpy as np
import onnx
from onnx import helper, numpy_helper

FIRST_OPSET = 13  # torch-mlir's ONNX conversion takes many ops only from here on (Softmax, Unsqueeze...)

# Exporters build shapes, pads and index tables from these (torch's F.pad: Concat -> Reshape ->
# Slice -> Transpose -> Reshape -> Cast); each runs in onnx's reference evaluator once its inputs
# are constants.
_FOLDABLE = {
    "Constant", "Shape", "Size", "Gather", "GatherElements", "GatherND", "Unsqueeze", "Squeeze",
    "Flatten", "Concat", "Split", "Slice", "Transpose", "Tile", "Add", "Sub", "Mul", "Div", "Mod",
    "Pow", "Neg", "Abs", "Sign", "Floor", "Ceil", "Sqrt", "Reciprocal", "Min", "Max", "Clip", "Cast",
    "Range", "CumSum", "ConstantOfShape", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
    "Not", "And", "Or", "Xor", "Where", "NonZero", "ScatterND", "Trilu", "Reshape", "Expand",
    "Identity", "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin",
}  # fmt: skip
_SMALL = 4096  # elements: shape vectors and index tables, never weights


def opset(proto: onnx.ModelProto) -> int:
    """The model's default-domain opset."""
    return next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), FIRST_OPSET)


def static_shape(t: onnx.TypeProto.Tensor | None) -> list[int] | None:
    """The dims of a tensor type, or None where one is unknown."""
    if t is None or not t.HasField("shape"):
        return None
    dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
    return None if None in dims else dims


def reads(nodes: Iterable[onnx.NodeProto]) -> Iterator[str]:
    """The names `nodes` read, those their subgraphs (Loop, If, Scan bodies) read included."""
    for node in nodes:
        yield from node.input
        for attr in node.attribute:
            for graph in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
                yield from reads(graph.node)


def fold_shape_arithmetic(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (shapes inferred) with its constant shape computations replaced by initializers."""
    graph = proto.graph
    types = {v.name: v.type.tensor_type for v in (*graph.input, *graph.value_info, *graph.output)}
    inputs = {i.name for i in graph.input}
    values = {
        t.name: numpy_helper.to_array(t)
        for t in graph.initializer
        if t.name not in inputs and int(np.prod(t.dims)) <= _SMALL
    }
    kept, folded = [], set()
    for node in graph.node:
        out = _fold(node, values, types, opset(proto))
        if out is not None and all(np.asarray(o).size <= _SMALL for o in out):
            named = [(name, np.asarray(o)) for name, o in zip(node.output, out, strict=True) if name]
            values.update(named)
            folded.update(name for name, _ in named)
            continue
        kept.append(node)
    if not folded:
        return proto
    # a Loop or If body may be the only reader of a folded value (a Constant outside the loop)
    used = set(reads(kept)) | {o.name for o in graph.output}
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(numpy_helper.from_array(values[n], n) for n in sorted(folded & used))
    info = [v for v in graph.value_info if v.name not in folded]
    del graph.value_info[:]
    graph.value_info.extend(info)
    for output in graph.output:  # a folded output: its type is the value's
        if output.name in folded:
            array = values[output.name]
            output.type.CopyFrom(
                helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
            )
    return onnx.shape_inference.infer_shapes(proto)


def forget_shapes(graph: onnx.GraphProto, names: Iterable[str]) -> None:
    """The types of `names`, and of every value computed from them, dropped from `graph`'s
    value_info and outputs, to be inferred anew: onnx's shape inference keeps a type it finds
    (one it inferred wrongly, or for the result of a node since replaced)."""
    stale = set(names)
    if not stale:
        return
    for node in graph.node:  # in topological order
        if stale.intersection(reads([node])):
            stale.update(o for o in node.output if o)
    info = [v for v in graph.value_info if v.name not in stale]
    del graph.value_info[:]
    graph.value_info.extend(info)
    for output in graph.output:
        if output.name in stale:
            output.type.tensor_type.ClearField("shape")


def _fold(node: onnx.NodeProto, values: dict, types: dict, version: int) -> list | None:
    """The outputs of `node` where they are constants, else None."""
    from onnx.reference import ReferenceEvaluator

    if node.domain not in ("", "ai.onnx") or node.op_type not in _FOLDABLE:
        return None
    if node.op_type in ("Shape", "Size"):
        dims = static_shape(types.get(node.input[0]))
        if dims is None:
            return None
        if node.op_type == "Size":
            return [np.array(int(np.prod(dims)), np.int64)]
        attrs = {a.name: a.i for a in node.attribute}
        return [np.array(dims[attrs.get("start", 0) : attrs.get("end", len(dims))], np.int64)]
    if not all(not i or i in values for i in node.input):
        return None
    try:
        feeds = {i: values[i] for i in node.input if i}
        return ReferenceEvaluator(node, opsets={"": version}).run(None, feeds)
    except Exception:  # an op the reference cannot run: leave it to the importer
        return None
