"""The kernel of `versa-gpu-wgmma` as MLIR text: a block of warpgroups computing a tile of
C = A @ Btᵀ (f32) from 128-byte-swizzled shared-memory stages filled by cp.async, with
`wgmma.mma_async` reading them through matrix descriptors (the layout: gpu_wgmma's docstring).
A and Bt hold f32 (multiplied as TF32), bf16 or f16: a tile row is 128 bytes of K either way
(32 or 64 elements), and each MMA takes 32 bytes of it (K = 8 or 16)."""

from dataclasses import dataclass

from .tensor_core_text import KernelLines, copy_ahead

ROW_BYTES = 128  # a tile row of K: one row of the 128-byte swizzle
CHUNK = 16  # bytes per cp.async copy, and per swizzled unit
MMA_BYTES = 32  # of K per wgmma instruction
_SPACE = "#gpu.address_space<workgroup>"
# element type of A and B → (wgmma operand type, bytes per element)
ELEMENTS = {"f32": ("tf32", 4), "bf16": ("bf16", 2), "f16": ("f16", 2)}


@dataclass(frozen=True)
class WgTiles:
    """A block's tile of C: BM rows (64 per warpgroup) x BN columns, `stages` tiles in flight."""

    block_m: int = 128
    block_n: int = 128
    stages: int = 4
    round_inputs: bool = True  # by kernels before the matmul (gpu_operands)
    depth: int = 1  # wgmma groups left in flight at the end of a stage (0 or 1)

    @property
    def threads(self) -> int:
        return 2 * self.block_m  # a warpgroup (128 threads) per 64 rows

    @property
    def stage_bytes(self) -> int:
        return (self.block_m + self.block_n) * ROW_BYTES

    @property
    def shared_bytes(self) -> int:
        return self.stages * self.stage_bytes + 1024  # + room to align the ring to 1024 bytes

    def check(self) -> str | None:
        if self.block_m % 64 or not 64 <= self.block_m <= 256:
            return "block_m must be 64, 128, 192 or 256 (64 rows per warpgroup)"
        if self.block_n % 8 or not 8 <= self.block_n <= 256:
            return "block_n must be a multiple of 8 up to 256 (one wgmma's N)"
        if self.depth not in (0, 1):
            return "depth must be 0 or 1"
        if self.stages < 2 + self.depth:
            return "the pipeline needs at least two stages (three with a wgmma group in flight)"
        return None


def kernel_text(
    name: str, batch: int, m: int, n: int, k: int, tiles: WgTiles, accumulate: bool, element: str = "f32"
) -> str:
    """C[b] (+)= A[b] @ Bt[b]ᵀ (Bt: B transposed, N x K; batch 0: a plain matmul), static sizes:
    added to C, or stored over it (`accumulate` false: C was only zero-filled). A and Bt hold
    `element`s, C f32."""
    bm, bn, stages, threads = tiles.block_m, tiles.block_n, tiles.stages, tiles.threads
    mma_type, size = ELEMENTS[element]
    k_step, per_chunk, mma_k = ROW_BYTES // size, CHUNK // size, MMA_BYTES // size
    k_tiles = -(-k // k_step)
    lead = f"{batch}x" if batch else ""
    a, bt = (f"memref<{lead}{r}x{s}x{element}>" for r, s in ((m, k), (n, k)))
    c = f"memref<{lead}{m}x{n}xf32>"
    at = (lambda i, j: f"%bz, {i}, {j}") if batch else (lambda i, j: f"{i}, {j}")
    ring = f"memref<{(tiles.shared_bytes - 1024) // size}x{element}, {_SPACE}>"
    acc_type = f"!llvm.struct<({', '.join(['f32'] * (bn // 2))})>"
    w = KernelLines()
    # The ring of stages, 1024-byte aligned (the swizzle pattern repeats every 8 rows of 128 B).
    w(f"%smem = gpu.dynamic_shared_memory : memref<?xi8, {_SPACE}>")
    w(f"%base = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, {_SPACE}> -> index")
    w("%mis = arith.remui %base, %c1024 : index")
    w("%pad0 = arith.subi %c1024, %mis : index")
    w("%pad = arith.remui %pad0, %c1024 : index")
    w(f"%S = memref.view %smem[%pad][] : memref<?xi8, {_SPACE}> to {ring}")
    w("%start = arith.addi %base, %pad : index")
    w("%zero = arith.constant 0.0 : f32")
    w(f"%row0 = arith.muli %by, %c{bm} : index")
    w(f"%col0 = arith.muli %bx, %c{bn} : index")
    w("%wg = arith.divui %tx, %c128 : index")
    w("%wt = arith.remui %tx, %c128 : index")
    w("%warp = arith.divui %wt, %c32 : index")
    w("%lane = arith.remui %tx, %c32 : index")
    w("%g = arith.divui %lane, %c4 : index")
    w("%q = arith.remui %lane, %c4 : index")
    w("%q2 = arith.muli %q, %c2 : index")
    # This thread's chunks: rows tx/8 + e*threads/8 of the stage (A's rows, then Bᵀ's), chunk tx%8,
    # stored at chunk (tx%8) ^ (row%8); row%8 is the same for all of them (threads/8 % 8 == 0).
    w("%ch = arith.remui %tx, %c8 : index")
    w("%r0 = arith.divui %tx, %c8 : index")
    w("%r8 = arith.remui %r0, %c8 : index")
    w("%sw = arith.xori %ch, %r8 : index")
    w(f"%kc = arith.muli %ch, %c{per_chunk} : index")
    w(f"%swf = arith.muli %sw, %c{per_chunk} : index")
    rows_per_pass = threads // 8
    chunks = [(e * rows_per_pass, "A") for e in range(bm // rows_per_pass)]
    chunks += [(e * rows_per_pass, "B") for e in range(-(-bn // rows_per_pass))]

    def stage_slot(stage: str, p: str, e: int, r: int, which: str) -> str:
        """The element index in the ring of this thread's chunk `e` of a stage."""
        tile_row = r if which == "A" else bm + r
        w(f"%{p}sr{e} = arith.addi %r0, %c{tile_row} : index")
        w(f"%{p}so{e} = arith.muli %{p}sr{e}, %c{k_step} : index")
        w(f"%{p}sf{e} = arith.addi %{p}so{e}, %swf : index")
        w(f"%{p}sb{e} = arith.muli {stage}, %c{tiles.stage_bytes // size} : index")
        w(f"%{p}sl{e} = arith.addi %{p}sb{e}, %{p}sf{e} : index")
        return f"%{p}sl{e}"

    def stage_copies(tile: str, stage: str, p: str) -> None:
        w(f"%{p}k0 = arith.muli {tile}, %c{k_step} : index")
        w(f"%{p}gk = arith.addi %{p}k0, %kc : index")
        w(f"%{p}kok = arith.cmpi ult, %{p}gk, %c{k} : index")
        for e, (r, which) in enumerate(chunks):
            if which == "B" and r >= bn:
                continue
            rows, origin, matrix, type_ = (m, "%row0", "%A", a) if which == "A" else (n, "%col0", "%Bt", bt)
            w(f"%{p}lr{e} = arith.addi %r0, %c{r} : index")
            w(f"%{p}gr{e} = arith.addi {origin}, %{p}lr{e} : index")
            w(f"%{p}rok{e} = arith.cmpi ult, %{p}gr{e}, %c{rows} : index")
            if which == "B" and r + rows_per_pass > bn:  # a partial pass: rows past the tile copy nothing
                w(f"%{p}in{e} = arith.cmpi ult, %{p}lr{e}, %c{bn} : index")
                w(f"%{p}rin{e} = arith.andi %{p}rok{e}, %{p}in{e} : i1")
                ok_row = f"%{p}rin{e}"
            else:
                ok_row = f"%{p}rok{e}"
            w(f"%{p}ok{e} = arith.andi {ok_row}, %{p}kok : i1")
            w(f"%{p}n{e} = arith.select %{p}ok{e}, %c{per_chunk}, %c0 : index")
            w(f"%{p}cr{e} = arith.select %{p}ok{e}, %{p}gr{e}, %c0 : index")
            w(f"%{p}ck{e} = arith.select %{p}ok{e}, %{p}gk, %c0 : index")
            slot = stage_slot(stage, p, e, r, which)
            if which == "B" and r + rows_per_pass > bn:
                w(f"scf.if %{p}in{e} {{")
            w(
                f"%{p}t{e} = nvgpu.device_async_copy {matrix}[{at(f'%{p}cr{e}', f'%{p}ck{e}')}], "
                f"%S[{slot}], {per_chunk}, %{p}n{e} {{bypassL1}} : {type_} to {ring}"
            )
            if which == "B" and r + rows_per_pass > bn:
                w("}")

    ahead = stages - 1 - tiles.depth  # tiles in flight ahead of the one computed
    for s in range(ahead):  # the prologue: the first stages in flight
        if s < k_tiles:
            stage_copies(f"%c{s}", f"%c{s}", f"p{s}_")
        w("nvvm.cp.async.commit.group")
    w(f"%acc0 = llvm.mlir.undef : {acc_type}")
    for x in range(bn // 2):
        w(f"%acc{x + 1} = llvm.insertvalue %zero, %acc{x}[{x}] : {acc_type}")
    # Descriptor constants: 128-byte swizzle (bit 62), 1024 bytes between 8-row groups (bits 32-45),
    # leading offset 1 (unused for swizzled K-major); the start address (bits 0-13) is added per use.
    layout = (1 << 62) | ((1024 >> 4) << 32) | (1 << 16)
    w(f"%layout = arith.constant {layout} : i64")
    w(f"%out = scf.for %t = %c0 to %c{k_tiles} step %c1 iter_args(%acc = %acc{bn // 2}) -> ({acc_type}) {{")
    w(f"  nvvm.cp.async.wait.group {ahead - 1}")  # this thread's copies of tile t have landed
    w(f"  %st = arith.remui %t, %c{stages} : index")
    w("  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}")
    # Everyone's copies are visible to the tensor cores, and every warpgroup has finished the
    # MMAs of tile t - 1 - depth (waited for at the end of the last stage): its stage is free.
    w("  gpu.barrier")
    copy_ahead(w, stage_copies, ahead, stages, k_tiles)
    # Descriptors of this stage: A's 64 rows of this warpgroup, and all of Bᵀ's tile.
    w(f"  %sbyte = arith.muli %st, %c{tiles.stage_bytes} : index")
    w("  %sa0 = arith.addi %start, %sbyte : index")
    w(f"  %wgoff = arith.muli %wg, %c{64 * ROW_BYTES} : index")
    w("  %sa = arith.addi %sa0, %wgoff : index")
    w(f"  %sb = arith.addi %sa0, %c{bm * ROW_BYTES} : index")
    for tag in ("a", "b"):
        w(f"  %{tag}i = arith.index_cast %s{tag} : index to i64")
        w(f"  %{tag}m = arith.andi %{tag}i, %addr18 : i64")
        w(f"  %{tag}s = arith.shrui %{tag}m, %shift4 : i64")
        w(f"  %{tag}d = arith.ori %{tag}s, %layout : i64")
    w("  nvvm.wgmma.fence.aligned")
    value = "%acc"
    for step in range(ROW_BYTES // MMA_BYTES):  # MMAs 32 bytes further along each 128-byte row
        descs = []
        for tag in ("a", "b"):
            if step:
                w(f"  %{tag}d{step} = arith.addi %{tag}d, %kstep{step} : i64")
                descs.append(f"%{tag}d{step}")
            else:
                descs.append(f"%{tag}d")
        w(
            f"  %mma{step} = nvvm.wgmma.mma_async {descs[0]}, {descs[1]}, {value}, "
            f"#nvvm.shape<m = 64, n = {bn}, k = {mma_k}>, D[<f32>, <one>, <wrapped>], "
            f"A[<{mma_type}>, <one>, <row>], B[<{mma_type}>, <one>, <col>] : {acc_type} -> {acc_type}"
        )
        value = f"%mma{step}"
    w("  nvvm.wgmma.commit.group.sync.aligned")
    w(f"  nvvm.wgmma.wait.group.sync.aligned {tiles.depth}")
    w(f"  scf.yield {value} : {acc_type}")
    w("}")
    w("nvvm.wgmma.wait.group.sync.aligned 0")
    w("nvvm.cp.async.wait.group 0")
    w("%wrow = arith.muli %wg, %c64 : index")
    w("%vrow = arith.muli %warp, %c16 : index")
    w("%r1 = arith.addi %wrow, %vrow : index")
    w("%r2 = arith.addi %r1, %g : index")
    w("%grow = arith.addi %r2, %row0 : index")
    for j in range(bn // 8):  # C (+)= the accumulators, two adjacent columns at a time, inside C
        w(f"%gc{j}a = arith.addi %q2, %c{8 * j} : index")
        w(f"%gc{j} = arith.addi %gc{j}a, %col0 : index")
        w(f"%cok{j} = arith.cmpi ult, %gc{j}, %c{n} : index")
        for half in (0, 1):
            tag = f"{j}_{half}"
            w(f"%gr{tag} = arith.addi %grow, %c{8 * half} : index")
            w(f"%rok{tag} = arith.cmpi ult, %gr{tag}, %c{m} : index")
            w(f"%ok{tag} = arith.andi %rok{tag}, %cok{j} : i1")
            w(f"scf.if %ok{tag} {{")
            where = at(f"%gr{tag}", f"%gc{j}")
            pair = []
            for x in (0, 1):
                w(f"  %v{tag}_{x} = llvm.extractvalue %out[{4 * j + 2 * half + x}] : {acc_type}")
                pair.append(f"%v{tag}_{x}")
            w(f"  %acc2{tag} = vector.from_elements {pair[0]}, {pair[1]} : vector<2xf32>")
            result = f"%acc2{tag}"
            if accumulate:
                w(f"  %old{tag} = vector.load %C[{where}] : {c}, vector<2xf32>")
                w(f"  %new{tag} = arith.addf %old{tag}, %acc2{tag} : vector<2xf32>")
                result = f"%new{tag}"
            w(f"  vector.store {result}, %C[{where}] : {c}, vector<2xf32>")
            w("}")
    w("gpu.return")
    return "\n".join(
        [
            f"gpu.module @{name} {{",
            f"  gpu.func @{name}(%A: {a}, %Bt: {bt}, %C: {c}) kernel"
            f" attributes {{known_block_size = array<i32: {threads}, 1, 1>}} {{",
            "    %bx = gpu.block_id x",
            "    %by = gpu.block_id y",
            "    %bz = gpu.block_id z",
            "    %tx = gpu.thread_id x",
            "    %addr18 = arith.constant 262143 : i64",
            "    %shift4 = arith.constant 4 : i64",
            *[
                f"    %kstep{s} = arith.constant {s * MMA_BYTES // 16} : i64"
                for s in range(1, ROW_BYTES // MMA_BYTES)
            ],
            w.text(),
            "  }",
            "}",
        ]
    )
