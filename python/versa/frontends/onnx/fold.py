"""Shape arithmetic folded to initializers, so every tensor of an ONNX graph has a static shape.

Every input shape is static, so `Shape` is a constant, and so is every small integer computation
on it that feeds Reshape/Slice/Expand/Pad. Folded, onnx's inference (which reads initializers)
gives every tensor a static shape; left alone, a tensor whose shape depends on it has none,
torch-mlir's importer types it as rank 0 and its conversion fails:

    s = Shape(x); n = Gather(s, 0); t = Concat(Unsqueeze(n), [-1]); y = Reshape(x, t)
    →  t = initializer [2, -1]; y = Reshape(x, t)

With dynamic input dims (`dynamic.py`) only what reads static dims folds: a Gather or Slice of
a Shape's static entries (`x.shape[-1]` of an [N, T, 8] tensor); the rest is left to
torch-mlir's `torch-scalarize-shapes`.

An `If` whose condition folds to a constant (exporters test a static rank or size) is replaced
by the branch it takes: torch-mlir's ONNX conversion does not take If.
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
_PASSES = 8  # folding passes at most (each infers shapes again)


def opset(proto: onnx.ModelProto) -> int:
    """The model's default-domain opset."""
    return next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), FIRST_OPSET)


def static_shape(t: onnx.TypeProto.Tensor | None) -> list[int] | None:
    """The dims of a tensor type, or None where one is unknown."""
    if t is None or not t.HasField("shape"):
        return None
    dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
    return None if None in dims else dims


def _dims(t: onnx.TypeProto.Tensor | None) -> list[int | None] | None:
    """The dims of a tensor type of known rank, None where one is unknown."""
    if t is None or not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def reads(nodes: Iterable[onnx.NodeProto]) -> Iterator[str]:
    """The names `nodes` read, those their subgraphs (Loop, If, Scan bodies) read included."""
    for node in nodes:
        yield from node.input
        for attr in node.attribute:
            for graph in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
                yield from reads(graph.node)


def fold_shape_arithmetic(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (shapes inferred) with its constant shape computations replaced by initializers and
    each `If` of a constant condition by its taken branch. Passes repeat until nothing folds: a
    folded value gives what reads it a static shape, whose Shape then folds (local_response_norm's
    export: If(Shape(AveragePool(Pad(x, computed pads)))[1] == 1) squeezes or not)."""
    for _ in range(_PASSES):
        if not fold_pass(proto):
            break
        proto = onnx.shape_inference.infer_shapes(proto)
    return proto


def fold_pass(proto: onnx.ModelProto) -> bool:
    """One pass of `fold_shape_arithmetic` over `proto`, in place; whether anything folded."""
    graph = proto.graph
    types = {v.name: v.type.tensor_type for v in (*graph.input, *graph.value_info, *graph.output)}
    inputs = {i.name for i in graph.input}
    values = {
        t.name: numpy_helper.to_array(t)
        for t in graph.initializer
        if t.name not in inputs and int(np.prod(t.dims)) <= _SMALL
    }
    kept, folded, inlined = [], set(), []
    partial: dict[str, list[int | None]] = {}  # Shape of a tensor with dynamic dims: its dims
    for node in graph.node:
        if node.op_type == "If" and node.domain in ("", "ai.onnx") and node.input[0] in values:
            kept.extend(inline_if(node, bool(np.asarray(values[node.input[0]]).reshape(-1)[0])))
            inlined.extend(o for o in node.output if o)
            continue
        out = _fold(node, values, types, opset(proto), partial)
        if out is not None and all(np.asarray(o).size <= _SMALL for o in out):
            named = [(name, np.asarray(o)) for name, o in zip(node.output, out, strict=True) if name]
            values.update(named)
            folded.update(name for name, _ in named)
            continue
        kept.append(node)
    if not folded and not inlined:
        return False
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
    forget_shapes(graph, inlined)  # typed as either branch's result could be
    return True


def inline_if(node: onnx.NodeProto, condition: bool) -> list[onnx.NodeProto]:
    """The nodes of the branch `If` takes on `condition`, then Identity to each of its outputs.
    Values the branch defines are renamed (`<output>__versa_then/<name>`), so that they cannot
    clash with the enclosing graph's; the values it reads from outside keep their names."""
    which = "then_branch" if condition else "else_branch"
    branch = next(a.g for a in node.attribute if a.name == which)
    prefix = f"{node.output[0] or node.name}__versa_{which[:4]}/"
    defined = [t.name for t in branch.initializer] + [o for n in branch.node for o in n.output if o]
    renamed = {name: prefix + name for name in defined}
    nodes = [helper.make_node("Constant", [], [renamed[t.name]], value=t) for t in branch.initializer]
    for original in branch.node:
        inner = onnx.NodeProto()
        inner.CopyFrom(original)
        inner.name = prefix + inner.name if inner.name else ""
        _rename(inner, renamed)
        nodes.append(inner)
    for result, name in zip(branch.output, node.output, strict=True):
        if name:
            nodes.append(helper.make_node("Identity", [renamed.get(result.name, result.name)], [name]))
    return nodes


def _rename(node: onnx.NodeProto, renamed: dict[str, str]) -> None:
    """`node` with the names in `renamed` replaced, in its subgraphs' reads too."""
    for i, name in enumerate(node.input):
        node.input[i] = renamed.get(name, name)
    for i, name in enumerate(node.output):
        node.output[i] = renamed.get(name, name)
    for attr in node.attribute:
        for graph in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
            for inner in graph.node:
                _rename(inner, renamed)


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


def _fold(node: onnx.NodeProto, values: dict, types: dict, version: int, partial: dict) -> list | None:
    """The outputs of `node` where they are constants, else None. A Shape of a tensor with
    dynamic dims is recorded in `partial`; a Gather of its static dims folds (a model exported
    with a dynamic batch reads `x.shape[2]` of an [N, T, 8] input: 8)."""
    from onnx.reference import ReferenceEvaluator

    if node.domain not in ("", "ai.onnx") or node.op_type not in _FOLDABLE:
        return None
    if node.op_type == "Size":
        dims = static_shape(types.get(node.input[0]))
        return None if dims is None else [np.array(int(np.prod(dims)), np.int64)]
    if node.op_type == "Shape":
        dims = _dims(types.get(node.input[0]))
        if dims is None:
            return None
        attrs = {a.name: a.i for a in node.attribute}
        dims = dims[attrs.get("start", 0) : attrs.get("end", len(dims))]
        if None in dims:
            partial[node.output[0]] = dims
            return None
        return [np.array(dims, np.int64)]
    if node.op_type == "Slice" and node.input[0] in partial and all(i in values for i in node.input[1:] if i):
        at = dict(zip(["starts", "ends", "axes", "steps"], node.input[1:], strict=False))
        start, end = (int(np.asarray(values[at[k]]).reshape(-1)[0]) for k in ("starts", "ends"))
        step = int(np.asarray(values[at["steps"]]).reshape(-1)[0]) if at.get("steps") else 1
        picked = partial[node.input[0]][slice(start, end, step)]
        return None if None in picked else [np.array(picked, np.int64)]
    if node.op_type == "Gather" and node.input[0] in partial and node.input[1] in values:
        try:
            dims = np.asarray(partial[node.input[0]], dtype=object)
            picked = np.asarray(dims[np.asarray(values[node.input[1]])], dtype=object)
        except IndexError:
            return None
        if {a.name: a.i for a in node.attribute}.get("axis", 0) or None in list(picked.reshape(-1)):
            return None
        return [np.asarray(picked, np.int64)]
    if not all(not i or i in values for i in node.input):
        return None
    try:
        feeds = {i: values[i] for i in node.input if i}
        return ReferenceEvaluator(node, opsets={"": version}).run(None, feeds)
    except Exception:  # an op the reference cannot run: leave it to the importer
        return None
