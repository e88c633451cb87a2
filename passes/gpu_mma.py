"""versa-gpu-mma: f32 matmul and batch matmul on tensor cores (TF32 `mma.sync`), opt-in.

The CUDA-core kernel (`versa-gpu-matmul`) reaches about 30 TFLOP/s on an H200, where the
tensor cores do TF32 at several times that. TF32 keeps f32's range but 10 mantissa bits, so,
as in PyTorch (`torch.set_float32_matmul_precision("high")`), it is a choice the user makes:
`lower-to-nvvm{matmul-precision=high}`.

A block of WM x WN warps (sizes from the target) computes a BM x BN tile of C; each warp a
(BM/WM) x (BN/WN) tile as m16n8k8 fragments of `nvvm.mma.sync`. Per stage of BK columns of A
(rows of B), each thread loads four-float vectors of A and B from global memory (coalesced,
16-byte loads), rounds them to TF32 (`cvt.rna`) and stores them in shared memory, padded so that the
fragment loads of a warp hit 32 different banks (rows of A: BK + 4 words; rows of B: BN + 8).
The next stage's global loads are issued before this stage's MMAs (carried in registers), so
their latency hides behind the arithmetic. Fragment layouts are PTX's for m16n8k8 .tf32:
lane = 4g + q holds A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4]; B[q][g], B[q+4][g]; and
C[g][2q], C[g][2q+1], C[g+8][2q], C[g+8][2q+1]. Edges load zeros and skip stores; rows must
be whole vectors (K and N multiples of 4), else the op is left to `versa-gpu-matmul`.
"""

import re
from dataclasses import dataclass

from versa.mlir import func, ir

from .base import Pass, PassError, collect
from .gpu_matmul import plain_f32_matmul
from .kernel_text import define


@dataclass(frozen=True)
class Tiles:
    """A block's tile of C (block_m x block_n), K per shared-memory stage, and its warps."""

    block_m: int = 128
    block_n: int = 128
    k_step: int = 32
    warps_m: int = 2
    warps_n: int = 4

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
        for rows, cols in ((self.block_m, self.k_step), (self.k_step, self.block_n)):
            if self.threads % (cols // 4) or (rows * cols // 4) % self.threads:
                return "the threads must copy whole rows of four-float vectors"
        return None


_ACC = "!llvm.struct<(f32, f32, f32, f32)>"
_MMA_ATTRS = (
    "{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, "
    "multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, "
    "shape = #nvvm.shape<m = 16, n = 8, k = 8>}"
)


def _shape(value: ir.Value) -> list[int]:
    return list(ir.MemRefType(value.type).shape)


class _Kernel:
    """The text of one kernel, line by line, with the index constants it uses."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append("    " + line)

    def text(self) -> str:
        body = "\n".join(self.lines)
        used = sorted({int(v) for v in re.findall(r"%c(\d+)\b", body)})
        return "\n".join(f"    %c{v} = arith.constant {v} : index" for v in used) + "\n" + body


def kernel_text(name: str, batch: int, m: int, n: int, k: int, tiles: Tiles) -> str:
    """C[b] += A[b] @ B[b] (batch 0: a plain matmul) on TF32 tensor cores, static sizes."""
    bm, bn, k_step, threads = tiles.block_m, tiles.block_n, tiles.k_step, tiles.threads
    wm, wn = bm // tiles.warps_m, bn // tiles.warps_n  # a warp's tile
    mt, nt = wm // 16, wn // 8  # its m16n8 fragments
    lead = f"{batch}x" if batch else ""
    a, b, c = (f"memref<{lead}{r}x{s}xf32>" for r, s in ((m, k), (k, n), (m, n)))
    at = (lambda i, j: f"%bz, {i}, {j}") if batch else (lambda i, j: f"{i}, {j}")
    a_smem = f"memref<{bm}x{k_step + 4}xi32, #gpu.address_space<workgroup>>"
    b_smem = f"memref<{k_step}x{bn + 8}xi32, #gpu.address_space<workgroup>>"
    w = _Kernel()
    w("%zero = arith.constant 0.0 : f32")
    w("%zero4 = arith.constant dense<0.0> : vector<4xf32>")
    w(f"%row0 = arith.muli %by, %c{bm} : index")
    w(f"%col0 = arith.muli %bx, %c{bn} : index")
    w("%warp = arith.divui %tx, %c32 : index")
    w("%lane = arith.remui %tx, %c32 : index")
    w(f"%wy = arith.divui %warp, %c{tiles.warps_n} : index")
    w(f"%wx = arith.remui %warp, %c{tiles.warps_n} : index")
    w("%g = arith.divui %lane, %c4 : index")
    w("%q = arith.remui %lane, %c4 : index")
    w(f"%wrow = arith.muli %wy, %c{wm} : index")
    w(f"%wcol = arith.muli %wx, %c{wn} : index")

    # Which four-float vectors of the A and B tiles this thread copies: (row, column) in the tile.
    a_vectors = [divmod(e * threads, k_step // 4) for e in range(bm * k_step // 4 // threads)]
    b_vectors = [divmod(e * threads, bn // 4) for e in range(k_step * bn // 4 // threads)]
    w(f"%ar = arith.divui %tx, %c{k_step // 4} : index")
    w(f"%ac0 = arith.remui %tx, %c{k_step // 4} : index")
    w("%ac = arith.muli %ac0, %c4 : index")
    w(f"%br = arith.divui %tx, %c{bn // 4} : index")
    w(f"%bc0 = arith.remui %tx, %c{bn // 4} : index")
    w("%bc = arith.muli %bc0, %c4 : index")

    def load(tag: str, matrix: str, type_: str, row: str, col: str, rows: int, cols: int) -> str:
        w(f"%{tag}ok1 = arith.cmpi ult, {row}, %c{rows} : index")
        w(f"%{tag}ok2 = arith.cmpi ult, {col}, %c{cols} : index")
        w(f"%{tag}ok = arith.andi %{tag}ok1, %{tag}ok2 : i1")
        w(f"%{tag} = scf.if %{tag}ok -> (vector<4xf32>) {{")
        w(f"  %{tag}v = vector.load {matrix}[{at(row, col)}] {{alignment = 16}} : {type_}, vector<4xf32>")
        w(f"  scf.yield %{tag}v : vector<4xf32>")
        w("} else {")
        w("  scf.yield %zero4 : vector<4xf32>")
        w("}")
        return f"%{tag}"

    def stage_loads(k0: str, prefix: str) -> list[str]:
        names = []
        for e, (r, _) in enumerate(a_vectors):
            w(f"%{prefix}ar{e} = arith.addi %ar, %c{r} : index")
            w(f"%{prefix}agr{e} = arith.addi %row0, %{prefix}ar{e} : index")
            w(f"%{prefix}agk{e} = arith.addi {k0}, %ac : index")
            names.append(load(f"{prefix}a{e}", "%A", a, f"%{prefix}agr{e}", f"%{prefix}agk{e}", m, k))
        for e, (r, _) in enumerate(b_vectors):
            w(f"%{prefix}br{e} = arith.addi %br, %c{r} : index")
            w(f"%{prefix}bgk{e} = arith.addi {k0}, %{prefix}br{e} : index")
            w(f"%{prefix}bgc{e} = arith.addi %col0, %bc : index")
            names.append(load(f"{prefix}b{e}", "%B", b, f"%{prefix}bgk{e}", f"%{prefix}bgc{e}", k, n))
        return names

    first = stage_loads("%c0", "p")
    accs = [f"%acc{i}_{j}_{x}" for i in range(mt) for j in range(nt) for x in range(4)]
    staged = [f"%s{x}" for x in range(len(first))]
    carried = ", ".join(
        [f"{v} = %zero" for v in accs] + [f"{s} = {f}" for s, f in zip(staged, first, strict=True)]
    )
    types = ", ".join(["f32"] * len(accs) + ["vector<4xf32>"] * len(first))
    loop = f"scf.for %k0 = %c0 to %c{k} step %c{k_step}"
    w(f"%out:{len(accs) + len(first)} = {loop} iter_args({carried}) -> ({types}) {{")
    for x, s in enumerate(staged):  # this stage, rounded to TF32, into shared memory
        if x < len(a_vectors):
            smem, smem_type, row, col = "%As", a_smem, f"%par{x}", "%ac"
        else:
            smem, smem_type, row, col = "%Bs", b_smem, f"%pbr{x - len(a_vectors)}", "%bc"
        for lane in range(4):
            w(f"  %e{x}_{lane} = vector.extract {s}[{lane}] : f32 from vector<4xf32>")
            w(
                f'  %t{x}_{lane} = "nvvm.convert.float.to.tf32"(%e{x}_{lane}) '
                "{rnd = #nvvm.fp_rnd_mode<rna>} : (f32) -> i32"
            )
            w(f"  %col{x}_{lane} = arith.addi {col}, %c{lane} : index")
            w(f"  memref.store %t{x}_{lane}, {smem}[{row}, %col{x}_{lane}] : {smem_type}")
    w("  gpu.barrier")
    w(f"  %k1 = arith.addi %k0, %c{k_step} : index")
    following = stage_loads("%k1", "n")
    values = {name: name for name in accs}
    for step in range(k_step // 8):
        kk = step * 8
        frag_a = []
        for i in range(mt):
            regs = []
            for x, (dr, dk) in enumerate(((0, 0), (8, 0), (0, 4), (8, 4))):
                w(f"  %fr{step}_{i}_{x} = arith.addi %wrow, %c{i * 16 + dr} : index")
                w(f"  %fra{step}_{i}_{x} = arith.addi %fr{step}_{i}_{x}, %g : index")
                w(f"  %fk{step}_{i}_{x} = arith.addi %q, %c{kk + dk} : index")
                w(f"  %fa{step}_{i}_{x} = memref.load %As[%fra{step}_{i}_{x}, %fk{step}_{i}_{x}] : {a_smem}")
                regs.append(f"%fa{step}_{i}_{x}")
            frag_a.append(regs)
        frag_b = []
        for j in range(nt):
            regs = []
            for x, dk in enumerate((0, 4)):
                w(f"  %fc{step}_{j}_{x} = arith.addi %wcol, %c{j * 8} : index")
                w(f"  %fcb{step}_{j}_{x} = arith.addi %fc{step}_{j}_{x}, %g : index")
                w(f"  %fbk{step}_{j}_{x} = arith.addi %q, %c{kk + dk} : index")
                w(f"  %fb{step}_{j}_{x} = memref.load %Bs[%fbk{step}_{j}_{x}, %fcb{step}_{j}_{x}] : {b_smem}")
                regs.append(f"%fb{step}_{j}_{x}")
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
    w("  gpu.barrier")
    w(f"  scf.yield {', '.join([values[v] for v in accs] + following)} : {types}")
    w("}")
    for i in range(mt):  # C += the accumulators, where inside C
        for j in range(nt):
            for x in range(4):
                tag = f"{i}_{j}_{x}"
                w(f"%or{tag} = arith.addi %wrow, %c{i * 16 + (8 if x >= 2 else 0)} : index")
                w(f"%gr{tag} = arith.addi %or{tag}, %g : index")
                w(f"%gro{tag} = arith.addi %gr{tag}, %row0 : index")
                w(f"%q2{tag} = arith.muli %q, %c2 : index")
                w(f"%oc{tag} = arith.addi %wcol, %c{j * 8 + x % 2} : index")
                w(f"%gc{tag} = arith.addi %oc{tag}, %q2{tag} : index")
                w(f"%gco{tag} = arith.addi %gc{tag}, %col0 : index")
                w(f"%rok{tag} = arith.cmpi ult, %gro{tag}, %c{m} : index")
                w(f"%cok{tag} = arith.cmpi ult, %gco{tag}, %c{n} : index")
                w(f"%ok{tag} = arith.andi %rok{tag}, %cok{tag} : i1")
                w(f"scf.if %ok{tag} {{")
                w(f"  %old{tag} = memref.load %C[{at(f'%gro{tag}', f'%gco{tag}')}] : {c}")
                w(f"  %new{tag} = arith.addf %old{tag}, %out#{accs.index(f'%acc{tag}')} : f32")
                w(f"  memref.store %new{tag}, %C[{at(f'%gro{tag}', f'%gco{tag}')}] : {c}")
                w("}")
    w("gpu.terminator")
    return "\n".join(
        [
            f"func.func private @{name}(%A: {a}, %B: {b}, %C: {c}) {{",
            f"  %gx = arith.constant {-(-n // bn)} : index",
            f"  %gy = arith.constant {-(-m // bm)} : index",
            f"  %gz = arith.constant {max(batch, 1)} : index",
            f"  %threads = arith.constant {threads} : index",
            "  %one = arith.constant 1 : index",
            "  gpu.launch blocks(%bx, %by, %bz) in (%x0 = %gx, %y0 = %gy, %z0 = %gz)"
            " threads(%tx, %ty, %tz) in (%x1 = %threads, %y1 = %one, %z1 = %one)"
            f" workgroup(%As : {a_smem}, %Bs : {b_smem}) {{",
            w.text(),
            "  }",
            "  return",
            "}",
        ]
    )


def _fits(op: ir.Operation) -> bool:
    """A plain f32 matmul whose rows of A and B are whole four-float vectors."""
    if not plain_f32_matmul(op):
        return False
    a, b, _ = op.operands
    return _shape(a)[-1] % 4 == 0 and _shape(b)[-1] % 4 == 0


@dataclass(frozen=True)
class VersaGpuMma(Pass):
    name = "versa-gpu-mma"
    summary = "f32 matmul / batch matmul on TF32 tensor cores (mma.sync), as a kernel call to inline"
    block_m: int = 128  # rows of C per block
    block_n: int = 128  # columns of C per block
    k_step: int = 32  # K per shared-memory stage
    warps_m: int = 2  # warps per block along M
    warps_n: int = 4  # and along N

    def run(self, module: ir.Operation) -> None:
        tiles = Tiles(self.block_m, self.block_n, self.k_step, self.warps_m, self.warps_n)
        if problem := tiles.check():
            raise PassError(f"'{self.name}': {problem} ({tiles})")
        for count, op in enumerate(collect(module, _fits)):
            a, b, c = op.operands
            batch = _shape(a)[0] if op.name == "linalg.batch_matmul" else 0
            m, k = _shape(a)[-2:]
            name = f"versa_gpu_mma_{count}"
            text = kernel_text(name, batch, m, _shape(b)[-1], k, tiles)
            define(module, text)
            with ir.InsertionPoint(op), op.location:
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), [a, b, c])
            op.erase()
