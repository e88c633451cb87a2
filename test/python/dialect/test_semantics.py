"""The reference semantics against independent, hand-written computations."""

import math

import numpy as np
import pytest
from versa.dialects.semantics import SEMANTICS, evaluate

F32 = np.dtype(np.float32)


def run(name: str, *inputs: np.ndarray, shape: tuple[int, ...], dtype=F32, **attrs):
    out = SEMANTICS[name](*inputs, shape=shape, dtype=dtype, **attrs)
    assert out.shape == shape and out.dtype == np.dtype(dtype)
    return out


def naive_conv_nchw(x, w, strides, padding, dilations, groups):
    """Seven plain loops: n, f, oh, ow, c, kh, kw; out-of-range taps read zero."""
    n_, c_, h_, w_ = x.shape
    f_, cg, kh_, kw_ = w.shape
    (sh, sw), (top, left, bottom, right), (dh, dw) = strides, padding, dilations
    oh_ = (h_ + top + bottom - dh * (kh_ - 1) - 1) // sh + 1
    ow_ = (w_ + left + right - dw * (kw_ - 1) - 1) // sw + 1
    fg = f_ // groups
    y = np.zeros((n_, f_, oh_, ow_))
    for n in range(n_):
        for f in range(f_):
            for oh in range(oh_):
                for ow in range(ow_):
                    for c in range(cg):
                        for i in range(kh_):
                            for j in range(kw_):
                                h = oh * sh + i * dh - top
                                v = ow * sw + j * dw - left
                                if 0 <= h < h_ and 0 <= v < w_:
                                    xv = x[n, (f // fg) * cg + c, h, v]
                                    y[n, f, oh, ow] += xv * w[f, c, i, j]
    return y


CONV = {"strides": [2, 2], "padding": [1, 2, 0, 1], "dilations": [2, 2], "groups": 2}


def test_conv2d_nchw_matches_naive_loops():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 9, 8)).astype(F32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(F32)
    want = naive_conv_nchw(x, w, CONV["strides"], CONV["padding"], CONV["dilations"], 2)
    got = run("conv2d", x, w, shape=want.shape, layout="NCHW", **CONV)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv2d_nhwc_matches_naive_loops():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 4, 9, 8)).astype(F32)
    w = rng.standard_normal((4, 2, 3, 3)).astype(F32)
    want = naive_conv_nchw(x, w, CONV["strides"], CONV["padding"], CONV["dilations"], 2)
    got = run(
        "conv2d",
        x.transpose(0, 2, 3, 1),
        w.transpose(2, 3, 1, 0),
        shape=want.transpose(0, 2, 3, 1).shape,
        layout="NHWC",
        **CONV,
    )
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_conv2d_integer_defaults():
    x = np.arange(9, dtype=np.int32).reshape(1, 1, 3, 3)
    w = np.ones((1, 1, 2, 2), dtype=np.int32)
    got = run("conv2d", x, w, shape=(1, 1, 2, 2), dtype=np.int32)
    np.testing.assert_array_equal(got[0, 0], [[8, 12], [20, 24]])


def test_avg_pool_excludes_padding():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=F32).reshape(1, 1, 2, 2)
    got = run("avg_pool2d", x, shape=(1, 1, 2, 2), kernel=[2, 2], strides=[1, 1], padding=[1, 1, 0, 0])
    # Windows over the padded 3x3 grid hold {1}, {1,2}, {1,3}, {1,2,3,4}.
    np.testing.assert_allclose(got[0, 0], [[1.0, 1.5], [2.0, 2.5]])


def test_max_pool_pads_with_minus_inf_nhwc():
    x = -np.arange(1.0, 5.0, dtype=F32).reshape(1, 2, 2, 1)
    got = run("max_pool2d", x, shape=(1, 2, 2, 1), kernel=[2, 2], padding=[1, 1, 0, 0], layout="NHWC")
    np.testing.assert_array_equal(got[0, :, :, 0], [[-1.0, -1.0], [-1.0, -1.0]])


def test_gelu_tanh_close_to_exact():
    x = np.linspace(-4, 4, 101).astype(F32)
    exact = run("gelu", x, shape=x.shape)
    approx = run("gelu", x, shape=x.shape, approximate="tanh")
    want = np.array([v / 2 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    np.testing.assert_allclose(exact, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(approx, exact, atol=1e-3)
    assert not np.array_equal(approx, exact)


def test_layer_norm_normalises_trailing_dims():
    rng = np.random.default_rng(2)
    x = rng.normal(3.0, 5.0, (3, 4, 5))
    ones, zeros = np.ones((4, 5)), np.zeros((4, 5))
    y = run("layer_norm", x, ones, zeros, shape=x.shape, dtype=np.float64, axis=-2)
    np.testing.assert_allclose(y.mean(axis=(1, 2)), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(1, 2)), 1.0, rtol=1e-4)


def test_layer_norm_and_softmax_of_empty_tensors_are_empty_and_quiet():
    """No rows, or rows without elements: an empty result, without NumPy's "mean of empty
    slice" warning (an error under pytest's -W error)."""
    for shape, axis in (((4, 0), -1), ((0, 3), -1), ((2, 3, 0), 1)):
        x, params = np.zeros(shape, F32), np.zeros(shape[axis % len(shape) :], F32)
        assert run("layer_norm", x, params, params, shape=shape, axis=axis).size == 0
        assert run("softmax", x, shape=shape, axis=-1).size == 0


def test_batch_norm_layouts_agree():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 4))
    scale, bias, mean = rng.standard_normal((3, 3))
    var = rng.uniform(0.5, 2.0, 3)
    nchw = run("batch_norm", x, scale, bias, mean, var, shape=x.shape, dtype=np.float64)
    nhwc = run(
        "batch_norm",
        x.transpose(0, 2, 3, 1),
        scale,
        bias,
        mean,
        var,
        shape=(2, 4, 4, 3),
        dtype=np.float64,
        layout="NHWC",
    )
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1))
    want = (x[1, 2, 0, 3] - mean[2]) / math.sqrt(var[2] + 1e-5) * scale[2] + bias[2]
    assert nchw[1, 2, 0, 3] == pytest.approx(want)


def test_slice_with_strides():
    x = np.arange(20).reshape(4, 5)
    got = run("slice", x, shape=(2, 2), dtype=x.dtype, starts=[1, 0], limits=[4, 4], strides=[2, 3])
    np.testing.assert_array_equal(got, [[5, 8], [15, 18]])


def test_integer_div_truncates_toward_zero():
    a = np.array([7, -7, 7, -7, 6, -6], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 3], dtype=np.int32)
    got = run("div", a, b, shape=(6,), dtype=np.int32)
    np.testing.assert_array_equal(got, [3, -3, -3, 3, 2, -2])


def test_integer_pow_negative_exponent():
    a = np.array([2, 1, -1, -1, 3], dtype=np.int64)
    b = np.array([-1, -3, -3, -2, 2], dtype=np.int64)
    got = run("pow", a, b, shape=(5,), dtype=np.int64)
    np.testing.assert_array_equal(got, [0, 1, -1, 1, 9])


def test_cast_truncates_and_clamp_is_one_sided():
    x = np.array([-2.7, -0.5, 0.5, 2.7], dtype=F32)
    np.testing.assert_array_equal(run("cast", x, shape=(4,), dtype=np.int32), [-2, 0, 0, 2])
    np.testing.assert_array_equal(run("clamp", x, shape=(4,), min=0.0), [0, 0, x[2], x[3]])


def test_softmax_and_reductions():
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]])
    y = run("softmax", x, shape=(2, 3), dtype=np.float64, axis=1)
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(y, [e / e.sum(), [1 / 3] * 3])
    assert run("reduce_sum", x, shape=(), dtype=np.float64) == 3006.0
    np.testing.assert_array_equal(
        run("reduce_max", x, shape=(2, 1), dtype=np.float64, axes=[-1], keepdims=True), [[3.0], [1000.0]]
    )


def test_data_movement():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(
        run("pad", x, shape=(3, 4), dtype=np.int32, low=[1, 0], high=[0, 1], value=9)[0], [9, 9, 9, 9]
    )
    np.testing.assert_array_equal(
        run("concat", x, x, shape=(2, 6), dtype=np.int32, axis=-1)[1], [3, 4, 5, 3, 4, 5]
    )
    out = run("broadcast_to", x[:1], shape=(4, 3), dtype=np.int32)
    assert out.flags.writeable
    np.testing.assert_array_equal(run("constant", shape=(2, 2), value=np.array(7.0)), 7.0)


def test_evaluate_checks_names_and_shapes():
    a = np.ones((2, 3), dtype=F32)
    assert evaluate("versa.add", [a, a], {}, (2, 3), F32).sum() == 12.0
    with pytest.raises(KeyError, match="versa.frobnicate"):
        evaluate("frobnicate", [a], {}, (2, 3), F32)
    with pytest.raises(ValueError, match="declares"):
        evaluate("matmul", [a, a.T], {}, (3, 3), F32)


# --- comparison, logic and indexing ------------------------------------------------------

BOOL = np.dtype(np.bool_)
I64 = np.dtype(np.int64)


def test_compare_is_ordered_except_ne():
    a = np.array([1.0, np.nan, np.nan, 2.0], dtype=F32)
    b = np.array([1.0, 1.0, np.nan, 3.0], dtype=F32)
    want = {
        "eq": [1, 0, 0, 0],
        "ne": [0, 1, 1, 1],
        "lt": [0, 0, 0, 1],
        "le": [1, 0, 0, 1],
        "gt": [0, 0, 0, 0],
        "ge": [1, 0, 0, 0],
    }
    for predicate, expected in want.items():
        got = run("compare", a, b, shape=(4,), dtype=BOOL, predicate=predicate)
        np.testing.assert_array_equal(got, np.array(expected, bool), err_msg=predicate)
    t, f = np.array([True, False]), np.array([False, False])
    np.testing.assert_array_equal(run("compare", f, t, shape=(2,), dtype=BOOL, predicate="lt"), [True, False])


def test_select_and_logic_broadcast():
    c = np.array([[True], [False]])
    got = run("select", c, np.array([1, 2, 3], np.int64), np.int64(-1), shape=(2, 3), dtype=I64)
    np.testing.assert_array_equal(got, [[1, 2, 3], [-1, -1, -1]])
    a, b = np.array([True, True, False]), np.array([[True], [False]])
    np.testing.assert_array_equal(run("and", a, b, shape=(2, 3), dtype=BOOL), [[1, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(run("or", a, b, shape=(2, 3), dtype=BOOL), [[1, 1, 1], [1, 1, 0]])
    np.testing.assert_array_equal(run("not", a, shape=(3,), dtype=BOOL), [False, False, True])
    i = np.array([0b1100, -1], np.int32)
    np.testing.assert_array_equal(
        run("and", i, np.int32(0b1010), shape=(2,), dtype=np.int32), [0b1000, 0b1010]
    )
    np.testing.assert_array_equal(run("not", i, shape=(2,), dtype=np.int32), [~0b1100, 0])


def test_gather_wraps_negative_indices_once_then_clamps():
    x = np.arange(12, dtype=F32).reshape(3, 4)
    indices = np.array([[-1, -4, -5], [3, 4, 100]], np.int64)  # -5 + 4 = -1 → 0; 4, 100 → 3
    got = run("gather", x, indices, shape=(3, 2, 3), axis=1)
    np.testing.assert_array_equal(got[:, 0], x[:, [3, 0, 0]])
    np.testing.assert_array_equal(got[:, 1], x[:, [3, 3, 3]])
    row = run("gather", x, np.array(-3, np.int32), shape=(4,), axis=0)  # rank-0 index
    np.testing.assert_array_equal(row, x[0])


def test_iota_counts_along_its_axis():
    got = run("iota", shape=(2, 3), dtype=np.int32, axis=-1)
    np.testing.assert_array_equal(got, [[0, 1, 2], [0, 1, 2]])
    np.testing.assert_array_equal(run("iota", shape=(3, 1), dtype=F32, axis=0)[:, 0], [0.0, 1.0, 2.0])


def test_argmax_takes_the_first_maximum_and_nan_wins():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [1.0, np.nan, 5.0, np.nan]], dtype=F32)
    np.testing.assert_array_equal(run("reduce_argmax", x, shape=(2,), dtype=I64, axis=1), [1, 1])
    got = run("reduce_argmax", x, shape=(1, 4), dtype=I64, axis=0, keepdims=True)
    np.testing.assert_array_equal(got, [[0, 1, 1, 1]])


def test_cumsum_runs_along_the_axis_and_integers_wrap():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(
        run("cumsum", x, shape=(2, 3), dtype=np.int32, axis=0), [[1, 2, 3], [5, 7, 9]]
    )
    np.testing.assert_array_equal(run("cumsum", x, shape=(2, 3), dtype=np.int32, axis=-1)[1], [4, 9, 15])
    wraps = run("cumsum", np.array([100, 100], np.int8), shape=(2,), dtype=np.int8, axis=0)
    np.testing.assert_array_equal(wraps, [100, -56])


def naive_conv_transpose_nchw(x, w, strides, padding, output_padding, dilations, groups):
    """Scatter loops: input pixel (ih, iw) adds w[c, f, kh, kw] * x to output row
    ih * sh + kh * dh - top and column iw * sw + kw * dw - left, when inside the output."""
    n_, c_, h_, w_ = x.shape
    _, fg, kh_, kw_ = w.shape
    (sh, sw), (top, left, bottom, right), (dh, dw) = strides, padding, dilations
    oh_ = (h_ - 1) * sh - top - bottom + dh * (kh_ - 1) + output_padding[0] + 1
    ow_ = (w_ - 1) * sw - left - right + dw * (kw_ - 1) + output_padding[1] + 1
    cg = c_ // groups
    y = np.zeros((n_, fg * groups, oh_, ow_))
    for n in range(n_):
        for c in range(c_):
            for f in range(fg):
                for ih in range(h_):
                    for iw in range(w_):
                        for i in range(kh_):
                            for j in range(kw_):
                                oh, ow = ih * sh + i * dh - top, iw * sw + j * dw - left
                                if 0 <= oh < oh_ and 0 <= ow < ow_:
                                    y[n, (c // cg) * fg + f, oh, ow] += x[n, c, ih, iw] * w[c, f, i, j]
    return y


CONV_T = {
    "strides": [2, 3],
    "padding": [1, 0, 2, 1],
    "output_padding": [1, 2],
    "dilations": [2, 1],
    "groups": 2,
}


def test_conv_transpose2d_matches_naive_loops():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 5, 3)).astype(F32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(F32)
    want = naive_conv_transpose_nchw(x, w, **CONV_T)
    got = run("conv_transpose2d", x, w, shape=want.shape, **CONV_T)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "attrs",
    [
        {},
        CONV_T,
        {
            "strides": [3, 2],
            "padding": [2, 2, 2, 2],
            "output_padding": [2, 0],
            "dilations": [1, 3],
            "groups": 4,
        },
    ],
    ids=["defaults", "all", "depthwise_dilated"],
)
def test_conv_transpose2d_matches_torch(attrs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 3)).astype(F32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(F32)
    strides, padding = attrs.get("strides", [1, 1]), attrs.get("padding", [0, 0, 0, 0])
    want = torch.nn.functional.conv_transpose2d(
        torch.from_numpy(x),
        torch.from_numpy(w),
        stride=strides,
        padding=padding[:2],  # torch pads symmetrically: [top, left] = [bottom, right]
        output_padding=attrs.get("output_padding", [0, 0]),
        groups=attrs.get("groups", 1),
        dilation=attrs.get("dilations", [1, 1]),
    ).numpy()
    if padding[:2] != padding[2:]:
        want = want[
            ..., : want.shape[-2] - (padding[2] - padding[0]), : want.shape[-1] - (padding[3] - padding[1])
        ]
    got = run("conv_transpose2d", x, w, shape=want.shape, **attrs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
