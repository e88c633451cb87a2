"""The quantized ops against ONNX's reference implementation and torch, bit for bit, and a
quantized linear layer (quantize → qmatmul → + i32 bias → requantize with ReLU → dequantize)
compiled at -O0 and -O3 against the NumPy reference. Sizes are not multiples of a vector width.

ONNX QuantizeLinear is versa.quantize's definition (rint(x / s) + zp, saturated), so it must
match exactly. torch rounds x * (1/s) + zp instead (docs/facts.md): the two agree bit for bit
where 1/s is a power of two and zp is even (rint(t + 2k) = rint(t) + 2k, ties included), which
is the regime compared here; dequantize agrees everywhere.
"""

import numpy as np
import pytest
from test_lowering_numerics import compile_and_run
from versa import compiler
from versa.context import make_context
from versa.dialects.semantics import evaluate
from versa.reference import interpret
from versa.signature import find_function

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

RNG = np.random.default_rng(47)
ONNX_TYPES = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int32): TensorProto.INT32,
}


def run_onnx(op: str, inputs: list[np.ndarray], out_dtype: np.dtype, **attrs) -> np.ndarray:
    """One ONNX node (opset 21) run by onnx's ReferenceEvaluator."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, ONNX_TYPES[x.dtype], list(x.shape))
            for n, x in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", ONNX_TYPES[np.dtype(out_dtype)], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs, strict=True)))[0]


def activations(shape) -> np.ndarray:
    """Normal values, exact ties of the scale 0.03 and of 0.5, NaN excluded (ONNX leaves it open)."""
    x = (RNG.standard_normal(shape) * 4).astype(np.float32)
    x.flat[::7] = (RNG.integers(-300, 300, x.size)[::7] + 0.5).astype(np.float32) * np.float32(0.03)
    return x


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("per_channel", [False, True], ids=["tensor", "channel"])
def test_quantize_dequantize_match_onnx(dtype, per_channel: bool) -> None:
    x = activations((5, 37))
    shape = (37,) if per_channel else ()
    scale = RNG.uniform(0.01, 0.05, shape).astype(np.float32)
    zero = RNG.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1, shape).astype(dtype)
    attrs = {"axis": 1}
    q = evaluate("quantize", [x, scale, zero], attrs, x.shape, dtype)
    np.testing.assert_array_equal(q, run_onnx("QuantizeLinear", [x, scale, zero], dtype, axis=1))
    d = evaluate("dequantize", [q, scale, zero], attrs, x.shape, np.float32)
    np.testing.assert_array_equal(d, run_onnx("DequantizeLinear", [q, scale, zero], np.float32, axis=1))


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # deprecated in torch 2.13
def test_quantize_dequantize_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x = activations((6, 37))
    for dtype, qtype, zp in ((np.int8, torch.qint8, -6), (np.uint8, torch.quint8, 130)):
        scale = np.float32(2.0**-5)
        zero = np.array(zp, dtype)
        q = evaluate("quantize", [x, np.array(scale), zero], {"axis": 1}, x.shape, dtype)
        tq = torch.quantize_per_tensor(torch.from_numpy(x), float(scale), zp, qtype)
        np.testing.assert_array_equal(q, tq.int_repr().numpy())
        d = evaluate("dequantize", [q, np.array(scale), zero], {"axis": 1}, x.shape, np.float32)
        np.testing.assert_array_equal(d, tq.dequantize().numpy())
        scales = (2.0 ** -RNG.integers(3, 7, 37)).astype(np.float32)
        zeros = (RNG.integers(-20, 20, 37) * 2 + (130 if dtype == np.uint8 else 0)).astype(dtype)
        q = evaluate("quantize", [x, scales, zeros], {"axis": 1}, x.shape, dtype)
        tq = torch.quantize_per_channel(
            torch.from_numpy(x),
            torch.from_numpy(scales.astype(np.float64)),
            torch.from_numpy(zeros.astype(np.int64)),
            1,
            qtype,
        )
        np.testing.assert_array_equal(q, tq.int_repr().numpy())
        np.testing.assert_array_equal(
            evaluate("dequantize", [q, scales, zeros], {"axis": 1}, x.shape, np.float32),
            tq.dequantize().numpy(),
        )


@pytest.mark.parametrize(
    ("a_type", "b_type"), [(np.int8, np.int8), (np.uint8, np.int8), (np.uint8, np.uint8)]
)
def test_qmatmul_matches_onnx_matmul_integer(a_type, b_type) -> None:
    a = RNG.integers(np.iinfo(a_type).min, np.iinfo(a_type).max + 1, (2, 5, 37)).astype(a_type)
    b = RNG.integers(np.iinfo(b_type).min, np.iinfo(b_type).max + 1, (37, 9)).astype(b_type)
    za, zb = np.array(3, a_type), np.array(7, b_type)
    want = run_onnx("MatMulInteger", [a, b, za, zb], np.int32)
    np.testing.assert_array_equal(evaluate("qmatmul", [a, b, za, zb], {}, want.shape, np.int32), want)


@pytest.mark.parametrize("groups", [1, 2, 4], ids=["plain", "grouped", "depthwise"])
def test_qconv2d_matches_onnx_conv_integer(groups: int) -> None:
    x = RNG.integers(0, 256, (2, 4, 9, 8)).astype(np.uint8)
    w = RNG.integers(-128, 128, (8, 4 // groups, 3, 2)).astype(np.int8)
    zx, zw = np.array(121, np.uint8), np.array(-4, np.int8)
    conv = {"strides": [2, 1], "pads": [1, 2, 0, 1], "dilations": [2, 1], "group": groups}
    want = run_onnx("ConvInteger", [x, w, zx, zw], np.int32, **conv)
    attrs = {
        "strides": [2, 1],
        "padding": [1, 2, 0, 1],
        "dilations": [2, 1],
        "groups": groups,
        "layout": "NCHW",
    }
    np.testing.assert_array_equal(evaluate("qconv2d", [x, w, zx, zw], attrs, want.shape, np.int32), want)


LINEAR = """
func.func @main(%x: tensor<3x37xf32>, %w: tensor<37x21xi8>, %bias: tensor<21xi32>, %ws: tensor<21xf32>)
    -> (tensor<3x21xui8>, tensor<3x21xf32>) attributes {llvm.emit_c_interface} {
  %s = "versa.constant"() {value = dense<0.03125> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %wz = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %q = "versa.quantize"(%x, %s, %z) : (tensor<3x37xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x37xui8>
  %acc = "versa.qmatmul"(%q, %w, %z, %wz)
      : (tensor<3x37xui8>, tensor<37x21xi8>, tensor<ui8>, tensor<i8>) -> tensor<3x21xi32>
  %b = "versa.add"(%acc, %bias) : (tensor<3x21xi32>, tensor<21xi32>) -> tensor<3x21xi32>
  %oz = "versa.constant"() {value = dense<100> : tensor<21xui8>} : () -> tensor<21xui8>
  %y = "versa.requantize"(%b, %ws, %oz) {axis = 1 : i64, min = 100 : i64}
      : (tensor<3x21xi32>, tensor<21xf32>, tensor<21xui8>) -> tensor<3x21xui8>
  %d = "versa.dequantize"(%y, %ws, %oz) {axis = 1 : i64}
      : (tensor<3x21xui8>, tensor<21xf32>, tensor<21xui8>) -> tensor<3x21xf32>
  return %y, %d : tensor<3x21xui8>, tensor<3x21xf32>
}
"""


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
def test_quantized_linear_layer(opt_level: int) -> None:
    """The ops chained as a quantized linear layer with a fused ReLU (min = the output zero
    point), ui8 activations and per-channel output scales, bit-exact against the reference."""
    inputs = [
        activations((3, 37)),
        RNG.integers(-128, 128, (37, 21)).astype(np.int8),
        RNG.integers(-5000, 5000, 21).astype(np.int32),
        RNG.uniform(0.002, 0.01, 21).astype(np.float32),
    ]
    module = compiler.parse_module(compiler.Chunk(LINEAR, 1), make_context())
    want = interpret(find_function(module, "main"), inputs)
    got = compile_and_run(LINEAR, inputs, opt_level)
    assert got[0].dtype == np.uint8 and got[0].min() >= 100 and len(np.unique(got[0])) > 10
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
def test_quantize_saturates_and_maps_nan_to_the_zero_point(opt_level: int) -> None:
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3.5, -3.5, 2.5, 0.0], np.float32)
    text = """
func.func @main(%x: tensor<9xf32>) -> tensor<9xui8> attributes {llvm.emit_c_interface} {
  %s = "versa.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<7> : tensor<ui8>} : () -> tensor<ui8>
  %q = "versa.quantize"(%x, %s, %z) : (tensor<9xf32>, tensor<f32>, tensor<ui8>) -> tensor<9xui8>
  return %q : tensor<9xui8>
}
"""
    (got,) = compile_and_run(text, [x], opt_level)
    np.testing.assert_array_equal(got, np.array([7, 255, 0, 255, 0, 11, 3, 9, 7], np.uint8))
