"""Kernel rows at the sizes real models run them: what a transformer or ResNet layer costs.

The square matmuls and 56² convs of `rows.py` are the shapes kernels are usually tuned on; real
networks at batch 1 run skinnier ones, where tiling, threading and the epilogue weigh more:
- linear layers of BERT/ViT-base width: M = 64, 128 or 197 tokens (197: ViT-B/16's 196 patches
  and the class token, an odd M) by K→N of 768→768 (attention projections), 768→2304 (fused
  QKV), 768→3072 and 3072→768 (the MLP), alone and with the bias + exact GELU epilogue;
- ResNet's deep stages at batch 1: 3x3 convs of 256 channels at 14² and 512 at 7², and the
  bottleneck 1x1s 1024→256 and 256→1024 at 14², 2048→512 at 7² (NCHW, as torch users hold them);
- attention of one BERT/ViT-base layer (12 heads of 64) at 128, 197 and 512 tokens: QKᵀ scaled,
  softmax, ·V, written out in Versa (what its fusion sees) and as the call a torch user makes,
  `F.scaled_dot_product_attention` (torch's fused CPU kernel; the peers export or trace it).
The cases are here, the rows (names with the sizes) in `rows.ROWS`; each is checked against
torch in float64 like every other (bench/driver.py).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F

from bench.case import Case, Fn
from bench.case import rand as _rand
from bench.ir import Program

TOKENS = (64, 128, 197)
LINEAR = ((768, 768), (768, 3072), (3072, 768), (768, 2304))  # K → N
HEADS, HEAD_DIM = 12, 64
SEQS = (128, 197, 512)
DEEP_3X3 = ((256, 14), (512, 7))  # channels in = out, spatial size
DEEP_1X1 = ((1024, 256, 14), (2048, 512, 7), (256, 1024, 14))  # in, out, spatial size


def linear(m: int, k: int, n: int, bias_gelu: bool = False) -> Case:
    """x[m,k] @ w[k,n] (+ b, GELU): a linear layer on m tokens, weight stored K-major as Versa
    takes it; torch computes the same with `x @ w` / `torch.addmm(b, x, w)`, F.linear's kernel."""
    rng = np.random.default_rng(0)
    p = Program()
    x, w = p.arg((m, k)), p.arg((k, n))
    arrays = [_rand(rng, m, k), _rand(rng, k, n)]
    y = p.matmul(x, w)
    flops = 2.0 * m * n * k
    if not bias_gelu:
        return _case(p, y, arrays, torch.matmul, flops, k, np.matmul)
    y = p.gelu(p.add(y, p.arg((n,))))
    arrays.append(_rand(rng, n))
    return _case(p, y, arrays, lambda x, w, b: F.gelu(torch.addmm(b, x, w)), flops, k)


def attention(seq: int, heads: int = HEADS, dim: int = HEAD_DIM) -> Case:
    """softmax(q kᵀ / √d) v for q, k, v of [heads, seq, d] (batch 1)."""
    rng = np.random.default_rng(0)
    p = Program()
    q, k, v = (p.arg((heads, seq, dim)) for _ in range(3))
    scores = p.matmul(q, p.transpose(k, (0, 2, 1)))
    probs = p.softmax(p.mul(scores, p.constant(1.0 / math.sqrt(dim))))
    y = p.matmul(probs, v)
    arrays = [_rand(rng, heads, seq, dim) for _ in range(3)]
    flops = 2 * 2.0 * heads * seq * seq * dim  # QKᵀ and ·V
    return _case(p, y, arrays, F.scaled_dot_product_attention, flops, max(seq, dim))


def _case(p: Program, y, arrays, fn, flops: float, reduction: int, numpy_fn=None) -> Case:
    size = sum(a.size for a in arrays) + int(np.prod(y.shape))
    return Case(p.text(y), arrays, Fn(fn), len(arrays), flops, 4.0 * size, reduction, numpy_fn)
