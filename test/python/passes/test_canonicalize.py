"""versa-canonicalize keeps the meaning of a program: each family of patterns on small programs,
run through the pass and the verifier, then the NumPy reference on the program before vs after.

Tolerances: identities, CSE and splat folding are exact (compared element for element, NaN and
the sign of zero included, on inputs with inf, NaN and -0; a sum of one -0 aside, see
algebra.py). Batch-norm folding rounds the scaled weights and the folded bias once to the
element type, so it differs by rounding: 1e-5 relative to the output's RMS in f32 (observed
< 5e-7), 1e-2 in f16 (observed 4e-3: each program rounds its conv result, which can be larger
than the output, to f16).
"""

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import TensorSpec, find_function
from versa.passes.common.base import collect
from versa.passes.optimize.canonicalize import FOLD_LIMIT, VersaCanonicalize

ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}


def tensor(shape: tuple[int, ...], element: str = "f32") -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def dense(array: np.ndarray) -> str:
    """A `versa.constant` attribute of `array` in MLIR's hex form (exact, any size)."""
    data = np.ascontiguousarray(array).tobytes().hex().upper()
    return f'dense<"0x{data}"> : {tensor(array.shape, ELEMENT[array.dtype])}'


def constant(name: str, array: np.ndarray) -> str:
    t = tensor(array.shape, ELEMENT[array.dtype])
    return f'  %{name} = "versa.constant"() {{value = {dense(array)}}} : () -> {t}\n'


def canonicalized(text: str) -> str:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, [VersaCanonicalize()])
    module.operation.verify()
    return str(module)


def random_inputs(text: str, seed: int = 0) -> list[np.ndarray]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    specs = [TensorSpec.of(t) for t in find_function(module, None).type.inputs]
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s.shape).astype(s.dtype) for s in specs]


def op_names(text: str) -> list[str]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return [op.name for op in collect(module.operation, lambda op: op.name.startswith("versa."))]


def assert_identical(got: list[np.ndarray], want: list[np.ndarray], unsigned_zeros=()) -> None:
    """Equal element for element, NaN where NaN, and the same sign of every zero (except in the
    results numbered in `unsigned_zeros`)."""
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
        if np.issubdtype(w.dtype, np.floating) and index not in unsigned_zeros:
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def assert_close_to_rms(got: np.ndarray, want: np.ndarray, relative: float) -> None:
    rms = float(np.sqrt(np.mean(want.astype(np.float64) ** 2)))
    np.testing.assert_allclose(got, want, rtol=0, atol=relative * rms)


# ----------------------------------------------------------------------------- batch norm


def conv_batch_norm(
    layout: str, groups: int, strides: int, dilations: int, padding: int, bias: bool, dtype=np.float32
) -> str:
    rng = np.random.default_rng(groups * 7 + strides)
    n, c, f, k, hw = 2, 4, 6, 3, 9
    nchw = layout == "NCHW"
    x_shape = (n, c, hw, hw) if nchw else (n, hw, hw, c)
    w_shape = (f, c // groups, k, k) if nchw else (k, k, c // groups, f)
    out = (hw + 2 * padding - dilations * (k - 1) - 1) // strides + 1
    y_shape = (n, f, out, out) if nchw else (n, out, out, f)
    e = ELEMENT[np.dtype(dtype)]
    x, y, p = tensor(x_shape, e), tensor(y_shape, e), tensor((f,), e)
    bias_shape = (f, 1, 1) if nchw else (f,)
    params = {
        "w": rng.standard_normal(w_shape),
        "bias": rng.standard_normal(bias_shape),
        "gamma": rng.uniform(0.5, 2, f),
        "beta": rng.standard_normal(f),
        "mean": rng.standard_normal(f),
        "var": rng.uniform(0.1, 3, f),
    }
    body = "".join(constant(name, value.astype(dtype)) for name, value in params.items())
    attrs = (
        f'groups = {groups} : i64, layout = "{layout}", strides = array<i64: {strides}, {strides}>, '
        f"dilations = array<i64: {dilations}, {dilations}>, padding = array<i64: {padding}, {padding}, "
        f"{padding}, {padding}>"
    )
    body += f'  %y = "versa.conv2d"(%x, %w) {{{attrs}}} : ({x}, {tensor(w_shape, e)}) -> {y}\n'
    if bias:
        body += f'  %yb = "versa.add"(%y, %bias) : ({y}, {tensor(bias_shape, e)}) -> {y}\n'
    body += (
        f'  %o = "versa.batch_norm"({"%yb" if bias else "%y"}, %gamma, %beta, %mean, %var) '
        f'{{epsilon = 1.0e-05 : f32, layout = "{layout}"}} : ({y}, {p}, {p}, {p}, {p}) -> {y}\n'
    )
    return f"func.func @main(%x: {x}) -> {y} {{\n{body}  return %o : {y}\n}}\n"


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize(
    ("groups", "strides", "dilations", "padding", "bias"),
    [(1, 1, 1, 0, False), (2, 2, 1, 1, True), (1, 1, 2, 2, True), (2, 1, 1, 0, False)],
)
def test_conv_batch_norm_folds(layout, groups, strides, dilations, padding, bias) -> None:
    text = conv_batch_norm(layout, groups, strides, dilations, padding, bias)
    after = canonicalized(text)
    assert op_names(after).count("versa.conv2d") == 1
    assert "versa.batch_norm" not in after and op_names(after).count("versa.add") == 1
    inputs = random_inputs(text)
    assert_close_to_rms(reference(after, inputs)[0], reference(text, inputs)[0], 1e-5)


def test_conv_batch_norm_folds_in_f16() -> None:
    text = conv_batch_norm("NCHW", 1, 1, 1, 1, True, dtype=np.float16)
    after = canonicalized(text)
    assert "versa.batch_norm" not in after
    inputs = random_inputs(text)
    assert_close_to_rms(reference(after, inputs)[0], reference(text, inputs)[0], 1e-2)


def test_batch_norm_folds_weights_beyond_fold_limit() -> None:
    """The scaled weight replaces one of the same size: FOLD_LIMIT does not apply."""
    rng = np.random.default_rng(1)
    f, c = 64, 128
    assert f * c * 3 * 3 > FOLD_LIMIT
    x, y, p = tensor((1, c, 3, 3)), tensor((1, f, 1, 1)), tensor((f,))
    params = [rng.uniform(0.5, 2, f), rng.standard_normal(f), rng.standard_normal(f), rng.uniform(0.5, 2, f)]
    body = constant("w", rng.standard_normal((f, c, 3, 3)).astype(np.float32))
    body += "".join(constant(f"p{i}", v.astype(np.float32)) for i, v in enumerate(params))
    text = (
        f"func.func @main(%x: {x}) -> {y} {{\n{body}"
        f'  %y = "versa.conv2d"(%x, %w) : ({x}, {tensor((f, c, 3, 3))}) -> {y}\n'
        f'  %o = "versa.batch_norm"(%y, %p0, %p1, %p2, %p3) {{epsilon = 1.0e-05 : f32}}'
        f" : ({y}, {p}, {p}, {p}, {p}) -> {y}\n  return %o : {y}\n}}\n"
    )
    after = canonicalized(text)
    assert "versa.batch_norm" not in after
    inputs = random_inputs(text)
    assert_close_to_rms(reference(after, inputs)[0], reference(text, inputs)[0], 1e-5)


def test_matmul_batch_norm_1d_folds() -> None:
    """BatchNorm1d after a linear layer, spelt out as the torch frontend writes it."""
    rng = np.random.default_rng(2)
    m, k, n = 5, 7, 3
    a, y, row = tensor((m, k)), tensor((m, n)), tensor((1, n))
    body = constant("w", rng.standard_normal((k, n)).astype(np.float32))
    body += constant("bias", rng.standard_normal(n).astype(np.float32))
    body += constant("mean", rng.standard_normal((1, n)).astype(np.float32))
    body += constant("scale", rng.uniform(0.5, 2, (1, n)).astype(np.float32))
    body += constant("beta", rng.standard_normal((1, n)).astype(np.float32))
    text = (
        f"func.func @main(%a: {a}) -> {y} {{\n{body}"
        f'  %y = "versa.matmul"(%a, %w) : ({a}, {tensor((k, n))}) -> {y}\n'
        f'  %yb = "versa.add"(%y, %bias) : ({y}, {tensor((n,))}) -> {y}\n'
        f'  %c = "versa.sub"(%yb, %mean) : ({y}, {row}) -> {y}\n'
        f'  %s = "versa.mul"(%c, %scale) : ({y}, {row}) -> {y}\n'
        f'  %o = "versa.add"(%beta, %s) : ({row}, {y}) -> {y}\n'
        f"  return %o : {y}\n}}\n"
    )
    after = canonicalized(text)
    assert [n for n in op_names(after) if n != "versa.constant"] == ["versa.matmul", "versa.add"]
    inputs = random_inputs(text)
    assert_close_to_rms(reference(after, inputs)[0], reference(text, inputs)[0], 1e-5)


def test_conv_batch_norm_runs_in_the_jit() -> None:
    """The folded program, compiled with lower-to-llvm, against the reference of the original."""
    text = conv_batch_norm("NCHW", 2, 1, 1, 1, True)
    compiled = Compiled(text, "versa-canonicalize,lower-to-llvm")
    inputs = random_inputs(text)
    assert_close_to_rms(compiled.jit(*inputs)[0], reference(text, inputs)[0], 1e-5)


# ----------------------------------------------------------------------------- identities

IDENTITIES = """
func.func @main(%x: tensor<2x1x8xf32>, %i: tensor<2x1x8xi32>)
    -> (tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x8xf32>,
        tensor<2x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xi32>, tensor<2x1x8xi32>, tensor<2x1x8xf32>) {
  %n = "versa.neg"(%x) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %0 = "versa.neg"(%n) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %a = "versa.abs"(%n) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %1 = "versa.abs"(%a) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %2 = "versa.max"(%x, %x) : (tensor<2x1x8xf32>, tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %c = "versa.clamp"(%x) {min = -1.0 : f32, max = 2.0 : f32} : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %3 = "versa.clamp"(%c) {min = 0.5 : f32} : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %4 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  %5 = "versa.reduce_mean"(%x) {axes = array<i64: 1>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  %s = "versa.slice"(%x) {starts = array<i64: 0, 0, 0>, limits = array<i64: 2, 1, 8>}
      : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %6 = "versa.pad"(%s) {low = array<i64: 0, 0, 0>, high = array<i64: 0, 0, 0>}
      : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %7 = "versa.sub"(%i, %i) : (tensor<2x1x8xi32>, tensor<2x1x8xi32>) -> tensor<2x1x8xi32>
  %z = "versa.constant"() {value = dense<0> : tensor<8xi32>} : () -> tensor<8xi32>
  %8 = "versa.mul"(%i, %z) : (tensor<2x1x8xi32>, tensor<8xi32>) -> tensor<2x1x8xi32>
  %9 = "versa.cast"(%x) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
    : tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xf32>, tensor<2x8xf32>,
      tensor<2x8xf32>, tensor<2x1x8xf32>, tensor<2x1x8xi32>, tensor<2x1x8xi32>, tensor<2x1x8xf32>
}
"""


def test_identities_are_exact() -> None:
    after = canonicalized(IDENTITIES)
    assert set(op_names(after)) <= {"versa.abs", "versa.clamp", "versa.reshape", "versa.constant"}
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5, 0.75] * 2, np.float32).reshape(2, 1, 8)
    i = np.array([0, 1, -1, 2**31 - 1, -(2**31), 7, -7, 3] * 2, np.int32).reshape(2, 1, 8)
    # a sum (or mean) of one -0 is +0 in the reference, the fold keeps -0: equal, signs aside
    assert_identical(reference(after, [x, i]), reference(IDENTITIES, [x, i]), unsigned_zeros={4, 5})


# ----------------------------------------------------------------------------- constants, CSE

SPLATS = """
func.func @main() -> (tensor<300x300xf32>, tensor<300x300xi8>, tensor<90000xi1>, tensor<600x300xf32>) {
  %a = "versa.constant"() {value = dense<0.7> : tensor<300xf32>} : () -> tensor<300xf32>
  %b = "versa.broadcast_to"(%a) : (tensor<300xf32>) -> tensor<300x300xf32>
  %e = "versa.exp"(%b) : (tensor<300x300xf32>) -> tensor<300x300xf32>
  %g = "versa.gelu"(%e) {approximate = "tanh"} : (tensor<300x300xf32>) -> tensor<300x300xf32>
  %t = "versa.transpose"(%g) {perm = array<i64: 1, 0>} : (tensor<300x300xf32>) -> tensor<300x300xf32>
  %m = "versa.constant"() {value = dense<-40.0> : tensor<300x300xf32>} : () -> tensor<300x300xf32>
  %p = "versa.mul"(%t, %m) : (tensor<300x300xf32>, tensor<300x300xf32>) -> tensor<300x300xf32>
  %i = "versa.cast"(%p) : (tensor<300x300xf32>) -> tensor<300x300xi8>
  %r = "versa.reshape"(%p) : (tensor<300x300xf32>) -> tensor<90000xf32>
  %z = "versa.constant"() {value = dense<-100.0> : tensor<90000xf32>} : () -> tensor<90000xf32>
  %q = "versa.compare"(%r, %z) {predicate = "lt"} : (tensor<90000xf32>, tensor<90000xf32>) -> tensor<90000xi1>
  %c = "versa.concat"(%t, %t) {axis = 0 : i64}
      : (tensor<300x300xf32>, tensor<300x300xf32>) -> tensor<600x300xf32>
  return %p, %i, %q, %c : tensor<300x300xf32>, tensor<300x300xi8>, tensor<90000xi1>, tensor<600x300xf32>
}
"""


def test_splats_fold_at_any_size_exactly() -> None:
    after = canonicalized(SPLATS)
    assert set(op_names(after)) == {"versa.constant"}
    assert '"0x' not in after  # every result stayed a splat: nothing was expanded
    assert_identical(reference(after, []), reference(SPLATS, []))


CSE = """
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = "versa.mul"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "versa.mul"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = "versa.softmax"(%0) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "versa.softmax"(%1) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "versa.softmax"(%1) {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "versa.sub"(%2, %3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = "versa.add"(%5, %4) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %6, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}
"""


def test_cse_merges_only_equal_ops() -> None:
    after = canonicalized(CSE)
    assert op_names(after).count("versa.mul") == 1 and op_names(after).count("versa.softmax") == 2
    assert "versa.sub" in after  # x - x on floats is not 0
    inputs = random_inputs(CSE)
    assert_identical(reference(after, inputs), reference(CSE, inputs))


def test_canonicalize_is_idempotent() -> None:
    once = canonicalized(conv_batch_norm("NHWC", 2, 2, 1, 1, True))
    assert canonicalized(once) == once
