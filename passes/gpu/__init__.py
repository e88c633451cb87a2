"""NVIDIA GPUs: `pipeline.py` is lower-to-nvvm; every other module here is one of its passes.
`kernels/` holds the kernel templates and builders they share (tiled GEMM, tensor-core text,
launches, operand transposes)."""
