"""The one import of the MLIR Python bindings.

The bindings ship inside the torch-mlir wheel (`torch_mlir.ir`, ...). Every other Versa module
imports them from here, so a move to another distribution of the bindings touches one file.
"""

from torch_mlir import ir, passmanager, rewrite
from torch_mlir.dialects import (
    affine,
    arith,
    bufferization,
    ext,
    func,
    gpu,
    irdl,
    linalg,
    math,
    memref,
    scf,
    tensor,
)
from torch_mlir.dialects import llvm as llvm_dialect
from torch_mlir.dialects.transform import interpreter as transform_interpreter
from torch_mlir.execution_engine import ExecutionEngine

PassManager = passmanager.PassManager

__all__ = [
    "ExecutionEngine",
    "PassManager",
    "affine",
    "arith",
    "bufferization",
    "ext",
    "func",
    "gpu",
    "ir",
    "irdl",
    "linalg",
    "llvm_dialect",
    "math",
    "memref",
    "rewrite",
    "scf",
    "tensor",
    "transform_interpreter",
]
