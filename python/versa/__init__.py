"""Versa: an MLIR-based deep-learning compiler in Python.

from versa import compile_text, JitFunction
module = compile_text(open("model.mlir").read(), "versa-fuse,lower-to-llvm")
"""

from versa.compiler import compile_text
from versa.diagnostics import CompileError
from versa.reference import interpret
from versa.runtime import JitFunction

__all__ = ["CompileError", "JitFunction", "compile_text", "interpret"]
