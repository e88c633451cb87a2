"""The tolerance policy: per element type, op family and reduction length, summed over a
result's producers; integers and booleans exact."""

import math

import numpy as np
import pytest
from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import find_function

F32 = tolerance.for_op("add", "f32")


def tolerances_of(text: str) -> list[tolerance.Tolerance]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return tolerance.for_function(find_function(module, None))


def test_families_and_element_types():
    assert tolerance.for_op("transpose", "f32") == tolerance.EXACT
    assert tolerance.for_op("exp", "f32").rtol == pytest.approx(4 * F32.rtol)
    assert tolerance.for_op("add", "f16").rtol > 100 * F32.rtol
    assert tolerance.for_op("add", "i32") == tolerance.EXACT


def test_reductions_scale_with_sqrt_of_their_length():
    assert tolerance.for_op("matmul", "f32", 64).rtol == pytest.approx(8 * F32.rtol)
    assert tolerance.reduction_length("versa.matmul", [(4, 64), (64, 3)], {}) == 64
    assert tolerance.reduction_length("conv2d", [(1, 8, 5, 5), (4, 8, 3, 3)], {"layout": "NCHW"}) == 72
    assert tolerance.reduction_length("conv2d", [(1, 5, 5, 8), (3, 3, 8, 4)], {"layout": "NHWC"}) == 72
    assert tolerance.reduction_length("reduce_sum", [(2, 3, 5)], {"axes": [0, 2]}) == 10
    assert tolerance.reduction_length("softmax", [(2, 7)], {"axis": -1}) == 7


def test_half_sums_in_f32_do_not_scale_with_their_length():
    """f16/bf16 matmul, conv and sums accumulate in f32 and round once: one rounding bounds
    them at any length (an f16 accumulator was 10% low at K=4096 and this scaling hid it)."""
    f16 = tolerance.for_op("add", "f16")
    assert tolerance.for_op("matmul", "f16", 4096) == f16
    assert tolerance.for_op("reduce_sum", "bf16", 4096) == tolerance.for_op("add", "bf16")
    assert tolerance.for_op("avg_pool2d", "f16", 9).rtol == pytest.approx(3 * f16.rtol)
    assert tolerance.for_op("matmul", "f32", 64).rtol == pytest.approx(8 * F32.rtol)


def test_a_narrowing_cast_rounds():
    """f32 -> f16 rounds: an f32 error far below an f16 ulp becomes a whole ulp at a rounding
    boundary (a fuzz finding: softmax in f32, then a cast, one f16 ulp off at O0 and up)."""
    text = """func.func @f(%x: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>) {
      %0 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = "versa.cast"(%0) : (tensor<4xf32>) -> tensor<4xf16>
      %2 = "versa.cast"(%h) : (tensor<4xf16>) -> tensor<4xf32>
      return %1, %2 : tensor<4xf16>, tensor<4xf32>
    }"""
    narrowed, widened = tolerances_of(text)
    assert narrowed.rtol == pytest.approx(4 * F32.rtol + tolerance.for_op("add", "f16").rtol)
    assert widened == tolerance.EXACT


def test_function_tolerance_sums_the_cone_of_each_result():
    text = """func.func @f(%a: tensor<4x16xf32>, %b: tensor<16x3xf32>)
        -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<4x3xi1>) {
      %0 = "versa.matmul"(%a, %b) : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
      %1 = "versa.exp"(%0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %2 = "versa.transpose"(%b) {perm = array<i64: 1, 0>} : (tensor<16x3xf32>) -> tensor<3x16xf32>
      %3 = "versa.slice"(%2) {starts = array<i64: 0, 0>, limits = array<i64: 3, 4>}
        : (tensor<3x16xf32>) -> tensor<3x4xf32>
      %4 = "versa.compare"(%1, %0) {predicate = "lt"} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
      return %1, %3, %4 : tensor<4x3xf32>, tensor<3x4xf32>, tensor<4x3xi1>
    }"""
    exp_of_matmul, moved, mask = tolerances_of(text)
    assert exp_of_matmul.rtol == pytest.approx(F32.rtol * (math.sqrt(16) + 4))
    assert moved == tolerance.EXACT and mask == tolerance.EXACT


def test_check_accepts_within_and_rejects_beyond():
    want = np.array([1.0, -2.0, 0.0, np.nan, np.inf], np.float32)
    assert tolerance.check(want * (1 + 5e-6), want, F32) is None
    message = tolerance.check(want * (1 + 5e-5), want, F32)
    assert message is not None and "2 of 5 elements" in message
    assert tolerance.check(np.array([np.nan, 1.0]), np.array([1.0, 1.0]), F32) is not None
    assert tolerance.check(np.array([-np.inf]), np.array([np.inf]), F32) is not None


def test_exact_results_must_be_identical():
    assert tolerance.check(np.array([1, 2], np.int32), np.array([1, 2], np.int32)) is None
    assert "exactly" in tolerance.check(np.array([1, 3], np.int32), np.array([1, 2], np.int32))
    assert tolerance.check(np.float32([1.0]), np.float32([1.0 + 2**-23])) is not None
    assert "shape" in tolerance.check(np.zeros(3), np.zeros(4))


def test_atol_scales_with_the_magnitude_of_the_result():
    want = np.array([1000.0, 0.0], np.float32)
    got = np.array([1000.0, 5e-4], np.float32)  # cancellation next to a large neighbour
    assert tolerance.check(got, want, F32) is None
    assert tolerance.check(got[1:], want[1:], F32) is not None
