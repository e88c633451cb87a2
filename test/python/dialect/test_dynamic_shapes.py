"""Dynamic dims (`?`, None in the rules): what the rules decide statically, what `call_shape`
decides for one call's sizes (the reference interpreter's and the runtime's check), and the
reference interpreter running one dynamic function at several sizes."""

import numpy as np
import pytest
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.dialects import shapes
from versa.dialects.shapes import RuleError
from versa.dialects.versa import OPS
from versa.mlir import ir
from versa.reference import interpret

MATMUL, ADD, RESHAPE = OPS["versa.matmul"], OPS["versa.add"], OPS["versa.reshape"]


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [
        ((None, 8), (4, 8), (4, 8)),  # a dynamic dim meets a static one: that one
        ((None, 8), (1, 8), (None, 8)),  # a size-1 dim stretches to the dynamic one
        ((None, None), (None, 1), (None, None)),
        ((None,), (3, None), (3, None)),
        ((5, 1), (None,), (5, None)),
        ((0, 1), (1, 0), (0, 0)),  # static shapes as before
    ],
)
def test_broadcast(a, b, out):
    assert shapes.broadcast(a, b) == out
    assert shapes.broadcast(b, a) == out


def test_static_relations_still_checked():
    with pytest.raises(RuleError, match=r"K = 64 \(lhs\) vs 32"):
        shapes.matmul((None, 64), (32, None))
    assert shapes.matmul((None, 64), (None, 5)) == (None, 5)  # K checked per call
    with pytest.raises(RuleError, match="not broadcast-compatible"):
        shapes.broadcast((None, 3), (None, 4))


@pytest.mark.parametrize(
    ("x", "y", "sources"),
    [
        ((None, None, 768), (None, None, 12, 64), {0: 0, 1: 1}),
        ((None, None, 12, 64), (None, None, 768), {0: 0, 1: 1}),
        ((None, None, 768), (None, 768), {0: None}),  # a flatten: the count over 768
        ((2, None, 6), (4, None, 3), {1: None}),  # one dynamic result dim: always the count
    ],
)
def test_reshape_sources(x, y, sources):
    assert shapes.reshape_sources(x, y) == sources


def test_reshape_solves_one_dynamic_dim_at_a_call():
    assert shapes.reshape((3, 5, 768), (None, 768)) == (15, 768)
    with pytest.raises(RuleError, match="not a multiple of 768"):
        shapes.reshape((3, 5, 7), (None, 768))


def test_call_shape_takes_the_call_sizes():
    assert MATMUL.call_shape([(7, 64), (64, 32)], {}, (None, 32), [(None, 64), (64, 32)]) == (7, 32)
    declared, compiled = (None, None, 12, 64), [(None, None, 768)]
    assert RESHAPE.call_shape([(2, 9, 768)], {}, declared, compiled) == (2, 9, 12, 64)
    assert RESHAPE.call_shape([(2, 9, 12, 64)], {}, (None, 768), [(None, None, 12, 64)]) == (18, 768)


def test_call_shape_rejects_what_the_code_assumes_away():
    with pytest.raises(RuleError, match=r"K = 64 \(lhs\) vs 48"):
        MATMUL.call_shape([(7, 64), (48, 32)], {}, (None, 32), [(None, None), (None, 32)])
    # a dynamic dim that is 1 at the call would have to stretch: the compiled code does not
    with pytest.raises(
        RuleError, match="operand 0 dim 0 is 1 but the result's is 4: a dynamic dim does not broadcast"
    ):
        ADD.call_shape([(1, 8), (4, 8)], {}, (4, 8), [(None, 8), (4, 8)])
    with pytest.raises(RuleError, match="result dim 0 is 5, but the type says 4"):
        ADD.call_shape([(5, 8), (5, 8)], {}, (4, 8), [(None, 8), (None, 8)])
    # a static size-1 dim still stretches, and a dynamic one that equals the other is fine
    assert ADD.call_shape([(1, 8), (6, 8)], {}, (None, 8), [(1, 8), (None, 8)]) == (6, 8)


FUNCTION = """
func.func @f(%x: tensor<?x?x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<?x?x8xf32>, tensor<8x4xf32>) -> tensor<?x?x4xf32>
  %1 = "versa.add"(%0, %b) : (tensor<?x?x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
  %2 = "versa.reshape"(%1) : (tensor<?x?x4xf32>) -> tensor<?x4xf32>
  %3 = "versa.softmax"(%2) {axis = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}
"""


def _softmax(y: np.ndarray) -> np.ndarray:
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("batch,seq", [(1, 1), (2, 3), (5, 16), (0, 4)])
def test_reference_runs_a_dynamic_function_at_each_size(batch, seq):
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(FUNCTION)
        rng = np.random.default_rng(batch * 100 + seq)
        x = rng.standard_normal((batch, seq, 8)).astype(np.float32)
        w = rng.standard_normal((8, 4)).astype(np.float32)
        b = rng.standard_normal(4).astype(np.float32)
        (y,) = interpret(module.body.operations[0], [x, w, b])
    assert y.shape == (batch * seq, 4)
    np.testing.assert_allclose(y, _softmax((x @ w + b).reshape(-1, 4)), rtol=1e-5, atol=1e-6)


def test_reference_names_the_op_whose_rule_a_call_breaks():
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            FUNCTION.replace("%x: tensor<?x?x8xf32>", "%x: tensor<?x?x?xf32>").replace(
                "(tensor<?x?x8xf32>, tensor<8x4xf32>)", "(tensor<?x?x?xf32>, tensor<8x4xf32>)"
            )
        )
        x = np.zeros((2, 3, 5), np.float32)
        with pytest.raises(CompileError, match=r"'versa.matmul' op contraction dims differ: K = 5"):
            interpret(module.body.operations[0], [x, np.zeros((8, 4), np.float32), np.zeros(4, np.float32)])


@pytest.mark.parametrize(
    ("x", "starts", "limits", "flags", "out"),
    [
        ((None, 8), (1, 0), (0, 8), (2, 0), (None, 8)),  # x[1:]: size - 1, a dynamic length
        ((None, 8), (4, 0), (0, 8), (3, 0), (4, 8)),  # x[-4:]: both from the end, static
        ((9, 8), (1, 0), (1, 8), (2, 0), (7, 8)),  # x[1:-1] at a call's size
        ((9, 8), (4, 0), (8, 8), (1, 0), (3, 8)),  # x[-4:8]: only the start from the end
        ((None, 8), (4, 0), (8, 8), (1, 0), (None, 8)),
    ],
)
def test_slice_bounds_from_the_end(x, starts, limits, flags, out):
    assert shapes.slice_(x, starts, limits, (1, 1), flags) == out


def test_slice_bounds_from_the_end_are_checked_at_the_call():
    with pytest.raises(RuleError, match=r"need 0 <= start \(1\) <= limit \(0\) <= size \(1\)"):
        shapes.slice_((1,), (1,), (1,), (1,), (2,))  # x[1:-1] of one element
    with pytest.raises(RuleError, match="from_end 4 of dim 0 must be 0, 1, 2 or 3"):
        shapes.slice_((None,), (1,), (0,), (1,), (4,))
