"""Shape rules of the versa ops, as plain Python over tuples.

Verifiers compare an op's result type against these rules and builders derive result types
from them, so each rule lives once. A rule raises `RuleError` with the reason it rejects.
"""

from collections.abc import Sequence

Shape = tuple[int, ...]


class RuleError(ValueError):
    """An operand shape or attribute that the op's rules reject."""


def require(cond: bool, message: str) -> None:
    if not cond:
        raise RuleError(message)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    require(-rank <= axis < rank, f"{what} {axis} is out of range for rank {rank}")  # as NumPy
    return axis % rank


def broadcast(a: Shape, b: Shape) -> Shape:
    """NumPy broadcasting of two shapes."""
    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb, strict=True)):
        require(
            x == y or x == 1 or y == 1,
            f"operand shapes {list(a)} and {list(b)} are not broadcast-compatible (dim {i}: {x} vs {y})",
        )
        out.append(max(x, y) if min(x, y) != 0 else 0)
    return tuple(out)


def matmul(a: Shape, b: Shape) -> Shape:
    require(len(a) >= 2 and len(b) >= 2, "operands must have rank >= 2")
    require(a[-1] == b[-2], f"contraction dims differ: K = {a[-1]} (lhs) vs {b[-2]} (rhs)")
    batch = broadcast(a[:-2], b[:-2])
    return (*batch, a[-2], b[-1])


def window_out(size: int, kernel: int, stride: int, pad: int, dilation: int, dim: str) -> int:
    """Output extent of a strided, padded, dilated window along one spatial dim."""
    span = dilation * (kernel - 1) + 1
    require(size + pad >= span, f"window of extent {span} does not fit in padded {dim} = {size + pad}")
    return (size + pad - span) // stride + 1


def spatial_dims(layout: str) -> tuple[int, int, int]:
    """(channel, height, width) dims of a 4-D activation in `layout`."""
    return (1, 2, 3) if layout == "NCHW" else (3, 1, 2)


def conv2d(
    x: Shape,
    w: Shape,
    strides: Sequence[int],
    padding: Sequence[int],
    dilations: Sequence[int],
    groups: int,
    layout: str,
) -> Shape:
    require(len(x) == 4 and len(w) == 4, "input and filter must have rank 4")
    c_dim, h_dim, w_dim = spatial_dims(layout)
    if layout == "NCHW":
        f, cg, kh, kw = w
    else:
        kh, kw, cg, f = w
    require(kh >= 1 and kw >= 1, f"filter window {kh}x{kw} is empty")
    channels = x[c_dim]
    require(channels % groups == 0, f"groups = {groups} does not divide input channels {channels}")
    require(f % groups == 0, f"groups = {groups} does not divide output channels {f}")
    require(
        cg == channels // groups,
        f"filter has {cg} input channels per group, expected "
        f"{channels // groups} (= {channels} channels / {groups} groups)",
    )
    oh = window_out(x[h_dim], kh, strides[0], padding[0] + padding[2], dilations[0], "height")
    ow = window_out(x[w_dim], kw, strides[1], padding[1] + padding[3], dilations[1], "width")
    return (x[0], f, oh, ow) if layout == "NCHW" else (x[0], oh, ow, f)


def pool2d(
    x: Shape, kernel: Sequence[int], strides: Sequence[int], padding: Sequence[int], layout: str
) -> Shape:
    require(len(x) == 4, "input must have rank 4")
    require(
        padding[0] < kernel[0]
        and padding[2] < kernel[0]
        and padding[1] < kernel[1]
        and padding[3] < kernel[1],
        "padding must be smaller than the kernel",
    )
    c_dim, h_dim, w_dim = spatial_dims(layout)
    oh = window_out(x[h_dim], kernel[0], strides[0], padding[0] + padding[2], 1, "height")
    ow = window_out(x[w_dim], kernel[1], strides[1], padding[1] + padding[3], 1, "width")
    return (x[0], x[c_dim], oh, ow) if layout == "NCHW" else (x[0], oh, ow, x[c_dim])


def reduce(x: Shape, axes: Sequence[int], keepdims: bool) -> Shape:
    norm = [normalize_axis(a, len(x), "reduction axis") for a in axes]
    require(len(set(norm)) == len(norm), f"reduction axes {list(axes)} repeat a dim")
    if keepdims:
        return tuple(1 if i in norm else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in norm)


def transpose(x: Shape, perm: Sequence[int]) -> Shape:
    require(sorted(perm) == list(range(len(x))), f"perm {list(perm)} is not a permutation of 0..{len(x) - 1}")
    return tuple(x[p] for p in perm)


def reshape(x: Shape, y: Shape) -> Shape:
    nx, ny = _count(x), _count(y)
    require(nx == ny, f"element count differs: {nx} (input) vs {ny} (result)")
    return tuple(y)


def broadcast_to(x: Shape, y: Shape) -> Shape:
    require(len(y) >= len(x), f"cannot broadcast rank {len(x)} to lower rank {len(y)}")
    require(broadcast(x, y) == tuple(y), f"shape {list(x)} cannot broadcast to {list(y)}")
    return tuple(y)


def concat(shapes: Sequence[Shape], axis: int) -> Shape:
    require(len(shapes) >= 1, "needs at least one operand")
    rank = len(shapes[0])
    require(rank >= 1, "operands must have rank >= 1")  # as NumPy: 0-d arrays do not concatenate
    ax = normalize_axis(axis, rank)
    for s in shapes:
        require(len(s) == rank, "operands must have the same rank")
        require(
            all(s[i] == shapes[0][i] for i in range(rank) if i != ax),
            f"operand shapes differ outside the concatenation axis {ax}",
        )
    total = sum(s[ax] for s in shapes)
    return tuple(total if i == ax else d for i, d in enumerate(shapes[0]))


def slice_(x: Shape, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int]) -> Shape:
    out = []
    for i, (d, lo, hi, st) in enumerate(zip(x, starts, limits, strides, strict=True)):
        require(st > 0, f"stride {st} of dim {i} must be positive")
        require(0 <= lo <= hi <= d, f"dim {i}: need 0 <= start ({lo}) <= limit ({hi}) <= size ({d})")
        out.append((hi - lo + st - 1) // st)
    return tuple(out)


def pad(x: Shape, low: Sequence[int], high: Sequence[int]) -> Shape:
    require(all(p >= 0 for p in (*low, *high)), "padding amounts must be non-negative")
    return tuple(d + lo + hi for d, lo, hi in zip(x, low, high, strict=True))


def _count(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def gather(x: Shape, indices: Shape, axis: int) -> Shape:
    """np.take(x, indices, axis): x's dims before `axis`, the indices' dims, x's dims after."""
    require(len(x) >= 1, "input must have rank >= 1")
    ax = normalize_axis(axis, len(x))
    require(x[ax] >= 1, f"cannot gather from dim {ax} of size 0")  # no index could be clamped into it
    return (*x[:ax], *indices, *x[ax + 1 :])


def scatter(x: Shape, indices: Shape, updates: Shape) -> Shape:
    """ScatterND: indices [..., k] address x's leading k dims; updates are indices[:-1] + x[k:]."""
    require(len(x) >= 1, "input must have rank >= 1")
    require(len(indices) >= 1, "indices must have rank >= 1 (its last dim holds the coordinates)")
    k = indices[-1]
    require(1 <= k <= len(x), f"indices' last dim {k} must be in [1, {len(x)}] (the input's rank)")
    want = (*indices[:-1], *x[k:])
    require(
        tuple(updates) == want,
        f"updates shape {list(updates)} must be {list(want)} (indices.shape[:-1] + input.shape[{k}:])",
    )
    return tuple(x)


def conv_transpose2d(
    x: Shape,
    w: Shape,
    strides: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilations: Sequence[int],
    groups: int,
) -> Shape:
    """NCHW x [C, F/groups, KH, KW] (torch's layout) -> [N, F, OH, OW], with
    OH = (H - 1) * stride - top - bottom + dilation * (KH - 1) + output_padding + 1."""
    require(len(x) == 4 and len(w) == 4, "input and filter must have rank 4")
    channels, (wc, fg, kh, kw) = x[1], w
    require(kh >= 1 and kw >= 1, f"filter window {kh}x{kw} is empty")
    require(wc == channels, f"filter has {wc} input channels, expected {channels} (the input's dim 1)")
    require(channels % groups == 0, f"groups = {groups} does not divide input channels {channels}")
    out = []
    for i, dim in enumerate(("height", "width")):
        stride, dilation, extra = strides[i], dilations[i], output_padding[i]
        require(
            extra < max(stride, dilation),
            f"output_padding {extra} of the {dim} must be smaller than its stride or dilation",
        )
        span = dilation * ((kh, kw)[i] - 1)
        size = (x[2 + i] - 1) * stride - padding[i] - padding[i + 2] + span + extra + 1
        require(size >= 1, f"output {dim} {size} is not positive (padding too large)")
        out.append(size)
    return (x[0], fg * groups, *out)
