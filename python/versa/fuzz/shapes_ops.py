"""The generator's structured and data-movement ops: each maker takes the generator and a value
`x` and appends one op reading it (plus fresh arguments of fitting shapes where the op needs
more operands), with attributes drawn across their valid ranges; None when `x` does not fit.

Kept apart from `generate.py` because these ops are where the shape rules live: every maker
derives its result shape from the same formulas as the verifier, so a wrong rule here shows as
a program that does not verify (the campaign counts those as generator errors).
"""

import math
from collections.abc import Callable

from versa.dialects import shapes

from .casts import INT_TYPES, cast
from .program import Op, Type, Value


def _spread(bound: float, n: int = 1) -> tuple[float, float]:
    return (-bound * n, bound * n)


def _bound(gen, value: Value) -> float:
    lo, hi = gen.range(value)
    return max(abs(lo), abs(hi))


def transpose(gen, x: Value) -> Op | None:
    perm = list(range(len(x.type.shape)))
    gen.rng.shuffle(perm)
    shape = tuple(x.type.shape[p] for p in perm)
    return gen.add("transpose", [x], {"perm": perm}, Type(shape, x.type.element), gen.range(x))


def reshape(gen, x: Value) -> Op | None:
    n, dims = math.prod(d for d in x.type.shape if d), [0] if 0 in x.type.shape else []
    factor = 2
    while n > 1:
        while n % factor:
            factor += 1
        dims.append(factor)
        n //= factor
    target = [1] * gen.rng.randint(0, 2)
    for d in dims:
        if target and gen.rng.random() < 0.5:
            i = gen.rng.randrange(len(target))
            target[i] *= d
        else:
            target.insert(gen.rng.randint(0, len(target)), d)
    return gen.add("reshape", [x], {}, Type(tuple(target), x.type.element), gen.range(x))


def broadcast_to(gen, x: Value) -> Op | None:
    lead = [gen.size(1, 3) for _ in range(gen.rng.randint(0, 2))]
    shape = (*lead, *(gen.rng.randint(1, 3) if d == 1 else d for d in x.type.shape))
    if math.prod(shape) > 256:
        return None
    return gen.add("broadcast_to", [x], {}, Type(shape, x.type.element), gen.range(x))


def concat(gen, x: Value) -> Op | None:
    rank = len(x.type.shape)
    if rank == 0:
        return None
    axis = gen.rng.randrange(-rank, rank)
    other_shape = list(x.type.shape)
    other_shape[axis] = gen.size(1, 3)
    other = gen.arg(Type(tuple(other_shape), x.type.element))
    operands = [x, other] + [other] * gen.rng.randint(0, 1)
    shape = shapes.concat([v.type.shape for v in operands], axis)
    lo, hi = gen.range(x)
    return gen.add("concat", operands, {"axis": axis}, Type(shape, x.type.element), (min(lo, -1), max(hi, 1)))


def slice_(gen, x: Value) -> Op | None:
    starts, limits, strides = [], [], []
    for d in x.type.shape:
        start = gen.rng.randrange(d) if d else 0
        starts.append(start)
        limits.append(start if not d or gen.empty() else gen.rng.randint(start + 1, d))
        strides.append(gen.rng.choice([1, 1, 2, 3]))
    attrs = {"starts": starts, "limits": limits}
    if gen.rng.random() < 0.6:
        attrs["strides"] = strides
    else:
        strides = [1] * len(starts)
    shape = shapes.slice_(x.type.shape, starts, limits, strides)
    return gen.add("slice", [x], attrs, Type(shape, x.type.element), gen.range(x))


def pad(gen, x: Value) -> Op | None:
    rank = len(x.type.shape)
    low = [gen.rng.randint(0, 2) for _ in range(rank)]
    high = [gen.rng.randint(0, 2) for _ in range(rank)]
    value = float(gen.rng.randint(-2, 2)) / (1 if x.type.element in INT_TYPES else 2)
    shape = shapes.pad(x.type.shape, low, high)
    lo, hi = gen.range(x)
    attrs = {"low": low, "high": high, "value": value}
    return gen.add("pad", [x], attrs, Type(shape, x.type.element), (min(lo, value), max(hi, value)))


def reduce(gen, x: Value) -> Op | None:
    rank = len(x.type.shape)
    if x.type.element == "i1":
        return None
    names = ["reduce_sum", "reduce_max"] + (["reduce_mean"] if x.type.is_float else [])
    axes = gen.rng.sample(range(rank), gen.rng.randint(0, rank))
    axes = [a - rank if gen.rng.random() < 0.3 else a for a in axes]
    keepdims = gen.rng.random() < 0.5
    shape = shapes.reduce(x.type.shape, axes, keepdims)
    n = math.prod(x.type.shape[a] for a in axes)
    name = gen.rng.choice(names) if n else "reduce_sum"  # max and mean of nothing: -inf, nan
    rng = _spread(_bound(gen, x), n) if name == "reduce_sum" else gen.range(x)
    attrs = {"axes": axes, "keepdims": keepdims}
    return gen.add(name, [x], attrs, Type(shape, x.type.element), rng)


def normalisation(gen, x: Value) -> Op | None:
    rank, t = len(x.type.shape), x.type
    if not t.is_float or rank == 0:
        return None
    axis = gen.rng.randrange(-rank, rank)
    if gen.rng.random() < 0.5:
        return gen.add("softmax", [x], {"axis": axis}, t, (0.0, 1.0))
    params = Type(x.type.shape[axis:], t.element)
    gamma, beta = gen.arg(params), gen.arg(params)
    epsilon = 10 ** gen.rng.uniform(-5, -2)
    bound = math.sqrt(math.prod(params.shape)) + 1
    attrs = {"axis": axis, "epsilon": epsilon}
    return gen.add("layer_norm", [x, gamma, beta], attrs, t, _spread(bound))


def batch_norm(gen, x: Value) -> Op | None:
    if not x.type.is_float or len(x.type.shape) != 4:
        return None
    layout = gen.rng.choice(["NCHW", "NHWC"])
    channels = x.type.shape[1 if layout == "NCHW" else 3]
    params = [gen.arg(Type((channels,), x.type.element)) for _ in range(4)]
    attrs = {"epsilon": 10 ** gen.rng.uniform(-5, -2), "layout": layout}
    return gen.add("batch_norm", [x, *params], attrs, x.type, _spread(2 * _bound(gen, x) + 4))


def matmul(gen, x: Value) -> Op | None:
    if not x.type.is_float or len(x.type.shape) < 2:
        return None
    *batch, m, k = x.type.shape
    batch = batch[gen.rng.randint(0, len(batch)) :]
    batch = [1 if gen.rng.random() < 0.3 else d for d in batch]
    n = gen.size(1, 6)
    w = gen.arg(Type((*batch, k, n), x.type.element))
    shape = shapes.matmul(x.type.shape, w.type.shape)
    return gen.add("matmul", [x, w], {}, Type(shape, x.type.element), _spread(_bound(gen, x), k))


def _image(gen, x: Value, layout: str) -> Value:
    """`x` when it is a small rank-4 float value, else a fresh image argument."""
    if x.type.is_float and len(x.type.shape) == 4 and min(x.type.shape[1:]) >= 1:
        return x
    shape = (gen.size(1, 2), gen.rng.randint(1, 4), gen.rng.randint(3, 6), gen.rng.randint(3, 6))
    if layout == "NHWC":
        shape = (shape[0], shape[2], shape[3], shape[1])
    return gen.arg(Type(shape, "f32" if not x.type.is_float else x.type.element))


def _window(gen) -> dict:
    return {
        "strides": [gen.rng.randint(1, 2), gen.rng.randint(1, 2)],
        "padding": [gen.rng.randint(0, 2) for _ in range(4)],
        "dilations": [gen.rng.randint(1, 2), gen.rng.randint(1, 2)],
    }


def conv(gen, x: Value) -> Op | None:
    transposed = gen.rng.random() < 0.3
    layout = "NCHW" if transposed else gen.rng.choice(["NCHW", "NHWC"])
    image = _image(gen, x, layout)
    channels = image.type.shape[1 if layout == "NCHW" else 3]
    groups = gen.rng.choice([g for g in range(1, channels + 1) if channels % g == 0])
    kh, kw, per_group = gen.rng.randint(1, 3), gen.rng.randint(1, 3), gen.rng.randint(1, 2)
    attrs = _window(gen) | ({"groups": groups} if groups > 1 or gen.rng.random() < 0.2 else {})
    if transposed:
        attrs["output_padding"] = [gen.rng.randint(0, 1) for _ in range(2)]
        w_shape = (channels, per_group, kh, kw)
    else:
        attrs["layout"] = layout
        w_shape = (per_group * groups, channels // groups, kh, kw)
        if layout == "NHWC":
            w_shape = (kh, kw, channels // groups, per_group * groups)
    name = "conv_transpose2d" if transposed else "conv2d"
    rule = shapes.conv_transpose2d if transposed else shapes.conv2d
    full = attrs | {"groups": groups}
    try:
        args = [full["strides"], full["padding"]]
        args += [full["output_padding"], full["dilations"], groups] if transposed else [full["dilations"]]
        shape = rule(image.type.shape, w_shape, *args, *([] if transposed else [groups, layout]))
    except shapes.RuleError:
        return None
    w = gen.arg(Type(w_shape, image.type.element))
    n = channels // groups * kh * kw
    return gen.add(name, [image, w], attrs, Type(shape, image.type.element), _spread(_bound(gen, image), n))


def pool(gen, x: Value) -> Op | None:
    layout = gen.rng.choice(["NCHW", "NHWC"])
    image = _image(gen, x, layout)
    kernel = [gen.rng.randint(1, 3), gen.rng.randint(1, 3)]
    padding = [gen.rng.randint(0, kernel[i % 2] - 1) for i in range(4)]
    attrs = {"kernel": kernel, "strides": [gen.rng.randint(1, 2), gen.rng.randint(1, 2)]}
    attrs |= {"padding": padding, "layout": layout}
    try:
        shape = shapes.pool2d(image.type.shape, kernel, attrs["strides"], padding, layout)
    except shapes.RuleError:
        return None
    name = gen.rng.choice(["max_pool2d", "avg_pool2d"])
    return gen.add(name, [image], attrs, Type(shape, image.type.element), gen.range(image))


def compare_select(gen, x: Value) -> Op | None:
    if x.type.element == "i1":
        return None
    other = gen.broadcast_partner(x)
    shape = shapes.broadcast(x.type.shape, other.type.shape)
    predicate = gen.rng.choice(["eq", "ne", "lt", "le", "gt", "ge"])
    mask = gen.add("compare", [x, other], {"predicate": predicate}, Type(shape, "i1"), (0.0, 1.0))
    if mask is None or gen.rng.random() < 0.3:
        return mask
    if gen.rng.random() < 0.3:
        logic = gen.rng.choice(["not", "and", "or"])
        mask = gen.add(logic, [mask] if logic == "not" else [mask, mask], {}, mask.type, (0.0, 1.0))
    (a0, a1), (b0, b1) = gen.range(x), gen.range(other)
    shape = shapes.broadcast(shape, x.type.shape)
    rng = (min(a0, b0), max(a1, b1))
    return gen.add("select", [mask, x, other], {}, Type(shape, x.type.element), rng)


def indexing(gen, x: Value) -> Op | None:
    rank, t = len(x.type.shape), x.type
    if rank == 0 or t.element == "i1":
        return None
    axis = gen.rng.randrange(-rank, rank)
    choice = gen.rng.choice(["gather", "argmax", "cumsum", "iota"])
    if t.shape[axis] == 0 and choice in ("gather", "argmax"):  # nothing to pick from
        choice = "cumsum"
    if choice == "gather":
        indices = gen.arg(Type(gen.shape(gen.rng.randint(0, 2), 8), gen.rng.choice(["i32", "i64"])))
        shape = shapes.gather(t.shape, indices.type.shape, axis)
        return gen.add("gather", [x, indices], {"axis": axis}, Type(shape, t.element), gen.range(x))
    if choice == "argmax":
        keepdims = gen.rng.random() < 0.5
        shape = shapes.reduce(t.shape, [axis], keepdims)
        attrs = {"axis": axis, "keepdims": keepdims}
        return gen.add("reduce_argmax", [x], attrs, Type(shape, "i64"), (0.0, t.shape[axis]))
    if choice == "cumsum":
        rng = _spread(_bound(gen, x), t.shape[axis])
        return gen.add("cumsum", [x], {"axis": axis}, t, rng)
    return gen.add("iota", [], {"axis": axis}, t, (0.0, max(t.shape)))


MAKERS: list[Callable] = [
    transpose, reshape, broadcast_to, concat, slice_, pad, reduce, normalisation, batch_norm,
    matmul, conv, pool, cast, compare_select, indexing,
]  # fmt: skip


def random_op(gen, x: Value) -> Op | None:
    return gen.rng.choice(MAKERS)(gen, x)
