"""versa-layout numerics: each program computes the same function before and after the pass, in
both directions (the NumPy reference on random inputs), and its transposes end at the function
boundary unless a reshape blocks them; a converted ResNet block JIT-runs to the reference."""

from collections.abc import Callable

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction, find_function
from versa.diagnostics import CompileError
from versa.dialects import builders as vb
from versa.dialects.versa import OPS
from versa.mlir import func, ir
from versa.passes.common.base import collect
from versa.reference import interpret

Body = Callable[..., ir.Value | tuple[ir.Value, ...]]
NHWC, NCHW = [0, 2, 3, 1], [0, 3, 1, 2]
LAYOUT_OPS = {"versa.conv2d", "versa.max_pool2d", "versa.avg_pool2d", "versa.batch_norm"}


def f32(shape: tuple[int, ...]) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(shape, ir.F32Type.get())


def const(*shape: int, seed: int = 1) -> ir.Value:
    return vb.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))


def conv_bias_relu(x: ir.Value, w: ir.Value, b: ir.Value) -> ir.Value:
    return vb.relu(vb.add(vb.conv2d(x, w, padding=[1, 1, 1, 1]), b))


def small_cnn(x, w1, b1, fc):
    """Two conv+bias+relu+pool stages (one filter and bias constant), flatten, linear."""
    h = vb.max_pool2d(conv_bias_relu(x, w1, b1), kernel=[2, 2], strides=[2, 2])
    h = conv_bias_relu(h, const(8, 4, 3, 3), const(8, 1, 1, seed=2))
    h = vb.max_pool2d(h, kernel=[2, 2], strides=[2, 2])
    return vb.add(vb.matmul(vb.reshape(h, [1, 32]), fc), const(10, seed=3))


def resnet_block(x, w1, w2, scale, bias, mean, var):
    def conv_bn(h, w):
        return vb.batch_norm(vb.conv2d(h, w, padding=[1, 1, 1, 1]), scale, bias, mean, var, epsilon=1e-5)

    return vb.relu(vb.add(conv_bn(vb.relu(conv_bn(x, w1)), w2), x))


def pools_and_reductions(x):
    """Pooling, then reductions over channels and space, keepdims both ways."""
    a = vb.avg_pool2d(x, kernel=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
    m = vb.max_pool2d(x, kernel=[2, 2], strides=[2, 2], padding=[0, 0, 1, 1])
    peak = vb.reduce_max(m, axes=[2, 3], keepdims=True)
    return vb.sub(a, peak), vb.reduce_sum(a, axes=[1]), vb.reduce_mean(m, axes=[-1, 1], keepdims=True)


def concat_softmax(x, w, scale):
    """A grouped conv and a depthwise conv, concatenated over channels, a [C, 1, 1] scale and
    a constant bias, softmax over channels, a comparison and a select."""
    grouped = vb.conv2d(x, w, groups=2, padding=[1, 1, 1, 1])
    depthwise = vb.conv2d(x, const(4, 1, 3, 3), groups=4, padding=[1, 1, 1, 1])
    h = vb.mul(vb.concat([grouped, depthwise], axis=1), scale)
    s = vb.softmax(vb.add(h, const(8, 1, 1, seed=4)), axis=1)
    return vb.select(vb.compare(s, const(1, 8, 1, 1, seed=5), predicate="gt"), s, vb.neg(s))


def elementwise_prologue(x, w, shift):
    """Elementwise ops between the argument and the conv rise to the argument; a pad after it."""
    h = vb.exp(vb.mul(vb.sub(x, shift), vb.constant(np.float32(0.5))))
    y = vb.sigmoid(vb.conv2d(h, w, strides=[2, 2]))
    return vb.pad(y, low=[0, 1, 0, 2], high=[0, 0, 1, 0], value=0.5)


def shared_prologue(x, w):
    """relu(x) feeds both the conv and the residual add: motion stops short, still correct."""
    r = vb.relu(x)
    return vb.add(vb.conv2d(r, w, padding=[1, 1, 1, 1]), r)


def nhwc_net(x, w, scale):
    """Already NHWC: the nchw direction converts it."""
    c = vb.conv2d(x, w, padding=[1, 1, 1, 1], layout="NHWC")
    n = vb.batch_norm(c, scale, scale, scale, vb.abs(scale), epsilon=1e-3, layout="NHWC")
    return vb.avg_pool2d(vb.relu(n), kernel=[2, 2], strides=[2, 2], layout="NHWC")


PROGRAMS = {  # name -> (body, argument shapes, transposes only at the boundary)
    "small_cnn": (small_cnn, [(1, 3, 8, 8), (4, 3, 3, 3), (4, 1, 1), (32, 10)], False),
    "resnet_block": (resnet_block, [(1, 8, 6, 6), (8, 8, 3, 3), (8, 8, 3, 3), *[(8,)] * 4], True),
    "pools_and_reductions": (pools_and_reductions, [(2, 3, 7, 7)], True),
    "concat_softmax": (concat_softmax, [(1, 4, 5, 5), (4, 2, 3, 3), (8, 1, 1)], True),
    "elementwise_prologue": (elementwise_prologue, [(1, 3, 7, 7), (5, 3, 3, 3), (3, 1, 1)], True),
    "shared_prologue": (shared_prologue, [(1, 4, 5, 5), (4, 4, 3, 3)], False),
    "nhwc_net": (nhwc_net, [(1, 6, 6, 3), (3, 3, 3, 4), (4,)], True),
}


def build(name: str) -> ir.Module:
    body, shapes, _ = PROGRAMS[name]
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        func.FuncOp.from_py_func(*(f32(s) for s in shapes), name="main")(body)
    return module


def random_inputs(name: str, module: ir.Module, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    function = find_function(module, None)
    inputs = [rng.uniform(-1, 1, t.shape).astype(np.float32) for t in function.type.inputs]
    if name == "resnet_block":  # its last argument is the batch norm's variance
        inputs[-1] = np.abs(inputs[-1]) + 0.5
    return inputs


def convert(module: ir.Module, layout: str) -> None:
    compiler.run_passes(module, compiler.parse_pipeline(f"versa-layout{{layout={layout}}}"))
    module.operation.verify()


def ops_named(module: ir.Module, name: str) -> list[ir.Operation]:
    return collect(module.operation, lambda op: op.name == name)


def at_boundary(transpose: ir.Operation) -> bool:
    """Right after a function argument, or used only by the return."""
    if isinstance(transpose.operands[0], ir.BlockArgument):
        return True
    return all(use.owner.operation.name == "func.return" for use in transpose.results[0].uses)


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_layout_keeps_the_function(name, layout):
    with make_context(), ir.Location.unknown():
        module = build(name)
        inputs = random_inputs(name, module)
        expected = interpret(find_function(module, None), inputs)
        convert(module, layout)
        actual = interpret(find_function(module, None), inputs)
        for want, got in zip(expected, actual, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        for op in collect(module.operation, lambda op: op.name in LAYOUT_OPS):
            assert OPS[op.name].attrs(op.opview)["layout"] == layout.upper()
        if PROGRAMS[name][2]:
            assert all(at_boundary(t) for t in ops_named(module, "versa.transpose")), str(module)


@pytest.mark.parametrize(("name", "layout"), [("resnet_block", "nchw"), ("nhwc_net", "nhwc")])
def test_program_already_in_the_layout_is_unchanged(name, layout):
    with make_context(), ir.Location.unknown():
        module = build(name)
        before = str(module)
        convert(module, layout)
        assert str(module) == before


def test_resnet_block_keeps_one_transpose_each_side():
    with make_context(), ir.Location.unknown():
        module = build("resnet_block")
        convert(module, "nhwc")
        perms = sorted(list(t.attributes["perm"]) for t in ops_named(module, "versa.transpose"))
        assert perms == sorted([NHWC, NCHW, [2, 3, 1, 0], [2, 3, 1, 0]])  # input, result, 2 filters


def test_converted_resnet_block_runs_to_the_reference():
    with make_context(), ir.Location.unknown():
        module = build("resnet_block")
        inputs = random_inputs("resnet_block", module, seed=7)
        expected = interpret(find_function(module, None), inputs)
        convert(module, "nhwc")
        jit = JitFunction(module, pipeline="versa-canonicalize,versa-fuse,lower-to-llvm")
        np.testing.assert_allclose(jit(*inputs)[0], expected[0], rtol=1e-4, atol=1e-4)


def test_unknown_layout_is_refused():
    with pytest.raises(CompileError, match="not one of nhwc, nchw"):
        compiler.parse_pipeline("versa-layout{layout=nchwc}")
