"""JitFunction's call path: results into `out=` arrays, pooled result arrays that are reused
only once the caller has dropped them, steady-state calls that allocate nothing, and the
memory report (inputs, results, the planned arena)."""

import tracemalloc

import numpy as np
import pytest
from conftest import Compiled

CHAIN = """
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32xf32>) -> (tensor<64x32xf32>, tensor<64xf32>) {
  %0 = "versa.add"(%a, %b) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = "versa.exp"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = "versa.mul"(%1, %a) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %3 = "versa.reduce_sum"(%2) {axes = array<i64: 1>} : (tensor<64x32xf32>) -> tensor<64xf32>
  return %2, %3 : tensor<64x32xf32>, tensor<64xf32>
}"""


@pytest.fixture(scope="module")
def compiled() -> Compiled:
    return Compiled(CHAIN)


def _expected(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    y = np.exp(a + b) * a
    return [y, y.sum(1)]


def test_out_arrays_receive_the_results(compiled: Compiled) -> None:
    a, b = compiled.random_inputs()
    outs = [np.full((64, 32), np.nan, np.float32), np.full(64, np.nan, np.float32)]
    got = compiled.jit(a, b, out=outs)
    assert got[0] is outs[0] and got[1] is outs[1]
    for g, w in zip(outs, _expected(a, b), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "bad",
    [
        lambda a: [np.empty((64, 32), np.float64), np.empty(64, np.float32)],
        lambda a: [np.empty((32, 64), np.float32), np.empty(64, np.float32)],
        lambda a: [np.empty((64, 64), np.float32)[:, :32], np.empty(64, np.float32)],
        lambda a: [np.empty((64, 32), np.float32)],
        lambda a: [a, np.empty(64, np.float32)],  # overlaps an input
    ],
    ids=["dtype", "shape", "strided", "count", "aliases-input"],
)
def test_bad_out_arrays_are_refused(compiled: Compiled, bad) -> None:
    a, b = compiled.random_inputs()
    with pytest.raises(ValueError):
        compiled.jit(a, b, out=bad(a))


def test_held_results_are_never_overwritten(compiled: Compiled) -> None:
    a, b = compiled.random_inputs()
    first = compiled.jit(a, b)[0]
    view = compiled.jit(a, b)[0][:1]  # a view keeps its base alive
    kept = [compiled.jit(a, b)[0] for _ in range(4)]
    arrays = [first, view.base, *kept]
    assert len({x.ctypes.data for x in arrays}) == len(arrays)
    want = _expected(a, b)[0]
    for x in arrays:
        np.testing.assert_allclose(x, want, rtol=1e-5, atol=1e-5)


def test_dropped_results_are_reused(compiled: Compiled) -> None:
    a, b = compiled.random_inputs()
    pointers = set()
    for _ in range(6):
        y, _ = compiled.jit(a, b)  # `y` still holds the previous result during the call
        pointers.add(y.ctypes.data)
    assert len(pointers) == 2


def test_steady_state_calls_allocate_nothing(compiled: Compiled) -> None:
    a, b = compiled.random_inputs()
    for _ in range(3):
        compiled.jit(a, b)
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(20):
            compiled.jit(a, b)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A fresh result array would raise the peak by its 8 KiB; the call's Python objects are small.
    assert peak - start < 2048, f"steady-state calls allocated up to {peak - start} bytes"


def test_memory_report(compiled: Compiled) -> None:
    memory = compiled.jit.memory
    assert (memory.inputs, memory.outputs) == (64 * 32 * 4 + 32 * 4, 64 * 32 * 4 + 64 * 4)
    assert memory.arena >= 0 and memory.peak == memory.inputs + memory.outputs + memory.arena
    unfused = Compiled(CHAIN, "lower-to-llvm{opt-level=0}").jit.memory
    assert unfused.arena >= 64 * 32 * 4  # add and exp are buffers of their own
    assert "memory: peak" in unfused.summary()
