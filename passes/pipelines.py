"""Pipelines: named sequences of Versa and upstream passes, read top to bottom.

A pipeline is a Pass whose `steps()` the driver expands in place, so `--mlir-print-ir-after-all`
shows every step and a pipeline can be named inside `--pass-pipeline` like any pass.
"""

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import ClassVar

from versa import openmp, targets

from .base import Pass, PassError
from .bf16_bits import VersaBf16Bits
from .byte_bools import VersaByteBools
from .codegen.apply import VersaCodegen, cpu_target, default_threads
from .collapse_elementwise import VersaCollapseElementwise
from .collapse_epilogues import VersaCollapseEpilogues
from .collapse_reductions import VersaCollapseReductions
from .convert_versa_to_linalg import ConvertVersaToLinalg
from .distinct_results import VersaDistinctResults
from .fast_math import VersaFastMath
from .flatten_transfers import VersaFlattenTransfers
from .gpu_conv import VersaGpuConv
from .gpu_map import VersaGpuMap
from .gpu_matmul import VersaGpuMatmul
from .gpu_mma import VersaGpuMma
from .gpu_reduce import VersaGpuReduce
from .gpu_rows import VersaGpuOutlineRows, VersaGpuRows
from .gpu_transpose import VersaGpuTranspose
from .gpu_wgmma import VersaGpuWgmma
from .layout import VersaLayout
from .lower_memref_copy import VersaLowerMemrefCopy
from .plan_buffers import VersaPlanBuffers
from .pool_kernels import VersaPoolKernels
from .readonly_arguments import VersaReadonlyArguments
from .reshaped_results import VersaReshapedResults
from .row_kernels import VersaRowKernels
from .serial_foralls import VersaSerialForalls
from .streaming_stores import VersaStreamingStores
from .target_attributes import VersaTargetAttributes
from .unroll_hints import VersaUnrollHints
from .unshare_inits import VersaUnshareInits
from .vectorize import VersaVectorize


def buffer_steps(plan: bool = False, kernels: tuple[Pass, ...] = ()) -> Iterator[str | Pass]:
    """Tensors → buffers, for every target: one allocation per tensor, results written into
    caller-provided buffers (out-params), so the entry point takes only memrefs and returns
    nothing. Inits that cse merged are split again first: shared, bufferization would copy
    them. Inputs are the caller's: bufferization copies an argument rather than write into it.
    With `plan` (CPU), intermediates live in one static arena instead of per-call mallocs.
    `kernels` (GPU) run on the buffers before results become out-params, so the buffers they
    allocate for results are the caller's; the GPU host frees nothing (its plan owns every
    buffer), and the deallocation pipeline refuses the kernels' launches, so it is left out."""
    yield VersaUnshareInits()
    yield VersaReadonlyArguments()
    yield VersaDistinctResults()
    yield (
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}"
    )
    # Bufferized tiled loops copy each tile onto itself (two equal subviews): cse makes them
    # one value and canonicalize drops the self-copy.
    yield "cse"
    yield "canonicalize"
    yield from kernels
    yield VersaReshapedResults()  # a returned reshape of a buffer: the buffer takes its shape
    yield "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}"
    if not kernels:
        yield "buffer-deallocation-pipeline"
    # No memref.copy may reach finalize-memref-to-llvm unless it is a plain memcpy: the strided
    # ones would call the C runner library's memrefCopy, which does not ship.
    yield VersaLowerMemrefCopy()
    if plan:
        yield VersaPlanBuffers()


@dataclass(frozen=True)
class Pipeline(Pass):
    target_option: ClassVar[str] = "target"  # the option that `--target NAME` fills in

    def steps(self) -> Iterator[str | Pass]:
        raise NotImplementedError

    @classmethod
    def with_target(cls, options: str, target: str) -> str:
        """`options` with the target `target` (a `versa.targets` name) unless they name one."""
        if f"{cls.target_option}=" in options:
            return options
        try:
            value = cls.target_value(targets.get(target))
        except KeyError:
            raise PassError(f"unknown target '{target}' (versa-opt --list-targets lists them)") from None
        return f"{options} {cls.target_option}={value}".strip()

    @staticmethod
    def target_value(target: targets.Target) -> str:
        return target.name

    def run(self, module) -> None:
        raise PassError(f"pipeline '{self.name}' runs through its steps, not as one pass")


# Grouped convs lower at O2+ to one loop over (image, output row, group) around a vectorized
# conv per group (codegen/grouped_conv.py), whose compile time does not grow with the group
# count: no cap (128 groups with 2 filters each, 1x128x28: 3.7x faster than the generic).
SPLIT_GROUPS = 1 << 30


@dataclass(frozen=True)
class LowerToLLVM(Pipeline):
    """versa (or linalg on tensors) → the llvm dialect, for the CPU the code will run on.

    Optimisation levels (`opt-level`):
      0  plain scalar loops for every op (the unoptimised baseline);
      1  + elementwise ops and fused groups tiled and vectorized (`versa-vectorize`);
      2  + convolutions put in the target's layout (`versa-layout`), contractions by their
           codegen strategies: cache and register tiling, vector micro-kernels
           (`versa-codegen`), one thread;
      3  + the outer parallel loops across `threads` cores with OpenMP (0 = VERSA_NUM_THREADS
           or every available core; one thread when no OpenMP runtime is installed).

    `target` (`versa-opt --list-targets`) gives the vector width, registers and caches the tiles
    are sized from. Code for a cross target, or with `standalone` (a library that may link only
    libc and libm), is serial.
    """

    name = "lower-to-llvm"
    summary = "Lower versa or linalg-on-tensors IR to the LLVM dialect for a CPU target"
    target: str = "host"
    opt_level: int = 3
    threads: int = 0
    standalone: bool = False  # code for a library that may link only libc/libm (no OpenMP)

    def thread_count(self) -> int:
        """Threads of the emitted code: OpenMP needs the runtime in this process (the JIT);
        code for another machine (cross targets, libraries) is serial and needs only libc/libm."""
        in_process = targets.get(self.target).is_host and not self.standalone
        if self.opt_level < 3 or openmp.runtime_library() is None or not in_process:
            return 1
        return self.threads or default_threads()

    def steps(self) -> Iterator[str | Pass]:
        target = cpu_target(self.name, self.target)
        if not 0 <= self.opt_level <= 3:
            raise PassError(f"'lower-to-llvm' opt-level {self.opt_level} is not one of 0, 1, 2, 3")
        threads = self.thread_count()
        # Tensor level: convolutions in the layout the target's codegen is fastest with (a
        # no-op when versa-layout ran before versa-fuse, as versa.compile's pipeline does);
        # softmax and layer_norm become row kernels (one read of each row, not
        # five passes), inlined; the other versa ops become linalg; folding tidies the result.
        if self.opt_level >= 2:
            yield VersaLayout(target=self.target)
        if self.opt_level > 0:
            yield VersaRowKernels(threads=threads, target=self.target)
            yield VersaPoolKernels(threads=threads, target=self.target)
            yield "inline"
            yield "symbol-dce"
        codegen = self.opt_level >= 2
        yield ConvertVersaToLinalg(split_groups=SPLIT_GROUPS if codegen else 0, pool_views=codegen)
        yield "canonicalize"
        yield "cse"
        # Contractions get their strategies first: tiles (threads, caches, registers), then
        # vector micro-kernels, all on tensors (accumulators can only be hoisted there).
        if self.opt_level >= 2:
            yield VersaCollapseEpilogues()  # a linear layer's bias and activation in its matmul's shape
            yield VersaCollapseReductions(rows=max(8, threads))  # one reduced loop; full ones in 2 stages
            yield VersaCodegen(threads=threads, target=self.target)
            yield "canonicalize"
        # Elementwise loop nests become vector code while shapes are still static tensors.
        if self.opt_level > 0:
            yield VersaCollapseElementwise()  # long rows: fewer partial vectors
            yield VersaVectorize(width=target.lanes(32), threads=threads)
            yield "func.func(lower-vector-mask)"  # masks become masked transfers before folding
            yield "canonicalize"
        yield from buffer_steps(plan=True)
        yield VersaSerialForalls()  # loops that a strategy made foralls only to fuse into them
        # Threads: the strategies' scf.forall loops become OpenMP parallel loops.
        if threads > 1:
            yield "scf-forall-to-parallel"
            yield f"convert-scf-to-openmp{{num-threads={threads}}}"
            yield "canonicalize"  # inlines the memref.alloca_scope that the conversion adds
        # Loops: what is not vector code yet becomes scf loops, then plain control flow.
        yield "convert-linalg-to-loops"
        if self.opt_level >= 1:
            yield VersaFlattenTransfers(
                target=self.target
            )  # contiguous n-D reads as a few wide ones, not many narrow
        yield "convert-vector-to-scf{full-unroll=true}"
        if self.opt_level >= 1:
            yield VersaStreamingStores(target=self.target)  # outputs past the LLC skip the line read
        yield "expand-strided-metadata"
        yield "lower-affine"
        if self.opt_level >= 1:
            yield VersaUnrollHints()  # LLVM unrolls innermost loops only: code size, JIT time
        yield "convert-scf-to-cf"
        # LLVM: math with LLVM intrinsics first, the rest (erf, tanh) through libm.
        if self.opt_level >= 1:
            yield VersaFastMath()  # f32 exp/log/tanh/erf as vector polynomials, not libm calls
        # bf16: math and arithmetic in f32, rounded after each op (as LLVM would promote them),
        # and the rounding f32 -> bf16 as integer code on every CPU: nearest even, subnormals
        # and NaNs kept, bit for bit PyTorch's. LLVM would call compiler-rt's __truncsfbf2,
        # which nothing provides, where the CPU lacks AVX512-BF16, and AVX512-BF16's
        # vcvtneps2bf16 flushes subnormals to zero, which PyTorch does not.
        yield "func.func(math-extend-to-supported-types{extra-types=f16 target-type=f32})"
        yield "func.func(arith-emulate-unsupported-floats{source-types=bf16 target-type=f32})"
        yield "func.func(arith-expand{include-bf16=true})"
        yield "convert-math-to-llvm"
        yield "convert-math-to-libm"
        yield "convert-vector-to-llvm"
        yield VersaByteBools()  # boolean vectors in memory: a byte per element, as memrefs hold them
        yield "convert-ub-to-llvm"
        yield "finalize-memref-to-llvm"
        yield "convert-arith-to-llvm"
        yield "convert-func-to-llvm"
        yield "convert-cf-to-llvm"
        if threads > 1:
            yield "convert-openmp-to-llvm"
        yield "reconcile-unrealized-casts"
        yield VersaBf16Bits()  # bf16 is only moved by now: LLVM sees its bits, never a bfloat
        yield VersaTargetAttributes(target=self.target)  # the JIT's machine is the host's CPU


@dataclass(frozen=True)
class LowerToNVVM(Pipeline):
    """versa (or linalg on tensors) → host code launching NVVM kernels, for an NVIDIA GPU.

    Every linalg op becomes one kernel (`versa-gpu-map`: one thread per output element,
    reductions serial per thread), outlined into its own `gpu.module` and lowered to the llvm
    and nvvm dialects there. The host function keeps buffers, views and `gpu.launch_func` ops
    with static grid sizes: `versa.gpu` reads them, translates each module to PTX and launches
    the kernels through the CUDA driver API (no `mgpu*` runtime library is needed).
    """

    name = "lower-to-nvvm"
    summary = "Lower versa or linalg-on-tensors IR to host code and NVVM kernels for an NVIDIA GPU"
    target_option = "chip"
    chip: str = "sm_90"
    block: int = 0  # threads per block; 0 = the target's
    # f32 matmul as torch.set_float32_matmul_precision says: "highest" (f32 FMA) or "high"
    # (TF32 tensor cores: f32 range, 10-bit mantissa, several times the throughput).
    matmul_precision: str = "highest"

    @staticmethod
    def target_value(target: targets.Target) -> str:
        return target.chip or target.name  # a CPU target: refused by name in steps()

    def target(self) -> targets.Target:
        gpus = {targets.get(n).chip: targets.get(n) for n in targets.NAMES if targets.get(n).kind == "gpu"}
        if self.chip not in gpus:
            raise PassError(f"'lower-to-nvvm' chip '{self.chip}' is not one of {', '.join(gpus)}")
        return gpus[self.chip]

    def steps(self) -> Iterator[str | Pass]:
        target = self.target()
        gpu = target.gpu
        block = self.block or gpu.threads_per_block
        yield VersaGpuOutlineRows()  # softmax / layer_norm: one kernel each, after bufferization
        yield ConvertVersaToLinalg()
        yield "canonicalize"
        yield "cse"
        yield from buffer_steps(kernels=(VersaGpuRows(block=block),))  # results into the caller's buffers
        # Kernels: a block per result for inner reductions, else one launch per loop nest
        # (a thread per element); outlined into gpu.modules.
        if self.matmul_precision not in ("highest", "high"):
            raise PassError(
                f"'lower-to-nvvm' matmul-precision must be highest or high, not '{self.matmul_precision}'"
            )
        tf32 = self.matmul_precision == "high"
        # Each tile's fields are its pass's options (versa.gpu_limits): they pass by name.
        if gpu.wgmma is not None:  # Hopper: bf16/f16 matmuls always, f32 ones as TF32 if allowed
            limits = dict(shared_limit=gpu.smem_per_block, processors=gpu.sms)
            yield VersaGpuWgmma(**asdict(gpu.wgmma), **limits, tf32=tf32)
        elif tf32:
            yield VersaGpuMma(**asdict(gpu.mma), shared_limit=gpu.smem_per_block)
        yield VersaGpuMatmul(**asdict(gpu.matmul))  # calls to kernel templates, inlined
        yield VersaGpuConv(**asdict(gpu.conv))
        yield VersaGpuTranspose()  # transposes of the innermost dimension: tiled through shared memory
        yield "inline"
        yield "symbol-dce"
        yield VersaGpuReduce(block=block)
        yield "convert-linalg-to-parallel-loops"
        yield "canonicalize"
        yield VersaGpuMap(block=block)
        yield "gpu-launch-sink-index-computations"  # constants into kernels: known loop bounds
        yield "gpu-kernel-outlining"
        # Kernels to NVVM: math ops become libdevice calls, the few libdevice lacks (math.trunc)
        # LLVM intrinsics, which NVPTX selects as single instructions.
        yield (
            "gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,"
            "convert-nvgpu-to-nvvm,convert-gpu-to-nvvm{index-bitwidth=64},convert-nvvm-to-llvm,"
            "convert-math-to-llvm,"
            "canonicalize,cse,reconcile-unrealized-casts)"
        )
        yield "canonicalize"  # the host: one constant per grid and block size
