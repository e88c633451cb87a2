"""versa-gpu-wgmma: matmul and batch matmul on Hopper's warpgroup tensor cores (`wgmma`): f32
as TF32 when allowed (`tf32`), bf16 and f16 (f32 accumulation, exact in their inputs) always.

On an H200 the warp-level `mma.sync` of `versa-gpu-mma` tops out near 150 TFLOP/s (TF32): every
operand goes through registers (shared-memory loads, fragment moves, rounding) before each MMA.
`wgmma.mma_async` reads both operands straight from shared memory, described by 64-bit matrix
descriptors, for a warpgroup (4 warps) at once: 64 x BN x 8 (TF32) or 16 (bf16/f16) per
instruction (TF32 4096² at 290-296 TFLOP/s, 0.8x cuBLAS; bf16 with its casts 298, 0.67x;
bench/gpu/RESULTS.md).

TF32 wgmma reads A and B only K-major and cannot round them, so kernels of `gpu_operands` first
write B transposed (N x K) and, when asked, A and Bᵀ rounded to TF32 (cvt.rna, as cuBLAS); a
constant B (weights) is transposed and rounded at compile time instead.
Tiles of A and Bᵀ are BM (BN) rows of 32 floats: 128 bytes, one row of the 128-byte swizzle
(16-byte chunk c of row r lies at chunk c ^ (r mod 8)), the layout the descriptor declares, so
the tensor cores read them bank-conflict free. Each thread copies 16-byte chunks with `cp.async`
(zeros past the matrix's edge) into a ring of `stages` tiles; a proxy fence and a barrier hand
each stage to the MMAs, and the next tile's copies are issued before them. `depth` wgmma groups
stay in flight across stages. Warpgroup w computes rows 64w..64w+63 of the block's tile; its
accumulator fragment is PTX's: warp v, lane 4g + q holds for each n8 block j
D[16v + g][8j + 2q + {0,1}] and D[16v + g + 8][8j + 2q + {0,1}].
"""

from dataclasses import dataclass, replace

from versa.mlir import ir, memref

from ..common.base import Pass, collect
from ..common.kernel_text import splice
from .kernels.gemm import buffer_shape, plain_matmul
from .kernels.operands import constant_transposed, round_kernel, transpose_kernel
from .kernels.tensor_core_text import big_enough, check_tiles
from .kernels.wgmma_kernel import CHUNK, ELEMENTS, WgTiles, kernel_text


@dataclass(frozen=True)
class Matmul:
    """C[batch] (f32) = A[batch] (m x k) @ B[batch] (k x n), A and B of `element`; batch 0: none."""

    batch: int
    m: int
    n: int
    k: int
    element: str

    def memref(self, rows: int, cols: int, element: str | None = None) -> str:
        lead = f"{self.batch}x" if self.batch else ""
        return f"memref<{lead}{rows}x{cols}x{element or self.element}>"

    @property
    def rounds(self) -> bool:
        return self.element == "f32"  # TF32: the inputs are rounded (if asked); 16-bit ones are exact


def program_text(name: str, mm: Matmul, tiles: WgTiles, transpose: bool, accumulate: bool) -> str:
    """The kernels of C[b] (+)= A[b] @ B[b] and a function launching them: B transposed (unless
    Bᵀ is given: a constant) and A rounded, if asked, into buffers of their own, then the matmul."""
    batch, m, n, k = mm.batch, mm.m, mm.n, mm.k
    a, b, bt, c = mm.memref(m, k), mm.memref(k, n), mm.memref(n, k), mm.memref(m, n, "f32")
    rounding = tiles.round_inputs and mm.rounds
    parts = [kernel_text(name, batch, m, n, k, tiles, accumulate, mm.element)]
    launches, first = [], "%A"
    if transpose:
        transposing, launch_transpose = transpose_kernel(f"{name}_bt", batch, k, n, rounding, mm.element)
        parts.append(transposing)
        launches.append(launch_transpose)
    if rounding:
        rounding, launch_round = round_kernel(f"{name}_ar", batch, m, k)
        parts.append(rounding)
        launches.append(launch_round)
        first = "%Ar"
    return "\n".join(
        [
            "module attributes {gpu.container_module} {",
            *parts,
            f"func.func private @launch(%A: {a}, %B: {b}, %C: {c}, %Bt: {bt}, %Ar: {a}) {{",
            f"  %gx = arith.constant {-(-n // tiles.block_n)} : index",
            f"  %gy = arith.constant {-(-m // tiles.block_m)} : index",
            f"  %gz = arith.constant {max(batch, 1)} : index",
            f"  %threads = arith.constant {tiles.threads} : index",
            f"  %shared = arith.constant {tiles.shared_bytes} : i32",
            "  %one = arith.constant 1 : index",
            *launches,
            f"  gpu.launch_func @{name}::@{name} blocks in (%gx, %gy, %gz) threads in (%threads, %one, %one)"
            f" dynamic_shared_memory_size %shared args({first} : {a}, %Bt : {bt}, %C : {c})",
            "  return",
            "}",
            "}",
        ]
    )


@dataclass(frozen=True)
class VersaGpuWgmma(Pass):
    name = "versa-gpu-wgmma"
    summary = "f32 matmul / batch matmul on Hopper TF32 warpgroup MMAs (wgmma), as kernels in place"
    block_m: int = 128  # rows of C per block: 64 per warpgroup
    block_n: int = 128  # columns of C per block (one wgmma's N)
    stages: int = 4  # shared-memory stages in flight
    round_inputs: bool = True  # round A and B to TF32 (cvt.rna) first; false: the tensor cores truncate
    depth: int = 1  # wgmma groups in flight across stages
    shared_limit: int = 227 << 10  # dynamic shared memory a block may have (the target's)
    processors: int = 132  # multiprocessors to keep busy: smaller tiles when C has too few (the target's)
    tf32: bool = True  # take f32 matmuls too (as TF32); bf16 and f16 ones (f32 results) always

    def _takes(self, op: ir.Operation) -> bool:
        """A plain matmul of f32 (if TF32 is allowed), bf16 or f16 into f32, with rows of A and
        B that are whole 16-byte chunks, big enough for the tensor cores' tiles."""
        types = plain_matmul(op)
        if types is None or types[2] != "f32" or types[0] != types[1] or types[0] not in ELEMENTS:
            return False
        if types[0] == "f32" and not self.tf32:
            return False
        (m, k), n = buffer_shape(op.operands[0])[-2:], buffer_shape(op.operands[1])[-1]
        per_chunk = CHUNK // ELEMENTS[types[0]][1]
        return k % per_chunk == 0 and n % 4 == 0 and big_enough(m, n, k)

    def run(self, module: ir.Operation) -> None:
        largest = WgTiles(self.block_m, self.block_n, self.stages, self.round_inputs, self.depth)
        check_tiles(self.name, largest, self.shared_limit)
        for count, op in enumerate(collect(module, self._takes)):
            a, b, c = op.operands
            batch = buffer_shape(a)[0] if op.name == "linalg.batch_matmul" else 0
            (m, k), n = buffer_shape(a)[-2:], buffer_shape(b)[-1]
            mm = Matmul(batch, m, n, k, plain_matmul(op)[0])
            tiles, lead = fitted(largest, m, n, max(batch, 1), self.processors), [batch] if batch else []
            fill = _zero_fill_of(op)
            if fill is not None:  # the kernel stores C: no zero-filling pass, no reading C back
                fill.erase()
            with ir.InsertionPoint(op), op.location:
                rounded = _buffer(lead + [m, k]) if tiles.round_inputs and mm.rounds else a
                constant = constant_transposed(b, tiles.round_inputs) if mm.element == "f32" else None
                transposed = constant or _buffer(lead + [n, k], mm.element)
            name = f"versa_gpu_wgmma_{count}"
            text = program_text(name, mm, tiles, constant is None, fill is None)
            splice(op, text, [a, b, c, transposed, rounded])


def fitted(tiles: WgTiles, m: int, n: int, batch: int, processors: int) -> WgTiles:
    """`tiles`, or smaller ones (BN, then BM, halved down to 64) until C has a block for every
    multiprocessor: a 2048 x 256 C in 128 x 256 tiles would keep 16 of an H200's 132 busy."""

    def blocks(t: WgTiles) -> int:
        return batch * -(-m // t.block_m) * -(-n // t.block_n)

    while blocks(tiles) < processors:
        if tiles.block_n > max(tiles.block_m, 64):
            tiles = replace(tiles, block_n=tiles.block_n // 2)
        elif tiles.block_m > 64:
            tiles = replace(tiles, block_m=tiles.block_m // 2)
        elif tiles.block_n > 64:
            tiles = replace(tiles, block_n=tiles.block_n // 2)
        else:
            break
    return tiles


def _zero_fill_of(op: ir.Operation) -> ir.Operation | None:
    """The `linalg.fill` of zero into the matmul's C right before it (what a matmul's init
    becomes), if any: C's only other writer, so the kernel can store instead of add."""
    previous = None
    for candidate in op.block.operations:
        if candidate.operation == op:
            break
        previous = candidate.operation
    if previous is None or previous.name != "linalg.fill" or previous.operands[1] != op.operands[2]:
        return None
    value = previous.operands[0].owner
    if not isinstance(value, ir.OpView) or value.operation.name != "arith.constant":
        return None
    zero = value.attributes["value"]
    return previous if isinstance(zero, ir.FloatAttr) and zero.value == 0.0 else None


def _buffer(shape: list[int], element: str = "f32") -> ir.Value:
    return memref.AllocOp(ir.MemRefType.get(shape, ir.Type.parse(element)), [], []).result
