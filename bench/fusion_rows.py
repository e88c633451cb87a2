"""What `bench/fusion.py` measures: its rows, its three Versa configurations, and their buffers.

The rows are the main suite's where it has them (`bench/rows.py`), so a row means the same
program and data in both tables; conv+bias+relu, attention scores and the README's example MLP
are new here, because they are the patterns fusion is meant for (an epilogue on a contraction or
a batched one, a chain of elementwise ops between two matmuls). The configurations are plain
pipeline strings, so what versa-fuse learns shows up here without a change to this file.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from bench import rows
from bench.case import Case, Fn, rand
from bench.ir import Program
from bench.peers import Runner, Versa
from bench.rows import Row

PLAN_STEP = "versa-plan-buffers"  # buffers are counted just before this step of lower-to-llvm
MLP_FILE = Path(__file__).resolve().parent.parent / "examples" / "mlp.mlir"


@dataclass(frozen=True)
class Config:
    name: str
    pipeline: str
    llvm_opt_level: int  # JitFunction's: LLVM's optimisation level


CONFIGS = (
    # The unoptimised baseline: scalar loops for every op, and no LLVM optimisation either.
    Config("O0", "lower-to-llvm{opt-level=0}", 0),
    Config("unfused", "versa-canonicalize,lower-to-llvm", 3),
    Config("fused", "versa-optimize,lower-to-llvm", 3),
)


def conv_bias_relu() -> Case:
    """relu(conv3x3(x, w) + b), NCHW, 1x64x56² → 64 channels, pad 1: a contraction's epilogue."""
    rng = np.random.default_rng(0)
    p = Program()
    x, w, b = p.arg((1, 64, 56, 56)), p.arg((64, 64, 3, 3)), p.arg((64, 1, 1))
    y = p.relu(p.add(p.conv2d(x, w, pad=1), b))
    arrays = [rand(rng, 1, 64, 56, 56), rand(rng, 64, 64, 3, 3), rand(rng, 64, 1, 1)]

    def fn(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu(F.conv2d(x, w, b.reshape(-1), padding=1))

    size = sum(a.size for a in arrays) + math.prod(y.shape)
    flops = 2.0 * 64 * 56 * 56 * 64 * 9
    return Case(p.text(y), arrays, Fn(fn), len(arrays), flops, 4.0 * size, 64 * 9)


def attention_scores() -> Case:
    """q @ kᵀ * scale + mask over [batch, heads]: 2x8 heads of 256x64 @ 64x256, a batch
    matmul's epilogue (the scores of an attention layer, before the softmax)."""
    rng = np.random.default_rng(0)
    p = Program()
    q, k, mask = p.arg((2, 8, 256, 64)), p.arg((2, 8, 64, 256)), p.arg((2, 8, 256, 256))
    y = p.add(p.mul(p.matmul(q, k), p.constant(0.125)), mask)
    arrays = [rand(rng, 2, 8, 256, 64), rand(rng, 2, 8, 64, 256), rand(rng, 2, 8, 256, 256)]

    def fn(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return q @ k * 0.125 + mask

    size = sum(a.size for a in arrays) + math.prod(y.shape)
    return Case(p.text(y), arrays, Fn(fn), len(arrays), 2.0 * 16 * 256 * 256 * 64, 4.0 * size, 64)


def mlp_example() -> Case:
    """examples/mlp.mlir as written: softmax(tanh(gelu_tanh(x @ w1 + b1) * s @ w2 + b2)).
    Weights are scaled by 1/sqrt(fan-in), so gelu and tanh see values of order one."""
    rng = np.random.default_rng(0)
    shapes = [(64, 256), (256, 512), (512,), (512,), (512, 128), (128,)]
    arrays = [rand(rng, *s) for s in shapes]
    arrays[1] /= np.float32(16.0)
    arrays[4] /= np.float32(math.sqrt(512))

    def fn(x, w1, b1, s, w2, b2):
        h = F.gelu(x @ w1 + b1, approximate="tanh") * s
        return torch.softmax(torch.tanh(h @ w2 + b2), dim=1)

    size = sum(a.size for a in arrays) + 64 * 128
    flops = 2.0 * 64 * (256 * 512 + 512 * 128)
    return Case(MLP_FILE.read_text(), arrays, Fn(fn), len(arrays), flops, 4.0 * size, 512)


def _suite(name: str) -> Row:
    return next(r for r in rows.ROWS if r.name == name)


ROWS = [
    _suite("batch_norm 8x64x56²"),
    _suite("relu 1M"),
    _suite("relu(x*a+b)*sigmoid(x) 16M"),
    Row("conv3x3+bias+relu 1x64x56² →64 p1", "compute", conv_bias_relu),
    Row("attention scores 2x8x256² k64 *s+mask", "compute", attention_scores),
    _suite("softmax 4096x1024"),
    _suite("layer_norm 8x512x768"),
    Row("MLP examples/mlp.mlir 64x256", "compute", mlp_example),
]


@dataclass(frozen=True)
class Buffers:
    """The intermediate buffers of one compiled function (see `allocated`)."""

    allocated: int  # bytes of the static memref.allocs, each counted once
    in_regions: int  # how many of them sit inside a loop or other region (allocated per iteration)
    dynamic: int  # allocs of dynamic shape: counted, not sized
    arena: int  # bytes of the arena versa-plan-buffers made of them (JitFunction.memory.arena)


def allocated(text: str, pipeline: str) -> tuple[int, int, int]:
    """(bytes, allocs in regions, dynamic allocs) of every memref.alloc after bufferization.

    The pipeline runs up to, not including, versa-plan-buffers: results are out-params by then
    (the caller's buffers) and buffer-deallocation-pipeline has run, so each remaining alloc is
    an intermediate buffer the function mallocs on every call unless the plan takes it."""
    from versa.compiler import compile_text, parse_pipeline
    from versa.mlir import ir
    from versa.passes.common.base import collect

    elements = parse_pipeline(pipeline)
    names = [e if isinstance(e, str) else e.name for e in elements]
    if PLAN_STEP not in names:
        raise ValueError(f"the pipeline '{pipeline}' has no {PLAN_STEP} step to count buffers before")
    module = compile_text(text, elements[: names.index(PLAN_STEP)])
    total = in_regions = dynamic = 0
    for op in collect(module.operation, lambda op: op.name == "memref.alloc"):
        t = ir.MemRefType(op.results[0].type)
        if not t.has_static_shape:
            dynamic += 1
            continue
        width = 64 if isinstance(t.element_type, ir.IndexType) else t.element_type.width
        total += math.prod(t.shape) * max(1, width // 8)
        in_regions += op.parent.name != "func.func"
    return total, in_regions, dynamic


class VersaConfig(Versa):
    """One configuration as a bench peer (bench/driver.py times it like any system); it also
    records the buffers of the function it compiled for the current row."""

    def __init__(self, config: Config):
        super().__init__(config.pipeline)
        self.name, self.config = config.name, config
        self.buffers: Buffers | None = None

    def setup(self, threads: int) -> None:
        super().setup(threads)
        self._kwargs["llvm_opt_level"] = self.config.llvm_opt_level

    def prepare(self, case: Case) -> Runner:
        self.buffers = None
        jit = self._jit(self._parse(case.versa_text), **self._kwargs)
        counted = allocated(case.versa_text, self.pipeline)
        self.buffers = Buffers(*counted, jit.memory.arena)
        arrays = case.arrays
        return lambda: jit(*arrays)
