"""Frontends: models from other frameworks enter Versa here (PyTorch, ONNX via torch-mlir)."""
