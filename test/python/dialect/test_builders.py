"""The snake_case builders: a small CNN built from Python verifies, round-trips, has the result
types the shape rules give, and JIT-runs to the NumPy reference; bad calls raise `RuleError`."""

import re
from collections.abc import Callable

import numpy as np
import pytest
from versa.context import make_context
from versa.cpu.runtime import JitFunction, find_function
from versa.dialects import builders as vb
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.shapes import RuleError
from versa.dialects.versa import OPS
from versa.mlir import func, ir
from versa.reference import interpret

CNN_INPUTS = {  # name -> shape; the image and filter are NHWC / HWCF
    "x": (1, 8, 8, 3),
    "w": (3, 3, 3, 4),
    "scale": (4,),
    "bias": (4,),
    "mean": (4,),
    "variance": (4,),
    "fc": (64, 10),
}
CNN_TYPES = [  # result type of each op in the body, in order
    "tensor<1x8x8x4xf32>",  # conv2d, padding 1: same size
    "tensor<1x8x8x4xf32>",  # batch_norm
    "tensor<1x8x8x4xf32>",  # relu
    "tensor<1x4x4x4xf32>",  # max_pool2d 2x2, stride 2
    "tensor<1x64xf32>",  # reshape
    "tensor<1x10xf32>",  # matmul
    "tensor<10xf32>",  # constant (the fc bias)
    "tensor<1x10xf32>",  # add, broadcast
    "tensor<1x10xf32>",  # softmax
]
FC_BIAS = np.linspace(-0.5, 0.5, 10, dtype=np.float32)


def f32(*shape: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(shape, ir.F32Type.get())


def build(body: Callable[..., ir.Value], *shapes: tuple[int, ...]) -> ir.Module:
    """A module with one `func.func @main(shapes...)` returning `body(*arguments)`."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        func.FuncOp.from_py_func(*(f32(*s) for s in shapes), name="main")(body)
    return module


def cnn(
    x: ir.Value,
    w: ir.Value,
    scale: ir.Value,
    bias: ir.Value,
    mean: ir.Value,
    variance: ir.Value,
    fc: ir.Value,
) -> ir.Value:
    """conv2d (NHWC, same padding) -> batch_norm -> relu -> max_pool2d -> fc -> softmax."""
    y = vb.conv2d(x, w, padding=[1, 1, 1, 1], layout="NHWC")
    y = vb.batch_norm(y, scale, bias, mean, variance, epsilon=1e-5, layout="NHWC")
    y = vb.max_pool2d(vb.relu(y), kernel=[2, 2], strides=[2, 2], layout="NHWC")
    y = vb.matmul(vb.reshape(y, [1, 64]), fc)
    return vb.softmax(vb.add(y, vb.constant(FC_BIAS)), axis=-1)


def cnn_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = {name: rng.uniform(-1, 1, shape).astype(np.float32) for name, shape in CNN_INPUTS.items()}
    arrays["variance"] = rng.uniform(0.5, 1.5, CNN_INPUTS["variance"]).astype(np.float32)
    return list(arrays.values())


def test_cnn_builds_verifies_and_round_trips():
    with make_context(), ir.Location.unknown():
        module = build(cnn, *CNN_INPUTS.values())
        assert module.operation.verify()
        ops = list(find_function(module, None).regions[0].blocks[0].operations)
        assert [op.operation.name for op in ops[:-1]] == [
            "versa.conv2d",
            "versa.batch_norm",
            "versa.relu",
            "versa.max_pool2d",
            "versa.reshape",
            "versa.matmul",
            "versa.constant",
            "versa.add",
            "versa.softmax",
        ]
        assert [str(op.results[0].type) for op in ops[:-1]] == CNN_TYPES
        conv = ops[0].operation.attributes
        assert str(conv["padding"]) == "array<i64: 1, 1, 1, 1>"
        assert "strides" not in conv and "groups" not in conv  # omitted: the defaults apply
        text = str(module)
        reparsed = ir.Module.parse(text)
        assert reparsed.operation.verify()
        assert str(reparsed) == text


def test_cnn_jit_matches_reference():
    inputs = cnn_inputs()
    with make_context(), ir.Location.unknown():
        module = build(cnn, *CNN_INPUTS.values())
        expected = interpret(find_function(module, None), inputs)
        jit = JitFunction(ir.Module.parse(str(module)))  # lowering rewrites its module in place
        (got,) = jit(*inputs)
    assert got.shape == (1, 10)
    np.testing.assert_allclose(got, expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got.sum(), 1.0, rtol=1e-5)


def every_op(x: ir.Value, m: ir.Value) -> ir.Value:
    """One call of every builder, on x: tensor<2x3x4x4xf32> and m: tensor<4x4xf32>."""
    ones = vb.constant(np.ones((4, 4), np.float32))
    for binary in (vb.add, vb.sub, vb.mul, vb.div, vb.max, vb.min, vb.pow):
        x = binary(x, m)
    for unary in (vb.neg, vb.abs, vb.exp, vb.log, vb.sqrt, vb.rsqrt, vb.tanh, vb.sigmoid, vb.relu, vb.erf):
        x = unary(x)
    for unary in (vb.sin, vb.cos, vb.tan, vb.atan, vb.log1p, vb.expm1):
        x = unary(x)
    for unary in (vb.floor, vb.ceil, vb.round, vb.trunc, vb.sign):
        x = unary(x)
    x = vb.clamp(vb.gelu(x, approximate="tanh"), min=-1, max=1.5)
    x = vb.cast(vb.cast(x, ir.IntegerType.get_signless(32)), ir.F32Type.get())
    depthwise = vb.constant(np.ones((3, 1, 3, 3), np.float32))
    x = vb.matmul(vb.conv2d(x, depthwise, groups=3, padding=[1, 1, 1, 1]), ones)
    x = vb.avg_pool2d(vb.max_pool2d(x, kernel=[3, 3], padding=[1, 1, 1, 1]), kernel=[1, 1])
    s = vb.reduce_mean(vb.reduce_sum(x, axes=[1], keepdims=True), axes=[2, 3], keepdims=True)
    x = vb.softmax(vb.mul(x, vb.reduce_max(s, axes=[0])), axis=-1)  # s: 2x1x1x1 -> 1x1x1
    x = vb.layer_norm(x, m, m, axis=2, epsilon=1e-5)
    x = vb.batch_norm(x, *[vb.constant(np.ones(3, np.float32))] * 4, epsilon=1e-3)
    x = vb.transpose(vb.reshape(x, [2, 3, 16]), perm=[0, 2, 1])  # 2x16x3
    x = vb.concat(
        [
            vb.slice(x, starts=[0, 0, 0], limits=[2, 8, 3]),
            vb.slice(x, starts=[0, 9, 0], limits=[2, 16, 3], strides=[1, 2, 1]),
        ],
        axis=1,
    )
    x = vb.pad(x, low=[0, 2, 0], high=[0, 2, 0], value=0.5)  # 2x16x3 again
    x = vb.broadcast_to(vb.reshape(vb.transpose(x, perm=[0, 2, 1]), [2, 3, 1, 16]), [2, 3, 4, 16])
    x = vb.slice(x, starts=[0, 0, 0, 0], limits=[2, 3, 4, 4])
    # comparison, logic and indexing (builders_indexing.py), back to 2x3x4x4 f32
    mask = vb.compare(x, m, predicate="gt")
    x = vb.select(vb.logical_not(vb.logical_or(vb.logical_and(mask, mask), mask)), x, m)
    i64 = ir.IntegerType.get_signless(64)
    x = vb.gather(x, vb.cumsum(vb.iota([4], i64, axis=0), axis=0), axis=3)  # [0, 1, 3, 6]
    x = vb.add(x, vb.cast(vb.reduce_argmax(x, axis=3, keepdims=True), ir.F32Type.get()))
    x = vb.scatter(x, vb.reshape(vb.iota([2], i64, axis=0), [2, 1]), x, reduction="add")  # rows 0, 1
    x = vb.conv_transpose2d(x, depthwise, groups=3, padding=[1, 1, 1, 1])
    # quantization and integer contractions (builders_quant.py), back to 2x3x4x4 f32
    scale, zero = vb.constant(np.full(3, 0.5, np.float32)), vb.constant(np.full(3, 128, np.uint8))
    q = vb.quantize(x, scale, zero, axis=1)  # ui8, per channel
    i8_zero = vb.constant(np.int8(-1))
    w = vb.constant(np.ones((3, 1, 1, 1), np.int8))
    u8_zero = vb.constant(np.uint8(128))
    acc = vb.qconv2d(q, w, u8_zero, i8_zero, groups=3)
    acc = vb.add(
        acc,
        vb.qmatmul(
            vb.constant(np.ones((2, 3, 4, 4), np.int8)),
            vb.constant(np.ones((4, 4), np.int8)),
            i8_zero,
            i8_zero,
        ),
    )
    y = vb.requantize(acc, vb.constant(np.float32(0.25)), u8_zero, min=128)
    return vb.dequantize(y, vb.constant(np.float32(2.0)), u8_zero)


def test_every_builder_verifies():
    with make_context(), ir.Location.unknown():
        module = build(every_op, (2, 3, 4, 4), (4, 4))
        assert module.operation.verify()
        function = find_function(module, None)
        assert str(function.type) == "(tensor<2x3x4x4xf32>, tensor<4x4xf32>) -> tensor<2x3x4x4xf32>"
        built = {op.operation.name for op in function.regions[0].blocks[0]} - {"func.return"}
    assert built == set(OPS) - {"versa.fused", "versa.yield"}  # a new op needs a builder here
    keywords = {"and": "logical_and", "or": "logical_or", "not": "logical_not"}  # Python keywords
    for name in built:
        op = name.removeprefix("versa.")
        assert callable(getattr(vb, keywords.get(op, op)))


@pytest.mark.parametrize(
    ("shapes", "call", "message"),
    [
        ([(2, 3), (4, 5)], lambda a, b: vb.matmul(a, b), "contraction dims differ: K = 3 (lhs) vs 4 (rhs)"),
        ([(2, 3), (4, 3)], lambda a, b: vb.add(a, b), "not broadcast-compatible (dim 0: 2 vs 4)"),
        ([(2, 3), (4, 5)], lambda a, b: vb.reshape(a, [5]), "element count differs: 6 (input) vs 5 (result)"),
        (
            [(1, 3, 4, 4), (8, 2, 3, 3)],
            lambda x, w: vb.conv2d(x, w),
            "filter has 2 input channels per group, expected 3",
        ),
        ([(2, 3), (4, 5)], lambda a, b: vb.softmax(a, axis=2), "axis 2 is out of range for rank 2"),
        (
            [(2, 3), (4, 5)],
            lambda a, b: vb.transpose(a, perm=[0, 0]),
            "perm [0, 0] is not a permutation of 0..1",
        ),
    ],
)
def test_bad_call_raises_rule_error(
    shapes: list[tuple[int, ...]], call: Callable[..., ir.Value], message: str
):
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp("bad", ([f32(*s) for s in shapes], [])).add_entry_block()
        with ir.InsertionPoint(entry), pytest.raises(RuleError, match=re.escape(message)):
            call(*entry.arguments)
        assert not list(entry.operations)  # the rule fired before any op was created


# ----------------------------------------------------------------------------- rank 0


@pytest.mark.parametrize(
    ("array", "type_"),
    [
        (np.array(3.0, np.float32), "tensor<f32>"),  # np.ascontiguousarray would make it 1xf32
        (np.array(-7, np.int32), "tensor<i32>"),
        (np.array(1.5, np.float16), "tensor<f16>"),
        (np.ones(1, np.float32), "tensor<1xf32>"),
        (np.ones((1, 1), np.float32), "tensor<1x1xf32>"),
        (np.arange(6, dtype=np.float32).reshape(2, 3).T, "tensor<3x2xf32>"),  # not C-contiguous
    ],
    ids=["f32", "i32", "f16", "1", "1x1", "transposed"],
)
def test_constant_keeps_shape_and_values(array: np.ndarray, type_: str):
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            value = vb.constant(array)
        assert str(value.type) == type_
        assert module.operation.verify()
        got = elements_to_numpy(value.owner.attributes["value"])
    assert got.shape == array.shape  # (elements_to_numpy widens a splat's dtype: compare values)
    np.testing.assert_array_equal(got, array)


def i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


RANK0_BUILDS = [  # (id, body, operand shapes, the function type it must get)
    *[
        (name, getattr(vb, name), [()], "(tensor<f32>) -> tensor<f32>")
        for name in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "erf")
    ],
    *[
        (name, getattr(vb, name), [()], "(tensor<f32>) -> tensor<f32>")
        for name in ("sin", "cos", "tan", "atan", "log1p", "expm1", "floor", "ceil", "round", "trunc", "sign")
    ],
    ("sign-i32", lambda x: vb.sign(vb.cast(x, i32())), [()], "(tensor<f32>) -> tensor<i32>"),
    *[
        (
            name,
            getattr(vb, name),
            [(), ()],
            "(tensor<f32>, tensor<f32>) -> tensor<f32>",
        )
        for name in ("add", "sub", "mul", "div", "max", "min", "pow")
    ],
    ("add-0d-nd", lambda a, b: vb.add(a, b), [(), (4,)], "(tensor<f32>, tensor<4xf32>) -> tensor<4xf32>"),
    (
        "pow-nd-0d",
        lambda a, b: vb.pow(a, b),
        [(2, 4), ()],
        "(tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>",
    ),
    ("cast", lambda x: vb.cast(x, i32()), [()], "(tensor<f32>) -> tensor<i32>"),
    ("clamp", lambda x: vb.clamp(x, min=-0.5, max=0.5), [()], "(tensor<f32>) -> tensor<f32>"),
    ("gelu", lambda x: vb.gelu(x, approximate="tanh"), [()], "(tensor<f32>) -> tensor<f32>"),
    ("constant", lambda x: vb.constant(np.array(2.5, np.float32)), [()], "(tensor<f32>) -> tensor<f32>"),
    ("reshape-to-0d", lambda x: vb.reshape(x, []), [(1, 1)], "(tensor<1x1xf32>) -> tensor<f32>"),
    ("reshape-from-0d", lambda x: vb.reshape(x, [1, 1, 1]), [()], "(tensor<f32>) -> tensor<1x1x1xf32>"),
    ("broadcast_to", lambda x: vb.broadcast_to(x, [2, 3]), [()], "(tensor<f32>) -> tensor<2x3xf32>"),
    ("reduce_sum", lambda x: vb.reduce_sum(x, axes=[0, 1]), [(3, 4)], "(tensor<3x4xf32>) -> tensor<f32>"),
    ("reduce_max", lambda x: vb.reduce_max(x, axes=[1, 0]), [(3, 4)], "(tensor<3x4xf32>) -> tensor<f32>"),
    ("reduce_mean", lambda x: vb.reduce_mean(x, axes=[-1, 0]), [(3, 4)], "(tensor<3x4xf32>) -> tensor<f32>"),
    ("reduce-0d-no-axes", lambda x: vb.reduce_sum(x, axes=[]), [()], "(tensor<f32>) -> tensor<f32>"),
    ("transpose", lambda x: vb.transpose(x, perm=[]), [()], "(tensor<f32>) -> tensor<f32>"),
    ("slice", lambda x: vb.slice(x, starts=[], limits=[]), [()], "(tensor<f32>) -> tensor<f32>"),
    ("pad", lambda x: vb.pad(x, low=[], high=[]), [()], "(tensor<f32>) -> tensor<f32>"),
]


@pytest.mark.parametrize(
    ("body", "shapes", "function_type"),
    [pytest.param(*case[1:], id=case[0]) for case in RANK0_BUILDS],
)
def test_rank0_builds_verifies_and_round_trips(
    body: Callable[..., ir.Value], shapes: list[tuple[int, ...]], function_type: str
):
    with make_context(), ir.Location.unknown():
        module = build(body, *shapes)
        assert module.operation.verify()
        assert str(find_function(module, None).type) == function_type
        text = str(module)
        reparsed = ir.Module.parse(text)
        assert reparsed.operation.verify()
        assert str(reparsed) == text


def test_concat_of_rank0_raises_rule_error():
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp("bad", ([f32(), f32()], [])).add_entry_block()
        with ir.InsertionPoint(entry), pytest.raises(RuleError, match="operands must have rank >= 1"):
            vb.concat(list(entry.arguments), axis=0)
        assert not list(entry.operations)


def test_concat_of_any_sizes_round_trips_and_runs():
    """One versa.concat takes a first input, then inputs of one type: other lists are chained."""
    shapes = [(2, 3), (2, 5), (2, 5), (2, 1), (2, 5)]
    with make_context(), ir.Location.unknown():
        module = build(lambda *xs: vb.concat(list(xs), axis=1), *shapes)
        text = str(module)
        assert text.count('"versa.concat"') == 3  # [a], [b, b] | [c] | [e]
        assert ir.Module.parse(text).operation.verify()
        inputs = [np.random.default_rng(i).uniform(-1, 1, s).astype(np.float32) for i, s in enumerate(shapes)]
        (got,) = JitFunction(module, "main")(*inputs)
    np.testing.assert_array_equal(got, np.concatenate(inputs, axis=1))


RANK0_RUNS = [  # (id, body, operand shapes, the same in NumPy)
    ("add-0d-4", lambda a, b: vb.add(a, b), [(), (4,)], lambda a, b: a + b),
    ("sub-4-0d", lambda a, b: vb.sub(a, b), [(4,), ()], lambda a, b: a - b),
    ("mul-0d-0d", lambda a, b: vb.mul(a, b), [(), ()], lambda a, b: a * b),
    ("exp", lambda x: vb.exp(x), [()], np.exp),
    ("clamp", lambda x: vb.clamp(x, min=-0.25, max=0.25), [()], lambda x: np.clip(x, -0.25, 0.25)),
    (
        "cast-i32-f32",
        lambda x: vb.cast(vb.cast(x, i32()), ir.F32Type.get()),
        [()],
        lambda x: np.trunc(x).astype(np.float32),
    ),
    (
        "constant-plus-arg",
        lambda x: vb.add(x, vb.constant(np.array(2.5, np.float32))),
        [()],
        lambda x: x + 2.5,
    ),
    (
        "constant-times-4",
        lambda x: vb.mul(vb.constant(np.array(-2.0, np.float32)), x),
        [(4,)],
        lambda x: -2 * x,
    ),
    ("reduce_sum-to-0d", lambda x: vb.reduce_sum(x, axes=[0, 1]), [(3, 4)], np.sum),
    ("reduce_max-to-0d", lambda x: vb.reduce_max(x, axes=[0, 1]), [(3, 4)], np.max),
    ("reduce_mean-to-0d", lambda x: vb.reduce_mean(x, axes=[0, 1]), [(3, 4)], np.mean),
    ("reshape-to-0d", lambda x: vb.reshape(x, []), [(1, 1)], lambda x: x.reshape(())),
    (
        "broadcast_to-from-0d",
        lambda x: vb.broadcast_to(x, [2, 3]),
        [()],
        lambda x: np.broadcast_to(x, (2, 3)),
    ),
]


@pytest.mark.parametrize(
    ("body", "shapes", "numpy_fn"),
    [pytest.param(*case[1:], id=case[0]) for case in RANK0_RUNS],
)
def test_rank0_jit_matches_numpy(
    body: Callable[..., ir.Value], shapes: list[tuple[int, ...]], numpy_fn: Callable[..., np.ndarray]
):
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    expected = np.asarray(numpy_fn(*inputs), np.float32)
    with make_context(), ir.Location.unknown():
        module = build(body, *shapes)
        (reference,) = interpret(find_function(module, None), inputs)
        jit = JitFunction(ir.Module.parse(str(module)))  # lowering rewrites its module in place
        (got,) = jit(*inputs)
    assert got.shape == expected.shape == reference.shape  # a 0-d result stays 0-d, not shape (1,)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reference, expected, rtol=1e-5, atol=1e-6)
