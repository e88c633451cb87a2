"""Building blocks of hand-built GPU kernels: index constants, delinearized thread indices and
1-D launches (versa-gpu-map, versa-gpu-reduce)."""

from versa.mlir import arith, gpu, ir


def index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def delinearize(linear: ir.Value, trips: list[int]) -> list[ir.Value]:
    """Row-major indices (0-based) of `linear` in a box of `trips` (the last varies fastest)."""
    rest, indices = linear, []
    for dim in reversed(range(len(trips))):
        indices.append(arith.remui(rest, index(trips[dim])) if dim else rest)
        if dim:
            rest = arith.divui(rest, index(trips[dim]))
    return indices[::-1]


def launch(grid: int, block: int) -> tuple[gpu.LaunchOp, ir.Block]:
    """A 1-D `gpu.launch` of `grid` blocks of `block` threads, with its terminator."""
    op = gpu.LaunchOp((index(grid), index(1), index(1)), (index(block), index(1), index(1)))
    body = op.regions[0].blocks[0]
    with ir.InsertionPoint(body):
        gpu.TerminatorOp()
    return op, body
