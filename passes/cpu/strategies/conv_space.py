"""The search space of 2-D convolutions (conv.py) and the strategies built on its nest
(conv_epilogue.py, depthwise.py, grouped_conv.py): the register tile, the channel step, the dim
threads split, and whether the filters are packed.

    register      (rows, vec)   rows of output pixels (filters, NCHW) x vec lanes of filters
                                (pixels, NCHW): rows x vec/lanes accumulators
    cr            the input-channel step of the 1-D kernel (a divisor of C)
    split         oh, f (c for depthwise) or none: the dim split across threads
    pack_filters  NHWC: filters copied into [f / vec, kh, kw, c, vec] panels first

Invalid: accumulators, a filter vector and a broadcast pixel beyond the vector registers; a filter
split whose threads would not get whole vectors; packing anything but a plain NHWC conv (the
epilogue form cannot copy inside its row loop). Grouped convs run their conv on one thread
inside a loop over groups: only the register knobs apply there.
"""

from dataclasses import replace

from versa.targets import Target

from .conv import ConvStrategy, _filter_block
from .conv_epilogue import ConvEpilogueStrategy
from .depthwise import DepthwiseStrategy
from .grouped_conv import GroupedConvStrategy
from .space import InvalidPoint, Knob, Point, Space
from .strategy import round_up

ROWS = (1, 2, 3, 4, 5, 6, 7, 8, 12, 14, 16)
VECTORS = (1, 2, 4)
CHANNEL_STEPS = (4, 3, 2, 1, 8)


def _fits(rows: int, vec: int, lanes: int, registers: int) -> bool:
    vectors = vec // lanes
    return rows * vectors + 2 <= registers


def _split_names(conv: ConvStrategy) -> tuple[str, ...]:
    if conv.threads <= 1:
        return ("none",)
    return ("none", "oh", "c" if conv.layout == "DEPTHWISE_NHWC" else "f")


def conv_space(conv: ConvStrategy, target: Target, threads: bool = True, pack: bool = True) -> Space:
    lanes, registers = target.lanes(32), target.vector_registers
    rows, vec, cr = conv.register_tile
    rows_dim, vec_dim = conv._roles()
    rows_extent, vec_extent = conv._extent(rows_dim), conv._extent(vec_dim)
    tiles = [(rows, vec)]
    for r in ROWS:
        for v in VECTORS:
            shape = (r, v * lanes)
            if (
                r <= rows_extent
                and shape[1] <= round_up(vec_extent, lanes)
                and _fits(*shape, lanes, registers)
            ):
                tiles += [] if shape in tiles else [shape]
    c = conv._extent("c") if "c" in conv.reduction else 1
    steps = (cr, *(t for t in CHANNEL_STEPS if c % t == 0 and t != cr))
    knobs = [Knob("register", tuple(tiles), "register tile (rows, vec)"), Knob("cr", steps, "channel step")]
    if threads:
        default = conv.thread_dim or "none"
        others = (n for n in _split_names(conv) if n != default)
        knobs.append(Knob("split", (default, *others), "dim split across threads"))
    if pack and conv.layout == "NHWC":
        knobs.append(Knob("pack_filters", (conv.pack_filters, not conv.pack_filters), "pack the filters"))
    return Space(tuple(knobs))


def conv_at(
    conv: ConvStrategy, point: Point, target: Target, threads: bool = True, pack: bool = True
) -> ConvStrategy:
    space = conv_space(conv, target, threads, pack)
    space.check(point)
    p = {**space.default(), **point}
    lanes = target.lanes(32)
    rows, vec = p["register"]
    cr = p["cr"]
    c = conv._extent("c") if "c" in conv.reduction else 1
    vectors = vec // lanes
    if vec % lanes or vectors & (vectors - 1) or rows < 1:
        raise InvalidPoint(f"vec = {vec} is not a power-of-two count of {lanes}-lane vectors")
    if not _fits(rows, vec, lanes, target.vector_registers):
        raise InvalidPoint(f"a {rows}x{vec} register tile does not fit {target.vector_registers} registers")
    if c % cr:
        raise InvalidPoint(f"the channel step {cr} does not divide C = {c}")
    new = replace(conv, register_tile=(rows, vec, cr))
    if threads:
        split = p["split"]
        if split not in _split_names(conv):
            raise InvalidPoint(f"split {split!r} is not one of {', '.join(_split_names(conv))}")
        tile = 0
        if split == "oh":
            oh = conv._extent("oh")
            if oh < conv.threads:
                raise InvalidPoint(f"{conv.threads} threads cannot split {oh} output rows")
            tile = -(-oh // conv.threads)
        elif split != "none":
            f = conv._extent(split)
            if f % (conv.threads * (rows if conv.layout == "NCHW" else vec)):
                raise InvalidPoint(f"{conv.threads} threads cannot split {f} filters in whole register tiles")
            tile = f // conv.threads
        new = replace(new, thread_dim="" if split == "none" else split, thread_tile=tile)
    if pack and conv.layout == "NHWC":
        packs = p["pack_filters"]
        f_share = new.thread_tile if new.thread_dim == "f" else conv._extent("f")
        block = f_share
        if packs:
            element = 2 if conv.zero.endswith("16") else 4  # f16/bf16 filters: 2 bytes
            per_filter = conv._extent("kh") * conv._extent("kw") * conv._extent("c") * element
            block = _filter_block(target.l2 // 3 // per_filter, f_share, vec)
        new = replace(new, pack_filters=packs, f_block=block if block < f_share else 0)
    return new


def wrapped_space(strategy, target: Target) -> Space:
    """Conv-nest strategies: the epilogue form takes the threads but never packs; depthwise
    takes both knobs (its layout never packs); grouped convs only the register ones."""
    grouped = isinstance(strategy, GroupedConvStrategy)
    return conv_space(strategy.conv, target, threads=not grouped, pack=False)


def wrapped_at(strategy, point: Point, target: Target):
    grouped = isinstance(strategy, GroupedConvStrategy)
    return replace(strategy, conv=conv_at(strategy.conv, point, target, threads=not grouped, pack=False))


WRAPPERS = (ConvEpilogueStrategy, DepthwiseStrategy, GroupedConvStrategy)
