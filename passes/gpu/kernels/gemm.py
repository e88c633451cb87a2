"""The tiled GEMM kernel template of the GPU matmul passes, and which matmuls it takes.

`gemm_text` writes the kernel of versa-gpu-matmul (`kernel_text`) and of versa-gpu-conv (whose
A or B operand is an im2col gather); `plain_matmul` is the test every tensor-core pass starts
from (versa-gpu-mma, versa-gpu-wgmma). See versa-gpu-matmul's docstring for the tiling.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from versa.mlir import ir

from ...common.memrefs import identity_layout

TY = TX = 16  # threads per block: TY x TX (the register tile is the block tile / 16)


_PLAIN_MAPS = {
    "linalg.matmul": [f"affine_map<(d0, d1, d2) -> ({r})>" for r in ("d0, d2", "d2, d1", "d0, d1")],
    "linalg.batch_matmul": [
        f"affine_map<(d0, d1, d2, d3) -> ({r})>" for r in ("d0, d1, d3", "d0, d3, d2", "d0, d1, d2")
    ],
}


def buffer_shape(value: ir.Value) -> list[int]:
    return list(ir.MemRefType(value.type).shape)


def plain_matmul(op: ir.Operation) -> tuple[str, str, str] | None:
    """The element types of A, B and C of a matmul / batch matmul on static, contiguous buffers
    with untransposed operands, else None."""
    if op.name not in _PLAIN_MAPS:
        return None
    if (
        "indexing_maps" in op.attributes
        and [str(m) for m in op.attributes["indexing_maps"]] != _PLAIN_MAPS[op.name]
    ):
        return None  # transposed or broadcast operands
    types = [ir.MemRefType(v.type) for v in op.operands if isinstance(v.type, ir.MemRefType)]
    if len(types) != 3 or not all(t.has_static_shape for t in types):
        return None
    if not all(identity_layout(v.type) for v in op.operands):
        return None
    return tuple(str(t.element_type) for t in types)


def plain_f32_matmul(op: ir.Operation) -> bool:
    return plain_matmul(op) == ("f32", "f32", "f32")


Piece = Callable[[int, str, str], tuple[list[str], str]]  # (copy or register, indices) → (lines, op)


@dataclass(frozen=True)
class Gemm:
    """A tiled kernel for C[r, c] += sum over k of A[r, k] * B[k, c], r < m, c < n, k < depth:
    sizes and tiles, plus the template text of what differs between its users (matmul, conv):
    `load_a(e, row, k)` and `load_b(e, k, col)` give index lines and the load of the e-th
    element a thread copies per stage, `out(x, row, col)` index lines and `%C[...] : type`
    for its x-th register. `views` run before the launch (on the host), `setup` in the kernel."""

    name: str
    params: str  # the function's arguments: "%A: memref<...>, ..."
    m: int
    n: int
    depth: int
    tile: tuple[int, int, int]  # BM, BN, BK
    blocks_z: int
    load_a: Piece
    load_b: Piece
    out: Piece
    views: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()


def tiles_fit(bm: int, bn: int, bk: int) -> bool:
    """Each tile a whole number of thread rows/columns, each stage whole copies per thread."""
    return all(t >= TY and t % TY == 0 and bk * t % (TY * TX) == 0 for t in (bm, bn))


def kernel_text(name: str, batch: int, m: int, n: int, k: int, tile: int = 128, k_step: int = 8) -> str:
    """The kernel template for C[b] += A[b] @ B[b] with static sizes (batch 0: plain matmul),
    `tile` x `tile` outputs per block, `k_step` columns of A (rows of B) per shared-memory stage."""
    lead = f"{batch}x" if batch else ""
    a, b, c = (f"memref<{lead}{r}x{s}xf32>" for r, s in ((m, k), (k, n), (m, n)))
    at = (lambda i, j: f"%bz, {i}, {j}") if batch else (lambda i, j: f"{i}, {j}")
    return gemm_text(
        Gemm(
            name, f"%A: {a}, %B: {b}, %C: {c}", m, n, k, (tile, tile, k_step), max(batch, 1),
            lambda e, i, j: ([], f"memref.load %A[{at(i, j)}] : {a}"),
            lambda e, i, j: ([], f"memref.load %B[{at(i, j)}] : {b}"),
            lambda x, i, j: ([], f"%C[{at(i, j)}] : {c}"),
        )
    )  # fmt: skip


def _guarded_copy(
    e: int,
    p: str,
    axes: tuple[str, str],
    shape: tuple,
    index: list[str],
    load: str,
    smem: str,
    transpose: bool,
) -> list[str]:
    """Copy `e` of operand `p` ("a" or "b") into shared memory: thread slot %i{e} split into a
    tile (row, column) by `shape`'s width, offset by its bases, loaded where both are inside
    the operand's bounds (zero outside), stored at [row, column] or, `transpose`d, [column, row]."""
    width, row_base, col_base, rows, cols = shape
    r, c = (f"%{p}{axis}{e}" for axis in axes)
    gr, gc = (f"%{p}g{axis}{e}" for axis in axes)
    where = f"{c}, {r}" if transpose else f"{r}, {c}"
    return [
        f"      {r} = arith.divui %i{e}, %c{width} : index",
        f"      {c} = arith.remui %i{e}, %c{width} : index",
        f"      {gr} = arith.addi {row_base}, {r} : index",
        f"      {gc} = arith.addi {col_base}, {c} : index",
        f"      %{p}ok{e} = arith.cmpi ult, {gr}, %c{rows} : index",
        f"      %{p}ok2{e} = arith.cmpi ult, {gc}, %c{cols} : index",
        f"      %{p}in{e} = arith.andi %{p}ok{e}, %{p}ok2{e} : i1",
        *(f"      {v}" for v in index),
        f"      %{p}v{e} = scf.if %{p}in{e} -> (f32) {{",
        f"        %v{p}{e} = {load}",
        f"        scf.yield %v{p}{e} : f32",
        "      } else {",
        "        scf.yield %zero : f32",
        "      }",
        f"      memref.store %{p}v{e}, %{p.upper()}s[{where}] : {smem}",
    ]


def gemm_text(g: Gemm) -> str:
    """The kernel: a private function holding one `gpu.launch` of TY x TX threads per block."""
    BM, BN, BK = g.tile  # noqa: N806  (the kernel's conventional names)
    TM, TN = BM // TY, BN // TX  # noqa: N806
    m, n, k = g.m, g.n, g.depth
    a_smem, b_smem = (f"memref<{BK}x{t}xf32, #gpu.address_space<workgroup>>" for t in (BM, BN))
    lines = [
        f"func.func private @{g.name}({g.params}) {{",
        f"  %gx = arith.constant {-(-n // BN)} : index",
        f"  %gy = arith.constant {-(-m // BM)} : index",
        f"  %gz = arith.constant {g.blocks_z} : index",
        f"  %sx = arith.constant {TX} : index",
        f"  %sy = arith.constant {TY} : index",
        "  %one = arith.constant 1 : index",
        *(f"  {v}" for v in g.views),
        "  gpu.launch blocks(%bx, %by, %bz) in (%x0 = %gx, %y0 = %gy, %z0 = %gz)"
        " threads(%tx, %ty, %tz) in (%x1 = %sx, %y1 = %sy, %z1 = %one)"
        f" workgroup(%As : {a_smem}, %Bs : {b_smem}) {{",
        "  CONSTANTS",  # inside the kernel, so that loop bounds are known there
        "    %zero = arith.constant 0.0 : f32",
        f"    %row0 = arith.muli %by, %c{BM} : index",
        f"    %col0 = arith.muli %bx, %c{BN} : index",
        f"    %tyx = arith.muli %ty, %c{TX} : index",
        "    %tid = arith.addi %tyx, %tx : index",
        *(f"    {v}" for v in g.setup),
    ]
    accs = [f"%acc{i}_{j}" for i in range(TM) for j in range(TN)]
    inits = ", ".join(f"{a} = %zero" for a in accs)
    f32s = ", ".join(["f32"] * len(accs))
    lines.append(
        f"    %sum:{len(accs)} = scf.for %k0 = %c0 to %c{k} step %c{BK} iter_args({inits}) -> ({f32s}) {{"
    )
    a_copies, b_copies = BK * BM // (TY * TX), BK * BN // (TY * TX)
    for e in range(max(a_copies, b_copies)):  # cooperative copies: A as BK x BM (transposed), B as BK x BN
        lines.append(
            f"      %i{e} = arith.addi %tid, %c{e * TY * TX} : index"
            if e
            else f"      %i{e} = arith.addi %tid, %c0 : index"
        )
        if e < a_copies:  # A[row, k] → As[k, row]
            index, load = g.load_a(e, f"%agr{e}", f"%agk{e}")
            lines += _guarded_copy(e, "a", ("r", "k"), (BK, "%row0", "%k0", m, k), index, load, a_smem, True)
        if e < b_copies:  # B[k, col] → Bs[k, col]
            index, load = g.load_b(e, f"%bgk{e}", f"%bgc{e}")
            lines += _guarded_copy(e, "b", ("k", "c"), (BN, "%k0", "%col0", k, n), index, load, b_smem, False)
    inner = ", ".join(f"%r{i}_{j} = %acc{i}_{j}" for i in range(TM) for j in range(TN))
    lines += [
        "      gpu.barrier",
        f"      %step:{len(accs)} = scf.for %kk = %c0 to %c{BK} step %c1 iter_args({inner}) -> ({f32s}) {{",
    ]
    for i in range(TM):
        lines += [
            f"        %ra{i} = arith.addi %ty, %c{i * TY} : index",
            f"        %a{i} = memref.load %As[%kk, %ra{i}] : {a_smem}",
        ]
    for j in range(TN):
        lines += [
            f"        %cb{j} = arith.addi %tx, %c{j * TX} : index",
            f"        %b{j} = memref.load %Bs[%kk, %cb{j}] : {b_smem}",
        ]
    for i in range(TM):
        for j in range(TN):
            lines.append(f"        %f{i}_{j} = math.fma %a{i}, %b{j}, %r{i}_{j} : f32")
    lines += [
        f"        scf.yield {', '.join(f'%f{i}_{j}' for i in range(TM) for j in range(TN))} : {f32s}",
        "      }",
        "      gpu.barrier",
        f"      scf.yield {', '.join(f'%step#{x}' for x in range(len(accs)))} : {f32s}",
        "    }",
    ]
    for i in range(TM):
        for j in range(TN):
            x = i * TN + j
            index, place = g.out(x, f"%gr{x}", f"%gc{x}")
            lines += [
                f"    %or{x} = arith.addi %row0, %c{i * TY} : index"
                if i
                else f"    %or{x} = arith.addi %row0, %c0 : index",
                f"    %gr{x} = arith.addi %or{x}, %ty : index",
                f"    %oc{x} = arith.addi %col0, %c{j * TX} : index"
                if j
                else f"    %oc{x} = arith.addi %col0, %c0 : index",
                f"    %gc{x} = arith.addi %oc{x}, %tx : index",
                f"    %rok{x} = arith.cmpi ult, %gr{x}, %c{m} : index",
                f"    %cok{x} = arith.cmpi ult, %gc{x}, %c{n} : index",
                f"    %ok{x} = arith.andi %rok{x}, %cok{x} : i1",
                f"    scf.if %ok{x} {{",
                *(f"      {v}" for v in index),
                f"      %old{x} = memref.load {place}",
                f"      %new{x} = arith.addf %old{x}, %sum#{x} : f32",
                f"      memref.store %new{x}, {place}",
                "    }",
            ]
    lines += ["    gpu.terminator", "  }", "  return", "}"]
    text = "\n".join(lines)
    used = sorted({int(v) for v in re.findall(r"%c(\d+)\b", text)})
    return text.replace("  CONSTANTS", "\n".join(f"    %c{v} = arith.constant {v} : index" for v in used))
