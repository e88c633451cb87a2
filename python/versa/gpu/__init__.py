"""NVIDIA GPUs: compile versa IR to PTX and a launch plan (`compile`), run it (`driver`).

`plan` and `driver` import neither MLIR nor the rest of Versa, so a compiled program runs
wherever NumPy and `cuda-bindings` are installed.
"""

from .compile import compile_gpu, compile_ptx
from .plan import Program

__all__ = ["Program", "compile_gpu", "compile_ptx"]
