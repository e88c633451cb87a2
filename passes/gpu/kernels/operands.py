"""Operand kernels of the TF32 warpgroup matmul (`versa-gpu-wgmma`), as outlined GPU kernel text.

wgmma reads TF32 operands only K-major from shared memory, and cannot round them on the way:
rounding each stage in shared memory cost a quarter of the matmul's time on an H200. So before
the matmul, memory-bound kernels write B transposed (N x K) and, when rounding is asked for,
A and Bᵀ rounded to TF32 (cvt.rna, as cuBLAS): two passes over the operands, a few percent of
a large matmul's time. The transpose goes through a padded 32 x 33 shared-memory tile so that
both its reads and its writes are whole 128-byte rows. A constant B (a layer's weights) is
transposed and rounded once, here at compile time, into a constant of its own.
"""

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir, memref

TILE = 32  # the transpose's tile: 32 x 32 elements, a block of 32 x 8 threads
ROWS_PER_THREAD = 4
VECTOR = 4  # floats per thread in the rounding kernel (K is a multiple of 4)
ROUND_THREADS = 256
_SPACE = "#gpu.address_space<workgroup>"


def _rounded(value: str, out: str, round_inputs: bool) -> tuple[list[str], str]:
    """Lines computing the TF32 rounding of the f32 `value` as `out`, and the name of the result
    (`value` itself when not rounding)."""
    if not round_inputs:
        return [], value
    return [
        f'{out}i = "nvvm.convert.float.to.tf32"({value}) {{rnd = #nvvm.fp_rnd_mode<rna>}} : (f32) -> i32',
        f"{out} = arith.bitcast {out}i : i32 to f32",
    ], out


def transpose_kernel(
    name: str, batch: int, k: int, n: int, round_inputs: bool, element: str = "f32"
) -> tuple[str, str]:
    """Bt[b] = B[b]ᵀ (f32 rounded to TF32 if asked): the gpu.module text and its launch line."""
    lead = f"{batch}x" if batch else ""
    b, bt = f"memref<{lead}{k}x{n}x{element}>", f"memref<{lead}{n}x{k}x{element}>"
    at = (lambda i, j: f"%bz, {i}, {j}") if batch else (lambda i, j: f"{i}, {j}")
    tile = f"memref<{TILE}x{TILE + 1}x{element}, {_SPACE}>"
    lines = [
        f"gpu.module @{name} {{",
        f"  gpu.func @{name}(%B: {b}, %Bt: {bt}) workgroup(%tile : {tile}) kernel"
        f" attributes {{known_block_size = array<i32: {TILE}, {TILE // ROWS_PER_THREAD}, 1>}} {{",
        "    %bx = gpu.block_id x",
        "    %by = gpu.block_id y",
        "    %bz = gpu.block_id z",
        "    %tx = gpu.thread_id x",
        "    %ty = gpu.thread_id y",
        f"    %tile_size = arith.constant {TILE} : index",
        f"    %kmax = arith.constant {k} : index",
        f"    %nmax = arith.constant {n} : index",
        "    %n0 = arith.muli %bx, %tile_size : index",
        "    %k0 = arith.muli %by, %tile_size : index",
    ]
    step = TILE // ROWS_PER_THREAD
    for i in range(ROWS_PER_THREAD):  # read rows of B (along N: coalesced) into the tile
        lines += [
            f"    %ro{i} = arith.constant {i * step} : index",
            f"    %r{i} = arith.addi %ty, %ro{i} : index",
            f"    %gk{i} = arith.addi %k0, %r{i} : index",
            f"    %gn{i} = arith.addi %n0, %tx : index",
            f"    %inb{i}k = arith.cmpi ult, %gk{i}, %kmax : index",
            f"    %inb{i}n = arith.cmpi ult, %gn{i}, %nmax : index",
            f"    %inb{i} = arith.andi %inb{i}k, %inb{i}n : i1",
            f"    scf.if %inb{i} {{",
            f"      %v{i} = memref.load %B[{at(f'%gk{i}', f'%gn{i}')}] : {b}",
            f"      memref.store %v{i}, %tile[%r{i}, %tx] : {tile}",
            "    }",
        ]
    lines.append("    gpu.barrier")
    for i in range(ROWS_PER_THREAD):  # write rows of Bt (along K: coalesced) from the tile's columns
        rounding, result = _rounded(f"%t{i}", f"%o{i}", round_inputs and element == "f32")
        lines += [
            f"    %wn{i} = arith.addi %n0, %r{i} : index",
            f"    %wk{i} = arith.addi %k0, %tx : index",
            f"    %outb{i}n = arith.cmpi ult, %wn{i}, %nmax : index",
            f"    %outb{i}k = arith.cmpi ult, %wk{i}, %kmax : index",
            f"    %outb{i} = arith.andi %outb{i}n, %outb{i}k : i1",
            f"    scf.if %outb{i} {{",
            f"      %t{i} = memref.load %tile[%tx, %r{i}] : {tile}",
            *["      " + line for line in rounding],
            f"      memref.store {result}, %Bt[{at(f'%wn{i}', f'%wk{i}')}] : {bt}",
            "    }",
        ]
    lines += ["    gpu.return", "  }", "}"]
    grid = (-(-n // TILE), -(-k // TILE), max(batch, 1))
    launch = _launch(name, grid, (TILE, TILE // ROWS_PER_THREAD), f"%B : {b}, %Bt : {bt}")
    return "\n".join(lines), launch


def round_kernel(name: str, batch: int, m: int, k: int) -> tuple[str, str]:
    """Ar = A rounded to TF32, four floats per thread: the gpu.module text and its launch line."""
    lead = f"{batch}x" if batch else ""
    a = f"memref<{lead}{m}x{k}xf32>"
    vectors = max(batch, 1) * m * k // VECTOR
    lines = [
        f"gpu.module @{name} {{",
        f"  gpu.func @{name}(%A: {a}, %Ar: {a}) kernel"
        f" attributes {{known_block_size = array<i32: {ROUND_THREADS}, 1, 1>}} {{",
        "    %bx = gpu.block_id x",
        "    %tx = gpu.thread_id x",
        f"    %threads = arith.constant {ROUND_THREADS} : index",
        f"    %count = arith.constant {vectors} : index",
        f"    %width = arith.constant {VECTOR} : index",
        f"    %kmax = arith.constant {k} : index",
        f"    %plane = arith.constant {m * k} : index",
        "    %first = arith.muli %bx, %threads : index",
        "    %i = arith.addi %first, %tx : index",
        "    %inside = arith.cmpi ult, %i, %count : index",
        "    scf.if %inside {",
        "      %flat = arith.muli %i, %width : index",
        "      %inplane = arith.remui %flat, %plane : index",
        "      %row = arith.divui %inplane, %kmax : index",
        "      %col = arith.remui %inplane, %kmax : index",
    ]
    where = "%row, %col"
    if batch:
        lines.append("      %bz = arith.divui %flat, %plane : index")
        where = "%bz, %row, %col"
    lines.append(f"      %v = vector.load %A[{where}] : {a}, vector<{VECTOR}xf32>")
    lanes = []
    for x in range(VECTOR):
        lines.append(f"      %e{x} = vector.extract %v[{x}] : f32 from vector<{VECTOR}xf32>")
        rounding, result = _rounded(f"%e{x}", f"%o{x}", True)
        lines += ["      " + line for line in rounding]
        lanes.append(result)
    lines += [
        f"      %w = vector.from_elements {', '.join(lanes)} : vector<{VECTOR}xf32>",
        f"      vector.store %w, %Ar[{where}] : {a}, vector<{VECTOR}xf32>",
        "    }",
        "    gpu.return",
        "  }",
        "}",
    ]
    launch = _launch(name, (-(-vectors // ROUND_THREADS), 1, 1), (ROUND_THREADS, 1), f"%A : {a}, %Ar : {a}")
    return "\n".join(lines), launch


def _launch(name: str, grid: tuple[int, int, int], block: tuple[int, int], args: str) -> str:
    sizes = [f"%{name}_{x} = arith.constant {size} : index" for x, size in zip("xyz", grid, strict=True)]
    sizes += [f"%{name}_t{x} = arith.constant {size} : index" for x, size in zip("xy", block, strict=True)]
    return "\n".join(
        [
            *[f"  {line}" for line in sizes],
            f"  gpu.launch_func @{name}::@{name} blocks in (%{name}_x, %{name}_y, %{name}_z)"
            f" threads in (%{name}_tx, %{name}_ty, %one) args({args})",
        ]
    )


def round_tf32(values: np.ndarray) -> np.ndarray:
    """f32 values rounded to TF32 as cvt.rna does: to nearest, ties away from zero (the bits are
    sign and magnitude, so adding half of the dropped 13 bits' unit rounds the magnitude)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    finite = np.isfinite(values)
    rounded = np.where(finite, (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000), bits)
    return rounded.astype(np.uint32).view(np.float32)


def _global(body: ir.Block, name: str) -> ir.Operation | None:
    for op in body.operations:
        if op.operation.name == "memref.global" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op.operation
    return None


def constant_transposed(b: ir.Value, round_inputs: bool) -> ir.Value | None:
    """Where B is a constant (`memref.get_global` of a constant global), a new constant holding
    Bᵀ (rounded if asked) and its `memref.get_global` before B's use; else None."""
    owner = b.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "memref.get_global":
        return None
    module = owner.operation
    while module.name != "builtin.module":
        module = module.parent
    body, name = module.regions[0].blocks[0], ir.FlatSymbolRefAttr(owner.attributes["name"]).value
    source = _global(body, name)
    if source is None or "constant" not in source.attributes:
        return None
    initial = source.attributes["initial_value"]
    if not isinstance(initial, ir.DenseElementsAttr):
        return None
    values = np.swapaxes(elements_to_numpy(ir.DenseElementsAttr(initial)).astype(np.float32), -1, -2)
    values = round_tf32(values) if round_inputs else np.ascontiguousarray(values)
    buffer_type = ir.MemRefType.get(list(values.shape), ir.F32Type.get())
    new_name = f"{name}_tf32_t" if round_inputs else f"{name}_t"
    if _global(body, new_name) is None:  # B's first use: later ones share the constant
        with ir.InsertionPoint(source), source.location:
            memref.GlobalOp(
                new_name,
                ir.TypeAttr.get(buffer_type),
                sym_visibility="private",
                initial_value=ir.DenseElementsAttr.get(values),
                constant=True,
                alignment=64,
            )
    return memref.GetGlobalOp(buffer_type, new_name).result
