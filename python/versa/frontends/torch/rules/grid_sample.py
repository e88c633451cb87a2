"""F.grid_sample on 4-d inputs (bilinear and nearest; zeros, border and reflection padding),
and F.affine_grid, which makes its grids in spatial transformer networks.

Each output point reads the input at the point the grid names: its coordinates are unnormalised
and padded as torch's `grid_sampler_compute_source_index`, then each tap (four for bilinear, one
for nearest) is a gather from x's planes [C, N·H·W] at n·H·W + y·W + x. A tap outside
the input reads 0 (zeros padding; border and reflection clip first, but bilinear's right and
lower taps may still fall one past the edge); its index is replaced by 0 before the cast to an
integer, so no grid value (±1e9, inf, NaN) makes the gather read outside x. torch-mlir's own
lowering ignores padding_mode and reads out of bounds: the op never goes to the fallback
(`fallback.UNSAFE`), so bicubic and 5-d grids run eagerly.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import rank, shape

_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


@rule("torch.aten.grid_sampler", "torch.aten.grid_sampler_2d")
def grid_sampler(node: Node, x, grid, interpolation_mode, padding_mode, align_corners):
    if rank(x) != 4:
        raise Unsupported("grid_sample of a non-4-d input")
    if not types.is_float(str(x.type.element_type)):
        raise Unsupported("grid_sample of an integer tensor")
    mode, padding = _MODES.get(interpolation_mode), _PADDINGS.get(padding_mode)
    if mode not in ("bilinear", "nearest"):
        raise Unsupported(f"grid_sample with mode {mode or interpolation_mode}")
    if padding is None:
        raise Unsupported(f"grid_sample with padding mode {padding_mode}")
    h, w = shape(x)[2:]
    f32 = types.element_type("f32")
    grid = grid if str(grid.type.element_type) == "f32" else vb.cast(grid, f32)
    x = x if str(x.type.element_type) == "f32" else vb.cast(x, f32)  # the converter casts back
    sampler = _Sampler(node, x, shape(grid)[1:3])
    ix = _source_index(node, sampler.coordinate(grid, 0), w, padding, bool(align_corners))
    iy = _source_index(node, sampler.coordinate(grid, 1), h, padding, bool(align_corners))
    if mode == "nearest":
        out = sampler.tap(vb.round(ix), vb.round(iy), None)  # round half to even, as nearbyint
    else:
        x0, y0 = vb.floor(ix), vb.floor(iy)
        x1, y1 = vb.add(x0, node.constant(1.0, "f32")), vb.add(y0, node.constant(1.0, "f32"))
        east, south = vb.sub(ix, x0), vb.sub(iy, y0)  # the weights as torch's CPU kernel forms them
        west, north = vb.sub(node.constant(1.0, "f32"), east), vb.sub(node.constant(1.0, "f32"), south)
        taps = [
            sampler.tap(x0, y0, vb.mul(north, west)),
            sampler.tap(x1, y0, vb.mul(north, east)),
            sampler.tap(x0, y1, vb.mul(south, west)),
            sampler.tap(x1, y1, vb.mul(south, east)),
        ]
        out = vb.add(vb.add(taps[0], taps[1]), vb.add(taps[2], taps[3]))
    return vb.transpose(out, perm=[1, 0, 2, 3])  # [C, N, Ho, Wo] → [N, C, Ho, Wo]


class _Sampler:
    """Reads x (NCHW, f32) at float coordinates [N, Ho, Wo]: 0 where a point is outside."""

    def __init__(self, node: Node, x: ir.Value, out: tuple[int, int]):
        n, c, h, w = shape(x)
        self.node, self.size, self.out = node, (n, c, h, w), (n, *out)
        self.planes = vb.reshape(vb.transpose(x, perm=[1, 0, 2, 3]), [c, n * h * w])

    def coordinate(self, grid: ir.Value, which: int) -> ir.Value:
        """grid[..., which] as [N, Ho, Wo] (0: the x coordinate, along W; 1: y, along H)."""
        n, ho, wo, _ = shape(grid)
        part = vb.slice(grid, starts=[0, 0, 0, which], limits=[n, ho, wo, which + 1])
        return vb.reshape(part, [n, ho, wo])

    def tap(self, xs: ir.Value, ys: ir.Value, weight: ir.Value | None) -> ir.Value:
        """x at integral float coordinates (xs, ys), times `weight`; 0 outside x, whatever the
        weight (inf, NaN), as torch adds a tap only when it is in bounds."""
        node, (n, _, h, w) = self.node, self.size
        inside = vb.logical_and(_within(node, xs, w), _within(node, ys, h))  # false for NaN
        zero = node.constant(0.0, "f32")
        i64 = types.element_type("i64")
        xi = vb.cast(vb.select(inside, xs, zero), i64)
        yi = vb.cast(vb.select(inside, ys, zero), i64)
        index = vb.add(vb.mul(yi, node.constant(w, "i64")), xi)
        if n > 1:
            batch = vb.iota(list(self.out), i64, axis=0)
            index = vb.add(vb.mul(batch, node.constant(h * w, "i64")), index)
        values = vb.gather(self.planes, index, axis=1)  # [C, N, Ho, Wo]
        if weight is not None:
            values = vb.mul(values, weight)
        return vb.select(inside, values, zero)


def _within(node: Node, v: ir.Value, size: int) -> ir.Value:
    low = vb.compare(v, node.constant(0.0, "f32"), predicate="ge")
    return vb.logical_and(low, vb.compare(v, node.constant(float(size), "f32"), predicate="lt"))


def _source_index(node: Node, coord: ir.Value, size: int, padding: str, align_corners: bool) -> ir.Value:
    """torch's grid_sampler_compute_source_index: the grid's [-1, 1] unnormalised to pixels,
    then clipped (border) or reflected and clipped (reflection)."""

    def const(value: float) -> ir.Value:
        return node.constant(value, "f32")

    if align_corners:  # -1 and 1 are the corner pixels' centres
        coord = vb.mul(vb.add(coord, const(1.0)), const((size - 1) / 2))
    else:  # -1 and 1 are the corner pixels' outer edges
        coord = vb.sub(vb.mul(vb.add(coord, const(1.0)), const(size / 2)), const(0.5))
    if padding == "zeros":
        return coord
    if padding == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        coord = _reflect(node, coord, low, high)
    return vb.min(vb.max(coord, const(0.0)), const(float(size - 1)))


def _reflect(node: Node, coord: ir.Value, twice_low: int, twice_high: int) -> ir.Value:
    """torch's reflect_coordinates: coord mirrored at low and high until it lies between them."""
    if twice_low == twice_high:  # one pixel, corners aligned: every point reads it
        return vb.broadcast_to(node.constant(0.0, "f32"), list(shape(coord)))
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = vb.abs(vb.sub(coord, node.constant(low, "f32")))
    flips = vb.floor(vb.div(distance, node.constant(span, "f32")))
    extra = vb.sub(distance, vb.mul(flips, node.constant(span, "f32")))  # fmod(distance, span)
    half = vb.mul(flips, node.constant(0.5, "f32"))
    even = vb.compare(vb.floor(half), half, predicate="eq")
    forward = vb.add(extra, node.constant(low, "f32"))
    backward = vb.add(vb.sub(node.constant(span, "f32"), extra), node.constant(low, "f32"))
    return vb.select(even, forward, backward)


@rule("torch.aten.affine_grid_generator")
def affine_grid_generator(node: Node, theta, size, align_corners):
    """F.affine_grid for 4-d sizes: the constant base grid [H·W, 3] of (x, y, 1) times θᵀ."""
    if len(size) != 4:
        raise Unsupported("affine_grid of a 3-d volume")
    h, w = size[2:]
    xs, ys = _linspace(w, bool(align_corners)), _linspace(h, bool(align_corners))
    base = np.stack([np.tile(xs, h), np.repeat(ys, w), np.ones(h * w, np.float32)], axis=1)
    grid = vb.matmul(node.constant(base, str(theta.type.element_type)), vb.transpose(theta, perm=[0, 2, 1]))
    return vb.reshape(grid, [shape(theta)[0], h, w, 2])


def _linspace(steps: int, align_corners: bool) -> np.ndarray:
    """torch's linspace_from_neg_one: the pixel centres in [-1, 1] (scaled in without corners)."""
    if steps <= 1:
        return np.zeros(steps, np.float32)
    points = np.linspace(-1.0, 1.0, steps, dtype=np.float32)
    return points if align_corners else points * np.float32(steps - 1) / np.float32(steps)
