"""ONNX → versa: torch-mlir's ONNX importer, `convert-torch-onnx-to-torch`, then the torch rules.

    module = versa.import_onnx("model.onnx")        # a versa module (weights as constants)

Shapes are inferred with onnx's shape inference first (Versa compiles static shapes).
Initializers become dense elements straight from their NumPy arrays (`_DenseCache`), not
torch-mlir's resource blobs, which the Python bindings cannot read back.
"""

import numpy as np
import onnx
from onnx import numpy_helper
from torch_mlir.extras import onnx_importer

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import PassManager, ir

from .torch import rules  # noqa: F401  (fills the rule table)
from .torch.convert import convert_module
from .torch.importer import BACKEND_LEGAL_OPS, make_torch_context

_TO_TORCH = (
    "builtin.module(func.func(convert-torch-onnx-to-torch), "
    f"torch-lower-to-backend-contract{{backend-legal-ops={','.join(BACKEND_LEGAL_OPS)}}}, canonicalize, cse)"
)


class _DenseCache(onnx_importer.ContextCache):
    def tensor_proto_to_attr(self, tp: onnx.TensorProto) -> ir.Attribute:
        element = self.tensor_proto_to_builtin_type(tp).element_type
        array = np.asarray(numpy_helper.to_array(tp), order="C")  # (ascontiguousarray makes 0-d 1-d)
        return ir.DenseElementsAttr.get(array, type=element, shape=list(array.shape))


def load(source: str | bytes | onnx.ModelProto) -> onnx.ModelProto:
    """An ONNX model (a path, the file's bytes, or a proto) with inferred shapes."""
    try:
        if isinstance(source, str):
            proto = onnx.load(source)
        elif isinstance(source, bytes):
            proto = onnx.load_from_string(source)
        else:
            proto = source
        return onnx.shape_inference.infer_shapes(proto)
    except Exception as err:  # onnx raises DecodeError, ValidationError, OSError, ...
        raise CompileError([Diagnostic("error", f"not a readable ONNX model: {err}")]) from None


def onnx_to_torch(proto: onnx.ModelProto, context: ir.Context) -> ir.Module:
    """The ONNX graph as a torch-dialect module (static shapes)."""
    try:
        info = onnx_importer.ModelInfo(proto)
        module = info.create_module(context=context)
        onnx_importer.NodeImporter.define_function(
            info.main_graph, module.operation, _DenseCache(context)
        ).import_all()
        with context:
            PassManager.parse(_TO_TORCH).run(module.operation)
    except (onnx_importer.OnnxImportError, ir.MLIRError) as err:
        raise CompileError([Diagnostic("error", f"could not import the ONNX model: {err}")]) from None
    return module


def import_onnx(source: str | bytes | onnx.ModelProto) -> ir.Module:
    """The versa module of an ONNX model."""
    return convert_module(onnx_to_torch(load(source), make_torch_context()))
