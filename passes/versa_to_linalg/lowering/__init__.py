"""The op-family lowerings of convert-versa-to-linalg (data movement, indexing, scatter,
transposed convolutions, fused regions, normalisations, pooling windows)."""
