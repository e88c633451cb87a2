"""Versa: an MLIR-based deep-learning compiler in Python."""
