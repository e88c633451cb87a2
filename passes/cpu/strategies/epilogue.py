"""Matmul and batch matmul with their elementwise consumer (bias, activation, residual add,
scale): the epilogue is computed on each output tile while the tile is still in cache, never as
a second pass.

    scf.forall over batches, rows, or columns when rows are few      (threads)
      scf.for b step 1 ; scf.for n1 step nc ; scf.for m1 step mc      (output tile, L1/L2)
        fill ; scf.for k1 step kc { pack B's kc x nc block ; register micro-kernel of matmul.py }
        epilogue linalg.generic on the mc x nc tile, vector code        (reads the hot tile)

The consumer is the root: it is tiled and the matmul and its fill are fused into its loops
(`fuse_into_containing_op` for the threads, `structured.fuse` for the cache tiles). nc is
chosen so that a K x nc panel of B stays in L2 across the m1 loop, kc so that a kc x nr panel
fills half of L1. B is packed as in matmul.py where that pays (`MatmulStrategy.packs`): read in
place, a panel's rows lie N·4 bytes apart, and at N = 3072 (12 KB, three 4 KB pages) they all
fall in one L1 set: BERT-base's FFN (128x768 by 768x3072, + bias, GELU) took 14 ms unpacked,
5.5 ms packed (one thread, Xeon). The register level is matmul.py's; the epilogue's tile is
vectorized by rows of the vector width.
"""

from dataclasses import dataclass, replace

from versa.mlir import ir
from versa.targets import Target

from .consumers import epilogue_consumer
from .matmul import MatmulStrategy, uncut
from .script import Script
from .strategy import LOWER_CONTRACT, MASKS, PREPARE, Strategy, fit, needed, peelable, ragged


@dataclass(frozen=True)
class EpilogueStrategy(Strategy):
    matmul: MatmulStrategy
    lanes: int

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "EpilogueStrategy | None":
        if epilogue_consumer(op) is None:
            return None
        base = MatmulStrategy.for_op(op, target, threads)
        if base is None or base.dynamic_k:  # its blocks are sized from K: matmul.py's alone
            return None
        mc, _, kc = base.cache_tile
        mr, nr, kr = base.register_tile
        if kc:  # B's panel in half of L1 (A's rows and the C tile share the rest). Each m1
            # block packs all of its columns of B anew (the k loop is inside it, so that the
            # epilogue runs on a finished block): 8 bytes moved per 2·mc flops, so the blocks
            # are as tall as a quarter of L2 keeps their A rows. 20-row blocks of a 200x3072x768
            # linear + bias took 2x the plain matmul's time (Zen 3): the packing, not the fmas.
            kc = fit(target.l1 // 2 // (nr * 4), base.k, kr)
            mc = fit(target.l2 // 4 // (kc * 4), base.m, mr)
        nc = fit(target.l2 // 2 // (base.k * 4), base.n, nr)
        one_tile = base.batch <= 1 and base.m <= max(mc, mr) and base.n <= nc
        if not base.thread_tile and one_tile:
            return None  # nothing to fuse into: versa-vectorize takes the consumer
        # rest=(): the consumer's tiles take the whole op, ragged rows peeled (no split of M)
        mm = replace(base, cache_tile=uncut((mc, nc, kc), base.register_tile), pack_b=False, rest=())
        return EpilogueStrategy(replace(mm, pack_b=mm.packs(target.l1)), target.lanes(32))

    def fuses_producers(self) -> bool:
        return True  # the consumer's tiles take the matmul, its fill and their producers

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        mm = self.matmul
        b = 1 if mm.batch else 0  # a batch matmul's leading dim: one batch per tile
        lead = [1] * b
        function, epilogue = s.parent(op, "func.func"), s.consumer(op)
        fill = s.match_ops(["linalg.fill"], s.producer(op, 2))
        extents = [mm.extent(d) for d in range(b + 2)]
        scope = function
        if mm.thread_tile:
            sizes = [mm.thread_tile if d == mm.thread_dim else 0 for d in range(b + 2)]
            epilogue, scope = s.tile_forall(epilogue, sizes)
            s.fuse_into(op, scope)
            s.fuse_into(fill, scope)
            extents[mm.thread_dim] = mm.thread_tile
        mc, nc, kc = mm.cache_tile
        tiles = needed([*mm.cache_lead(), mc, nc], extents)
        epilogue, loops = s.fuse(epilogue, tiles, [*range(b), b + 1, b])  # b, n1, m1
        scope = loops.get(b + 1, loops.get(b, loops.get(0, scope)))
        s.patterns(function, ["canonicalization"])  # drops the unfused originals
        tile = s.match_tag(*tag, scope)
        # Without a loop (one thread, one cache tile) the scope is the whole function, whose
        # other fills (other ops' inits, pad borders) are not this op's: take its init's producer.
        fill = s.match_ops(["linalg.fill"], s.producer(tile, 2) if scope == function else scope)
        extents = [t or e for t, e in zip(tiles, extents, strict=True)] + [mm.k]
        tile, k_block = s.tile(tile, needed([*lead, 0, 0, kc], extents))
        mr, nr, kr = mm.register_tile
        extents[b + 2] = kc if b + 2 in k_block else mm.k
        inner = [*lead, *extents[b:]]  # a block of pre-packed panels is cut to one panel here
        tile, reg = s.tile(tile, needed([*lead, mr, nr, kr], inner), [*range(b), b + 1, b, b + 2])
        if mm.pack_b:  # B's kc x nc block packed into register panels at each k1 step (hoisting
            # it above k1 and m1, as matmul.py does above m1, fails: here k1 is inside m1)
            tile = mm._pack_b(s, tile, None, len(reg))
        peel = [d for d in (b + 2, b, b + 1) if d in reg and peelable(mm.extent(d), mm.tiles(d))]
        for d in peel:  # innermost first: peeling consumes the handles of nested loops
            s.peel(reg[d])
        s.patterns(function, ["linalg.tiling_canonicalization", "canonicalization"])
        tiles = s.match_tag(*tag, scope)
        k_loops = s.parent(tiles, "scf.for")
        s.vectorize(tiles, [*lead, mr, nr, kr])
        filled, _ = s.tile(fill, mm.c_dims(needed([*lead, mr, nr], extents[: b + 2])))
        s.vectorize(filled, mm.c_dims([*lead, min(mr, mm.m), min(nr, mm.n)]))
        s.patterns(function, MASKS)
        self._vectorize_epilogue(s, epilogue, function, extents[: b + 2])
        s.patterns(function, PREPARE)
        s.hoist(k_loops)
        s.patterns(function, LOWER_CONTRACT)

    def _vectorize_epilogue(self, s: Script, epilogue: str, function: str, extents: list[int]) -> None:
        """Rows of the vector width, before the contraction patterns fold the tile's IR; a
        ragged last column block is peeled and stays scalar (no masks to lower)."""
        mm = self.matmul
        n = len(extents) - 1  # the column dim
        rows, loops = s.tile(epilogue, needed([1] * n + [self.lanes], extents))
        n_tiles = [t for t in (mm.tiles(n)[:-1] + [self.lanes]) if t]
        if n not in loops or not ragged(mm.n, n_tiles):
            s.vectorize(rows)
            return
        main, _ = s.peel(loops[n])
        # matched before canonicalizing: a main loop of one trip folds away, and its handle with it
        rows = s.match_ops(["linalg.generic"], main)
        s.patterns(function, ["linalg.tiling_canonicalization", "canonicalization"])
        s.vectorize(rows)
