"""Window reductions: each output element folds a few neighbouring inputs, as the interior of
a 2-D pool does once `pool_regions` has written it as a reduction over reshaped views of the
input (y[n, c, oh, ow] = max over rh, rw of view[n, c, oh, rh, ow, rw], one view per group of
taps when the kernel is longer than the stride). The fill of the output is fused into the
tiles, so each output tile is filled, folded and written once.

    scf.forall over an outer parallel dim                             (threads)
      scf.for over the other parallel dims, the innermost by T
        fill ; generic               (vector<rh x T x rw> per view: contiguous rows, the strides
                                      de-interleaved in registers)

Shapes whose innermost parallel extent is over 4 vectors and has no divisor T in [lanes/2,
4 lanes] stay for the loop lowering (a ragged tile is dynamic; the vectorizer wants static
tiles).
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .reduction import combiner_name
from .script import Script
from .strategy import LOWER_OUTER_REDUCTION, MIN_PARALLEL_ELEMENTS, Strategy, vector_body

MAX_TAPS = 8  # largest reduced extent of a window (a pooling stride)


def _window(op: ir.Operation) -> list[bool] | None:
    """The reduced loops of a generic that folds small windows of inputs read in loop order
    into a filled init indexed by its parallel loops, with a parallel loop inside the first
    reduced one (a window, not a trailing reduce); else None."""
    if op.name != "linalg.generic" or len(op.results) != 1 or len(op.operands) < 2:
        return None
    if not vector_body(op) or combiner_name(op) is None:
        return None
    reduced = ["reduction" in str(it) for it in op.attributes["iterator_types"]]
    if not any(reduced) or all(reduced[reduced.index(True) :]):
        return None
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    kept = ir.AffineMap.get(
        len(reduced), 0, [ir.AffineDimExpr.get(d) for d, r in enumerate(reduced) if not r]
    )
    if any(m != ir.AffineMap.get_identity(len(reduced)) for m in maps[:-1]) or maps[-1] != kept:
        return None  # (a broadcast input, e.g. a scalar divisor fused in, is not a window)
    extents = ir.RankedTensorType(op.operands[0].type).shape  # an input's: the loop extents
    if any(r and e > MAX_TAPS for r, e in zip(reduced, extents, strict=True)):
        return None
    init = op.operands[len(op.operands) - 1].owner
    if getattr(init, "name", None) != "linalg.fill":
        return None  # the fill is fused into the tiles
    if not _producers_vectorize(op, len(op.operands) - 1):
        return None
    return reduced


def _producers_vectorize(op: ir.Operation, inputs: int | None = None) -> bool:
    """Whether every linalg producer that tile-and-fuse pulls into the tiles (transitively,
    through inits too: an elementwise op may update a contraction's result in place) is
    elementwise with a vector form: a gather's `tensor.extract`, or a contraction read through
    strided maps (a grouped conv left as one generic), would fail the vectorizer. `inputs`:
    how many leading operands to follow (the root's init is its fill, fused on purpose)."""
    for value in list(op.operands)[:inputs]:
        producer = value.owner
        name = getattr(producer, "name", "")
        if name == "linalg.generic" and not (_elementwise(producer) and _producers_vectorize(producer)):
            return False
    return True


def _elementwise(op: ir.Operation) -> bool:
    """Whether a generic is a vectorizable map: parallel loops read through projected permutations."""
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    return (
        vector_body(op)
        and all("parallel" in str(it) for it in op.attributes["iterator_types"])
        and all(m.is_projected_permutation for m in maps)
    )


@dataclass(frozen=True)
class WindowStrategy(Strategy):
    tiles: tuple[int, ...]  # per loop: 1, T on the innermost parallel, 0 (whole) on reduced
    thread_tile: tuple[int, ...]  # per loop, 0 = untiled; () = one thread
    inputs: int

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "WindowStrategy | None":
        reduced = _window(op)
        if reduced is None:
            return None
        extents = list(ir.RankedTensorType(op.operands[0].type).shape)
        inner = max(d for d, r in enumerate(reduced) if not r)
        lanes = target.lanes(32)
        if extents[inner] <= 4 * lanes:
            tile = extents[inner]
        else:
            tile = next((t for t in range(4 * lanes, lanes // 2 - 1, -1) if extents[inner] % t == 0), 0)
        if not tile:
            return None
        tiles = [0 if r or e == 1 else 1 for r, e in zip(reduced, extents, strict=True)]
        tiles[inner] = tile if tile < extents[inner] else 0
        thread_tile: tuple[int, ...] = ()
        outer = [d for d, r in enumerate(reduced) if not r and d != inner]
        if threads > 1 and math.prod(extents) >= MIN_PARALLEL_ELEMENTS:
            dim = next((d for d in outer[:2] if extents[d] >= threads), None)
            if dim is not None:
                thread_tile = tuple(-(-extents[d] // threads) if d == dim else 0 for d in range(len(extents)))
        return WindowStrategy(tuple(tiles), thread_tile, len(op.operands) - 1)

    def fuses_producers(self) -> bool:
        return any(self.tiles)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        function = s.parent(op, "func.func")
        fill = s.match_ops(["linalg.fill"], s.producer(op, self.inputs))
        scope = function
        if self.thread_tile:
            op, scope = s.tile_forall(op, list(self.thread_tile))
            s.fuse_into(fill, scope)
        if any(self.tiles):
            op, loops = s.fuse(op, list(self.tiles), list(range(len(self.tiles))))
            scope = loops[min(loops)]
        if scope == function:  # one tile: the op and its fill as they are
            s.vectorize(op)
            s.vectorize(fill)
        else:
            s.vectorize(s.match_ops(["linalg.generic", "linalg.fill"], scope))
        s.patterns(function, LOWER_OUTER_REDUCTION)  # across the rows, then across the strides
