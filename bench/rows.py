"""The row table: every benchmarked op, as versa IR and as the torch code a user would write.

A row builds its `Case` lazily: the arrays of the big rows are hundreds of MB, so only one row's
data lives at a time. Shapes follow the issue "CPU speed" (parts 1 and 2), and the layers of real
models at batch 1 (linear layers, deep convs, attention: `bench/layer_rows.py`, issue 44); the
models are in `bench/models.py`, the mobile and efficient conv nets in `bench/mobile_nets.py`, the real models
(`transformers` classes with random weights, rows named "HF ...", `--real-models`) in
`bench/hf_models.py`.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from bench import hf_models, layer_rows, mobile_nets, models
from bench.case import Case, Fn
from bench.case import rand as _rand
from bench.ir import Program


@dataclass(frozen=True)
class Row:
    name: str
    kind: str  # "compute" (rated in GFLOP/s against GEMM) or "memory" (GB/s against triad)
    build: Callable[[], Case]
    quick: bool = False
    real: bool = False  # a real model (bench/hf_models.py): selected alone by --real-models


def _op_case(
    p: Program, result, arrays, fn, *, flops=0.0, reduction=1, numpy_fn=None, out_elems=None
) -> Case:
    size = sum(a.size for a in arrays) + (out_elems if out_elems is not None else int(np.prod(result.shape)))
    return Case(p.text(result), arrays, Fn(fn), len(arrays), flops, 4.0 * size, reduction, numpy_fn)


# --- contractions ----------------------------------------------------------------------------


def matmul(m: int, n: int, k: int, bias_relu: bool = False) -> Case:
    rng = np.random.default_rng(0)
    p = Program()
    a, b = p.arg((m, k)), p.arg((k, n))
    arrays = [_rand(rng, m, k), _rand(rng, k, n)]
    y = p.matmul(a, b)
    if not bias_relu:
        return _op_case(p, y, arrays, torch.matmul, flops=2.0 * m * n * k, reduction=k, numpy_fn=np.matmul)
    bias = p.arg((n,))
    arrays.append(_rand(rng, n))
    y = p.relu(p.add(y, bias))
    return _op_case(
        p,
        y,
        arrays,
        lambda x, w, c: torch.relu(x @ w + c),
        flops=2.0 * m * n * k,
        reduction=k,
        numpy_fn=lambda x, w, c: np.maximum(x @ w + c, 0),
    )


def batch_matmul(batch: int, m: int, k: int, n: int) -> Case:
    rng = np.random.default_rng(0)
    p = Program()
    y = p.matmul(p.arg((batch, m, k)), p.arg((batch, k, n)))
    arrays = [_rand(rng, batch, m, k), _rand(rng, batch, k, n)]
    flops = 2.0 * batch * m * n * k
    return _op_case(p, y, arrays, torch.matmul, flops=flops, reduction=k, numpy_fn=np.matmul)


def conv(n: int, c: int, hw: int, f: int, k: int, *, stride=1, pad=0, groups=1, layout="NCHW") -> Case:
    rng = np.random.default_rng(0)
    p = Program()
    cg = c // groups
    if layout == "NCHW":
        xs, ws = (n, c, hw, hw), (f, cg, k, k)
    else:
        xs, ws = (n, hw, hw, c), (k, k, cg, f)
    y = p.conv2d(p.arg(xs), p.arg(ws), stride=stride, pad=pad, groups=groups, layout=layout)
    arrays = [_rand(rng, *xs), _rand(rng, *ws)]
    if layout == "NCHW":

        def fn(x, w):
            return F.conv2d(x, w, stride=stride, padding=pad, groups=groups)
    else:

        def fn(x, w):  # channels-last views: torch runs its NHWC kernels on them
            xc, wc = x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1)
            return F.conv2d(xc, wc, stride=stride, padding=pad, groups=groups).permute(0, 2, 3, 1)

    oh = y.shape[2] if layout == "NCHW" else y.shape[1]
    flops = 2.0 * n * f * oh * oh * cg * k * k
    return _op_case(p, y, arrays, fn, flops=flops, reduction=cg * k * k)


# --- memory-bound ops ------------------------------------------------------------------------


def relu(n: int) -> Case:
    p = Program()
    y = p.relu(p.arg((n,)))
    x = _rand(np.random.default_rng(0), n)
    return _op_case(p, y, [x], torch.relu, numpy_fn=lambda x: np.maximum(x, 0))


def gelu(n: int) -> Case:
    p = Program()
    y = p.gelu(p.arg((n,)))
    return _op_case(p, y, [_rand(np.random.default_rng(0), n)], F.gelu)


def affine_relu_sigmoid(n: int) -> Case:
    """relu(x*a+b)*sigmoid(x): an elementwise chain that fusion turns into one pass over x."""
    rng = np.random.default_rng(0)
    p = Program()
    x, a, b = p.arg((n,)), p.arg((1,)), p.arg((1,))
    y = p.mul(p.relu(p.add(p.mul(x, a), b)), p.unary("sigmoid", x))
    arrays = [_rand(rng, n), np.array([1.5], np.float32), np.array([0.25], np.float32)]
    return _op_case(p, y, arrays, lambda x, a, b: torch.relu(x * a + b) * torch.sigmoid(x))


def batch_norm(n: int, c: int, hw: int) -> Case:
    rng = np.random.default_rng(0)
    p = Program()
    y = p.batch_norm(p.arg((n, c, hw, hw)), *(p.arg((c,)) for _ in range(4)))
    var = rng.uniform(0.5, 1.5, c).astype(np.float32)
    arrays = [_rand(rng, n, c, hw, hw), _rand(rng, c), _rand(rng, c), _rand(rng, c), var]
    return _op_case(p, y, arrays, lambda x, s, b, m, v: F.batch_norm(x, m, v, s, b, training=False, eps=1e-5))


def max_pool(n: int, c: int, hw: int, k: int, stride: int) -> Case:
    p = Program()
    y = p.max_pool2d(p.arg((n, c, hw, hw)), k, stride)
    x = _rand(np.random.default_rng(0), n, c, hw, hw)
    return _op_case(p, y, [x], lambda x: F.max_pool2d(x, k, stride))


def softmax(rows: int, cols: int) -> Case:
    p = Program()
    y = p.softmax(p.arg((rows, cols)))
    x = _rand(np.random.default_rng(0), rows, cols)
    return _op_case(p, y, [x], lambda x: torch.softmax(x, -1), reduction=cols)


def layer_norm(b: int, s: int, d: int) -> Case:
    rng = np.random.default_rng(0)
    p = Program()
    y = p.layer_norm(p.arg((b, s, d)), p.arg((d,)), p.arg((d,)))
    arrays = [_rand(rng, b, s, d), 1 + 0.1 * _rand(rng, d), _rand(rng, d)]
    return _op_case(p, y, arrays, lambda x, g, bb: F.layer_norm(x, (d,), g, bb, 1e-5), reduction=d)


def reduce_sum(n: int, axis: int) -> Case:
    p = Program()
    y = p.reduce_sum(p.arg((n, n)), axis)
    x = _rand(np.random.default_rng(0), n, n)
    return _op_case(p, y, [x], lambda x: torch.sum(x, axis), reduction=n, numpy_fn=lambda x: np.sum(x, axis))


def transpose(n: int) -> Case:
    p = Program()
    y = p.transpose(p.arg((n, n)), (1, 0))
    x = _rand(np.random.default_rng(0), n, n)
    return _op_case(p, y, [x], lambda x: x.t().contiguous(), numpy_fn=lambda x: np.ascontiguousarray(x.T))


# --- the table -------------------------------------------------------------------------------


def _r(name, kind, build, quick=False) -> Row:
    return Row(name, kind, build, quick)


M = 1 << 20
L = layer_rows
ROWS: list[Row] = [
    _r("matmul 512³", "compute", lambda: matmul(512, 512, 512), quick=True),
    _r("matmul 1024³", "compute", lambda: matmul(1024, 1024, 1024)),
    _r("matmul 2048³", "compute", lambda: matmul(2048, 2048, 2048)),
    _r("matmul+bias+relu 1024³", "compute", lambda: matmul(1024, 1024, 1024, bias_relu=True)),
    _r("batch matmul 16x256x64x256", "compute", lambda: batch_matmul(16, 256, 64, 256)),
    _r("conv3x3 NCHW 1x64x56² →64 p1", "compute", lambda: conv(1, 64, 56, 64, 3, pad=1)),
    _r("conv3x3 NHWC 1x64x56² →64 p1", "compute", lambda: conv(1, 64, 56, 64, 3, pad=1, layout="NHWC")),
    _r("conv7x7 s2 8x3x224² →64 p3", "compute", lambda: conv(8, 3, 224, 64, 7, stride=2, pad=3)),
    _r("depthwise 3x3 1x128x56² p1", "compute", lambda: conv(1, 128, 56, 128, 3, pad=1, groups=128)),
    _r("conv1x1 1x256x28² →512", "compute", lambda: conv(1, 256, 28, 512, 1), quick=True),
    *(
        _r(
            f"linear{'+bias+gelu' if act else ''} {m}x{k} →{n}",
            "compute",
            lambda m=m, k=k, n=n, a=act: L.linear(m, k, n, a),
        )
        for act in (False, True)
        for m in L.TOKENS
        for k, n in L.LINEAR
    ),
    *(
        _r(f"conv3x3 NCHW 1x{c}x{hw}² →{c} p1", "compute", lambda c=c, hw=hw: conv(1, c, hw, c, 3, pad=1))
        for c, hw in L.DEEP_3X3
    ),
    *(
        _r(f"conv1x1 NCHW 1x{c}x{hw}² →{f}", "compute", lambda c=c, f=f, hw=hw: conv(1, c, hw, f, 1))
        for c, f, hw in L.DEEP_1X1
    ),
    *(
        _r(f"attention {L.HEADS} heads x seq {s} x d{L.HEAD_DIM}", "compute", lambda s=s: L.attention(s))
        for s in L.SEQS
    ),
    _r("relu 1M", "memory", lambda: relu(M), quick=True),
    _r("relu 16M", "memory", lambda: relu(16 * M)),
    _r("relu(x*a+b)*sigmoid(x) 16M", "memory", lambda: affine_relu_sigmoid(16 * M)),
    _r("gelu 16M", "memory", lambda: gelu(16 * M)),
    _r("batch_norm 8x64x56²", "memory", lambda: batch_norm(8, 64, 56)),
    _r("max_pool 2x2 s2 8x64x112²", "memory", lambda: max_pool(8, 64, 112, 2, 2)),
    _r("max_pool 3x3 s2 8x64x112²", "memory", lambda: max_pool(8, 64, 112, 3, 2)),
    _r("softmax 4096x1024", "memory", lambda: softmax(4096, 1024), quick=True),
    _r("softmax 2048x30522", "memory", lambda: softmax(2048, 30522)),
    _r("layer_norm 8x512x768", "memory", lambda: layer_norm(8, 512, 768)),
    _r("reduce_sum axis 0 4096²", "memory", lambda: reduce_sum(4096, 0)),
    _r("reduce_sum axis 1 4096²", "memory", lambda: reduce_sum(4096, 1)),
    _r("transpose 4096²", "memory", lambda: transpose(4096)),
    *(
        _r(f"{label} batch {b}", "compute", (lambda f=fn, b=b: f(b)), quick=(label == "MLP" and b == 1))
        for label, fn in models.MODELS
        for b in (1, 8)
    ),
    *(
        _r(f"{label} batch {b}", "compute", (lambda f=f, s=s, b=b, k=k: mobile_nets.case(f, s, b, k)))
        for label, f, s, k in mobile_nets.MOBILE
        for b in (1, 8)
    ),
    *(
        Row(f"{m.label} batch {b}", "compute", (lambda m=m, b=b: hf_models.case(m, b)), real=True)
        for m in hf_models.MODELS
        for b in m.batches
    ),
]


def select(quick: bool, pattern: str | None, real: bool = False) -> list[Row]:
    """The rows to run: the quick ones, the real models, or all; then those matching `pattern`."""
    rows = [r for r in ROWS if r.quick] if quick else [r for r in ROWS if r.real] if real else list(ROWS)
    if pattern:
        rx = re.compile(pattern)
        rows = [r for r in rows if rx.search(r.name)]
    return rows
