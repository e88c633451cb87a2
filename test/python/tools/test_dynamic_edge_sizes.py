"""Dynamic functions at the edges of their sizes (issue 46): findings of `versa-fuzz --dynamic`
(seeds 46, 47), reduced, each compiled once per pipeline and called at the sizes its
`fuzz.sizes` names, 0 and 1 among them, against the NumPy reference (`versa.reference`).

The judge is the fuzzer's own (`oracle.judge` in a `Worker` subprocess, so a crash is a
"signal" verdict, not a dead test run): every call must match the reference within
`versa.tolerance` (integer results exactly), and refuse (ShapeError) exactly the sizes the
reference refuses. A size-0 dim must give a size-0 result, as NumPy does.
"""

import pytest
from versa.fuzz.oracle import Verdict
from versa.fuzz.worker import Worker

PIPELINES = ("O0", "O3", "fused")

# versa-canonicalize folded an integer x - x (and x * 0) into a constant of the result type,
# which cannot have a `?` dim: "fused" (versa-optimize) failed to compile. Such ops now stay.
SELF_SUBTRACTION = """\
func.func @main(%a: tensor<?x3xi32>, %b: tensor<?x3xi32>) -> (tensor<?x3xi32>, tensor<?x3xi32>)
    attributes {fuzz.sizes = array<i64: 4, 1, 6, 0>} {
  %z = "versa.constant"() {value = dense<0> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "versa.sub"(%a, %a) : (tensor<?x3xi32>, tensor<?x3xi32>) -> tensor<?x3xi32>
  %1 = "versa.add"(%0, %b) : (tensor<?x3xi32>, tensor<?x3xi32>) -> tensor<?x3xi32>
  %2 = "versa.mul"(%b, %z) : (tensor<?x3xi32>, tensor<3xi32>) -> tensor<?x3xi32>
  return %1, %2 : tensor<?x3xi32>, tensor<?x3xi32>
}
"""

# qmatmul with a dynamic M sized its folded rows with np.prod of the type's dims (`?` is a
# negative number there): every pipeline failed to compile. It now lowers as a static one,
# sized from the lhs; the i8 weights are a constant (versa-int8-kernels' input) and an
# argument, zero points on both sides, the u8 activations' top bit flipped.
QMATMUL_ROWS = """\
func.func @main(%x: tensor<?x8xui8>, %w: tensor<8x5xi8>, %zx: tensor<ui8>, %zw: tensor<i8>,
                %y: tensor<2x?x8xi8>, %zy: tensor<i8>) -> (tensor<?x5xi32>, tensor<2x?x6xi32>)
    attributes {fuzz.sizes = array<i64: 3, 1, 5, 0>} {
  %0 = "versa.qmatmul"(%x, %w, %zx, %zw)
      : (tensor<?x8xui8>, tensor<8x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<?x5xi32>
  %c = "versa.constant"() {value = dense<[[-128, 127, 3, -7, 0, 1], [5, -5, 100, -100, 64, -64]]>
      : tensor<2x6xi8>} : () -> tensor<2x6xi8>
  %c4 = "versa.concat"(%c, %c, %c, %c) {axis = 0 : i64}
      : (tensor<2x6xi8>, tensor<2x6xi8>, tensor<2x6xi8>, tensor<2x6xi8>) -> tensor<8x6xi8>
  %z = "versa.constant"() {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %1 = "versa.qmatmul"(%y, %c4, %zy, %z)
      : (tensor<2x?x8xi8>, tensor<8x6xi8>, tensor<i8>, tensor<i8>) -> tensor<2x?x6xi32>
  return %0, %1 : tensor<?x5xi32>, tensor<2x?x6xi32>
}
"""

# The same with a dynamic N (the weights' columns): linalg.quantized_matmul, sized from the
# operands (it had the same np.prod of `?` dims).
QMATMUL_COLUMNS = """\
func.func @main(%x: tensor<4x8xi8>, %w: tensor<8x?xui8>, %zx: tensor<i8>, %zw: tensor<ui8>) -> tensor<4x?xi32>
    attributes {fuzz.sizes = array<i64: 5, 1, 7, 0>} {
  %0 = "versa.qmatmul"(%x, %w, %zx, %zw)
      : (tensor<4x8xi8>, tensor<8x?xui8>, tensor<i8>, tensor<ui8>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}
"""

# reduce_argmax's rule compared a `?` axis with 1 (TypeError in the verifier: "invalid"); a `?`
# axis is now checked per call, where size 0 is refused by both the reference and the runtime.
ARGMAX = """\
func.func @main(%a: tensor<4x?xf32>) -> (tensor<4xi64>, tensor<4x?xf32>)
    attributes {fuzz.sizes = array<i64: 3, 1, 5, 0>} {
  %0 = "versa.reduce_argmax"(%a) {axis = 1 : i64} : (tensor<4x?xf32>) -> tensor<4xi64>
  %1 = "versa.cumsum"(%a) {axis = 1 : i64} : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0, %1 : tensor<4xi64>, tensor<4x?xf32>
}
"""

# A static 0 beside a dynamic dim: versa-vectorize split the dynamic rows across threads and
# the transform interpreter crashed (SIGSEGV) at compile time, at -O3 with 2 threads.
ZERO_BESIDE_DYNAMIC = """\
func.func @main(%a: tensor<?x0x3xf32>, %s: tensor<f32>) -> tensor<?x0x3xf32>
    attributes {fuzz.sizes = array<i64: 3, 1, 2, 0>} {
  %0 = "versa.mul"(%s, %a) : (tensor<f32>, tensor<?x0x3xf32>) -> tensor<?x0x3xf32>
  return %0 : tensor<?x0x3xf32>
}
"""

PROGRAMS = {
    "zero-beside-dynamic": ZERO_BESIDE_DYNAMIC,
    "self-subtraction": SELF_SUBTRACTION,
    "qmatmul-rows": QMATMUL_ROWS,
    "qmatmul-columns": QMATMUL_COLUMNS,
    "argmax": ARGMAX,
}


@pytest.fixture(scope="module")
def worker():
    worker = Worker(timeout=600.0)
    yield worker
    worker.stop()


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_size_matches_the_reference(worker, name):
    text = PROGRAMS[name]
    assert "array<i64:" in text and ", 1," in text and ", 0>" in text  # sizes 1 and 0 are called
    assert worker.judge(text, PIPELINES) == [Verdict("ok")]
