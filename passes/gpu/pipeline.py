"""lower-to-nvvm: the NVIDIA GPU pipeline, read top to bottom."""

from collections.abc import Iterator
from dataclasses import asdict, dataclass

from versa import targets

from ..bufferize.pipeline import buffer_steps
from ..common.base import Pass, PassError
from ..common.pipeline import Pipeline
from ..versa_to_linalg.convert_versa_to_linalg import ConvertVersaToLinalg
from .conv import VersaGpuConv
from .map import VersaGpuMap
from .matmul import VersaGpuMatmul
from .mma import VersaGpuMma
from .reduce import VersaGpuReduce
from .rows import VersaGpuOutlineRows, VersaGpuRows
from .transpose import VersaGpuTranspose
from .wgmma import VersaGpuWgmma


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
        """The GPU target whose chip `chip` is."""
        chips = targets.gpu_chips()
        if self.chip not in chips:  # a chip, not a target's name
            raise PassError(f"'lower-to-nvvm' chip '{self.chip}' is not one of {', '.join(chips)}")
        return targets.resolve(self.chip, kind="gpu")

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
