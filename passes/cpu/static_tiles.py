"""versa-static-tiles: a dynamic dim becomes a loop over static tiles, so every strategy applies.

The codegen strategies (matmul, reductions, convolutions, pools) size their tiles, packing and
micro-kernels from static shapes. An op with dynamic parallel dims is rewritten here into loops
whose bodies hold the same op on static slices: the last dynamic dim of its result runs in
full tiles of `tile` rows, then the remainder (< tile) in the largest full tile that fits of
each halved size, the last (fewer rows than the smallest) zero-padded behind an `scf.if`
(`common/tile_functions.py`'s `tile_cascade`); a contraction's M, when its N is that last dim,
the same way in tiles of `rows`; a named conv's or pool's dynamic H and W in tiles of
`WINDOW_TILE` output rows and columns, each reading the static input window its outputs need
(`tile_slicing.windowed`); any other dynamic dim runs one index at a time. Every body is
static but for a contraction's K, so `versa-codegen` gives it the same strategy as a static
compile of that size, and the code holds a few variants per op (seven for a tile of 256)
whatever the call's sizes. Each tile writes into the result in place.

    linalg.matmul ins(%a, %b : tensor<?x768xf32>, tensor<768x3072xf32>) outs(%fill : tensor<?x3072xf32>)
  → scf.for %i = 0 to (n floordiv 256) * 256 step 256 { fill + matmul on tensor<256x768xf32> }
    scf.for ... step 128 { ... tensor<128x768xf32> }  ...  scf.for ... step 8 { ... tensor<8x768xf32> }
    scf.if (rest == 1) { ... tensor<1x768xf32> } else scf.if (rest > 0) { ... padded tensor<8x768xf32> }

Written by hand: upstream's `loop.peel` gives one static main loop, but peeling its remainder
again leaves `affine.min` sizes that do not fold (facts.md), so the cascade would stay dynamic.
An out operand made by `linalg.fill` is filled per tile (the static compile's "fill, then
contract" form, which the strategies hoist accumulators from), and the elementwise ops that
consume the result in turn (a bias, an activation) join the tile, as versa-fuse's epilogues
would. A dynamic reduction loop (attention's `probs @ V` over the sequence) stays in the tile
whole: the matmul strategy runs a dynamic K as its k register loop (`strategies/matmul.py`),
accumulating in registers across all of it. Which operand dims
run along which loop: `common/tile_slicing.py`; ops it cannot cut are left as they are.
"""

from dataclasses import dataclass

from versa.mlir import func, ir, linalg, tensor

from ..common import window_marks
from ..common.base import Pass, collect
from ..common.group_functions import WRITABLE, outline, outline_tail, unfilled
from ..common.outlining import captured, clone_with
from ..common.reductions import TILED_FAMILIES, has_reduction_loop
from ..common.tile_functions import (
    Functions,
    arg,
    copied_in,
    exact,
    full,
    index_constant,
    local,
    passed,
    take,
    tile_cascade,
)
from ..common.tile_slicing import Slicing, extract, insert, slicing, spatial_windows, window, windowed
from ..common.window_builders import conv_per_group
from .strategies.packed_matmul import MARK as PACKED_B

_CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul")
ROW_TILE = 32  # rows per full tile of a reduction
WINDOW_TILE = (8, 32)  # a conv's or pool's output rows and columns per tile, H or W dynamic


@dataclass(frozen=True)
class VersaStaticTiles(Pass):
    name = "versa-static-tiles"
    summary = "Run ops with dynamic dims as loops over static tiles (full tiles, power-of-two rest)"
    tile: int = 256  # rows of a full tile; a power of two
    rows: int = 32  # a contraction's M per tile when its N is dynamic too (1: one row at a time)

    def run(self, module: ir.Operation) -> None:
        for size in (self.tile, self.rows):
            if size < 1 or size & (size - 1):
                raise ValueError(f"'{self.name}' tile size {size} is not a power of two")
        # Ops are erased only at the end: a wrapper of an erased op is not invalidated by the
        # bindings (facts.md), so the list `collect` made must stay valid to the last op.
        replaced: list[ir.Operation] = []
        functions = Functions()
        for op in collect(module, lambda o: _heads_a_group(o) and slicing(o) is not None):
            if op not in replaced:  # else tiled already: a fill or epilogue of an earlier op
                replaced += _tile(_group(op, functions), _steps(op, self.tile, self.rows))
        for op in replaced:
            op.erase()


def _tile_size(op: ir.Operation, tile: int) -> int:
    """Rows per full tile: `tile` for contractions (a larger M reuses more of B); one image for
    convolutions and pools (their kernels are large, and one image is what they parallelise
    anyway); `ROW_TILE` for reductions (rows are independent: more per tile buys nothing). A
    contraction on a pre-packed B (versa-pack-weights, a generic) is a contraction."""
    if op.name.startswith(("linalg.conv", "linalg.depthwise", "linalg.pooling")) or spatial_windows(op):
        return 1  # (a window op written as a generic too: `window_marks`)
    reduction = op.name == "linalg.generic" and PACKED_B not in op.attributes
    return min(tile, ROW_TILE) if reduction else tile


def _steps(op: ir.Operation, tile: int, rows: int) -> list[int]:
    """Per dynamic result dim, its full tile: the last `_tile_size`, the others one index at a
    time, except a contraction's M when its N is the last (attention's `q @ k.T` over a dynamic
    sequence): `rows` of them, so the tile is a GEMM's, not a row's GEMV; and a conv's or
    pool's dynamic H and W: `WINDOW_TILE` output rows and columns (the strategies' static
    kernels then run over a block of the image)."""
    shape = ir.RankedTensorType(op.results[0].type).shape
    dynamic = [r for r, d in enumerate(shape) if ir.ShapedType.is_dynamic_size(d)]
    spatial = sorted(spatial_windows(op))
    if any(r in spatial for r in dynamic):
        return [WINDOW_TILE[spatial.index(r)] if r in spatial else 1 for r in dynamic]
    steps = [1] * (len(dynamic) - 1) + [_tile_size(op, tile)]
    contraction = op.name in _CONTRACTIONS
    if contraction and len(dynamic) > 1 and dynamic[-2:] == [len(shape) - 2, len(shape) - 1]:
        steps[-2] = rows
    return steps


def _heads_a_group(op: ir.Operation) -> bool:
    """Ops whose strategies need static shapes: those with a reduction loop (contractions,
    convolutions, pools, reductions). Elementwise ops are tiled only as a group's epilogue:
    alone, `versa-vectorize` takes them with dynamic dims (a cascade of each made BERT-like
    blocks 3x slower to compile, 33 s of it in LLVM, for no faster code)."""
    return has_reduction_loop(op, TILED_FAMILIES)


@dataclass
class _Group:
    """An op and the elementwise ops that consume its result in turn (its epilogue), tiled
    together as a static compile would see them; `plans[j]` is op j's `Slicing`."""

    ops: list[ir.Operation]
    plans: list[Slicing]
    functions: Functions

    @property
    def last(self) -> ir.Operation:
        return self.ops[-1]


def _group(op: ir.Operation, functions: Functions) -> _Group:
    """`op` and each next all-parallel generic of the same result type that is the only user
    of the one before and is cut the same way."""
    group = _Group([op], [slicing(op)], functions)
    while True:
        uses = list(group.last.results[0].uses)
        if len(uses) != 1:
            return group
        user = uses[0].owner.operation
        plan = slicing(user) if user.name == "linalg.generic" else None
        if (
            plan is None
            or plan.reduction
            or "reduction" in str(user.attributes["iterator_types"])
            or user.results[0].type != group.last.results[0].type
            or uses[0].operand_number == len(user.operands) - 1
            or user.parent != op.parent
        ):
            return group
        group.ops.append(user)
        group.plans.append(plan)


def _tile(group: _Group, steps: list[int]) -> list[ir.Operation]:
    """Replace the group by a call of a function of its own holding its loops (outer dynamic
    dims one index at a time, the last in tiles), each op on the tile of the one before
    (`common/group_functions.py`: layers share these functions as they do the tiles'); returns
    the ops now dead, in an order to erase them (users first)."""

    def loops(copies: list[ir.Operation], dest: ir.Value) -> ir.Value:
        return _loops(_Group(copies, group.plans, group.functions), {}, dest, steps)

    return outline(group.ops, group.functions, "group", loops)


def _loops(group: _Group, at: dict, acc: ir.Value, steps: list[int]) -> ir.Value:
    """The loops over the result's dynamic dims after those in `at` (position among them ->
    the tile's offset, size and valid rows: None for a full tile)."""
    k, first, per_dim = len(at), group.ops[0], group.plans[0].per_dim
    if k == len(per_dim):
        return _body(group, at, acc)
    i, dim = per_dim[k][0]
    source = first.operands[i]
    if (i, dim) in group.plans[0].windows:  # the input is longer: the result's extent (acc's)
        source, dim = acc, next(d for j, d in per_dim[k] if j == len(first.operands) - 1)
    extent = tensor.dim(source, index_constant(dim))

    def inner(offset, size, valid, a: ir.Value) -> ir.Value:
        if k + 1 == len(per_dim):  # the tiles themselves: calls already
            return _loops(group, {**at, k: (offset, size, valid)}, a, steps)
        block = ir.InsertionPoint.current.block
        start = len(block.operations)
        result = _loops(group, {**at, k: (offset, size, valid)}, a, steps)
        return outline_tail(block, start, a, result, group.functions, "tiles")

    return tile_cascade(extent, steps[k], acc, inner)


def _body(group: _Group, at: dict, acc: ir.Value) -> ir.Value:
    """The group on the tile at `at`, written into `acc`, as a call of a function of its own
    that takes `acc` and the whole tensors and the tile's offsets, slices them itself (a slice
    passed as an argument would be copied at every call: function arguments bufferize to
    identity layouts), and writes its tile into `acc` in place (returned as a static tile, it
    was allocated and copied at each call: a 768x768 linear layer's 128 rows 4% slower). Why a
    function: one-shot-bufferize's analysis grows with the square of the ops on tensors that
    alias, and every tile writes into the same result: a dynamic softmax tiled inline took
    21 s to bufferize (tile 256), in calls 0.2 s."""
    args: list[ir.Value] = [acc]
    steps = []  # per op: its inputs (None: the op before's result), out, fill value, tile
    for j, (op, plan) in enumerate(zip(group.ops, group.plans, strict=True)):
        n = len(op.operands)
        where = passed({pair: windowed(plan, pair, at[k]) for k in at for pair in plan.per_dim[k]}, args)
        inputs = []
        for i, v in enumerate(op.operands[: n - 1]):
            chained = j > 0 and v == group.ops[j - 1].results[0]
            inputs.append(None if chained else (arg(args, v), i))
        out, fill = unfilled(op.operands[n - 1])
        partial = any(rows is not None for _, _, rows in where.values())
        if op == group.last and not partial:  # computed in its place in the result
            out = (0, n - 1)
        elif isinstance(out.owner, ir.OpView) and out.owner.operation.name == "tensor.empty":
            out = window(out, n - 1, full(where))[3]  # static: every dynamic result dim is tiled
        else:  # an out whose values the op reads: its tile, read from the whole tensor
            out = (arg(args, acc if op == group.last else out), n - 1)
        steps.append((op, inputs, out, None if fill is None else fill.operands[0], where))
    return _call(group, args, steps)


def _call(group: _Group, args: list[ir.Value], steps: list) -> ir.Value:
    """A private function running `steps` on `args` and writing the tile into its first (the
    result, `bufferization.writable`), which it returns, and a call of it. What the ops read
    from outside besides their operands (a generic's constants, a gather's table, a fill's
    value) is passed too, or copied in where it is a constant (it still folds)."""
    parent = group.ops[0].parent
    while parent.name != "func.func":
        parent = parent.parent
    outer = [step[3] for step in steps if step[3] is not None]
    outer += [v for op, *_ in steps for v in captured(op)]
    constants = []
    for v in outer:
        if copied_in(v) and v not in constants:
            constants.append(v)
    for v in outer:
        if not copied_in(v) and v not in args:
            arg(args, v)
    name = f"{parent.attributes['sym_name'].value}__tile{next(group.functions.count)}"
    with ir.InsertionPoint(parent):
        function = func.FuncOp(name, ([a.type for a in args], [args[0].type]))
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    marks = [
        {WRITABLE: ir.BoolAttr.get(i == 0)} if isinstance(a.type, ir.RankedTensorType) else {}
        for i, a in enumerate(args)
    ]
    function.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(m) for m in marks])
    with ir.InsertionPoint(function.add_entry_block()):
        values = list(function.arguments)
        mapping = list(zip(args, values, strict=True))
        mapping += [(v, v.owner.operation.clone().result) for v in constants]

        def inside(v: ir.Value) -> ir.Value:
            return next(mine for theirs, mine in mapping if theirs == v)

        value = None
        for op, inputs, out, fill, where in steps:
            where = local(where, values)
            operands = [value if x is None else take(values[x[0]], x[1], where) for x in inputs]
            if isinstance(out, tuple):
                out = take(values[out[0]], out[1], where)
            else:
                out = tensor.EmptyOp(out, ir.RankedTensorType(op.results[0].type).element_type).result
            out = linalg.fill(inside(fill), outs=[out]) if fill is not None else out
            # a grouped conv's tile as the static lowering builds it (named convs per group)
            value = _grouped(op, [*operands, out]) or clone_with(op, [*operands, out], inside)
        n = len(group.last.operands)
        valid = {p: (0, rows) for p, (_, _, rows) in where.items() if rows is not None}
        if valid:  # a partial tile: only its valid rows go in
            value = extract(value, n - 1, valid)
        func.ReturnOp([insert(value, values[0], n - 1, exact(where))])
    return func.CallOp(group.functions.keep(function), args).result


def _grouped(op: ir.Operation, operands: list[ir.Value]) -> ir.Value | None:
    """A static tile of a marked grouped conv (`window_marks`) as the static lowering builds
    one: a named conv per group in one loop, which the grouped conv strategy takes."""
    attrs = window_marks.grouped(op)
    return None if attrs is None else conv_per_group(*operands, attrs)
