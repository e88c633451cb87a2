"""The conversion rules, one module per torch op family; importing them fills `convert.RULES`.

elementwise  arithmetic, activations, comparisons, casts, identities
shape        views, permutes, slicing, concatenation, padding, flips
factories    zeros/ones/full/arange, tril/triu, fill, copy
reduce       sums, means, max/min, argmax, variance, norms
conv         conv1d/conv2d and their transposes (1-d as 2-d of height 1)
nn           linear/matmul, normalisation, softmax, attention, embedding, gather, prelu
pool         pooling and resampling (adaptive average, bilinear)
loss         NLLLoss, CrossEntropyLoss
backward     training: convolution and max-pool backward, pooling indices
fused        PyTorch's fused fast-path kernels (the transformer encoder layer)
"""

from . import backward, conv, elementwise, factories, fused, loss, nn, pool, reduce, shape

__all__ = ["backward", "conv", "elementwise", "factories", "fused", "loss", "nn", "pool", "reduce", "shape"]
