"""Tile-size arithmetic of the matmul strategy (matmul.py) that its search space
(matmul_space.py), its remarks (declines.py) and the pre-packed form (packed_matmul.py) share:
how threads split a dim, what a matmul weighs, which cache tiles a register tile makes moot,
what its operands are."""

from versa.mlir import ir

from .consumers import epilogue_consumer
from .strategy import round_up

# Extra load on the slowest thread that a split may carry to keep an earlier (outer) dim.
BALANCE = 0.1


def divisor_or_max(most: int, extent: int) -> int:
    """The largest size in [most/2, most] that divides `extent` (no remainder), else `most`."""
    return next((t for t in range(most, most // 2, -1) if extent % t == 0), most)


def thread_split(candidates: list[tuple[int, int, int]], threads: int) -> tuple[int, int]:
    """(dim, extent per thread) of the first candidate (dim, extent, register tile) whose
    slowest thread has at most BALANCE more work than the best split's slowest: M = 33 in
    8-row tiles splits 24 + 9 (the slow thread does 1.45x its share), N = 513 splits 288 + 225
    (1.12x). (0, 0) when no candidate splits (one thread)."""
    splits = []
    for dim, extent, multiple in candidates:
        per_thread = round_up(-(-extent // threads), multiple)
        # The last thread's chunk must hold a whole register tile: a shorter one (M = 9 split
        # 8 + 1 with 8-row tiles) is a dynamic tile that vectorization refuses.
        rest = extent % per_thread
        if threads > 1 and per_thread < extent and (rest == 0 or rest >= multiple):
            splits.append((per_thread * threads / extent, dim, per_thread))
    if not splits:
        return 0, 0
    best = min(load for load, _, _ in splits)
    return next((dim, tile) for load, dim, tile in splits if load <= best + BALANCE)


def work(op: ir.Operation, batch: int, m: int, n: int, k: int) -> tuple[int, int]:
    """The flops and operand bytes of the matmul `op` (what `threads_worth` weighs)."""
    width = ir.ShapedType(op.operands[0].type).element_type.width // 8
    return 2 * max(batch, 1) * m * n * k, max(batch, 1) * (m * k + k * n + m * n) * width


def uncut(cache: tuple[int, ...], register: tuple[int, ...]) -> tuple[int, ...]:
    """Cache tiles with 0 (no cache loop) where the register tile is as large: the register
    level then owns that dim's loop, and peels it where ragged (a ragged cache loop around an
    untiled register dim is a dynamic tile that vectorization refuses)."""
    return tuple(0 if c == r else c for c, r in zip(cache, register, strict=True))


def rest_tile(rows: int, columns: int, kr: int, lanes: int, registers: int) -> tuple[int, int, int]:
    """The register tile of the `rows` (M % mr) that the matmul strategy splits off below its
    whole row tiles: all of them, by columns of the widest power-of-two count of vectors that
    keeps their accumulators in half the registers and divides `columns` (so the tiles are
    static and vectorize unmasked), else that count (the last tile masked)."""
    most = max(1, registers // 2 // rows)
    most = 1 << (most.bit_length() - 1)
    widths = [(most >> i) * lanes for i in range(most.bit_length())]
    width = next((w for w in widths if columns % w == 0), min(most * lanes, round_up(columns, lanes)))
    return rows, width, kr


def tiled_producers(op: ir.Operation) -> bool:
    """Whether A or B comes from an op that `structured.fuse` would fuse into the tiles (and
    recompute per tile): a linalg op or a pad."""
    owners = [getattr(getattr(v.owner, "operation", None), "name", "") for v in op.operands[:2]]
    return any(name.startswith(("linalg.", "tensor.pad")) for name in owners)


def alone(op: ir.Operation) -> bool:
    """Whether no epilogue strategy takes `op` (that one tiles it with the matmul kernel)."""
    return epilogue_consumer(op) is None


def zero(element: ir.Type) -> str:
    return f"0.0 : {element}" if isinstance(element, ir.FloatType) else f"0 : {element}"
