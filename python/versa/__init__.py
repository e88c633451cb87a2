"""Versa: an MLIR-based deep-learning compiler in Python.

from versa import compile_text, JitFunction
module = compile_text(open("model.mlir").read(), "versa-fuse,lower-to-llvm")

compiled = versa.compile(torch_model, (x,))     # PyTorch (imports torch on first use)
versa.tune(torch_model, (x,), budget_s=120)      # measured strategy choices → versa-tuning.json
"""

from versa import log
from versa.compiler import compile_text
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError
from versa.reference import interpret

log.configure_from_environment()

# The frontends import torch (seconds) and the tuner spawns workers: they load when first named,
# not with `import versa`.
_FRONTEND = {
    "compile": "versa.frontends.torch",
    "import_torch": "versa.frontends.torch",
    "coverage": "versa.frontends.torch",
    "HotShapePolicy": "versa.frontends.torch",
    "import_onnx": "versa.frontends.onnx",
    "tune": "versa.tuning.api",
    "optimize": "versa.optimizer.api",
}


def __getattr__(name: str):
    if name in _FRONTEND:
        import importlib

        return getattr(importlib.import_module(_FRONTEND[name]), name)
    raise AttributeError(f"module 'versa' has no attribute {name!r}")


__all__ = [
    "CompileError",
    "HotShapePolicy",
    "JitFunction",
    "compile",
    "compile_text",
    "import_torch",
    "interpret",
    "optimize",
    "tune",
]
