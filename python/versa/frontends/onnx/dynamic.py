"""ONNX models whose inputs have symbolic dims ("batch", "sequence") imported with dynamic dims
(issue 46): one compile serves every size, as `versa.compile(..., dynamic_shapes=...)` does.

An input dim with a `dim_param` becomes a `?` dim named by it (an unnamed one gets a fresh name,
`<input>_dim<d>`); the names and their ranges (default [1, unbounded]) are written where the
runtime reads them (`call_shapes.py`), on the torch-dialect function, which `convert` copies:

    func.func @main_graph(%arg0: tensor<?x?x8xf32> {versa.dims = ["batch", "sequence", 8]})
        attributes {versa.dim_ranges = {"batch" = array<i64: 1, 64>, "sequence" = array<i64: 1, -1>}}

The shape arithmetic exporters write (Shape -> Gather -> Concat -> Reshape) then no longer
folds to constants. What of it reads static dims still folds (`fold.py`); torch-mlir's
`torch-scalarize-shapes` turns the rest into `torch.aten.size.int` lists the torch rules read.
The view rule relates a size only to its own input's dims (`x.size(0)` of the viewed x, the
`?` dims in order), while exporters read sizes from the graph input: so each Reshape whose
target onnx's symbolic inference (`data_prop`) knows dim by dim is given a target read from its
own input (`read_sizes_from_data`). The asserts torch-mlir adds that such a size is not 0
(ONNX's "copy this dim") are dropped: the ranges start at 1.

Where an op needs static shapes (a rewrite of `rewrites.py` that reads them, a torch rule that
takes static shapes only), the error says so and that `input_shapes` / `--input-shape` pins
the dims (`pin_hint`); a pinned model imports exactly as before.
"""

import json
from dataclasses import replace

import numpy as np
import onnx
from onnx import helper, numpy_helper

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

from .fold import _FOLDABLE, fold_pass, reads

DIMS = "versa.dims"  # as `frontends/torch/symbolic.py` and `call_shapes.py` read them
RANGES = "versa.dim_ranges"
_METADATA = "versa.dim_ranges"  # the loaded proto carries its ranges in its metadata_props
DEFAULT_RANGE = (1, -1)
_TAG = "__versa_size"  # the targets `read_sizes_from_data` builds
_PASSES = 8


def graph_inputs(proto: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The graph inputs that are arguments (not initializers), in order."""
    initialized = {t.name for t in proto.graph.initializer}
    return [i for i in proto.graph.input if i.name not in initialized]


def _dims(value: onnx.ValueInfoProto) -> list[int | str]:
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in value.type.tensor_type.shape.dim]


def name_dims(proto: onnx.ModelProto, ranges: dict | None) -> None:
    """Name each unnamed dynamic input dim (`<input>_dim<d>`), check `ranges` (symbol -> (min,
    max[, multiple_of])) against the symbols left, and record every symbol's range in `proto`."""
    taken = {d for i in graph_inputs(proto) for d in _dims(i) if isinstance(d, str) and d}
    for value in graph_inputs(proto):
        for k, d in enumerate(value.type.tensor_type.shape.dim):
            if not d.HasField("dim_value") and not d.dim_param:
                name = f"{value.name}_dim{k}"
                while name in taken:
                    name += "_"
                d.dim_param = name
                taken.add(name)
    ranges = dict(ranges or {})
    unknown = sorted(set(ranges) - taken)
    if unknown:
        have = ", ".join(sorted(taken)) or "none"
        message = f"dim_ranges names no symbolic input dim: {', '.join(unknown)} (the dims: {have})"
        raise CompileError([Diagnostic("error", message)])
    table = {}
    for name in sorted(taken):
        bounds = [int(b) for b in ranges.get(name, DEFAULT_RANGE)]
        ok = len(bounds) in (2, 3) and bounds[0] >= 1 and all(k >= 1 for k in bounds[2:])
        if not ok or bounds[1] not in (-1, *range(bounds[0], bounds[1] + 1)):
            message = (
                f"dim_ranges['{name}'] = {tuple(bounds)}: expected (min, max) or (min, max, multiple_of), "
                "1 <= min <= max (max -1: unbounded)"
            )
            raise CompileError([Diagnostic("error", message)])
        table[name] = bounds
    kept = [p for p in proto.metadata_props if p.key != _METADATA]
    del proto.metadata_props[:]
    proto.metadata_props.extend(kept)
    if table:
        proto.metadata_props.add(key=_METADATA, value=json.dumps(table))


def symbols(proto: onnx.ModelProto) -> dict[str, list[int]]:
    """The ranges `name_dims` recorded (empty: every input dim is static)."""
    entry = next((p.value for p in proto.metadata_props if p.key == _METADATA), None)
    return json.loads(entry) if entry else {}


def read_sizes_from_data(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (folded) typed by onnx's symbolic inference, each Reshape whose target it knows
    dim by dim, the dynamic ones as dims of the Reshape's own input, given that target
    (`Concat(8, Gather(Shape(x), [1]), ...)`), and the shape arithmetic no longer read removed.
    Passes repeat: a Reshape given its target types the values after it (a `view(b, t, h, -1)`
    followed by `reshape(b, t, -1)`), and a Shape of a dim known now folds (`fold_pass`)."""
    for _ in range(_PASSES):
        del proto.graph.value_info[:]  # inferred without data_prop: a computed Reshape's dims unknown
        proto = onnx.shape_inference.infer_shapes(proto, data_prop=True)
        graph = proto.graph
        types = {v.name: v for v in (*graph.input, *graph.value_info, *graph.output)}
        nodes = [_reshape_from_data(node, types, graph) or [node] for node in graph.node]
        changed = any(len(n) > 1 for n in nodes)
        del graph.node[:]
        graph.node.extend(_live([n for group in nodes for n in group], graph))
        if not fold_pass(proto) and not changed:
            return proto
    return onnx.shape_inference.infer_shapes(proto, data_prop=True)


def _live(nodes: list[onnx.NodeProto], graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """`nodes` less the shape arithmetic nothing reads any more (torch-mlir would import it)."""
    used, kept = {o.name for o in graph.output}, []
    for node in reversed(nodes):
        if node.op_type in _FOLDABLE and node.domain in ("", "ai.onnx") and not used & set(node.output):
            continue
        kept.append(node)
        used.update(reads([node]))
    return kept[::-1]


def _reshape_from_data(node: onnx.NodeProto, types: dict, graph: onnx.GraphProto) -> list | None:
    if node.op_type != "Reshape" or node.domain not in ("", "ai.onnx") or node.input[1].endswith(_TAG):
        return None
    x, y = node.input[0], node.output[0]
    if x not in types or y not in types:
        return None
    have, want = _dims(types[x]), _fill(_dims(types[x]), _dims(types[y]))
    if want is None or not any(isinstance(d, str) for d in want) or 0 in want:
        return None  # static, or a dim onnx does not know (or a 0: ONNX's "copy")
    tag = f"{y}{_TAG}"
    nodes = [helper.make_node("Shape", [x], [f"{tag}_of_input"])]
    pieces = []
    for k, d in enumerate(want):
        if isinstance(d, int):
            piece = numpy_helper.from_array(np.array([d], np.int64), f"{tag}{k}")
            graph.initializer.append(piece)
        else:
            at = numpy_helper.from_array(np.array([have.index(d)], np.int64), f"{tag}{k}_at")
            graph.initializer.append(at)
            nodes.append(helper.make_node("Gather", [f"{tag}_of_input", at.name], [f"{tag}{k}"]))
        pieces.append(f"{tag}{k}")
    nodes.append(helper.make_node("Concat", pieces, [tag], axis=0))
    reshape = onnx.NodeProto()
    reshape.CopyFrom(node)
    reshape.input[1] = tag
    return [*nodes, reshape]


def _fill(have: list, want: list) -> list | None:
    """A Reshape's target dims, each static or one of its input's symbols: onnx's, where it
    knows them all; one it does not (a -1 of the exporter's, `view(b, t, h, -1)`) from the
    element count, where the symbols on both sides are the same; else None."""
    unknown = [k for k, d in enumerate(want) if isinstance(d, str) and d not in have or d == ""]
    if not unknown:
        return want
    symbols = sorted(d for d in want if isinstance(d, str) and d in have)
    if len(unknown) > 1 or symbols != sorted(d for d in have if isinstance(d, str)):
        return None
    size = int(np.prod([d for d in have if isinstance(d, int)]))
    rest = int(np.prod([d for d in want if isinstance(d, int)]))
    if not rest or size % rest:
        return None
    return [size // rest if k == unknown[0] else d for k, d in enumerate(want)]


def refuse_static_only(proto: onnx.ModelProto) -> None:
    """A CompileError for the nodes `rewrites.py` must rewrite, with static shapes, before
    torch-mlir's conversion (which gets them wrong) and could not: their input has dynamic dims."""
    graph = proto.graph
    types = {v.name: v for v in (*graph.input, *graph.value_info, *graph.output)}

    def static(name: str) -> bool:
        return name in types and all(isinstance(d, int) for d in _dims(types[name]))

    def attr(node, name, default):
        return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)

    found = []
    for node in graph.node:
        op = node.op_type
        if node.domain not in ("", "ai.onnx") or static(node.input[0]):
            continue
        if op in ("MaxPool", "AveragePool") and attr(node, "ceil_mode", 0):
            found.append(f"{op} with ceil_mode at node '{node.name}'")
        elif op == "MaxPool" and len(node.output) > 1 and node.output[1]:
            found.append(f"MaxPool's indices at node '{node.name}'")
        elif op == "ReduceLogSumExp":
            found.append(f"ReduceLogSumExp at node '{node.name}'")
    if found:
        message = f"{'; '.join(found)}: Versa converts it for static shapes only"
        raise CompileError([Diagnostic("error", f"{message}; {pin_hint(symbols(proto))}")])


def pin_hint(names) -> str:
    """What the error of an op that needs static shapes adds: how to pin the dims."""
    return (
        f"the model's symbolic input dims ({', '.join(names)}) are dynamic; pin them with "
        "input_shapes={name: [dims]} (versa-import --input-shape name=1,3,224,224)"
    )


def with_hint(err: CompileError, names) -> CompileError:
    """`err` with `pin_hint` added to its first diagnostic."""
    first, *rest = err.diagnostics
    if "input_shapes" in first.message:
        return err
    return CompileError([replace(first, message=f"{first.message}\n{pin_hint(names)}"), *rest])


def drop_dim_asserts(module: ir.Module) -> None:
    """The `torch.runtime.assert`s that a Reshape's size is not 0, erased (the ranges start at 1)."""
    doomed = []
    for op in module.body.operations:
        for block in op.regions[0].blocks if op.operation.name == "func.func" else ():
            doomed += [
                o
                for o in block.operations
                if o.operation.name == "torch.runtime.assert"
                and ir.StringAttr(o.attributes["message"]).value == "Expected dim size > 0."
            ]
    conditions = [op.operands[0].owner for op in doomed]  # `torch.aten.gt.int %size, 0`
    for op in doomed:
        op.operation.erase()
    for op in dict.fromkeys(c for c in conditions if isinstance(c, ir.OpView)):
        if op.operation.name == "torch.aten.gt.int" and not any(True for _ in op.results[0].uses):
            op.operation.erase()  # (not Pure in torch-mlir: canonicalize keeps it)


def annotate(module: ir.Module, proto: onnx.ModelProto) -> None:
    """`versa.dims` on each argument of `module`'s function (the graph inputs, in order) and
    `versa.dim_ranges` on it, when any input dim is symbolic."""
    table = symbols(proto)
    if not table:
        return
    function = [op for op in module.body.operations if op.operation.name == "func.func"][-1].operation
    i64 = ir.IntegerType.get_signless(64, module.context)
    with module.context:
        arg_attrs = [
            ir.DictAttr.get(
                {
                    DIMS: ir.ArrayAttr.get(
                        [
                            ir.StringAttr.get(d) if isinstance(d, str) else ir.IntegerAttr.get(i64, d)
                            for d in _dims(v)
                        ]
                    )
                }
            )
            for v in graph_inputs(proto)
        ]
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(arg_attrs)
        function.attributes[RANGES] = ir.DictAttr.get(
            {name: ir.DenseI64ArrayAttr.get(bounds) for name, bounds in table.items()}
        )
