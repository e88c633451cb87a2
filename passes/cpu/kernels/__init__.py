"""The pieces versa-row-kernels writes its softmax and layer_norm kernels from (MLIR text)."""
