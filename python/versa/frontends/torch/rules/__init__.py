"""The conversion rules, one module per torch op family; importing them fills `convert.RULES`.

elementwise  arithmetic, activations, comparisons, casts, identities
activations  shrinkage, fmod, hypot, xlogy
math_ops     sin/cos/tan/atan, log1p/expm1, floor/ceil/round/trunc/sign, floor_divide, remainder
shape        views, permutes, slicing, concatenation, padding, flips
factories    literals, zeros/ones/full/arange, tril/triu, fill, copy
reduce       sums, means, max/min, argmax, variance, norms
conv         conv1d/conv2d and their transposes (1-d as 2-d of height 1)
conv3d       conv3d as 2-d convolutions (temporal kernels: one; else a sum over depth)
nn           linear/matmul, softmax, attention, embedding, gather, prelu
norm         batch/layer/group/instance norm (mixed-type autocast forms in f32)
einsum       einsum of any number of operands, pairwise into matmuls
bags         embedding_bag (sum, mean, max over offsets)
bitwise      and/or/xor/not of bools and integers, shifts
pool         pooling and resampling (adaptive average 1-d/2-d and its gradient, linear, bilinear)
pool3d       3-d max/avg/adaptive-average pools as 2-d pools over H, W and over depth
pool_backward  max-pool gradients as one scatter (dilated, 3-d, adaptive), avg_pool3d's gradient
grid_sample  F.grid_sample (bilinear, nearest; every padding mode) as masked gathers, F.affine_grid
resample     adaptive max pooling 1-d/2-d/3-d (uneven windows too), nearest-exact resampling (gathers)
cells        LSTM/GRU/RNN cells (one time step)
scan         cumprod, logcumsumexp (log-depth scans)
sorting      topk, sort (stable ranks, or k max passes)
unfold       im2col/col2im (F.unfold/F.fold), reflection/replication padding gradients
distance     cdist and its gradient
loss         NLLLoss, CrossEntropyLoss
scatter      index_add, scatter/scatter_add/scatter_reduce, index_put (versa.scatter)
indexing     searchsorted/bucketize, take/put, index_fill, masked_scatter
quantize     fake quantization per tensor / per channel (and the training forms' masks)
quantized    PT2E's quantize/dequantize per tensor and per channel (quantized_decomposed.*)
quantized_onnx  ONNX's QuantizeLinear / DequantizeLinear as torch-mlir converts them (the ONNX frontend's)
backward     training: convolution and max-pool backward, pooling indices
activation_backward  relu's (threshold), leaky_relu's and hardtanh's gradients, dtypes promoted
fused        PyTorch's fused fast-path kernels (the transformer encoder layer)
"""

from . import (
    activation_backward,
    activations,
    backward,
    bags,
    bitwise,
    cells,
    conv,
    conv3d,
    distance,
    einsum,
    elementwise,
    factories,
    fused,
    grid_sample,
    indexing,
    loss,
    math_ops,
    nn,
    norm,
    pool,
    pool3d,
    pool_backward,
    quantize,
    quantized,
    quantized_onnx,
    reduce,
    resample,
    scan,
    scatter,
    shape,
    sorting,
    unfold,
)

__all__ = [
    "activation_backward",
    "activations",
    "backward",
    "bags",
    "bitwise",
    "cells",
    "conv",
    "conv3d",
    "distance",
    "einsum",
    "elementwise",
    "factories",
    "fused",
    "grid_sample",
    "indexing",
    "loss",
    "math_ops",
    "nn",
    "norm",
    "pool",
    "pool3d",
    "pool_backward",
    "quantize",
    "quantized",
    "quantized_onnx",
    "reduce",
    "resample",
    "scan",
    "scatter",
    "shape",
    "sorting",
    "unfold",
]
