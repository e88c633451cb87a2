"""What every codegen strategy shares: the pattern sets of the vector lowering, tile-size
arithmetic, and the `Strategy` interface the dispatcher (`__init__.select`) returns."""

from collections.abc import Sequence
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script

# Right after a masked vectorization: masked transfers become transfers with a mask operand.
# Left as `vector.mask` regions, later folding (another op's patterns in the same script) can
# move a second op into the region, which is invalid.
MASKS = ("vector.lower_masked_transfers",)
# After vectorization: turn multiply-reduce into vector.contract and clean the tiled IR, so
# that `hoist_loop_invariant_subsets` finds the accumulator's read/write pair on the k loop.
PREPARE = (
    "vector.reduction_to_contract",
    "vector.sink_ops",
    "vector.transfer_permutation_patterns",
    "linalg.tiling_canonicalization",
    "canonicalization",
)
# vector.contract → outer products → vector.fma: the register-blocked micro-kernel.
LOWER_CONTRACT = (
    'vector.lower_contraction lowering_strategy = "outerproduct"',
    "vector.transfer_permutation_patterns",
    "vector.lower_outerproduct",
    "vector.cast_away_vector_leading_one_dim",
    "canonicalization",
)

# After vectorizing a reduction over outer dims: the vector.multi_reduction becomes vector ops
# across the reduced dims (vertical, no horizontal reduce); transposed reads (NCHW pooling
# windows) are de-interleaved in registers first.
LOWER_OUTER_REDUCTION = (
    "vector.cast_away_vector_leading_one_dim",
    'vector.reorder_multi_reduction_dims lowering_strategy = "innerparallel"',
    'vector.multi_reduction_flattening lowering_strategy = "innerparallel"',
    'vector.multi_reduction_unrolling lowering_strategy = "innerparallel"',
    "vector.transfer_permutation_patterns",
    "canonicalization",
)


# Elements below which a loop nest stays on one thread: an OpenMP fork and join costs a few
# microseconds, the time to stream ~32K floats.
MIN_PARALLEL_ELEMENTS = 1 << 15
# On a function: versa-vectorize runs its ops on one thread (versa-outline-dynamic's copy for small calls).
ONE_THREAD = "versa.one_thread"


# Core cycles an OpenMP fork and join costs: waking a sleeping worker (OMP_WAIT_POLICY=PASSIVE).
# Measured on a 2-core Zen 4/5: under load (a core shared with other jobs) 2 threads lost to 1
# up to ~200³ (100³: 0.026 ms on one thread, 0.078 ms on two, ~2^17 cycles); idle the cost is
# ~10x lower (100³: 0.012 ms on two, ~2^13). 2^15 keeps 100³ on one thread and still gives a
# 784x1024 GEMV (an MLP at batch 1: 0.059 ms on two, 0.071 on one, idle) both cores' bandwidth.
FORK_JOIN_CYCLES = 1 << 15
# f32 flops per core cycle per vector lane: two FMA pipes, two flops each.
FLOPS_PER_LANE = 4
# Bytes a core streams per cycle from L3 (Zen: 32): a GEMV's time is its weights' bytes, and
# two cores stream twice as many (linear 1x768->3072, 9.4 MB: 0.095 ms on one, 0.053 on two).
STREAM_BYTES_PER_CYCLE = 32


def threads_worth(flops: int, nbytes: int, target: Target, threads: int) -> int:
    """`threads`, or 1 where the time threads save (a 1 - 1/threads share of the work: its flops
    at the core's peak rate, or its operands' bytes streamed, whichever takes longer) is below
    the cost of forking and joining them."""
    if threads <= 1:
        return 1
    return threads if saved_cycles(flops, nbytes, target, threads) >= FORK_JOIN_CYCLES else 1


def saved_cycles(flops: int, nbytes: int, target: Target, threads: int) -> float:
    """The core cycles `threads` threads save on work of `flops` and `nbytes` (threads_worth)."""
    cycles = max(flops / (FLOPS_PER_LANE * target.lanes(32)), nbytes / STREAM_BYTES_PER_CYCLE)
    return cycles * (threads - 1) / threads


def serial_remark(flops: int, nbytes: int, target: Target, threads: int) -> tuple[str, dict] | None:
    """Why `threads_worth` keeps one of `threads` threads, with its numbers (a codegen remark);
    None where it gives them all."""
    if threads <= 1 or threads_worth(flops, nbytes, target, threads) > 1:
        return None
    saved = round(saved_cycles(flops, nbytes, target, threads))
    reason = "one thread: more would save fewer core cycles than an OpenMP fork and join costs"
    values = {"threads": threads, "flops": flops, "bytes": nbytes, "saved_cycles": saved}
    return reason, {**values, "fork_join_cycles": FORK_JOIN_CYCLES}


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def fit(tile: int, extent: int, multiple: int) -> int:
    """`tile` rounded down to a multiple of `multiple`, no larger than needed for `extent`, and
    where one in [tile/2, tile] divides `extent`, that one: every partial tile is a peeled
    remainder with its own copy of the micro-kernel, so fewer of them compile faster."""
    tile = max(multiple, tile // multiple * multiple)
    if tile >= extent:
        return round_up(extent, multiple)
    for candidate in range(tile, tile // 2 - 1, -multiple):
        if candidate > 0 and extent % candidate == 0:
            return candidate
    return tile


def even_chunk(extent: int, multiple: int, threads: int) -> int:
    """The smallest multiple of `multiple` that divides `extent` and gives at most `threads`
    chunks, so every thread's tiles are whole (vectorizing needs static tiles); 0 if that is
    the whole extent."""
    for chunk in range(multiple, extent, multiple):
        if extent % chunk == 0 and extent // chunk <= threads:
            return chunk
    return 0


def needed(tiles: Sequence[int], extents: Sequence[int]) -> list[int]:
    """Tile sizes with 0 where one tile covers the whole extent (no one-trip loops: canonicalization
    would fold them away, and their transform handles with them); a dynamic extent keeps its tile."""
    dynamic = ir.ShapedType.is_dynamic_size
    return [t if t < e or dynamic(e) else 0 for t, e in zip(tiles, extents, strict=True)]


def vector_body(op: ir.Operation) -> bool:
    """Whether `op` can become vector code: every op in its body has a vector form (arith, math;
    no calls, no `tensor.extract`). Boolean tensors are fine: `versa-byte-bools` makes their
    vector loads and stores a byte per element, as memrefs hold them."""
    return all(b.operation.name.split(".")[0] in ("arith", "math", "linalg") for b in op.regions[0].blocks[0])


def ragged(extent: int, tiles: Sequence[int]) -> bool:
    """Whether the innermost tile of `extent` tiled by `tiles` (outer to inner) can be partial."""
    for tile in tiles:
        if not tile:
            continue
        if extent % tile and tile < extent:
            return True
        extent = min(tile, extent)
    return False


def peelable(extent: int, tiles: Sequence[int]) -> bool:
    """Whether the innermost tile loop has a partial last iteration to peel: a step-1 loop (K
    % 4 != 0 makes the k register tile 1) never has one, however ragged the tiles around it."""
    steps = [tile for tile in tiles if tile]
    return bool(steps) and steps[-1] > 1 and ragged(extent, tiles)


@dataclass(frozen=True)
class Strategy:
    """A frozen dataclass of knobs (the autotuner's search space) that writes its transform
    sequence for one op, held by the handle `op`, into `script`. The op and every tile cut from
    it carry the discardable attribute `tag` (name, value), so tiles can be matched again."""

    def emit(self, script: Script, op: str, tag: tuple[str, str]) -> None:
        raise NotImplementedError

    def fuses_producers(self) -> bool:
        """Whether the script runs `structured.fuse`, which pulls every tilable producer of the
        op into its tiles: `kernels.py` then outlines those producers with the op."""
        return False
