"""Versa's benchmark suite: Versa against torch, torch.compile, IREE, ONNX Runtime and NumPy.

Run it with `bash bench/run.sh [--quick] [--threads N] [--rows REGEX] [--repeat R]`; see
bench/README.md. This package is a script, not a test: it measures, it does not assert.
"""
