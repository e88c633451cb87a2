"""Cache blocks of the integer dot-product kernel (`int8_dot.py`) over its rows (M = N·OH·OW
output pixels), the loop nest that walks them, and the register tile inside (`register_tile`).

Goto's order with the roles the kernel gives its operands: the packed filter panel (K x NR) is
the micro-kernel's stationary operand, read once per MR pixels, and the activations stream. The
old nest walked every pixel once per panel, so where the activations (N·H·W·C bytes) outgrow
L2 (ResNet-50's first stage at batch 8: 1.6-6.4 MB) each panel read them again from L3 or
memory. Here a block of output rows (RB whole rows of one image, or, where one row's inputs
do not fit, WB pixels of one row: a matmul's M) is the outer loop and the panels the inner
one, so the block's activations are read from memory once and from L2 by every other panel;
the filters are read once per block (from L2 where they fit, else L3: K·F bytes per RB·OW·K·F
MACs). The block is the largest one whose activations fill half the target's L2 (its
`Target.caches`, never the host's), RB a divisor of OH and WB one of OW so every block is
static; with threads, the forall runs over (n, row block, pixel block, panel), and a block
shrinks until a static split of its iterations is even (`_shared`). Measured on a 2-core
znver4 (1 MiB L2, 32 MiB L3; docs/facts.md): neutral within noise but for 1x1 convs of few
channels and many panels (ResNet-50's 64→256 at batch 8, 1 thread: ~0.9x); per image, batch
8 cost what batch 1 did before it too, the prefetchers streaming the activations from L3.

    forall (n, ob, wb, p)                              (panels innermost: one block, every panel)
      block = out[n, ob·RB : +RB, wb·WB : +WB, p·NR : +NR]
      for r < RB:  oh = ob·RB + r                      (no loop where RB = 1)
        for ow0 in steps of MR inside the block        (+ the MR ∤ WB rest)
          the micro-kernel (int8_dot._rows)

`Blocks(rows=1, pixels=OW, panels_outer=True)` is the old nest (p, n, oh): the pass's
`row-block=-1`, kept for A/B timing.
"""

from dataclasses import dataclass

from ...common.kernel_text import Text


@dataclass(frozen=True)
class Blocks:
    rows: int  # RB output rows of one image per block (divides OH)
    pixels: int  # WB output pixels of one row per block (divides OW; OW where RB > 1)
    panels_outer: bool = False  # the old order: every block once per panel


def unblocked(ow: int) -> Blocks:
    return Blocks(1, ow, True)


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def plan(shape, element_bytes: int, panels: int, mr: int, l2: int, threads: int, rows: int = 0) -> Blocks:
    """The blocks of `shape` (an `int8_isa.ConvShape`): activations of `element_bytes` (1, or
    2 where vpmaddwd reads them widened), `panels` filter panels, MR pixels per micro-kernel,
    the target's L2 size, the threads of the forall. `rows` > 0 forces RB (the largest divisor
    of OH not above it)."""
    _, h, w, _ = shape.x
    on, oh, ow = shape.out
    kh, kw = shape.window
    (sh, sw), (dh, dw) = shape.strides, shape.dilations
    row_bytes = w * shape.channels * element_bytes

    def block_rows(r: int) -> int:  # input rows read by r output rows
        return min(h, (r - 1) * sh + (kh - 1) * dh + 1)

    def pixel_bytes(q: int) -> int:  # inputs of q pixels of one output row
        return block_rows(1) * min(w, (q - 1) * sw + (kw - 1) * dw + 1) * shape.channels * element_bytes

    budget = l2 // 2
    if rows > 0:
        rb, wb = max(d for d in divisors(oh) if d <= rows), ow
    elif block_rows(1) * row_bytes <= budget:
        rb, wb = max(d for d in divisors(oh) if block_rows(d) * row_bytes <= budget), ow
    else:
        rb, wb = 1, max([d for d in divisors(ow) if pixel_bytes(d) <= budget] or [1])
    if threads > 1 and rows <= 0:  # iterations to share evenly: shrink RB, then WB (to 2·MR)
        while not _shared(on * (oh // rb) * (ow // wb) * panels, threads):
            if rb > 1:
                rb = max(d for d in divisors(oh) if d < rb)
            elif smaller := [d for d in divisors(ow) if 2 * mr <= d < wb]:
                wb = max(smaller)
            else:
                break
    return Blocks(rb, wb)


def register_tile(target, isa, filters: int) -> tuple[int, int]:
    """The register tile for `target` (a `versa.targets.Target`) and `isa` (`int8_isa.Isa`):
    (NV vectors of filters, MR pixels): MR·NV accumulators, NV filter vectors, a broadcast
    and a product in the vector registers. NV (up to 4 with 32 registers, 2 with 16) is the
    cheapest per output pixel and K group: the panels' vectors, each a multiply-accumulate and an
    epilogue whether its filters exist or are padding, and per panel a broadcast and NV/MR filter
    loads at half a multiply-accumulate each (two loads a cycle, one vector product). 96 filters
    of 16 lanes: 2 panels of 3 vectors, not 2 of 4 (a third of them zeros)."""

    def tile(nv: int) -> tuple[int, int]:
        return nv, max(1, min(8, (target.vector_registers - nv - 2) // nv))

    def cost(nv: int) -> float:
        mr, panels = tile(nv)[1], -(-filters // (nv * isa.lanes))
        return panels * (nv + (1 + nv / mr) / 2)

    widest = min(4 if target.vector_registers >= 32 else 2, -(-filters // isa.lanes))
    return tile(min(range(widest, 0, -1), key=cost))  # the widest of the cheapest


def _shared(iterations: int, threads: int) -> bool:
    """Whether a static split of `iterations` gives each thread at least 4 and the busiest at
    most 1/8 above the mean (16 over 3 threads: 6, 5, 5 is; 8 over 3 is not)."""
    return iterations >= 4 * threads and -(-iterations // threads) * threads <= iterations * 9 / 8


def open_nest(t: Text, blocks: Blocks, on: int, oh: int, ow: int, panels: int, out_type: str, threads: int):
    """The loops over (n, ob, wb, p) (or (p, n, ob, wb), the old order) into `%o`, the output
    being written: an scf.forall with threads, else serial loops whose results, innermost
    first, `store_tile` closes; those results."""
    dims = [("%n", on), ("%ob", oh // blocks.rows), ("%wb", ow // blocks.pixels)]
    dims = [("%p", panels), *dims] if blocks.panels_outer else [*dims, ("%p", panels)]
    if threads > 1:
        ivs, extents = ", ".join(d for d, _ in dims), ", ".join(str(e) for _, e in dims)
        t(f"%res = scf.forall ({ivs}) in ({extents}) shared_outs(%o = %out0) -> ({out_type}) {{")
        return []
    results, arg = [], "%out0"
    for depth, (iv, extent) in enumerate(dims):
        res, inner = (
            ("%res" if depth == 0 else f"%rl{depth}"),
            ("%o" if depth == len(dims) - 1 else f"%ol{depth}"),
        )
        t(
            f"{res} = scf.for {iv} = {t.c(0)} to {t.c(extent)} step {t.c(1)} iter_args({inner} = {arg})"
            f" -> ({out_type}) {{"
        )
        results.append(res)
        arg = inner
    return results[1:][::-1]
