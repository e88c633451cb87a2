"""Matmul and batch matmul: threads × cache blocking (Goto order) × a register micro-kernel.

For C[M, N] += A[M, K] · B[K, N] (batch matmul: the same per batch, threads over batches):

    scf.forall m0 in threads        (M split across cores; N where B outweighs A, n > m)
      scf.for n1 step nc ; scf.for k1 step kc ; scf.for m1 step mc      (cache blocks)
        scf.for n2 step nr ; scf.for m2 step mr ; scf.for k2 step kr      (register tile)
          vector.contract → mr·(nr/lanes) vector.fma per k, accumulators hoisted out of k2

B is packed (Goto's packed panels) when its cache block outgrows L1 and several row tiles
reuse it: before the m1 loop the kc×nc block is copied into [nc/nr][kc/kr][kr][nr], so each
register panel is one contiguous run that the m loops stream from L1/L2. Read in place, a
panel's rows lie N·4 bytes apart (4 KB for N = 1024): they share L1 sets and pages. The copy is
upstream's `pad` (nofold: a copy even without padding) + `hoist_pad`, which builds the packing
loop nest over (n2, k2) above the loops B does not depend on. Its store is vectorized too: a pad
that pads nothing, vectorized alone, folds back into a slice, and the copy was then one float at
a time (LLVM cannot prove source and panel apart); vector copies made a 128x768x3072 matmul 1.5x
and a 49x2048x512 one 1.3x faster.

Threads only where the second one saves more core cycles (at the target's peak rate) than an
OpenMP fork and join costs (strategy.threads_worth): below that, one thread. Each thread zeroes its
own part of C (the fill is fused into the forall) right before accumulating into it; where K is
one cache block (attention's Q·Kᵀ, K = 64), each C cache block right before its tiles, in cache.

Tile sizes come from the target: mr rows and nr columns whose accumulators fill half the
vector registers (2 vectors per row; wider rows when M is small), kc so that a kc×nr panel of
B fills L1 (all of K when there is one row block: then B is used once), nc and mc so that the B and
A blocks share L2. The last M % mr rows are split off and tiled on their own (matmul_rest.py;
not where threads split M). Register loops whose extent can still be partial are peeled: full
tiles vectorize without masks, the remainders with masks. Nothing is vectorized beyond a register tile. A k
loop no longer than a vector is store-bound: register tiles then go row by row (m, n, k).
One column (N = 1, no epilogue) is a row of dot products along K instead (matvec.py).

A dynamic K (a `versa-static-tiles` tile of attention's `probs @ V`: static rows and columns,
K the sequence) runs as the k register loop itself, one step at a time (a step of 1 never
leaves a partial tile), in cache blocks of static kc: the accumulators stay in registers across
the whole K, filled once and stored once, as in a static compile. B is then not packed.

A constant B is packed once at compile time instead (`prepack`, versa-pack-weights): the op is
then a contraction over (panel, m, lane, k) on panels [N/nr][K][nr] (packed_matmul.py), which
this strategy runs as a batch matmul over panels (`panels` of them per cache block), B read in
place.
"""

from dataclasses import dataclass, replace

from versa.mlir import ir
from versa.targets import Target

from .matmul_rest import split_rest
from .matmul_tiles import alone, divisor_or_max, rest_tile, thread_split, tiled_producers, uncut, work, zero
from .matvec import dot_shape, emit_dot
from .packed_matmul import has_constant_b, packed_form, prepacks
from .script import Script
from .strategy import (
    LOWER_CONTRACT,
    MASKS,
    PREPARE,
    Strategy,
    fit,
    needed,
    peelable,
    ragged,
    round_up,
    threads_worth,
)

OPS = ("linalg.matmul", "linalg.batch_matmul")
# Register row tiles that must read a packed B block before packing it pays for the copy.
PACK_REUSE = 4
# What the sizes that weigh K (threads, the cache blocks of N and M) take a dynamic K to be.
DYNAMIC_K = 64


@dataclass(frozen=True)
class MatmulStrategy(Strategy):
    batch: int  # 0 for linalg.matmul
    m: int
    n: int
    k: int
    threads: int
    thread_dim: int  # the op dim split across threads: batch, else M, else N when M is small
    thread_tile: int  # extent of thread_dim per thread; 0 = no forall
    cache_tile: tuple[int, int, int]  # mc, nc, kc
    register_tile: tuple[int, int, int]  # mr, nr, kr
    pack_b: bool = False  # B's cache block copied into contiguous register panels
    zeros: tuple[str, ...] = ()  # each operand's zero (`0.0 : f32`): padding values of the pack
    rows_outer: bool = False  # register tiles row by row (m, n, k), not column by column
    dot_width: int = 0  # N = 1: rows as dot products V = dot_width wide (matvec.py); 0 = not
    fused_fill: bool = False  # rows_outer and whole tiles: each tile starts from zero registers
    constant_b: bool = False  # B is a constant f32 weight (versa-pack-weights may pack it)
    prepack: bool = False  # B packed at compile time instead of per call (versa-pack-weights)
    panels: int = 0  # a pre-packed B's contraction (batch = panels): panels per cache block
    rest: tuple[int, int, int] = ()  # M % mr rows split off: their own register tile (rest_tile)

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "MatmulStrategy | None":
        packed = packed_form(op)  # (panels, M, panel width, K) of versa-pack-weights' contraction
        if op.name not in OPS and packed is None:
            return None
        if packed:
            batch, m, n, k = packed
        else:
            shape = ir.RankedTensorType(op.operands[0].type).shape
            n = ir.RankedTensorType(op.operands[1].type).shape[-1]
            batch, (m, k) = (shape[0] if op.name == "linalg.batch_matmul" else 0), shape[-2:]
        dynamic = ir.ShapedType.is_dynamic_size(k)
        size_k = DYNAMIC_K if dynamic else k
        lanes = target.lanes(32)
        mr = divisor_or_max(min(max(1, target.vector_registers // 4), m), m)
        # Half the vector registers hold accumulators: 2 vectors of N per row for full row
        # tiles, wider rows when M is small (a GEMV's one row would otherwise have 2
        # accumulators: a chain of dependent fmas, bound by their latency).
        vectors = max(2, target.vector_registers // 2 // mr)
        # A power of two: mr = 5 (M = 50, 65, 130, ...) gave 3 vectors (nr = 48) and mr = 3 gave 5;
        # LLVM has no legal vector<48xf32>, so the loop-carried vector<5x48xf32> accumulator is
        # rebuilt element by element every k step (vector.to_elements / from_elements): 4-7x slower.
        vectors = 1 << (vectors.bit_length() - 1)
        nr = min(vectors * lanes, round_up(n, lanes))
        if (nr // lanes) & (nr // lanes - 1):  # a narrow N (3, 5, 6, 7 vectors): a power of two too
            nr = lanes << ((nr // lanes).bit_length() - 1)
        kr = 4 if not dynamic and k % 4 == 0 else 1  # a ragged k-step: remainder kernels for little gain
        # One row block: every element of B is used once, so blocking k for L1 reuse buys
        # nothing and costs an accumulator reload per block.
        if dynamic:
            kc = 0 if m <= mr else target.l1 // (nr * 4)
        else:
            kc = fit(k if m <= mr else target.l1 // (nr * 4), k, kr)
        nc = fit(target.l2 // 2 // ((kc or size_k) * 4), n, nr)
        mc = fit(target.l2 // 16 // ((kc or size_k) * 4), m, mr)
        b = 1 if batch else 0
        single = n == 1 and not dynamic and alone(op)
        dot = dot_shape(lanes, target.vector_registers, m, k) if single else None
        if dot:
            mr, nr, kr = dot[0], 1, dot[1]
            mc, nc, kc = 0, 0, 0
        threads = threads_worth(*work(op, batch, m, n, size_k), target, threads)
        candidates = [(0, batch, 1)] if batch >= threads else []
        # Rows, else columns (a GEMV has one row); columns first where B outweighs A: each
        # thread then packs and streams only its own slice of B (split by rows, every thread
        # packs all of B: a linear layer's 128 tokens x 768 -> 3072 ran 2x slower than split by
        # columns).
        split = [(b, m, mr), (b + 1, n, nr)]
        candidates += split[::-1] if n > m and not batch else split
        candidates = candidates[:-1] if dot else candidates
        thread_dim, thread_tile = thread_split(candidates, threads)
        cache = uncut((mc, nc, kc), (mr, nr, kr))
        zeros = tuple(zero(ir.ShapedType(v.type).element_type) for v in op.operands)
        plain = MatmulStrategy(batch, m, n, k, threads, thread_dim, thread_tile, cache, (mr, nr, kr))
        # A k loop shorter than a vector (K = 3: a rank-3 update) makes the kernel store-bound:
        # C tiles then go row by row, each row of tiles one contiguous stream (column by column,
        # every tile's rows are a row of C apart: a page each; 4096x3x4096 ran 2x slower).
        if dot:
            return replace(plain, dot_width=kr, zeros=zeros)
        if not dynamic and k <= lanes and m > mr and n > nr:
            rows = replace(plain, rows_outer=True, zeros=zeros)
            return replace(rows, fused_fill=rows.whole_tiles() and not tiled_producers(op))
        if not dynamic and not (thread_tile and thread_dim == b) and m > mr and m % mr:
            # M % mr rows split off (matmul_rest.py); the main part's row blocks fit its whole tiles
            mc = fit(target.l2 // 16 // ((kc or size_k) * 4), m - m % mr, mr)
            cache = uncut((mc, nc, kc), (mr, nr, kr))
            columns = cache[1] or (thread_tile if thread_dim == b + 1 else n)
            rest = rest_tile(m % mr, columns, kr, lanes, target.vector_registers)
            plain = replace(plain, cache_tile=cache, rest=rest)
        if packed:  # B's panels are the batch: cache blocks of them as wide as nc would be
            panels = fit(target.l2 // 2 // ((kc or size_k) * 4), batch * n, n) // n
            return replace(plain, panels=panels, zeros=zeros)
        constant = has_constant_b(op)
        prepack = constant and prepacks(plain, target)
        packs = plain.packs(target.l1)
        return replace(plain, pack_b=packs, constant_b=constant, prepack=prepack, zeros=zeros)

    def whole_tiles(self) -> bool:
        """Whether each thread's share is whole register tiles with no cache loop around them."""
        b = 1 if self.batch else 0
        share = [self.extent(d) for d in range(b, b + 3)]
        if self.thread_tile and self.thread_dim >= b:
            share[self.thread_dim - b] = self.thread_tile
        cut = any(c and c < e for c, e in zip(self.cache_tile, share, strict=True))
        return not cut and all(e % r == 0 for e, r in zip(share[:2], self.register_tile[:2], strict=True))

    def packs(self, l1: int) -> bool:
        """Whether packing B pays: its kc×nc block does not fit in L1 (read in place, its panels
        come strided from L2), each thread's rows make PACK_REUSE register tiles, and N and K
        split into whole register tiles (a ragged panel would need C padded inside the k loop)."""
        b = 1 if self.batch else 0
        rows = self.thread_tile if self.thread_tile and self.thread_dim == b else self.m
        _, nc, kc = self.cache_tile
        block = (kc or self.k) * (nc or self.n) * 4
        reuse = rows >= PACK_REUSE * self.register_tile[0]
        return self.can_pack() and not self.panels and reuse and block > l1

    def fills_blocks(self) -> bool:
        """Whether each C cache block is zeroed right before its register tiles accumulate into
        it (the fill fused into the cache loops): where K is one cache block, so no k1 loop comes
        back to a block. Zeroed whole first, a C larger than L2 (attention's S x S scores) goes
        to memory, comes back for the tiles and goes again: Whisper's Q·Kᵀ (S = 1500) ran 1.6x
        slower. A pre-packed B's C is a view of the fill (blocks of panels): zeroed whole."""
        kc = self.cache_tile[2]
        return not (self.dynamic_k or self.panels or self.rest) and (not kc or kc >= self.k)

    @property
    def dynamic_k(self) -> bool:
        return ir.ShapedType.is_dynamic_size(self.k)

    def can_pack(self) -> bool:
        """Whether B's panels can be packed at all: N and K split into whole register tiles."""
        b = 1 if self.batch else 0
        if self.dynamic_k:
            return False
        return not ragged(self.n, self.tiles(b + 1)) and not ragged(self.k, self.tiles(b + 2))

    def fuses_producers(self) -> bool:
        return self.fused_fill

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        # The zero fill of the output, unless an earlier strategy already vectorized it (cse
        # merges the equal fills of equal-shaped ops): then the match is empty.
        fill, function = s.match_ops(["linalg.fill"], s.producer(op, 2)), s.parent(op, "func.func")
        lead = [1] if self.batch else []
        b, extents = len(lead), [*([self.batch] if self.batch else []), self.m, self.n, self.k]
        if self.thread_tile:
            sizes = [self.thread_tile if d == self.thread_dim else 0 for d in range(len(extents))]
            op, forall = s.tile_forall(op, sizes)
            fill = s.fuse_into(fill, forall)  # each thread zeroes its own tile: in parallel, in cache
            extents[self.thread_dim] = self.thread_tile
        if self.dot_width:
            emit_dot(s, op, function, lead, extents, self.register_tile[0], self.dot_width)
            self._fill(s, fill)
            s.patterns(function, MASKS)
            return
        if self.fused_fill:
            self._emit_fused_fill(s, op, function, lead, extents)
            return
        cache = needed([*self.cache_lead(), *self.cache_tile], extents)
        rest = []  # the k loops of the rest rows' tiles
        if self.rest:  # the last M % mr rows apart (matmul_rest.py): the main part is whole tiles
            op, cache_loops, rest = split_rest(s, self, op, extents, tag)
            extents[b] -= self.rest[0]
        elif self.fills_blocks() and any(cache):  # the fill fused into the cache blocks
            op, cache_loops = s.fuse(op, cache, [*range(b), b + 1, b + 2, b])
            s.patterns(function, ["canonicalization"])  # drops the unfused fill
            fill = s.match_ops(["linalg.fill"], s.parent(op, "scf.for"))
        else:
            op, cache_loops = s.tile(op, cache, [*range(b), b + 1, b + 2, b])  # n, k, m
        extents = [c or e for c, e in zip(cache, extents, strict=True)]
        register = needed([*lead, *self.register_tile], extents)
        order = [b, b + 1] if self.rows_outer else [b + 1, b]
        op, loops = s.tile(op, register, [*range(b), *order, b + 2])  # n, m, k (m, n, k)
        if self.pack_b and (loops or b in cache_loops):  # some loop to hoist the packing above
            op = self._pack_b(s, op, cache_loops.get(b), len(loops))
        inward = (b + 2, *order[::-1])
        peel = [d for d in inward if d in loops and peelable(self.extent(d), self.tiles(d))]
        for d in peel:  # innermost first: peeling consumes the handles of nested loops
            s.peel(loops[d])
        mr, nr, kr = self.register_tile
        if peel:  # full tiles become static and vectorize unmasked; remainders are masked
            s.patterns(function, ["linalg.tiling_canonicalization", "canonicalization"])
            op = s.match_tag(*tag, function)  # every tile of this op keeps its tag
            k_loops = s.parent(op, "scf.for")
            s.vectorize(op, [*lead, mr, nr, kr])
            s.patterns(function, MASKS)
        else:
            k_loops = loops.get(b + 2) or cache_loops.get(b + 2)
            s.vectorize(op)
        self._fill(s, fill)
        s.patterns(function, MASKS)
        # Patterns run on the whole function: the vectorized fill outside the loops must fold
        # into the accumulators' first read, or the hoisting finds no loop-invariant pair.
        s.patterns(function, PREPARE)
        for loops_k in [k_loops, *rest]:
            if loops_k:
                s.hoist(loops_k)
        s.patterns(function, LOWER_CONTRACT)

    def cache_lead(self) -> list[int]:
        """The cache tile of the batch dim: one batch, or a pre-packed B's cache block of panels."""
        return [self.panels or 1] if self.batch else []

    def c_dims(self, sizes: list[int]) -> list[int]:
        """Sizes over the op's (batch, m, n) as C's dims: a pre-packed B's C is [M, panels, nr]."""
        return [sizes[1], sizes[0], sizes[2]] if self.panels else sizes

    def extent(self, dim: int) -> int:
        """The extent of loop `dim` that the main register tiles cover (M less the rest rows)."""
        m = self.m - (self.rest[0] if self.rest else 0)
        return [*([self.batch] if self.batch else []), m, self.n, self.k][dim]

    def tiles(self, dim: int) -> list[int]:
        """The tile sizes of `dim` from the outermost level in."""
        i = dim - (1 if self.batch else 0)
        thread = [self.thread_tile] if self.thread_tile and dim == self.thread_dim else []
        return [*thread, self.cache_tile[i], self.register_tile[i]] if i >= 0 else thread

    @property
    def op_name(self) -> str:
        return "linalg.batch_matmul" if self.batch else "linalg.matmul"

    def _pack_b(self, s: Script, op: str, m_block: str | None, register_loops: int) -> str:
        """Pack B's register panels above the m1 loop (or above the register loops when there
        is no m1); the padded op, which reads its B tile from the packed block."""
        b = 1 if self.batch else 0
        if m_block:  # the B block's slice is invariant in m1: hoist_pad needs it defined outside
            s.licm(m_block)
        padded = s.pad(op, [b + 1, b + 2], self.zeros, [0, 1, 0])
        panel = s.hoist_pad(s.producer(padded, 1), register_loops + (1 if m_block else 0))
        _, nr, kr = self.register_tile
        store = s.consumer(panel)  # the insert_slice that stores the panel into the packed block
        s.vectorize(panel, [*([1] if b else []), kr, nr])
        s.vectorize(store)
        return padded

    def _emit_fused_fill(
        self, s: Script, op: str, function: str, lead: list[int], extents: list[int]
    ) -> None:
        """Register tiles row by row with the zero fill fused into each (`structured.fuse`
        follows the tile's init to the fill): the accumulators start as zero registers and C
        is written once, not zeroed first (a third of the traffic of a store-bound kernel)."""
        b = len(lead)
        mr, nr, _ = self.register_tile
        op, _ = s.fuse(op, needed([*lead, mr, nr, 0], extents), [*range(b), b, b + 1, b + 2])
        fills = s.match_ops(["linalg.fill"], s.parent(op, "scf.for"))
        s.vectorize(op)
        s.vectorize(fills)
        s.patterns(function, PREPARE)  # the zero tile folds into the contraction's accumulator
        s.patterns(function, LOWER_CONTRACT)

    def _fill(self, s: Script, fill: str) -> None:
        """The zero init: row vectors, masked where the row is ragged."""
        mr, nr, _ = self.register_tile
        lead = [1] if self.batch else []
        shape = [*([self.batch] if self.batch else []), self.m, self.n]
        tiled, _ = s.tile(fill, self.c_dims(needed([*lead, mr, nr], shape)))
        s.vectorize(tiled, self.c_dims([*lead, min(mr, self.m), min(nr, self.n)]))
