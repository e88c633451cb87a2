"""What a codegen strategy declined that matters for speed, and why, with the numbers behind
it: versa-codegen's `missed` remarks for a kernel. Only the choices that explain a slow kernel
are reported: threads not taken (one core where several were asked for) and, for matmuls, B's
packing not taken where its block outgrows L1 (its panels then come strided from L2). Each is
recomputed from the op and the chosen strategy by the functions the choice itself used
(`threads_worth`, `MatmulStrategy.can_pack`), and only when someone listens.
"""

from versa.mlir import ir
from versa.targets import Target

from . import conv as conv_family
from . import matmul as matmul_family
from .conv import ConvStrategy
from .grouped_conv import GroupedConvStrategy
from .matmul import PACK_REUSE, MatmulStrategy
from .strategy import Strategy, serial_remark


def declined(
    strategy: Strategy, op: ir.Operation, target: Target, threads: int
) -> list[tuple[str, str, dict]]:
    """The declined choices of `strategy`, built for `op` with `threads` threads asked for:
    each a category (threads, packing), a reason and its values. The epilogue, depthwise and
    conv-epilogue strategies wrap a matmul's or conv's choice and report it; a grouped conv
    weighs threads over its group loop (not the body's conv) and reports none."""
    if isinstance(strategy, GroupedConvStrategy):
        return []
    inner = getattr(strategy, "matmul", None) or getattr(strategy, "conv", None) or strategy
    if isinstance(inner, MatmulStrategy):
        return _matmul(inner, op, target, threads)
    if isinstance(inner, ConvStrategy):
        return _conv(inner, op, target, threads)
    return []


def _matmul(
    mm: MatmulStrategy, op: ir.Operation, target: Target, threads: int
) -> list[tuple[str, str, dict]]:
    found = []
    mr, nr, kr = mm.register_tile
    serial = serial_remark(*matmul_family.work(op, mm.batch, mm.m, mm.n, mm.k), target, threads)
    if serial:
        found.append(("threads", *serial))
    elif mm.threads > 1 and not mm.thread_tile:
        reason = "one thread: no dim splits into whole register tiles per thread"
        found.append(("threads", reason, {"threads": mm.threads, "m": mm.m, "n": mm.n, "mr": mr, "nr": nr}))
    if mm.pack_b or mm.dot_width or mm.rows_outer or mm.panels:  # panels: packed at compile time
        return found
    _, nc, kc = mm.cache_tile
    block = (kc or mm.k) * (nc or mm.n) * 4
    if block <= target.l1:  # read in place from L1: packing would buy nothing
        return found
    sizes = {"b_block_bytes": block, "l1_bytes": target.l1}
    if not mm.can_pack():
        reason = "B not packed: N or K is no whole number of register tiles; B's panels are read strided"
        found.append(("packing", reason, {"n": mm.n, "k": mm.k, "nr": nr, "kr": kr, **sizes}))
    else:
        b = 1 if mm.batch else 0
        rows = mm.thread_tile if mm.thread_tile and mm.thread_dim == b else mm.m
        reason = "B not packed: too few row tiles per thread reuse a packed block"
        found.append(("packing", reason, {"rows": rows, "mr": mr, "pack_reuse": PACK_REUSE, **sizes}))
    return found


def _conv(conv: ConvStrategy, op: ir.Operation, target: Target, threads: int) -> list[tuple[str, str, dict]]:
    serial = serial_remark(*conv_family.work(op, conv.extents), target, threads)
    if serial:
        return [("threads", *serial)]
    if conv.threads > 1 and not conv.thread_dim:
        extents = dict(zip(conv.dims, conv.extents, strict=True))
        channels = "f" if "f" in conv.dims else "c"
        reason = "one thread: neither the output rows nor the filters split evenly across threads"
        return [
            ("threads", reason, {"threads": conv.threads, "oh": extents["oh"], channels: extents[channels]})
        ]
    return []
