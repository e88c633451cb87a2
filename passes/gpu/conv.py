"""versa-gpu-conv: f32 2-D convolutions as an implicit GEMM in shared-memory tiles.

One thread per output element (versa-gpu-map) re-reads its window and filter from global
memory for every output. A conv is a matmul: Y[p, f] += sum over k of X'[p, k] * W[k, f],
p over the N*OH*OW output pixels, f over the output channels, k over the C*KH*KW taps of a
window, X' the im2col view of the (already padded) input. X' is never built: the tiled kernel
of versa-gpu-matmul (`gemm_text`) gathers its tiles straight from the input, strides and
dilations applied in the gather, and ragged edges load zeros and skip stores as there.

The layout picks the orientation that lets neighbouring threads store neighbouring outputs:
NHWC computes pixels x channels (A = X', B = the filter viewed as K x F), NCHW channels x
pixels (A = the filter viewed as F x K, B = X' transposed). Groups are the grid's z when each
has at least a row of threads' worth of output channels; depthwise convs (a few taps per
output, one channel per group) stay one thread per output, which does as well there.
"""

from dataclasses import dataclass

from versa.mlir import func, ir

from ..common.base import Pass, PassError, collect
from ..common.kernel_text import define
from ..common.memrefs import identity_layout
from .kernels.gemm import TX, Gemm, gemm_text, tiles_fit

_NAMED = {"linalg.conv_2d_nchw_fchw": True, "linalg.conv_2d_nhwc_hwcf": False}  # name → NCHW
_MAX_GRID_Y = 65535  # CUDA's limit on gridDim.y


def _memref(shape: tuple[int, ...] | list[int]) -> str:
    return f"memref<{'x'.join(map(str, shape))}xf32>"


@dataclass(frozen=True)
class Conv:
    """A convolution of a padded input: its operands' shapes (in their layout) and window."""

    nchw: bool
    x: tuple[int, ...]
    w: tuple[int, ...]
    y: tuple[int, ...]
    strides: tuple[int, int]
    dilations: tuple[int, int]

    @staticmethod
    def of(op: ir.Operation, nchw: bool, strides: list[int], dilations: list[int]) -> "Conv":
        x, w, y = (tuple(ir.MemRefType(v.type).shape) for v in op.operands)
        return Conv(nchw, x, w, y, tuple(strides), tuple(dilations))

    @property
    def filter_window(self) -> tuple[int, int, int, int]:
        """F, C/groups, KH, KW."""
        return self.w if self.nchw else (self.w[3], self.w[2], self.w[0], self.w[1])

    @property
    def channels(self) -> int:
        return self.x[1 if self.nchw else 3]

    @property
    def out_hw(self) -> tuple[int, int]:
        return self.y[2:] if self.nchw else self.y[1:3]

    @property
    def groups(self) -> int:
        return self.channels // self.filter_window[1]

    @property
    def group_filters(self) -> int:
        return self.filter_window[0] // self.groups

    @property
    def pixels(self) -> int:
        return self.y[0] * self.out_hw[0] * self.out_hw[1]


def _ints(op: ir.Operation, name: str) -> list[int]:
    if name not in op.attributes:
        return [1, 1]
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _grouped_maps(
    nchw: bool, fg: int, cg: int, strides: list[int], dilations: list[int]
) -> list[ir.AffineMap]:
    """The indexing maps that window_builders.grouped_conv gives a grouped conv's generic."""
    n, f, oh, ow, c, kh, kw = (ir.AffineDimExpr.get(i) for i in range(7))
    channel = ir.AffineExpr.get_floor_div(f, fg) * cg + c
    h, v = oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1]
    if nchw:
        exprs = [[n, channel, h, v], [f, c, kh, kw], [n, f, oh, ow]]
    else:
        exprs = [[n, h, v, channel], [kh, kw, c, f], [n, oh, ow, f]]
    return [ir.AffineMap.get(7, 0, e) for e in exprs]


def _at(expr: ir.AffineExpr, dim: int) -> int:
    """expr at the point with loop `dim` = 1 and the others 0."""
    point = [ir.AffineConstantExpr.get(int(i == dim)) for i in range(7)]
    return ir.AffineConstantExpr(expr.compose(ir.AffineMap.get(0, 0, point))).value


def _multiply_add(op: ir.Operation) -> bool:
    """The body is out + in0 * in1, as every contraction's."""
    block = op.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    if [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    mul, add, done = ops
    a, b, out = block.arguments
    return (
        list(mul.operands) == [a, b]
        and set(add.operands) == {out, mul.results[0]}
        and list(done.operands) == [add.results[0]]
    )


def _grouped(op: ir.Operation) -> Conv | None:
    """The conv of a generic that convert-versa-to-linalg made for groups > 1, if it is one."""
    iterators = [str(t).split("<")[-1].rstrip(">") for t in op.attributes["iterator_types"]]
    if iterators != ["parallel"] * 4 + ["reduction"] * 3 or not _multiply_add(op):
        return None
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    for nchw in (True, False):
        h, v = maps[0].results[2:] if nchw else maps[0].results[1:3]
        conv = Conv.of(op, nchw, [_at(h, 2), _at(v, 3)], [_at(h, 5), _at(v, 6)])
        filters, cg = conv.filter_window[:2]
        if conv.channels % cg or filters % conv.groups:
            continue
        if maps == _grouped_maps(nchw, conv.group_filters, cg, conv.strides, conv.dilations):
            return conv
    return None


def _conv(op: ir.Operation) -> Conv | None:
    """The static f32 conv on identity-layout buffers that `op` is, if any."""
    types = [v.type for v in op.operands]
    if len(types) != 3 or not all(
        isinstance(t, ir.MemRefType)
        and ir.MemRefType(t).rank == 4
        and ir.MemRefType(t).has_static_shape
        and isinstance(ir.MemRefType(t).element_type, ir.F32Type)
        and identity_layout(t)
        and min(ir.MemRefType(t).shape) > 0
        for t in types
    ):
        return None
    if op.name in _NAMED:
        return Conv.of(op, _NAMED[op.name], _ints(op, "strides"), _ints(op, "dilations"))
    return _grouped(op)


def _tap(t: str, dim: str, stride: int, dilation: int) -> list[str]:
    """Lines for the input row/column: output position * stride + kernel tap * dilation."""
    lines, terms = [], []
    for name, scale in ((f"{t}o{dim}", stride), (f"{t}k{dim}", dilation)):
        if scale == 1:
            terms.append(name)
        else:
            lines.append(f"{name}s = arith.muli {name}, %c{scale} : index")
            terms.append(f"{name}s")
    return [*lines, f"{t}{dim} = arith.addi {terms[0]}, {terms[1]} : index"]


def _gather(c: Conv, e: int, pixel: str, k: str) -> tuple[list[str], str]:
    """X'[pixel, k]: the input element under tap k (in the filter's order) of the window of
    output `pixel`, for the e-th copy of a thread."""
    t, (_, cg, kh, kw), ow = f"%x{e}_", c.filter_window, c.out_hw[1]
    window, (first, second, third) = (
        ((kh * kw, kw), ("c", "kh", "kw")) if c.nchw else ((kw * cg, cg), ("kh", "kw", "c"))
    )
    lines = [
        f"{t}n = arith.divui {pixel}, %c{c.out_hw[0] * ow} : index",
        f"{t}p = arith.remui {pixel}, %c{c.out_hw[0] * ow} : index",
        f"{t}oh = arith.divui {t}p, %c{ow} : index",
        f"{t}ow = arith.remui {t}p, %c{ow} : index",
        f"{t}{first} = arith.divui {k}, %c{window[0]} : index",
        f"{t}r = arith.remui {k}, %c{window[0]} : index",
        f"{t}{second} = arith.divui {t}r, %c{window[1]} : index",
        f"{t}{third} = arith.remui {t}r, %c{window[1]} : index",
        *_tap(t, "h", c.strides[0], c.dilations[0]),
        *_tap(t, "w", c.strides[1], c.dilations[1]),
    ]
    more, channel = _in_group(c, f"{t}g", f"{t}c", "%gc")
    at = [f"{t}n", channel, f"{t}h", f"{t}w"] if c.nchw else [f"{t}n", f"{t}h", f"{t}w", channel]
    return lines + more, f"memref.load %X[{', '.join(at)}] : {_memref(c.x)}"


def _in_group(c: Conv, name: str, value: str, first: str) -> tuple[list[str], str]:
    """Channel `value` of the block's group (`first` its first channel), if there are groups."""
    return ([f"{name} = arith.addi {value}, {first} : index"], name) if c.groups > 1 else ([], value)


def kernel_text(name: str, c: Conv, pixels: int = 128, channels: int = 64, k_step: int = 8) -> str:
    """The kernel for Y += conv(X, W): `pixels` x `channels` outputs per block, `k_step` taps
    per shared-memory stage, a group per grid z. The filter and output are 2-D/3-D views."""
    filters, cg, kh, kw = c.filter_window
    taps, plane = cg * kh * kw, c.out_hw[0] * c.out_hw[1]
    params = f"%X: {_memref(c.x)}, %W: {_memref(c.w)}, %Y: {_memref(c.y)}"
    setup = (f"%gf = arith.muli %bz, %c{c.group_filters} : index", f"%gc = arith.muli %bz, %c{cg} : index")
    setup = setup if c.groups > 1 else ()
    if c.nchw:
        wk, yk = _memref((filters, taps)), _memref((c.y[0], filters, plane))

        def filter_load(e: int, f: str, k: str) -> tuple[list[str], str]:
            more, channel = _in_group(c, f"%w{e}_f", f, "%gf")
            return more, f"memref.load %Wk[{channel}, {k}] : {wk}"

        def place(x: int, f: str, pixel: str) -> tuple[list[str], str]:
            more, channel = _in_group(c, f"%y{x}_f", f, "%gf")
            at = [
                f"%y{x}_n = arith.divui {pixel}, %c{plane} : index",
                f"%y{x}_p = arith.remui {pixel}, %c{plane} : index",
            ]
            return at + more, f"%Yk[%y{x}_n, {channel}, %y{x}_p] : {yk}"

        views = (
            f"%Wk = memref.collapse_shape %W [[0], [1, 2, 3]] : {_memref(c.w)} into {wk}",
            f"%Yk = memref.collapse_shape %Y [[0], [1], [2, 3]] : {_memref(c.y)} into {yk}",
        )
        sizes, tile = (c.group_filters, c.pixels, taps), (channels, pixels, k_step)
        loads = filter_load, lambda e, k, pixel: _gather(c, e, pixel, k)
    else:
        wk, yk = _memref((taps, filters)), _memref((c.pixels, filters))

        def filter_load(e: int, k: str, f: str) -> tuple[list[str], str]:
            more, channel = _in_group(c, f"%w{e}_f", f, "%gf")
            return more, f"memref.load %Wk[{k}, {channel}] : {wk}"

        def place(x: int, pixel: str, f: str) -> tuple[list[str], str]:
            more, channel = _in_group(c, f"%y{x}_f", f, "%gf")
            return more, f"%Yk[{pixel}, {channel}] : {yk}"

        views = (
            f"%Wk = memref.collapse_shape %W [[0, 1, 2], [3]] : {_memref(c.w)} into {wk}",
            f"%Yk = memref.collapse_shape %Y [[0, 1, 2], [3]] : {_memref(c.y)} into {yk}",
        )
        sizes, tile = (c.pixels, c.group_filters, taps), (pixels, channels, k_step)
        loads = lambda e, pixel, k: _gather(c, e, pixel, k), filter_load
    return gemm_text(Gemm(name, params, *sizes, tile, c.groups, *loads, place, views, setup))


@dataclass(frozen=True)
class VersaGpuConv(Pass):
    name = "versa-gpu-conv"
    summary = "f32 conv2d (NCHW, NHWC, grouped) as an implicit-GEMM tiled GPU kernel (call, to be inlined)"
    pixels: int = 128  # output pixels per block (a multiple of 16)
    channels: int = 64  # output channels per block (a multiple of 16)
    k_step: int = 8  # taps per shared-memory stage

    def fits(self, c: Conv) -> bool:
        """A row of threads' worth of output channels per group, a grid in range."""
        rows, bm = (c.group_filters, self.channels) if c.nchw else (c.pixels, self.pixels)
        return (c.groups == 1 or c.group_filters >= TX) and -(-rows // bm) <= _MAX_GRID_Y

    def run(self, module: ir.Operation) -> None:
        if not tiles_fit(self.pixels, self.channels, self.k_step):
            raise PassError(
                f"'{self.name}' pixels {self.pixels} / channels {self.channels} / k-step {self.k_step} "
                "do not fit 16x16 threads"
            )
        candidates = collect(module, lambda op: op.name in _NAMED or op.name == "linalg.generic")
        convs = [(op, conv) for op in candidates if (conv := _conv(op)) and self.fits(conv)]
        for count, (op, conv) in enumerate(convs):
            name = f"versa_gpu_conv_{count}"
            text = kernel_text(name, conv, self.pixels, self.channels, self.k_step)
            define(module, text)
            with ir.InsertionPoint(op), op.location:
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), list(op.operands))
            op.erase()
