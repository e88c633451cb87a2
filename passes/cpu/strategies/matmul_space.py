"""The search space of matmul and batch matmul (matmul.py), alone or with an epilogue
(epilogue.py): the register tile, the k step, the three cache tiles, the dim threads split, and
whether B is packed.

    register  (mr, nr)     accumulators mr x nr/lanes vectors; nr a power-of-two count of vectors
    kr        4 or 1       the k step of the micro-kernel (4 only where 4 divides K)
    mc nc kc               cache tiles (Goto's blocking), fitted to multiples of the register tile
    split     m, n, batch or none: the dim split across threads
    pack_b    B's cache block copied into contiguous register panels first
    prepack   a constant B packed into register panels once, at compile time (versa-pack-weights)

A point is invalid when its accumulators, a vector of B and a broadcast of A do not fit in the
vector registers (they would spill on every k step), when the chosen thread split leaves a
thread a partial register tile, or when packing is asked of ragged panels. The matrix-vector
form (N = 1: rows of dot products, matvec.py) has no knobs.
"""

from dataclasses import replace

from versa.targets import Target

from .epilogue import EpilogueStrategy
from .matmul import MatmulStrategy, thread_split, uncut
from .packed_matmul import can_prepack
from .space import InvalidPoint, Knob, Point, Space, candidates
from .strategy import fit, round_up

ROWS = (1, 2, 3, 4, 6, 8, 12, 16)
VECTORS = (1, 2, 4)
K_SIZES = (64, 128, 256, 384, 512, 768, 1024)
N_SIZES = (64, 128, 256, 512, 1024, 2048)
M_SIZES = (8, 16, 32, 64, 128, 256)


def _fits(mr: int, nr: int, lanes: int, registers: int) -> bool:
    """Accumulators plus a vector of B and a broadcast element of A in registers (B is
    loaded a vector at a time, each used by the tile's mr rows)."""
    vectors = nr // lanes
    return mr * vectors + 2 <= registers


def _splits(mm: MatmulStrategy) -> tuple[str, ...]:
    """The thread splits `mm` may take: none, and with threads batch (if any), m and n."""
    if mm.threads <= 1:
        return ("none",)
    return ("none", *(("batch",) if mm.batch else ()), "m", "n")


def _split_name(mm: MatmulStrategy) -> str:
    if not mm.thread_tile:
        return "none"
    b = 1 if mm.batch else 0
    return "batch" if mm.batch and mm.thread_dim == 0 else ("m" if mm.thread_dim == b else "n")


def matmul_space(mm: MatmulStrategy, target: Target) -> Space:
    if mm.dot_width:
        return Space()
    lanes, registers = target.lanes(32), target.vector_registers
    mr, nr, kr = mm.register_tile
    tiles = [(mr, nr)]
    for rows in ROWS:
        for vectors in VECTORS:
            shape = (rows, vectors * lanes)
            fits = _fits(*shape, lanes, registers) and rows <= mm.m
            if fits and shape[1] <= round_up(mm.n, lanes) and shape not in tiles:
                tiles.append(shape)
    mc, nc, kc = (c or r for c, r in zip(mm.cache_tile, mm.register_tile, strict=True))
    knobs = [
        Knob("register", tuple(tiles), "register tile (mr rows, nr columns)"),
        Knob("kr", (kr, 1) if kr == 4 else (1, 4) if mm.k % 4 == 0 else (1,), "k step"),
        Knob("kc", candidates(kc, mm.k, 1, K_SIZES), "k cache tile"),
        Knob("nc", candidates(nc, mm.n, lanes, N_SIZES), "n cache tile"),
        Knob("mc", candidates(mc, mm.m, 1, M_SIZES), "m cache tile"),
    ]
    default = _split_name(mm)
    others = (n for n in _splits(mm) if n != default)
    knobs.append(Knob("split", (default, *others), "dim split across threads"))
    if not mm.rows_outer and not mm.panels:  # a pre-packed B is never copied per call
        knobs.append(Knob("pack_b", (mm.pack_b, not mm.pack_b), "pack B's register panels"))
    if mm.constant_b:
        knobs.append(Knob("prepack", (mm.prepack, not mm.prepack), "pack the constant B at compile time"))
    return Space(tuple(knobs))


def matmul_at(mm: MatmulStrategy, point: Point, target: Target) -> MatmulStrategy:
    space = matmul_space(mm, target)
    space.check(point)
    if not space.knobs:
        return mm
    p = {**space.default(), **point}
    lanes = target.lanes(32)
    mr, nr = p["register"]
    kr = p["kr"]
    vectors = nr // lanes
    if nr % lanes or vectors & (vectors - 1):
        raise InvalidPoint(f"nr = {nr} is not a power-of-two count of {lanes}-lane vectors")
    if not _fits(mr, nr, lanes, target.vector_registers):
        raise InvalidPoint(f"a {mr}x{nr} register tile does not fit {target.vector_registers} registers")
    if mr > mm.m or kr not in (1, 4) or mm.k % kr:
        raise InvalidPoint(f"register tile {mr}x{nr}, k step {kr} does not fit M = {mm.m}, K = {mm.k}")
    register = (mr, nr, kr)
    cache = uncut((fit(p["mc"], mm.m, mr), fit(p["nc"], mm.n, nr), fit(p["kc"], mm.k, kr)), register)
    if p["split"] not in _splits(mm):
        raise InvalidPoint(f"split {p['split']!r} is not one of {', '.join(_splits(mm))}")
    b = 1 if mm.batch else 0
    thread_dim, thread_tile = (0, 0)
    if p["split"] != "none":
        dim, extent, multiple = {"batch": (0, mm.batch, 1), "m": (b, mm.m, mr), "n": (b + 1, mm.n, nr)}[
            p["split"]
        ]
        thread_dim, thread_tile = thread_split([(dim, extent, multiple)], mm.threads)
        if not thread_tile:
            raise InvalidPoint(f"{mm.threads} threads cannot split {p['split']} = {extent} in whole tiles")
    new = replace(
        mm,
        thread_dim=thread_dim,
        thread_tile=thread_tile,
        cache_tile=cache,
        register_tile=register,
        pack_b=False,
        prepack=False,
    )
    if new.rows_outer:
        return replace(new, fused_fill=mm.fused_fill and new.whole_tiles())
    if p.get("pack_b"):
        if not new.can_pack():
            raise InvalidPoint("B's panels are ragged at this point: packing needs whole register tiles")
        new = replace(new, pack_b=True)
    if p.get("prepack"):
        if not can_prepack(new):
            raise InvalidPoint("only the plain matmul kernel reads a pre-packed B (not rows_outer, dots)")
        new = replace(new, prepack=True)
    return new


def epilogue_space(strategy: EpilogueStrategy, target: Target) -> Space:
    return matmul_space(strategy.matmul, target)


def epilogue_at(strategy: EpilogueStrategy, point: Point, target: Target) -> EpilogueStrategy:
    mm = matmul_at(strategy.matmul, point, target)
    b = 1 if mm.batch else 0
    cut = any(c and c < mm.extent(d) for d, c in zip(range(b, b + 2), mm.cache_tile, strict=False))
    if not mm.thread_tile and mm.batch <= 1 and not cut:
        raise InvalidPoint("one tile on one thread: nothing to fuse the epilogue into")
    return replace(strategy, matmul=mm)
