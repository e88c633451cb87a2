"""versa-gpu-mma: f32 matmul and batch matmul on tensor cores (TF32 `mma.sync`), opt-in.

The CUDA-core kernel (`versa-gpu-matmul`) reaches about 30 TFLOP/s on an H200, where the
tensor cores do TF32 at several times that. TF32 keeps f32's range but 10 mantissa bits, so,
as in PyTorch (`torch.set_float32_matmul_precision("high")`), it is a choice the user makes:
`lower-to-nvvm{matmul-precision=high}`. This is the kernel for sm_80; Hopper takes
`versa-gpu-wgmma`.

A block of WM x WN warps (sizes from the target) computes a BM x BN tile of C; each warp a
(BM/WM) x (BN/WN) tile as m16n8k8 fragments of `nvvm.mma.sync`. Tiles of BK columns of A (rows
of B) are copied with 16-byte `cp.async` (zeros past the edges) into a ring of `stages` tiles
in dynamic shared memory, `stages - 1` ahead of the one computed, one barrier per tile. Rows
are padded so that a warp's fragment loads hit 32 banks (A: BK + 8 words, B: BN + 4). Fragment
layouts are PTX's for m16n8k8 .tf32: lane = 4g + q holds A[g][q], A[g+8][q], A[g][q+4],
A[g+8][q+4]; B[q][g], B[q+4][g]; and C[g][2q], C[g][2q+1], C[g+8][2q], C[g+8][2q+1]. K is
permuted within each 8 (slots q and q+4 hold columns 2q and 2q+1, in A and B alike), so a
thread's two A values of a row are one 8-byte load. Operands are rounded to TF32 (cvt.rna)
after they are loaded. Edges load zeros and skip stores; rows must be whole vectors (K and N
multiples of 4), else the op is left to `versa-gpu-matmul`.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect
from ..common.kernel_text import splice
from .kernels.gemm import buffer_shape, plain_f32_matmul
from .kernels.tensor_core_text import KernelLines, big_enough, check_tiles, copy_ahead


@dataclass(frozen=True)
class Tiles:
    """A block's tile of C (block_m x block_n), K per shared-memory stage, and its warps."""

    block_m: int = 128
    block_n: int = 128
    k_step: int = 32
    warps_m: int = 2
    warps_n: int = 4
    stages: int = 3  # shared-memory stages in flight (asynchronous copies)
    round_inputs: bool = True  # cvt.rna to TF32, as cuBLAS; False: the tensor cores truncate

    @property
    def shared_bytes(self) -> int:
        return 4 * self.stages * (self.block_m * (self.k_step + A_PAD) + self.k_step * (self.block_n + B_PAD))

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n

    def check(self) -> str | None:
        """Why these tiles cannot work (None: they can)."""
        wm, wn = self.block_m // self.warps_m, self.block_n // self.warps_n
        if wm % 16 or wn % 8 or wm * self.warps_m != self.block_m or wn * self.warps_n != self.block_n:
            return "a warp's tile must be whole m16n8 fragments"
        if self.k_step % 8:
            return "the K step must be a multiple of 8"
        if self.block_n % 32:
            return "block_n must be a multiple of 32 (conflict-free fragment loads of B)"
        if self.stages < 2:
            return "the pipeline needs at least two stages"
        for rows, cols in ((self.block_m, self.k_step), (self.k_step, self.block_n)):
            if self.threads % (cols // 4) or (rows * cols // 4) % self.threads:
                return "the threads must copy whole rows of four-float vectors"
        return None


A_PAD = 8  # words after each row of A's tile: a half warp's pairs (g, 2q) hit 32 banks
B_PAD = 4  # and after each row of B's: rows 2q of a warp's loads fall 8 banks apart
_ACC = "!llvm.struct<(f32, f32, f32, f32)>"
_MMA_ATTRS = (
    "{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, "
    "multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, "
    "shape = #nvvm.shape<m = 16, n = 8, k = 8>}"
)


def kernel_text(name: str, batch: int, m: int, n: int, k: int, tiles: Tiles) -> str:
    """C[b] += A[b] @ B[b] (batch 0: a plain matmul) on TF32 tensor cores, static sizes."""
    bm, bn, k_step, threads, stages = tiles.block_m, tiles.block_n, tiles.k_step, tiles.threads, tiles.stages
    wm, wn = bm // tiles.warps_m, bn // tiles.warps_n  # a warp's tile
    mt, nt = wm // 16, wn // 8  # its m16n8 fragments
    lda, ldb = k_step + A_PAD, bn + B_PAD
    k_tiles = -(-k // k_step)
    lead = f"{batch}x" if batch else ""
    a, b, c = (f"memref<{lead}{r}x{s}xf32>" for r, s in ((m, k), (k, n), (m, n)))
    at = (lambda i, j: f"%bz, {i}, {j}") if batch else (lambda i, j: f"{i}, {j}")
    space = "#gpu.address_space<workgroup>"
    a_smem = f"memref<{stages}x{bm}x{lda}xf32, {space}>"
    b_smem = f"memref<{stages}x{k_step}x{ldb}xf32, {space}>"
    w = KernelLines()
    w(f"%smem = gpu.dynamic_shared_memory : memref<?xi8, {space}>")
    w(f"%As = memref.view %smem[%c0][] : memref<?xi8, {space}> to {a_smem}")
    w(f"%Bs = memref.view %smem[%c{4 * stages * bm * lda}][] : memref<?xi8, {space}> to {b_smem}")
    w("%zero = arith.constant 0.0 : f32")
    w(f"%row0 = arith.muli %by, %c{bm} : index")
    w(f"%col0 = arith.muli %bx, %c{bn} : index")
    w("%warp = arith.divui %tx, %c32 : index")
    w("%lane = arith.remui %tx, %c32 : index")
    w(f"%wy = arith.divui %warp, %c{tiles.warps_n} : index")
    w(f"%wx = arith.remui %warp, %c{tiles.warps_n} : index")
    w("%g = arith.divui %lane, %c4 : index")
    w("%q = arith.remui %lane, %c4 : index")
    w("%q2 = arith.muli %q, %c2 : index")
    w(f"%wrow = arith.muli %wy, %c{wm} : index")
    w(f"%wcol = arith.muli %wx, %c{wn} : index")

    # Which four-float vectors of the A and B tiles this thread copies: (row, column) in the tile.
    a_rows = [e * threads // (k_step // 4) for e in range(bm * k_step // 4 // threads)]
    b_rows = [e * threads // (bn // 4) for e in range(k_step * bn // 4 // threads)]
    w(f"%ar = arith.divui %tx, %c{k_step // 4} : index")
    w(f"%ac0 = arith.remui %tx, %c{k_step // 4} : index")
    w("%ac = arith.muli %ac0, %c4 : index")
    w(f"%br = arith.divui %tx, %c{bn // 4} : index")
    w(f"%bc0 = arith.remui %tx, %c{bn // 4} : index")
    w("%bc = arith.muli %bc0, %c4 : index")

    def copy(tag, matrix, type_, row, col, rows, cols, smem, smem_type, stage, srow, scol) -> None:
        """One 16-byte asynchronous copy into shared memory; zeros past the matrix's edge (the
        clamped source address is then not read)."""
        w(f"%{tag}ok1 = arith.cmpi ult, {row}, %c{rows} : index")
        w(f"%{tag}ok2 = arith.cmpi ult, {col}, %c{cols} : index")
        w(f"%{tag}ok = arith.andi %{tag}ok1, %{tag}ok2 : i1")
        w(f"%{tag}n = arith.select %{tag}ok, %c4, %c0 : index")
        w(f"%{tag}r = arith.select %{tag}ok, {row}, %c0 : index")
        w(f"%{tag}c = arith.select %{tag}ok, {col}, %c0 : index")
        w(
            f"%{tag}t = nvgpu.device_async_copy {matrix}[{at(f'%{tag}r', f'%{tag}c')}], "
            f"{smem}[{stage}, {srow}, {scol}], 4, %{tag}n {{bypassL1}} : {type_} to {smem_type}"
        )

    def stage_copies(tile: str, stage: str, p: str) -> None:
        """Tile `tile` (an index) of A's columns and B's rows into shared-memory stage `stage`."""
        w(f"%{p}k0 = arith.muli {tile}, %c{k_step} : index")
        for e, r in enumerate(a_rows):
            w(f"%{p}ar{e} = arith.addi %ar, %c{r} : index")
            w(f"%{p}agr{e} = arith.addi %row0, %{p}ar{e} : index")
            w(f"%{p}agk{e} = arith.addi %{p}k0, %ac : index")
            copy(f"{p}a{e}", "%A", a, f"%{p}agr{e}", f"%{p}agk{e}", m, k,
                 "%As", a_smem, stage, f"%{p}ar{e}", "%ac")  # fmt: skip
        for e, r in enumerate(b_rows):
            w(f"%{p}br{e} = arith.addi %br, %c{r} : index")
            w(f"%{p}bgk{e} = arith.addi %{p}k0, %{p}br{e} : index")
            w(f"%{p}bgc{e} = arith.addi %col0, %bc : index")
            copy(f"{p}b{e}", "%B", b, f"%{p}bgk{e}", f"%{p}bgc{e}", k, n,
                 "%Bs", b_smem, stage, f"%{p}br{e}", "%bc")  # fmt: skip

    for s in range(stages - 1):  # the prologue: the first stages in flight
        if s < k_tiles:
            stage_copies(f"%c{s}", f"%c{s}", f"p{s}_")
        w("nvvm.cp.async.commit.group")
    accs = [f"%acc{i}_{j}_{x}" for i in range(mt) for j in range(nt) for x in range(4)]
    carried = ", ".join(f"{v} = %zero" for v in accs)
    types = ", ".join(["f32"] * len(accs))
    w(f"%out:{len(accs)} = scf.for %t = %c0 to %c{k_tiles} step %c1 iter_args({carried}) -> ({types}) {{")
    w(f"  nvvm.cp.async.wait.group {stages - 2}")  # this tile has landed (this thread's copies) ...
    w("  gpu.barrier")  # ... everyone's, and every warp is done with the stage refilled next
    copy_ahead(w, stage_copies, stages - 1, stages, k_tiles)
    w(f"  %st = arith.remui %t, %c{stages} : index")
    values = {name: name for name in accs}
    for step in range(k_step // 8):
        # Fragments with K permuted inside each 8: a thread's K slots q and q + 4 hold columns
        # 2q and 2q + 1 of A and B alike (the sum over K is the same), so A's pair is one load.
        w(f"  %kk{step} = arith.addi %q2, %c{step * 8} : index")
        w(f"  %kl{step} = arith.addi %kk{step}, %c1 : index")
        frag_a = []
        for i in range(mt):
            pair = []
            for half in (0, 8):
                tag = f"{step}_{i}_{half}"
                w(f"  %far{tag} = arith.addi %wrow, %c{i * 16 + half} : index")
                w(f"  %fag{tag} = arith.addi %far{tag}, %g : index")
                w(f"  %fav{tag} = vector.load %As[%st, %fag{tag}, %kk{step}] : {a_smem}, vector<2xf32>")
                pair.append([_operand(w, f"%fav{tag}", lane, tiles.round_inputs) for lane in (0, 1)])
            frag_a.append([pair[0][0], pair[1][0], pair[0][1], pair[1][1]])
        frag_b = []
        for j in range(nt):
            w(f"  %fbc{step}_{j} = arith.addi %wcol, %c{j * 8} : index")
            w(f"  %fbg{step}_{j} = arith.addi %fbc{step}_{j}, %g : index")
            regs = []
            for x, row in enumerate((f"%kk{step}", f"%kl{step}")):
                w(f"  %fb{step}_{j}_{x} = memref.load %Bs[%st, {row}, %fbg{step}_{j}] : {b_smem}")
                regs.append(_convert(w, f"%fb{step}_{j}_{x}", tiles.round_inputs))
            frag_b.append(regs)
        for i in range(mt):
            for j in range(nt):
                old = [values[f"%acc{i}_{j}_{x}"] for x in range(4)]
                d = f"%d{step}_{i}_{j}"
                operands = f"A[{', '.join(frag_a[i])}] B[{', '.join(frag_b[j])}] C[{', '.join(old)}]"
                w(f"  {d} = nvvm.mma.sync {operands} {_MMA_ATTRS} : (i32, i32, f32) -> {_ACC}")
                for x in range(4):
                    w(f"  {d}_{x} = llvm.extractvalue {d}[{x}] : {_ACC}")
                    values[f"%acc{i}_{j}_{x}"] = f"{d}_{x}"
    w(f"  scf.yield {', '.join(values[v] for v in accs)} : {types}")
    w("}")
    w("nvvm.cp.async.wait.group 0")
    for i in range(mt):  # C += the accumulators, two adjacent columns at a time, where inside C
        for j in range(nt):
            for half in (0, 1):
                tag = f"{i}_{j}_{half}"
                w(f"%or{tag} = arith.addi %wrow, %c{i * 16 + 8 * half} : index")
                w(f"%gr{tag} = arith.addi %or{tag}, %g : index")
                w(f"%gro{tag} = arith.addi %gr{tag}, %row0 : index")
                w(f"%oc{tag} = arith.addi %wcol, %c{j * 8} : index")
                w(f"%gc{tag} = arith.addi %oc{tag}, %q2 : index")
                w(f"%gco{tag} = arith.addi %gc{tag}, %col0 : index")
                w(f"%rok{tag} = arith.cmpi ult, %gro{tag}, %c{m} : index")
                w(f"%cok{tag} = arith.cmpi ult, %gco{tag}, %c{n} : index")
                w(f"%ok{tag} = arith.andi %rok{tag}, %cok{tag} : i1")
                w(f"scf.if %ok{tag} {{")
                where = at(f"%gro{tag}", f"%gco{tag}")
                w(f"  %old{tag} = vector.load %C[{where}] : {c}, vector<2xf32>")
                pair = [f"%out#{accs.index(f'%acc{i}_{j}_{2 * half + x}')}" for x in (0, 1)]
                w(f"  %acc2{tag} = vector.from_elements {pair[0]}, {pair[1]} : vector<2xf32>")
                w(f"  %new{tag} = arith.addf %old{tag}, %acc2{tag} : vector<2xf32>")
                w(f"  vector.store %new{tag}, %C[{where}] : {c}, vector<2xf32>")
                w("}")
    w("gpu.terminator")
    shared = 4 * stages * (bm * lda + k_step * ldb)
    return "\n".join(
        [
            f"func.func private @{name}(%A: {a}, %B: {b}, %C: {c}) {{",
            f"  %gx = arith.constant {-(-n // bn)} : index",
            f"  %gy = arith.constant {-(-m // bm)} : index",
            f"  %gz = arith.constant {max(batch, 1)} : index",
            f"  %threads = arith.constant {threads} : index",
            f"  %shared = arith.constant {shared} : i32",
            "  %one = arith.constant 1 : index",
            "  gpu.launch blocks(%bx, %by, %bz) in (%x0 = %gx, %y0 = %gy, %z0 = %gz)"
            " threads(%tx, %ty, %tz) in (%x1 = %threads, %y1 = %one, %z1 = %one)"
            " dynamic_shared_memory_size %shared {",
            w.text(),
            "  }",
            "  return",
            "}",
        ]
    )


def _convert(w: KernelLines, value: str, round_inputs: bool) -> str:
    """An f32 as an mma operand: rounded to TF32 (cvt.rna), or its bits as they are (the tensor
    cores then ignore the low 13 mantissa bits: truncation)."""
    out = f"{value}i"
    if round_inputs:
        w(f'  {out} = "nvvm.convert.float.to.tf32"({value}) {{rnd = #nvvm.fp_rnd_mode<rna>}} : (f32) -> i32')
    else:
        w(f"  {out} = arith.bitcast {value} : f32 to i32")
    return out


def _operand(w: KernelLines, vector: str, lane: int, round_inputs: bool) -> str:
    w(f"  {vector}_{lane} = vector.extract {vector}[{lane}] : f32 from vector<2xf32>")
    return _convert(w, f"{vector}_{lane}", round_inputs)


def _fits(op: ir.Operation) -> bool:
    """A plain f32 matmul whose rows of A and B are whole four-float vectors, with at least a
    64 x 64 tile of C and 16 of K: smaller ones (a tiny model's heads, 12 x 12 x 8 each) waste
    the tensor cores' tiles and stay on CUDA cores (`versa-gpu-matmul`)."""
    if not plain_f32_matmul(op):
        return False
    a, b, _ = op.operands
    (m, k), n = buffer_shape(a)[-2:], buffer_shape(b)[-1]
    return k % 4 == 0 and n % 4 == 0 and big_enough(m, n, k)


@dataclass(frozen=True)
class VersaGpuMma(Pass):
    name = "versa-gpu-mma"
    summary = "f32 matmul / batch matmul on TF32 tensor cores (mma.sync), as a kernel call to inline"
    block_m: int = 128  # rows of C per block
    block_n: int = 128  # columns of C per block
    k_step: int = 32  # K per shared-memory stage
    warps_m: int = 2  # warps per block along M
    warps_n: int = 4  # and along N
    stages: int = 3  # shared-memory stages in flight
    round_inputs: bool = True  # round A and B to TF32 (cvt.rna); false: the tensor cores truncate
    shared_limit: int = 227 << 10  # dynamic shared memory a block may have (the target's)

    def run(self, module: ir.Operation) -> None:
        shape = (self.block_m, self.block_n, self.k_step, self.warps_m, self.warps_n)
        tiles = Tiles(*shape, self.stages, self.round_inputs)
        check_tiles(self.name, tiles, self.shared_limit)
        for count, op in enumerate(collect(module, _fits)):
            a, b, c = op.operands
            batch = buffer_shape(a)[0] if op.name == "linalg.batch_matmul" else 0
            m, k = buffer_shape(a)[-2:]
            splice(op, kernel_text(f"versa_gpu_mma_{count}", batch, m, buffer_shape(b)[-1], k, tiles))
