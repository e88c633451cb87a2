"""MLIR contexts with the versa dialect loaded."""

from versa.dialects.versa import Versa
from versa.mlir import ir


def make_context() -> ir.Context:
    """A fresh context with every upstream dialect and the versa dialect loaded."""
    ctx = ir.Context()
    with ctx:
        Versa.load()
    return ctx
