"""The ONNX importer (`versa.frontends.onnx` reads the cache first): torch-mlir's ONNX importer,
`convert-torch-onnx-to-torch`, then the torch rules.

    module = versa.import_onnx("model.onnx")        # a versa module (weights as constants)

Shapes are inferred with onnx's shape inference first. Symbolic input dims (a batch "N") stay
dynamic, so that one compile serves every size (`dynamic.py`: `versa.dims`, `dim_ranges`);
`input_shapes={"x": [1, 3, 224, 224]}` pins them instead, and a pinned model imports as a
static one. Before that, `prepare` normalises what torch-mlir's ONNX conversion gets wrong or
does not take: opsets before 13 are upgraded (Resize/Upsample from opset <= 10 keep their
asymmetric coordinates), the shape arithmetic exporters emit (Shape -> Gather -> Div -> Concat
-> Reshape) is folded to constants where it reads static dims (all of it in a static model, so
every tensor has a static shape), and an If of a constant condition becomes its taken branch
(`fold`), then forms the conversion gets wrong (Gemm's alpha without C, ceil-mode pools,
MaxPool's flat indices, DepthToSpace CRD) or turns into f64 (ReduceLogSumExp, f64
intermediates of f32 models) are rewritten (`rewrites`). With dynamic dims the rest of the
shape arithmetic goes through torch-mlir's `torch-scalarize-shapes` into `torch.aten.size.int`
lists, which the torch rules read (`dynamic.py` says how).
Initializers become dense elements straight from their NumPy arrays (`_DenseCache`), not
torch-mlir's resource blobs, which the Python bindings cannot read back.
"""

import re

import numpy as np
import onnx
from onnx import helper, numpy_helper, version_converter
from torch_mlir.extras import onnx_importer

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import PassManager, ir

from ..torch import rules  # noqa: F401  (fills the rule table)
from ..torch.convert import convert_module
from ..torch.importer import BACKEND_LEGAL_OPS, make_torch_context
from . import dynamic, qoperator, quantized
from .fold import FIRST_OPSET, fold_shape_arithmetic, opset
from .rewrites import BEFORE_FOLDING, rewrite

_BACKEND = (
    f"builtin.module(torch-lower-to-backend-contract{{backend-legal-ops={','.join(BACKEND_LEGAL_OPS)}}}, "
    "canonicalize, cse)"
)
_TO_TORCH = f"builtin.module(func.func(convert-torch-onnx-to-torch), {_BACKEND[len('builtin.module(') :]}"
# dynamic dims: the shape arithmetic as `torch.aten.size.int` lists (what torch-mlir's own
# torch-onnx-to-torch-backend-pipeline runs between its shape refinements)
_SCALARIZE = (
    "builtin.module(func.func(convert-torch-onnx-to-torch), func.func(canonicalize), "
    "func.func(torch-scalarize-shapes))"
)


class _DenseCache(onnx_importer.ContextCache):
    def tensor_proto_to_attr(self, tp: onnx.TensorProto) -> ir.Attribute:
        element = self.tensor_proto_to_builtin_type(tp).element_type
        array = np.asarray(numpy_helper.to_array(tp), order="C")  # (ascontiguousarray makes 0-d 1-d)
        return ir.DenseElementsAttr.get(array, type=element, shape=list(array.shape))


def load(
    source: str | bytes | onnx.ModelProto,
    input_shapes: dict[str, list[int]] | None = None,
    dim_ranges: dict[str, tuple[int, ...]] | None = None,
) -> onnx.ModelProto:
    """An ONNX model (a path, the file's bytes, or a proto) with inferred shapes: static, or with
    the symbolic input dims `input_shapes` does not pin dynamic, in `dim_ranges` (`dynamic.py`)."""
    try:
        if isinstance(source, str):
            proto = onnx.load(source)
        elif isinstance(source, bytes):
            proto = onnx.load_from_string(source)
        else:
            proto = onnx.ModelProto()
            proto.CopyFrom(source)  # never edit the caller's proto
    except Exception as err:  # onnx raises DecodeError, ValidationError, OSError, ...
        raise CompileError([Diagnostic("error", f"not a readable ONNX model: {err}")]) from None
    _set_input_shapes(proto, input_shapes or {})
    dynamic.name_dims(proto, dim_ranges)
    names = dynamic.symbols(proto)
    try:
        proto = prepare(onnx.shape_inference.infer_shapes(qoperator.to_qdq(_upgrade(proto))))
        if names:
            proto = dynamic.read_sizes_from_data(proto)
            dynamic.refuse_static_only(proto)
        return proto
    except CompileError as err:
        raise dynamic.with_hint(err, names) if names else err from None
    except Exception as err:
        raise CompileError([Diagnostic("error", f"not a readable ONNX model: {err}")]) from None


def _set_input_shapes(proto: onnx.ModelProto, shapes: dict[str, list[int]]) -> None:
    """Fix the dims of the graph inputs `shapes` names (the others keep their symbolic dims)."""
    unknown = sorted(set(shapes) - {i.name for i in proto.graph.input})
    if unknown:
        raise CompileError([Diagnostic("error", f"input_shapes names no graph input: {', '.join(unknown)}")])
    for value in proto.graph.input:
        dims = value.type.tensor_type.shape.dim
        if value.name in shapes:
            if len(shapes[value.name]) != len(dims):
                raise CompileError(
                    [
                        Diagnostic(
                            "error",
                            f"input '{value.name}' has rank {len(dims)}, not {len(shapes[value.name])}",
                        )
                    ]
                )
            for d, n in zip(dims, shapes[value.name], strict=True):
                d.Clear()
                d.dim_value = int(n)
    if shapes:  # outputs and intermediates declared with symbolic dims: let inference redo them
        for value in proto.graph.output:
            for d in value.type.tensor_type.shape.dim:
                if not d.HasField("dim_value"):
                    d.Clear()
        del proto.graph.value_info[:]


def _upgrade(proto: onnx.ModelProto) -> onnx.ModelProto:
    """A model of an opset before 13 converted to opset 17 (onnx's version converter)."""
    old = opset(proto)
    if old >= FIRST_OPSET:
        return proto
    try:
        new = version_converter.convert_version(proto, 17)
    except Exception as err:
        raise CompileError(
            [Diagnostic("error", f"opset {old} is not supported and onnx cannot convert it to 17: {err}")]
        ) from None
    if old <= 10:  # Upsample and Resize-10 sample at asymmetric coordinates (x_out / scale);
        # the converter leaves Resize-13's default (half_pixel), as does torch-mlir's Upsample
        resized = {n.output[0] for n in proto.graph.node if n.op_type in ("Upsample", "Resize")}
        for node in new.graph.node:
            if node.op_type == "Resize" and node.output[0] in resized:
                kept = [
                    a
                    for a in node.attribute
                    if a.name not in ("coordinate_transformation_mode", "nearest_mode")
                ]
                del node.attribute[:]
                node.attribute.extend(kept)
                node.attribute.append(helper.make_attribute("coordinate_transformation_mode", "asymmetric"))
                node.attribute.append(helper.make_attribute("nearest_mode", "floor"))
    return new


def prepare(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto` (shapes inferred) rewritten where torch-mlir's conversion would go wrong."""
    # folded first: the rewrites read static shapes (a DepthToSpace after a computed Reshape);
    # ceil-mode pools before too, where they can: their Shape must fold to torch's output size
    proto = rewrite(proto, BEFORE_FOLDING, f64=False)
    return quantized.canonical_qdq(rewrite(fold_shape_arithmetic(proto)))


def onnx_to_torch(proto: onnx.ModelProto, context: ir.Context) -> ir.Module:
    """The ONNX graph (from `load`) as a torch-dialect module; with dynamic dims, its shape
    arithmetic scalarized into `torch.aten.size.int`s and its function annotated (`dynamic`)."""
    names = dynamic.symbols(proto)
    try:
        info = onnx_importer.ModelInfo(proto)
        module = info.create_module(context=context)
        onnx_importer.NodeImporter.define_function(
            info.main_graph, module.operation, _DenseCache(context)
        ).import_all()
        with context:
            if names:
                PassManager.parse(_SCALARIZE).run(module.operation)
                dynamic.drop_dim_asserts(module)
                PassManager.parse(_BACKEND).run(module.operation)
                dynamic.annotate(module, proto)
            else:
                PassManager.parse(_TO_TORCH).run(module.operation)
    except (onnx_importer.OnnxImportError, ir.MLIRError) as err:
        error = CompileError([Diagnostic("error", _import_message(str(err), proto))])
        raise dynamic.with_hint(error, names) if names else error from None
    return module


def to_versa(module: ir.Module) -> ir.Module:
    """`convert_module` of an imported ONNX model; with dynamic dims, an error says how to pin them."""
    try:
        return convert_module(module)
    except CompileError as err:
        names = _symbols_of(module)
        raise dynamic.with_hint(err, names) if names else err from None


def _symbols_of(module: ir.Module) -> list[str]:
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    if not functions or dynamic.RANGES not in functions[-1].attributes:
        return []
    return [a.name for a in ir.DictAttr(functions[-1].attributes[dynamic.RANGES])]


_ILLEGAL = re.compile(
    r'error: "([^"]*)": failed to legalize operation .*?name = "onnx\.(\w+)"\}> ?(\{[^}]*\})?'
)


def _import_message(text: str, proto: onnx.ModelProto) -> str:
    """torch-mlir's 'failed to legalize' dump, said as the ONNX node and op it could not take."""
    match = _ILLEGAL.search(text)
    if not match:
        return f"could not import the ONNX model: {text}"
    node, op, attrs = match.groups()
    where = f"node '{node}'" if node else "an unnamed node"
    given = f" with {attrs.replace('torch.onnx.', '')}" if attrs else ""
    return f"torch-mlir's ONNX conversion does not take {op} (opset {opset(proto)}) at {where}{given}"


def import_uncached(
    source: str | bytes | onnx.ModelProto,
    input_shapes: dict[str, list[int]] | None = None,
    dim_ranges: dict[str, tuple[int, ...]] | None = None,
) -> ir.Module:
    """The versa module of an ONNX model, imported now (`import_onnx` reads the cache first)."""
    return to_versa(onnx_to_torch(load(source, input_shapes, dim_ranges), make_torch_context()))
