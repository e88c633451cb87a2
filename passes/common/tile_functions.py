"""The tiles of `versa-static-tiles`: the static sizes a dynamic dim runs in (`tile_cascade`:
full tiles, then smaller ones, the rest zero-padded), and the function each tile runs in: a
private function that takes the whole tensors and the tile's offsets (`passed`, `local`) and
slices them itself (`take`: a partial tile's rows padded with zeros).
`Functions` keeps one function per distinct body. A tile is described by `where`: (operand,
dim) -> (offset, size, valid rows), offsets and rows ints or index values, rows None for a
full tile."""

import itertools
from collections.abc import Callable

from versa.mlir import arith, func, ir, linalg, scf, tensor

from .linalg_builders import scalar
from .outlining import is_constant
from .tile_slicing import extract, insert, window

SMALLEST_TILE = 8  # the cascade of tile sizes stops here; fewer rows are a padded tile


def arg(args: list[ir.Value], value: ir.Value) -> int:
    """The position of `value` among a call's arguments (appended if new)."""
    for i, known in enumerate(args):
        if known == value:
            return i
    args.append(value)
    return len(args) - 1


class Functions:
    """The tile functions of one run: numbered, and one per distinct body (a model's layers
    share theirs, as its static kernels do: `strategies/sharing.py`)."""

    def __init__(self):
        self.count = itertools.count()
        self.by_body: dict[str, func.FuncOp] = {}

    def keep(self, function: func.FuncOp) -> func.FuncOp:
        """`function`, or an equal one made before (then `function` is erased)."""
        name = function.attributes["sym_name"].value
        text = function.operation.get_asm(use_local_scope=True)  # value names of its own
        body = text.replace(f'"{name}"', '""', 1).replace(f"@{name}(", "@(", 1)  # either form
        if body in self.by_body:
            function.operation.erase()
            return self.by_body[body]
        self.by_body[body] = function
        return function


class Passed(int):
    """A tile offset or row count that the tile function takes as its argument number self."""


def passed(where: dict, args: list[ir.Value]) -> dict:
    """`where` with its index values replaced by the numbers of the arguments that carry them."""

    def carried(x):
        return Passed(arg(args, x)) if isinstance(x, ir.Value) else x

    return {
        p: (carried(offset), size, None if rows is None else carried(rows))
        for p, (offset, size, rows) in where.items()
    }


def local(where: dict, values: list[ir.Value]) -> dict:
    def value(x):
        return values[x] if isinstance(x, Passed) else x

    return {
        p: (value(offset), size, None if rows is None else value(rows))
        for p, (offset, size, rows) in where.items()
    }


def full(where: dict) -> dict:
    return {p: (offset, size) for p, (offset, size, _) in where.items()}


def exact(where: dict) -> dict:
    """The slice of the real rows: a partial tile's size is its valid rows (a value)."""
    return {p: (offset, size if rows is None else rows) for p, (offset, size, rows) in where.items()}


def take(v: ir.Value, i: int, where: dict) -> ir.Value:
    """Operand `i` (`v`) at the tile; a partial tile's rows land in a zero-filled full tile."""
    piece = extract(v, i, exact(where))
    valid = {p: (0, rows) for p, (_, _, rows) in where.items() if rows is not None and p[0] == i}
    if not valid:
        return piece
    element = ir.RankedTensorType(v.type).element_type
    zeros = linalg.fill(scalar(element, 0), outs=[temporary(v, i, full(where))])
    return insert(piece, zeros, i, valid)


def copied_in(v: ir.Value) -> bool:
    """Constants a tile function makes itself: scalars and splats (they fold into its code);
    a weight tensor is an argument, so that layers differing only in weights share one."""
    if not is_constant(v):
        return False
    value = v.owner.operation.attributes["value"]
    return not isinstance(v.type, ir.ShapedType) or (
        isinstance(value, ir.DenseElementsAttr) and value.is_splat
    )


def temporary(like: ir.Value, i: int, where: dict) -> ir.Value:
    """A fresh tensor of operand `i`'s tile shape (not a slice of a whole dynamic one)."""
    _, _, sizes, static_sizes = window(like, i, where)
    values = iter(sizes)  # one per dynamic static size, in order
    mixed = [next(values) if ir.ShapedType.is_dynamic_size(d) else d for d in static_sizes]
    return tensor.EmptyOp(mixed, ir.RankedTensorType(like.type).element_type).result


# ----------------------------------------------------------------------------- tile sizes


def index_constant(value: int) -> ir.Value:
    """An `index` constant."""
    return arith.constant(ir.IndexType.get(), value)


def tile_cascade(extent: ir.Value, tile: int, acc: ir.Value, body: Callable) -> ir.Value:
    """`body(offset, size, valid, acc)` over [0, extent), every size a static int: a loop of
    full tiles of `tile`, then the largest full tile that fits of tile/2, tile/4, ... down to
    `SMALLEST_TILE` rows (each runs at most once: every power of two up to `tile` is one tile);
    fewer than the smallest size left: one row alone (a batch-1 call), else one zero-padded
    smallest tile (`valid`: its real rows, a value; None for a full tile). Seven variants for a
    tile of 256 (256, 128, ..., 8, 1), whatever the extent. Why halves: a tile packs B anew, so
    128 rows in two tiles of 64 (quarters) took a 768x768 linear layer 1.13x the static
    compile's time, in one of 128 1.02x (one thread, znver4). Why not one padded tile of a
    larger size where more than half of it is left: a padded tile computes up to twice the
    rows (129-255 rows in a padded 256-row tile: 1.5x)."""
    sizes = [tile]
    while sizes[-1] // 2 >= SMALLEST_TILE:
        sizes.append(sizes[-1] // 2)
    offset = index_constant(0)
    for size in sizes:
        end = arith.addi(
            offset,
            arith.muli(arith.divui(arith.subi(extent, offset), index_constant(size)), index_constant(size)),
        )
        loop = scf.ForOp(offset, end, index_constant(size), [acc])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([body(loop.induction_variable, size, None, loop.inner_iter_args[0])])
        acc, offset = loop.results[0], end
    if sizes[-1] == 1:
        return acc
    rest = arith.subi(extent, offset)
    one = arith.cmpi(arith.CmpIPredicate.eq, rest, index_constant(1))
    branch = scf.IfOp(one, [acc.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([body(offset, 1, None, acc)])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([_padded_tile_if(extent, offset, sizes[-1], acc, body)])
    return branch.results[0]


def _padded_tile_if(extent, offset, size: int, acc, body) -> ir.Value:
    """One zero-padded tile of `size` at `offset` if any rows are left (fewer than `size`)."""
    rest = arith.subi(extent, offset)
    taken = arith.cmpi(arith.CmpIPredicate.ugt, rest, index_constant(0))
    branch = scf.IfOp(taken, [acc.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([body(offset, size, rest, acc)])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([acc])
    return branch.results[0]
