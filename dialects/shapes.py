"""Shape rules of the versa ops, as plain Python over tuples.

Verifiers compare an op's result type against these rules and builders derive result types
from them, so each rule lives once. A rule raises `RuleError` with the reason it rejects.

A dim is an int, or None where it is dynamic (`?` in the type): known only when the function
is called. Rules check what they can statically; relations they cannot (a matmul's K when one
side is `?`) hold by assumption and are checked before each call, by evaluating the same
rules on the call's sizes. Two assumptions are the compiled code's: a dynamic dim never
stretches (one that meets a static n is n at run time, one that meets a `?` is equal to it),
and a reshape's dynamic result dims come from its input's dynamic dims (`reshape_sources`).
"""

from collections.abc import Sequence

Dim = int | None  # None: dynamic
Shape = tuple[Dim, ...]


class RuleError(ValueError):
    """An operand shape or attribute that the op's rules reject."""


def require(cond: bool, message: str) -> None:
    if not cond:
        raise RuleError(message)


def is_static(shape: Shape) -> bool:
    return None not in shape


def same(x: Dim, y: Dim) -> bool:
    """Statically compatible as equal dims: equal, or one of them dynamic (checked per call)."""
    return x is None or y is None or x == y


def same_shape(a: Shape, b: Shape) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


def total(dims: Sequence[Dim]) -> Dim:
    """The product of `dims`; None if any of them is dynamic."""
    if None in dims:
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def static_total(dims: Sequence[Dim]) -> int:
    """The product of the static dims only."""
    return total([d for d in dims if d is not None])


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
        if x == y or y == 1:
            out.append(x)
        elif x == 1 or x is None:  # a dynamic dim against a static one is that one (no stretch)
            out.append(y)
        else:
            require(
                y is None,
                f"operand shapes {text(a)} and {text(b)} are not broadcast-compatible (dim {i}: {x} vs {y})",
            )
            out.append(x)
    return tuple(out)


def text(shape: Shape) -> str:
    """A shape as the types print it: `[?, 64]`."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def matmul(a: Shape, b: Shape) -> Shape:
    require(len(a) >= 2 and len(b) >= 2, "operands must have rank >= 2")
    require(same(a[-1], b[-2]), f"contraction dims differ: K = {a[-1]} (lhs) vs {b[-2]} (rhs)")
    batch = broadcast(a[:-2], b[:-2])
    return (*batch, a[-2], b[-1])


def window_out(size: Dim, kernel: int, stride: int, pad: int, dilation: int, dim: str) -> Dim:
    """Output extent of a strided, padded, dilated window along one spatial dim."""
    span = dilation * (kernel - 1) + 1
    if size is None:
        return None
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
    require(is_static(w), f"the filter's shape {text(w)} must be static")
    c_dim, h_dim, w_dim = spatial_dims(layout)
    require(x[c_dim] is not None, f"the input's channel dim {c_dim} must be static")
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
    """`y`, checked against `x`; at a call (static `x`) a single dynamic dim of `y` is solved."""
    if is_static(x) and is_static(y):
        nx, ny = total(x), total(y)
        require(nx == ny, f"element count differs: {nx} (input) vs {ny} (result)")
        return tuple(y)
    if is_static(x) and y.count(None) == 1:
        rest = static_total(y)
        require(
            rest != 0 and total(x) % rest == 0,
            f"element count {total(x)} (input) is not a multiple of {rest} (the result's static dims)",
        )
        return tuple(total(x) // rest if d is None else d for d in y)
    reshape_sources(x, y)
    return tuple(y)


def reshape_sources(x: Shape, y: Shape) -> dict[int, int | None]:
    """Where each dynamic dim of a reshape's result `y` comes from: the input dim it equals,
    or None for the one dim that is whatever the element count leaves (a flatten).

    With one dynamic result dim, that dim is the count divided by the static ones. With
    several, `x` and `y` must have the same number of dynamic dims, in order, and equal static
    products between them (`[?, ?, 768]` to `[?, ?, 12, 64]`): then each dynamic result dim
    equals its input counterpart. Any other case would need the sizes as operands."""
    ys = [i for i, d in enumerate(y) if d is None]
    if len(ys) == 1:
        nx, ny = static_total(x), static_total(y)
        if is_static(x):
            require(ny != 0 and nx % ny == 0, f"element count {nx} is not a multiple of {ny}")
        return {ys[0]: None}
    xs = [i for i, d in enumerate(x) if d is None]
    require(
        len(xs) == len(ys),
        f"reshape {text(x)} to {text(y)}: with several dynamic result dims, the input must have "
        "as many dynamic dims",
    )
    for k, (i0, j0) in enumerate(zip([-1, *xs], [-1, *ys], strict=True)):
        i1 = xs[k] if k < len(xs) else len(x)
        j1 = ys[k] if k < len(ys) else len(y)
        require(
            static_total(x[i0 + 1 : i1]) == static_total(y[j0 + 1 : j1]),
            f"reshape {text(x)} to {text(y)}: the static dims between dynamic ones must keep "
            "their element counts",
        )
    return dict(zip(ys, xs, strict=True))


def broadcast_to(x: Shape, y: Shape) -> Shape:
    require(len(y) >= len(x), f"cannot broadcast rank {len(x)} to lower rank {len(y)}")
    lead = len(y) - len(x)
    require(
        all(d is not None or x[i - lead] is None for i, d in enumerate(y) if i >= lead)
        and None not in y[:lead],
        f"shape {text(x)} cannot broadcast to {text(y)}: a dynamic result dim must be a dynamic input dim",
    )
    require(broadcast(x, y) == tuple(y), f"shape {text(x)} cannot broadcast to {text(y)}")
    return tuple(y)


def concat(shapes: Sequence[Shape], axis: int) -> Shape:
    require(len(shapes) >= 1, "needs at least one operand")
    rank = len(shapes[0])
    require(rank >= 1, "operands must have rank >= 1")  # as NumPy: 0-d arrays do not concatenate
    ax = normalize_axis(axis, rank)
    for s in shapes:
        require(len(s) == rank, "operands must have the same rank")
        require(
            all(same(s[i], shapes[0][i]) for i in range(rank) if i != ax),
            f"operand shapes differ outside the concatenation axis {ax}",
        )
    sizes = [s[ax] for s in shapes]
    length = None if None in sizes else sum(sizes)
    return tuple(length if i == ax else d for i, d in enumerate(shapes[0]))


def slice_(
    x: Shape,
    starts: Sequence[int],
    limits: Sequence[int],
    strides: Sequence[int],
    from_end: Sequence[int] | None = None,
) -> Shape:
    """x[start:limit:stride] per dim; `from_end` flags count the start (1) or limit (2) back
    from the dim's end. A dynamic dim with one bound from its end has a dynamic length
    (size - a - b: checked per call, where the size is known); with both, a static one."""
    out = []
    for i, (d, lo, hi, st) in enumerate(zip(x, starts, limits, strides, strict=True)):
        flags = from_end[i] if from_end else 0
        require(st > 0, f"stride {st} of dim {i} must be positive")
        require(flags in (0, 1, 2, 3), f"from_end {flags} of dim {i} must be 0, 1, 2 or 3")
        if flags and d is None:
            require(lo >= 0 and hi >= 0, f"dim {i}: bounds from the end ({lo}, {hi}) must be non-negative")
            if flags == 3:  # [size - lo, size - hi): a static length
                require(hi <= lo, f"dim {i}: need the start ({lo} from the end) before the limit ({hi})")
                out.append((lo - hi + st - 1) // st)
            else:
                out.append(None)
            continue
        if flags and d is not None:
            lo, hi = (d - lo if flags & 1 else lo), (d - hi if flags & 2 else hi)
        require(
            0 <= lo <= hi <= (hi if d is None else d),
            f"dim {i}: need 0 <= start ({lo}) <= limit ({hi}) <= size ({d})",
        )
        out.append((hi - lo + st - 1) // st)
    return tuple(out)


def pad(x: Shape, low: Sequence[int], high: Sequence[int]) -> Shape:
    require(all(p >= 0 for p in (*low, *high)), "padding amounts must be non-negative")
    return tuple(None if d is None else d + lo + hi for d, lo, hi in zip(x, low, high, strict=True))


def gather(x: Shape, indices: Shape, axis: int) -> Shape:
    """np.take(x, indices, axis): x's dims before `axis`, the indices' dims, x's dims after."""
    require(len(x) >= 1, "input must have rank >= 1")
    ax = normalize_axis(axis, len(x))
    require(
        x[ax] is None or x[ax] >= 1, f"cannot gather from dim {ax} of size 0"
    )  # no index could be clamped into it
    return (*x[:ax], *indices, *x[ax + 1 :])


def scatter(x: Shape, indices: Shape, updates: Shape) -> Shape:
    """ScatterND: indices [..., k] address x's leading k dims; updates are indices[:-1] + x[k:]."""
    require(len(x) >= 1, "input must have rank >= 1")
    require(len(indices) >= 1, "indices must have rank >= 1 (its last dim holds the coordinates)")
    k = indices[-1]
    require(k is not None, "indices' last dim (the coordinates) must be static")
    require(1 <= k <= len(x), f"indices' last dim {k} must be in [1, {len(x)}] (the input's rank)")
    want = (*indices[:-1], *x[k:])
    require(
        same_shape(tuple(updates), want),
        f"updates shape {text(updates)} must be {text(want)} (indices.shape[:-1] + input.shape[{k}:])",
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
    require(is_static(w) and x[1] is not None, "the filter and the input's channel dim must be static")
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
        if x[2 + i] is None:
            out.append(None)
            continue
        size = (x[2 + i] - 1) * stride - padding[i] - padding[i + 2] + span + extra + 1
        require(size >= 1, f"output {dim} {size} is not positive (padding too large)")
        out.append(size)
    return (x[0], fg * groups, *out)
