"""A GPU target's limits and the tiles its matmul and conv kernels use, as named fields.

They were positional tuples in an untyped dict, so which number was `warps_n` could only be
read off the pass that unpacked them. Each tile's fields are named as the options of the pass
that takes it, so `lower-to-nvvm` hands a tile over as `Pass(**asdict(tile))` and the pass's
CLI options (`--versa-gpu-mma="warps-n=2"`) stay the one spelling of each number.

Plain data that imports nothing (no MLIR, no llvmlite): a GPU's numbers can be read, and
compared across targets, without loading a compiler.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class MatmulTile:
    """`versa-gpu-matmul`: f32 matmuls on the CUDA cores, a square tile of C per block."""

    tile: int  # outputs per block along M and N (a multiple of 16)
    k_step: int  # K per shared-memory stage


@dataclass(frozen=True)
class MmaTile:
    """`versa-gpu-mma`: TF32 matmuls on the tensor cores (mma.sync), where no wgmma exists."""

    block_m: int  # rows of C per block
    block_n: int  # columns of C per block
    k_step: int  # K per shared-memory stage
    warps_m: int  # warps per block along M
    warps_n: int  # and along N
    stages: int  # shared-memory stages in flight


@dataclass(frozen=True)
class WgmmaTile:
    """`versa-gpu-wgmma`: Hopper's warpgroup MMAs, for bf16/f16 matmuls (and f32 ones as TF32)."""

    block_m: int  # rows of C per block: 64 per warpgroup
    block_n: int  # columns of C per block (one wgmma's N)
    stages: int  # shared-memory stages in flight


@dataclass(frozen=True)
class ConvTile:
    """`versa-gpu-conv`: output pixels x output channels per block, taps per stage.

    64 channels: convs have 64 * 2^k, so no block is half idle. On an H200 (N=32 ResNet shapes)
    128 x 64 x 8 came within 10% of the best of five tilings on each, at 16-20 TFLOP/s."""

    pixels: int  # output pixels per block (a multiple of 16)
    channels: int  # output channels per block (a multiple of 16)
    k_step: int  # taps per shared-memory stage


@dataclass(frozen=True)
class GpuLimits:
    """What `lower-to-nvvm` needs to know of a GPU: its block and shared-memory limits, its
    multiprocessors, and a tile per kernel template. `wgmma` is None on GPUs without warpgroup
    MMAs (before Hopper), which take f32 matmuls to `mma` when TF32 is allowed instead."""

    warp: int  # threads per warp
    threads_per_block: int  # the block size of one-thread-per-element and row kernels
    smem: int  # bytes of shared memory per multiprocessor
    smem_per_block: int  # bytes of dynamic shared memory one block may have
    sms: int  # multiprocessors
    matmul: MatmulTile
    mma: MmaTile
    wgmma: WgmmaTile | None
    conv: ConvTile
