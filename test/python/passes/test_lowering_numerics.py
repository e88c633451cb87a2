"""Every versa op, lowered by convert-versa-to-linalg and JIT-run, against the NumPy reference.

Each case is one op in a function `@main`; the expected result comes from
`versa.dialects.semantics`. Contractions, windows and sums read small integers stored as
floats, so every partial sum is exact in f32 and any indexing mistake shows as a large error.
"""

from typing import Any

import numpy as np
import pytest
from conftest import reference
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.dialects.attributes import parse_attrs
from versa.dialects.semantics import evaluate
from versa.dialects.versa import OPS
from versa.mlir import ir
from versa.passes.common.base import PassError
from versa.passes.versa_to_linalg.convert_versa_to_linalg import ConvertVersaToLinalg
from versa.tolerance import TRANSCENDENTAL

DTYPES = {
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "i32": np.dtype(np.int32),
    "i8": np.dtype(np.int8),
    "ui8": np.dtype(np.uint8),
    "i64": np.dtype(np.int64),
    "i1": np.dtype(np.bool_),
}


# ----------------------------------------------------------------------------- glue


def tensor_type(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def compile_and_run(text: str, inputs: list[np.ndarray], opt_level: int = 3) -> list[np.ndarray]:
    """Compile `@main` in `text` with the project's lower-to-llvm pipeline, JIT it, run it."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    pipeline = f"lower-to-llvm{{opt-level={opt_level}}}"
    return JitFunction(module, "main", pipeline=pipeline)(*inputs)


def element_name(dtype: np.dtype) -> str:
    return next(name for name, d in DTYPES.items() if d == dtype)


def to_attr(value: Any) -> ir.Attribute:
    """A Python attribute value in the form the versa ops take."""
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, list):
        return ir.DenseI64ArrayAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F32Type.get(), value)
    return ir.StringAttr.get(value)


def single_op(
    op: str,
    inputs: list[np.ndarray],
    attrs: dict[str, Any],
    out_element: str,
    out_shape: tuple[int, ...] | None,
) -> tuple[str, dict[str, Any], tuple[int, ...]]:
    """`@main` holding one `versa.<op>`, its attributes as Python values, and its shape."""
    cls = OPS[f"versa.{op}"]
    in_types = [tensor_type(x.shape, element_name(x.dtype)) for x in inputs]
    with make_context(), ir.Location.unknown():
        ir_attrs = {k: to_attr(v) for k, v in attrs.items()}
        parsed = parse_attrs(cls.ATTRS, ir_attrs, inputs[0].ndim if inputs else 0)
        shape = tuple(cls.result_shape([x.shape for x in inputs], parsed, out_shape))
        attr_text = ", ".join(f"{k} = {v}" for k, v in ir_attrs.items())
    out_type = tensor_type(shape, out_element)
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(in_types))
    operands = ", ".join(f"%arg{i}" for i in range(len(inputs)))
    text = (
        f"func.func @main({args}) -> {out_type} attributes {{llvm.emit_c_interface}} {{\n"
        f'  %0 = "versa.{op}"({operands}) {{{attr_text}}} : ({", ".join(in_types)}) -> '
        f"{out_type}\n  return %0 : {out_type}\n}}\n"
    )
    return text, parsed, shape


# ----------------------------------------------------------------------------- inputs

RNG_SEED = 0


def make_input(shape: tuple[int, ...], kind: str, rng: np.random.Generator) -> np.ndarray:
    """`kind`: normal | positive | nonzero | small (integers as floats) | halves | wide | nan (normal,
    a fifth NaN) | f16 | f16small | i32 | i32nz | i8 | i64 | i64big (beyond 32 bits) | bool |
    idx32 | idx64 (indices in [-12, 12): negative and out of range for short dims)."""
    if kind == "normal":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "positive":
        return rng.uniform(0.1, 4.0, shape).astype(np.float32)
    if kind == "nonzero":
        return (rng.choice([-1, 1], shape) * rng.uniform(0.5, 2.0, shape)).astype(np.float32)
    if kind == "small":
        return rng.integers(-4, 5, shape).astype(np.float32)
    if kind == "halves":  # multiples of 0.5 in [-5, 5]: rounding ties, and integers
        return (rng.integers(-10, 11, shape) / 2).astype(np.float32)
    if kind == "f16":
        return rng.standard_normal(shape).astype(np.float16)
    if kind == "f16small":
        return rng.integers(-4, 5, shape).astype(np.float16)
    if kind == "wide":
        return rng.uniform(-100.0, 100.0, shape).astype(np.float32)
    if kind == "nan":
        x = rng.integers(-3, 4, shape).astype(np.float32)
        return np.where(rng.random(shape) < 0.2, np.float32(np.nan), x)
    if kind == "i32nz":
        return (rng.choice([-1, 1], shape) * rng.integers(1, 20, shape)).astype(np.int32)
    if kind == "i8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    if kind == "i64":
        return rng.integers(-300, 300, shape).astype(np.int64)
    if kind == "u8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    if kind == "qscale":
        return rng.uniform(0.01, 0.05, shape).astype(np.float32)
    if kind == "acc":
        return rng.integers(-(2**20), 2**20, shape).astype(np.int32)
    if kind == "i64big":
        return rng.integers(-(2**40), 2**40, shape).astype(np.int64)
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind in ("idx32", "idx64"):
        return rng.integers(-12, 12, shape).astype(np.int32 if kind == "idx32" else np.int64)
    return rng.integers(-300, 300, shape).astype(np.int32)


def case(
    op: str,
    *shapes: tuple[int, ...],
    kinds: str | tuple[str, ...] = "normal",
    out: str | None = None,
    shape: tuple[int, ...] | None = None,
    id: str = "",
    **attrs: Any,
) -> Any:
    """One op test: operand shapes, their input kinds (one, or one per operand), attributes."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,) * len(shapes)
    return pytest.param(op, shapes, kinds, out, shape, attrs, id=f"{op}-{id}" if id else op)


ELEMENTWISE = [
    case("add", (2, 1, 4), (3, 1), id="broadcast"),
    case("add", (), (3,), id="rank0"),
    case("sub", (3, 4), (4,)),
    case("mul", (2, 3), (2, 3)),
    case("div", (3, 4), (3, 1), kinds=("normal", "nonzero")),
    case("max", (1, 4), (3, 1)),
    case("min", (3, 4), (4,)),
    case("pow", (3, 4), (4,), kinds=("positive", "normal")),
    case("add", (2, 3), (3,), kinds="i32", id="i32"),
    case("sub", (2, 3), (2, 1), kinds="i32", id="i32"),
    case("mul", (4,), (4,), kinds="i32", id="i32"),
    case("div", (2, 4), (4,), kinds=("i32", "i32nz"), id="i32"),
    case("max", (2, 3), (3,), kinds="i32", id="i32"),
    case("min", (2, 3), (2, 1), kinds="i32", id="i32"),
    case("neg", (3, 4)),
    case("neg", (5,), kinds="i32", id="i32"),
    case("abs", (3, 4)),
    case("abs", (5,), kinds="i32", id="i32"),
    case("relu", (3, 4)),
    case("relu", (5,), kinds="i32", id="i32"),
    case("exp", (3, 4)),
    case("exp", (), id="rank0"),
    case("log", (3, 4), kinds="positive"),
    case("sqrt", (3, 4), kinds="positive"),
    case("rsqrt", (3, 4), kinds="positive"),
    case("tanh", (3, 4)),
    case("sigmoid", (3, 4)),
    case("erf", (3, 4)),
    case("gelu", (3, 4), id="none"),
    case("gelu", (3, 4), approximate="tanh", id="tanh"),
    case("clamp", (3, 4), min=-0.5, max=0.5),
    case("clamp", (3, 4), min=0.25, id="min_only"),
    case("clamp", (3, 4), max=0.25, id="max_only"),
    case("cast", (3, 4), kinds="wide", out="i32", id="f32_to_i32"),
    case("cast", (3, 4), kinds="i32", out="f32", id="i32_to_f32"),
    case("cast", (3, 4), kinds="i32", out="i8", id="i32_to_i8"),
    case("cast", (3, 4), out="f16", id="f32_to_f16"),
    case("add", (2, 3), (3,), kinds="f16", id="f16"),
    case("gelu", (3, 4), kinds="f16", id="f16"),
]

CONV_ALL = {"strides": [2, 2], "padding": [1, 2, 0, 1], "dilations": [2, 2], "groups": 2}
STRUCTURED = [
    case("matmul", (3, 5), (5, 4), kinds="small"),
    case("matmul", (2, 3, 5), (2, 5, 4), kinds="small", id="batch"),
    case("matmul", (2, 3, 5), (5, 4), kinds="small", id="rank_broadcast"),
    case("matmul", (2, 1, 3, 5), (4, 5, 2), kinds="small", id="batch_broadcast"),
    case("matmul", (1, 3, 5), (4, 5, 2), kinds="small", id="batch_size1"),
    case("conv2d", (1, 3, 8, 8), (4, 3, 3, 3), kinds="small"),
    case(
        "conv2d",
        (1, 3, 9, 8),
        (4, 3, 3, 2),
        kinds="small",
        strides=[2, 1],
        padding=[1, 2, 0, 1],
        id="stride_padding",
    ),
    case("conv2d", (1, 2, 9, 9), (3, 2, 3, 3), kinds="small", dilations=[2, 1], id="dilation"),
    case("conv2d", (2, 4, 9, 8), (6, 2, 3, 2), kinds="small", **CONV_ALL, id="groups_all"),
    case("conv2d", (1, 4, 6, 6), (4, 1, 3, 3), kinds="small", groups=4, padding=[1, 1, 1, 1], id="depthwise"),
    case("conv2d", (1, 8, 8, 3), (3, 3, 3, 4), kinds="small", layout="NHWC", id="nhwc"),
    case(
        "conv2d", (2, 9, 8, 4), (3, 2, 2, 6), kinds="small", layout="NHWC", **CONV_ALL, id="nhwc_groups_all"
    ),
    case("max_pool2d", (1, 2, 6, 6), kernel=[2, 2], strides=[2, 2]),
    case("max_pool2d", (1, 2, 7, 6), kernel=[3, 2], strides=[2, 1], padding=[1, 1, 2, 0], id="padding"),
    case(
        "max_pool2d",
        (2, 7, 6, 3),
        kernel=[3, 3],
        strides=[2, 2],
        padding=[1, 1, 1, 1],
        layout="NHWC",
        id="nhwc",
    ),
    case("avg_pool2d", (1, 2, 6, 6), kinds="small", kernel=[2, 2], strides=[2, 2]),
    case(
        "avg_pool2d",
        (1, 2, 7, 6),
        kinds="small",
        kernel=[3, 2],
        strides=[2, 1],
        padding=[1, 1, 2, 0],
        id="padding",
    ),
    case(
        "avg_pool2d",
        (2, 7, 6, 3),
        kinds="small",
        kernel=[3, 3],
        strides=[2, 2],
        padding=[1, 1, 1, 1],
        layout="NHWC",
        id="nhwc",
    ),
    case("avg_pool2d", (1, 2, 7, 6), kinds="f16", kernel=[3, 2], padding=[1, 1, 2, 0], id="f16"),
    case("reduce_sum", (3, 4, 5), kinds="small", axes=[1]),
    case("reduce_sum", (3, 4, 5), kinds="small", axes=[0, 2], keepdims=True, id="keepdims"),
    case("reduce_sum", (3, 4, 5), kinds="small", axes=[-1], keepdims=True, id="negative_axis"),
    case("reduce_sum", (3, 4), kinds="small", axes=[0, 1], id="to_rank0"),
    case("reduce_sum", (3, 4), kinds="i32", axes=[1], id="i32"),
    case("reduce_max", (3, 4, 5), axes=[-1]),
    case("reduce_max", (3, 4, 5), axes=[0, 1], keepdims=True, id="keepdims"),
    case("reduce_max", (3, 4), kinds="i32", axes=[0], id="i32"),
    case("reduce_mean", (3, 4, 5), kinds="small", axes=[1, 2]),
    case("reduce_mean", (3, 4, 5), kinds="small", axes=[-2], keepdims=True, id="keepdims"),
    case("softmax", (3, 5), axis=-1),
    case("softmax", (3, 4, 2), axis=0, id="axis0"),
    case("softmax", (3, 5), kinds="f16", axis=-1, id="f16"),
    case("layer_norm", (3, 8), (8,), (8,), axis=-1, epsilon=1e-5),
    case("layer_norm", (2, 3, 4), (3, 4), (3, 4), axis=1, epsilon=1e-3, id="two_dims"),
    case(
        "batch_norm",
        (2, 3, 4, 5),
        (3,),
        (3,),
        (3,),
        (3,),
        kinds=("normal", "normal", "normal", "normal", "positive"),
        epsilon=1e-5,
    ),
    case(
        "batch_norm",
        (2, 4, 5, 3),
        (3,),
        (3,),
        (3,),
        (3,),
        kinds=("normal", "normal", "normal", "normal", "positive"),
        epsilon=1e-3,
        layout="NHWC",
        id="nhwc",
    ),
]

DATA_MOVEMENT = [
    case("transpose", (2, 3, 4), perm=[2, 0, 1]),
    case("transpose", (2, 3), kinds="i32", perm=[1, 0], id="i32"),
    case("reshape", (2, 3, 4), shape=(6, 4)),
    case("reshape", (6,), shape=(2, 3), id="expand"),
    case("reshape", (2, 3), shape=(6,), id="collapse"),
    case("reshape", (4, 6), shape=(2, 3, 4), id="regroup"),
    case("reshape", (1, 1), shape=(), id="to_rank0"),
    case("reshape", (), shape=(1, 1), id="from_rank0"),
    case("broadcast_to", (3, 1), shape=(2, 3, 4)),
    case("broadcast_to", (), shape=(2, 2), id="rank0"),
    case("concat", (2, 3), (2, 1), (2, 1), axis=1, id="three_inputs"),
    case("concat", (2, 3), (4, 3), kinds="i32", axis=-2, id="negative_axis_i32"),
    case("slice", (6, 5), starts=[1, 0], limits=[5, 4], strides=[2, 3], id="strides"),
    case("slice", (3, 4, 5), starts=[0, 1, 2], limits=[3, 3, 5]),
    case("pad", (2, 3), low=[1, 0], high=[0, 2], value=1.5),
    case("pad", (2, 3), kinds="i32", low=[0, 1], high=[2, 0], value=7.0, id="i32"),
]

# i64 and i1 through the existing ops (arithmetic on i64; data movement on both), and casts
# between every kind of element type (bf16 has no NumPy type: test_casts_through_bf16).
WIDE_TYPES = [
    case("add", (2, 1, 5), (3, 1), kinds="i64big", id="i64"),
    case("sub", (3, 5), (5,), kinds="i64big", id="i64"),
    case("mul", (3, 5), (3, 1), kinds="i64", id="i64"),
    case("max", (3, 5), (5,), kinds="i64big", id="i64"),
    case("min", (1, 5), (3, 1), kinds="i64big", id="i64"),
    case("neg", (7,), kinds="i64big", id="i64"),
    case("abs", (7,), kinds="i64big", id="i64"),
    case("reduce_sum", (3, 7), kinds="i64big", axes=[1], id="i64"),
    case("transpose", (2, 3, 5), kinds="bool", perm=[2, 0, 1], id="i1"),
    case("transpose", (3, 5), kinds="i64big", perm=[1, 0], id="i64"),
    case("reshape", (2, 3, 5), kinds="bool", shape=(5, 6), id="i1"),
    case("broadcast_to", (3, 1), kinds="bool", shape=(2, 3, 5), id="i1"),
    case("concat", (2, 3), (2, 5), kinds="bool", axis=1, id="i1"),
    case("concat", (2, 3), (1, 3), kinds="i64big", axis=0, id="i64"),
    case("slice", (6, 5), kinds="bool", starts=[1, 0], limits=[5, 4], strides=[2, 3], id="i1"),
    case("slice", (6, 5), kinds="i64big", starts=[1, 1], limits=[6, 5], id="i64"),
    case("pad", (2, 3), kinds="bool", low=[1, 0], high=[0, 2], value=1.0, id="i1"),
    case("pad", (2, 3), kinds="i64big", low=[0, 1], high=[2, 0], value=-7.0, id="i64"),
    case("cast", (3, 5), kinds="wide", out="i64", id="f32_to_i64"),
    case("cast", (3, 5), kinds="i64big", out="f32", id="i64_to_f32"),
    case("cast", (3, 5), kinds="i64big", out="i32", id="i64_to_i32"),
    case("cast", (3, 5), kinds="i32", out="i64", id="i32_to_i64"),
    case("cast", (3, 5), kinds="i8", out="i64", id="i8_to_i64"),
    case("cast", (3, 5), kinds="i64", out="f16", id="i64_to_f16"),
    case("cast", (3, 5), kinds="f16", out="i64", id="f16_to_i64"),
    case("cast", (3, 5), kinds="nan", out="i1", id="f32_to_i1"),
    case("cast", (3, 5), kinds="f16small", out="i1", id="f16_to_i1"),
    case("cast", (3, 5), kinds="small", out="i1", id="f32_to_i1_zeros"),
    case("cast", (3, 5), kinds="i64", out="i1", id="i64_to_i1"),
    case("cast", (3, 5), kinds="i8", out="i1", id="i8_to_i1"),
    case("cast", (3, 5), kinds="bool", out="f32", id="i1_to_f32"),
    case("cast", (3, 5), kinds="bool", out="f16", id="i1_to_f16"),
    case("cast", (3, 5), kinds="bool", out="i64", id="i1_to_i64"),
    case("cast", (3, 5), kinds="bool", out="i8", id="i1_to_i8"),
    case("cast", (3, 5), kinds="i32", out="i1", id="i32_to_i1"),
]

# sin ... sign (dialects/ops_math.py): polynomials at O1 and up, libm at O0; ties, NaN, f16, i32.
MATH = [
    case("sin", (3, 37), kinds="wide"),
    case("cos", (3, 37), kinds="wide"),
    case("tan", (3, 37)),
    case("atan", (3, 37), kinds="wide"),
    case("log1p", (3, 37), kinds="positive"),
    case("expm1", (3, 37)),
    case("floor", (3, 37), kinds="halves"),
    case("ceil", (3, 37), kinds="halves"),
    case("round", (3, 37), kinds="halves"),
    case("trunc", (3, 37), kinds="halves"),
    case("sign", (3, 37), kinds="nan"),
    case("sign", (3, 37), kinds="i32", id="i32"),
    case("sin", (3, 37), kinds="f16", id="f16"),
    case("round", (3, 37), kinds="f16", id="f16"),
]

# compare, select, and, or, not: NumPy broadcasting, NaN, every predicate, i1 operands.
LOGICAL = [
    *[
        case("compare", (3, 1, 5), (4, 5), kinds="nan", out="i1", predicate=p, id=f"{p}_nan")
        for p in ("eq", "ne", "lt", "le", "gt", "ge")
    ],
    case("compare", (3, 5), (5,), kinds="i32", out="i1", predicate="le", id="i32"),
    case("compare", (3, 5), (3, 1), kinds="i64big", out="i1", predicate="gt", id="i64"),
    case("compare", (2, 5), (5,), kinds="bool", out="i1", predicate="lt", id="i1_lt"),
    case("compare", (2, 5), (2, 1), kinds="bool", out="i1", predicate="ge", id="i1_ge"),
    case("compare", (), (7,), kinds="f16small", out="i1", predicate="ne", id="f16_rank0"),
    case("select", (3, 1), (3, 7), (7,), kinds=("bool", "nan", "normal"), out="f32", id="broadcast"),
    case("select", (2, 1, 5), (), (3, 1), kinds=("bool", "i64big", "i64big"), out="i64", id="i64"),
    case("select", (5,), (5,), (2, 5), kinds="bool", out="i1", id="i1"),
    case("and", (3, 5), (5,), kinds="bool", id="i1"),
    case("or", (3, 1), (1, 5), kinds="bool", id="i1"),
    case("not", (3, 7), kinds="bool", id="i1"),
    case("and", (3, 5), (5,), kinds="i32", id="i32"),
    case("or", (3, 5), (3, 1), kinds="i64big", id="i64"),
    case("not", (9,), kinds="i64big", id="i64"),
]

# gather (embeddings, index_select, negative and out-of-range indices), scatter (rows and
# elements, every reduction, duplicate and dropped indices), iota, reduce_argmax
# (ties, NaN), cumsum (odd sizes, every axis, integer wrap-around) and conv_transpose2d.
INDEXING = [
    case("gather", (7, 5), (2, 3), kinds=("normal", "idx64"), axis=0, id="embedding"),
    case("gather", (3, 7, 5), (4,), kinds=("normal", "idx32"), axis=1, id="index_select"),
    case("gather", (3, 5), (2, 2), kinds=("i64big", "idx64"), axis=-1, id="last_axis_i64"),
    case("gather", (6, 3), (), kinds=("bool", "idx32"), axis=0, id="rank0_indices_i1"),
    case("gather", (9,), (4, 5), kinds=("f16", "idx64"), axis=0, id="f16"),
    case(
        "scatter", (13, 5), (9, 1), (9, 5), kinds=("small", "idx64", "small"), reduction="add", id="add_rows"
    ),
    case("scatter", (4, 6), (3, 2, 2), (3, 2), kinds=("i32", "idx32", "i32"), id="elements_i32"),
    case(
        "scatter",
        (7, 3, 4),
        (5, 2),
        (5, 4),
        kinds=("f16small", "idx64", "f16small"),
        reduction="max",
        id="max_f16",
    ),
    case(
        "scatter", (9,), (4, 3, 1), (4, 3), kinds=("i64big", "idx64", "i64big"), reduction="min", id="min_i64"
    ),
    case("scatter", (5, 4), (3, 1), (3, 4), kinds=("bool", "idx32", "bool"), id="rows_i1"),
    case("iota", out="i64", shape=(3, 37), axis=1),
    case("iota", out="f32", shape=(37, 3), axis=0, id="f32"),
    case("iota", out="i32", shape=(2, 5, 3), axis=-2, id="i32_rank3"),
    case("iota", out="i8", shape=(300,), axis=0, id="i8_wraps"),
    case("iota", out="f16", shape=(4, 19), axis=1, id="f16"),
    case("reduce_argmax", (3, 7), kinds="small", out="i64", axis=1),
    case("reduce_argmax", (3, 5, 4), kinds="small", out="i64", axis=0, keepdims=True, id="axis0_keepdims"),
    case("reduce_argmax", (4, 6), kinds="nan", out="i64", axis=-1, id="nan"),
    case("reduce_argmax", (9,), kinds="i32", out="i64", axis=0, id="i32_to_rank0"),
    case("reduce_argmax", (3, 11), kinds="f16small", out="i64", axis=1, keepdims=True, id="f16"),
    case("reduce_argmax", (2, 3, 5), kinds="i64big", out="i64", axis=-2, id="i64"),
    case("cumsum", (3, 7), kinds="small", axis=1),
    case("cumsum", (5, 3, 4), kinds="small", axis=0, id="axis0"),
    case("cumsum", (2, 9, 3), kinds="small", axis=-2, id="middle"),
    case("cumsum", (4, 13), kinds="i64big", axis=1, id="i64"),
    case("cumsum", (3, 50), kinds="i8", axis=1, id="i8_wraps"),
    case("cumsum", (7,), kinds="i32", axis=0, id="i32_rank1"),
    case("cumsum", (3, 40), kinds="f16small", axis=1, id="f16"),
    case("conv_transpose2d", (1, 3, 4, 5), (3, 2, 3, 3), kinds="small"),
    case(
        "conv_transpose2d",
        (2, 4, 5, 3),
        (4, 3, 3, 2),
        kinds="small",
        strides=[2, 3],
        padding=[1, 0, 2, 1],
        output_padding=[1, 2],
        groups=2,
        id="all",
    ),
    case(
        "conv_transpose2d",
        (1, 2, 5, 5),
        (2, 3, 2, 3),
        kinds="small",
        dilations=[2, 1],
        padding=[3, 3, 0, 1],
        id="dilation_crop",
    ),
    case(
        "conv_transpose2d",
        (1, 3, 4, 4),
        (3, 1, 3, 3),
        kinds="small",
        groups=3,
        strides=[2, 2],
        id="depthwise",
    ),
    case("conv_transpose2d", (1, 2, 3, 4), (2, 2, 2, 2), kinds="f16small", strides=[2, 2], id="f16"),
]

# quantize, dequantize, requantize (per tensor, per channel, i8 and ui8, ties, saturation) and
# the integer contractions qmatmul and qconv2d (dialects/ops_quant.py); more in test_quant.py.
Q8 = ("i8", "i8", "i8", "i8")
QUANTIZED = [
    case("quantize", (3, 37), (), (), kinds=("normal", "qscale", "i8"), out="i8"),
    case(
        "quantize",
        (3, 37),
        (37,),
        (37,),
        kinds=("normal", "qscale", "u8"),
        out="ui8",
        axis=1,
        id="per_channel_u8",
    ),
    case("quantize", (4, 9), (), (), kinds=("halves", "positive", "i8"), out="i8", id="ties"),
    case("dequantize", (3, 37), (), (), kinds=("i8", "qscale", "i8"), out="f32"),
    case(
        "dequantize",
        (5, 37),
        (5,),
        (5,),
        kinds=("u8", "qscale", "u8"),
        out="f32",
        axis=0,
        id="per_channel_u8",
    ),
    case("requantize", (3, 37), (), (), kinds=("acc", "qscale", "i8"), out="i8"),
    case(
        "requantize",
        (2, 3, 37),
        (37,),
        (37,),
        kinds=("acc", "qscale", "u8"),
        out="ui8",
        axis=-1,
        min=20,
        max=240,
        id="per_channel_clamp_u8",
    ),
    case("qmatmul", (3, 37), (37, 5), (), (), kinds=Q8, out="i32"),
    case("qmatmul", (3, 37), (37, 5), (), (), kinds=("u8", "i8", "u8", "i8"), out="i32", id="u8_i8"),
    case("qmatmul", (2, 3, 37), (2, 37, 5), (), (), kinds=Q8, out="i32", id="batch"),
    case(
        "qmatmul", (2, 3, 19), (19, 5), (), (), kinds=("i8", "u8", "i8", "u8"), out="i32", id="rank_broadcast"
    ),
    case(
        "qconv2d",
        (1, 3, 9, 8),
        (4, 3, 3, 2),
        (),
        (),
        kinds=Q8,
        out="i32",
        strides=[2, 1],
        padding=[1, 2, 0, 1],
    ),
    case(
        "qconv2d",
        (1, 8, 7, 5),
        (3, 3, 5, 4),
        (),
        (),
        kinds=("u8", "i8", "u8", "i8"),
        out="i32",
        layout="NHWC",
        padding=[1, 1, 1, 1],
        id="nhwc_u8",
    ),
    case("qconv2d", (2, 4, 9, 8), (6, 2, 3, 2), (), (), kinds=Q8, out="i32", **CONV_ALL, id="groups_all"),
    case(
        "qconv2d",
        (2, 9, 8, 4),
        (3, 2, 2, 6),
        (),
        (),
        kinds=("u8", "u8", "u8", "u8"),
        out="i32",
        layout="NHWC",
        **CONV_ALL,
        id="nhwc_groups_u8",
    ),
    case(
        "qconv2d",
        (1, 6, 6, 5),
        (3, 3, 1, 5),
        (),
        (),
        kinds=Q8,
        out="i32",
        layout="NHWC",
        groups=5,
        padding=[1, 1, 1, 1],
        id="depthwise_nhwc",
    ),
]


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3], ids=["O0", "O1", "O2", "O3"])
@pytest.mark.parametrize(
    ("op", "shapes", "kinds", "out", "shape", "attrs"), WIDE_TYPES + LOGICAL + INDEXING + MATH + QUANTIZED
)
def test_new_op_matches_reference(
    op: str,
    shapes: tuple,
    kinds: tuple,
    out: str | None,
    shape: tuple | None,
    attrs: dict[str, Any],
    opt_level: int,
) -> None:
    """The logic, indexing and math ops and the i64/i1 element types at every optimisation level:
    scalar loops (O0), vectorized elementwise code (O1), codegen strategies (O2), threads (O3)."""
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
    out = out or element_name(inputs[0].dtype)
    text, parsed, result_shape = single_op(op, inputs, attrs, out, shape)
    want = evaluate(op, inputs, parsed, result_shape, DTYPES[out])
    (got,) = compile_and_run(text, inputs, opt_level)
    check(op, got, want)


@pytest.mark.parametrize(
    ("op", "shapes", "kinds", "out", "shape", "attrs"), ELEMENTWISE + STRUCTURED + DATA_MOVEMENT
)
def test_op_matches_reference(
    op: str, shapes: tuple, kinds: tuple, out: str | None, shape: tuple | None, attrs: dict[str, Any]
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
    out = out or element_name(inputs[0].dtype)
    text, parsed, result_shape = single_op(op, inputs, attrs, out, shape)
    want = evaluate(op, inputs, parsed, result_shape, DTYPES[out])
    (got,) = compile_and_run(text, inputs)
    check(op, got, want)


def check(op: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    if np.issubdtype(want.dtype, np.integer) or want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
        return
    if want.dtype == np.float16:  # every f16 op rounds, the reference rounds once
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-3)
        return
    rtol = 1e-4 if op in TRANSCENDENTAL else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize(
    "value",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
        np.full((3,), 4.25, np.float32),
        np.array([[7, -8]], np.int32),
        np.array([2**40, -3, 0], np.int64),
        np.array([[True, False, True], [False, False, True]]),
        np.full((5,), True),
    ],
    ids=["dense", "splat", "i32", "i64", "i1", "i1_splat"],
)
def test_constant(value: np.ndarray) -> None:
    out = element_name(value.dtype)
    t = tensor_type(value.shape, out)
    with make_context():
        attr = str(ir.DenseElementsAttr.get(value))
    text = (
        f"func.func @main() -> {t} attributes {{llvm.emit_c_interface}} {{\n"
        f'  %0 = "versa.constant"() {{value = {attr}}} : () -> {t}\n  return %0 : {t}\n}}\n'
    )
    (got,) = compile_and_run(text, [])
    np.testing.assert_array_equal(got, value)


# ----------------------------------------------------------------------------- versa.fused

FUSED_ELEMENTWISE = """
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
    attributes {llvm.emit_c_interface} {
  %0:3 = "versa.fused"() ({
    %two = "versa.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %w = "versa.constant"() {value = dense<[1.0, -1.0, 0.5, 0.0]> : tensor<4xf32>}
        : () -> tensor<4xf32>
    %1 = "versa.add"(%a, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %2 = "versa.mul"(%1, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
    %3 = "versa.exp"(%c) : (tensor<3x1xf32>) -> tensor<3x1xf32>
    %4 = "versa.max"(%2, %3) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %5 = "versa.sub"(%4, %w) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    "versa.yield"(%5, %1, %a) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> ()
  }) {kind = "elementwise"} : () -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
"""

FUSED_EPILOGUE = """
func.func @main(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %bias: tensor<4xf32>)
    -> tensor<3x4xf32> attributes {llvm.emit_c_interface} {
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %b) : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    %2 = "versa.add"(%1, %bias) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %3 = "versa.relu"(%2) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    "versa.yield"(%3) : (tensor<3x4xf32>) -> ()
  }) {kind = "epilogue"} : () -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
"""

FUSED_REDUCTION = """
func.func @main(%a: tensor<3x5xf32>, %b: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>)
    attributes {llvm.emit_c_interface} {
  %0:2 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
    %2 = "versa.softmax"(%1) {axis = 1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
    "versa.yield"(%2, %a) : (tensor<3x5xf32>, tensor<3x5xf32>) -> ()
  }) {kind = "reduction"} : () -> (tensor<3x5xf32>, tensor<3x5xf32>)
  return %0#0, %0#1 : tensor<3x5xf32>, tensor<3x5xf32>
}
"""


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(
    ("text", "shapes", "reference"),
    [
        pytest.param(
            FUSED_ELEMENTWISE,
            [(2, 3, 4), (4,), (3, 1)],
            lambda a, b, c: [np.maximum((a + b) * 2, np.exp(c)) - [1, -1, 0.5, 0], a + b, a],
            id="elementwise",
        ),
        pytest.param(
            FUSED_EPILOGUE,
            [(3, 5), (5, 4), (4,)],
            lambda a, b, bias: [np.maximum(a @ b + bias, 0)],
            id="epilogue",
        ),
        pytest.param(FUSED_REDUCTION, [(3, 5), (5,)], lambda a, b: [_softmax(a + b), a], id="reduction"),
    ],
)
def test_fused(text: str, shapes: list[tuple[int, ...]], reference: Any) -> None:
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, "small", rng) for s in shapes]
    got = compile_and_run(text, inputs)
    want = reference(*(x.astype(np.float64) for x in inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


NOT_BROADCASTING = """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "versa.exp"(%b) : (tensor<8xf32>) -> tensor<8xf32>
    "versa.yield"(%2) : (tensor<8xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""


def test_fused_elementwise_refuses_an_op_wider_than_the_group() -> None:
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(NOT_BROADCASTING)
        with pytest.raises(PassError, match=r"result shape \[4, 8\] does not broadcast") as err:
            ConvertVersaToLinalg().run(module.operation)
        assert str(err.value.location) == 'loc("-":4:10)'  # the versa.add


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3], ids=["O0", "O1", "O2", "O3"])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_division_where_the_hardware_traps(dtype: type, opt_level: int) -> None:
    """a / 0 is 0 and MIN / -1 is MIN (NumPy's results), not a SIGFPE from x86 `idiv`; the rest
    truncates toward zero. 17 elements: a vector and a remainder."""
    t = f"tensor<17x{element_name(np.dtype(dtype))}>"
    text = f"""
func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = "versa.div"(%a, %b) : ({t}, {t}) -> {t}
  return %0 : {t}
}}"""
    low = np.iinfo(dtype).min
    a = np.array([7, -7, 7, -7, 5, low, low, low, 0, 9, -9, 100, 1, -1, low, 3, 8], dtype)
    b = np.array([2, 2, -2, -2, 0, -1, 0, 1, 0, -3, 4, 7, 0, 0, 2, 5, -1], dtype)
    (got,) = compile_and_run(text, [a, b], opt_level)
    with np.errstate(all="ignore"):
        (want,) = reference(text, [a, b])
    np.testing.assert_array_equal(got, want)
    assert got[4] == 0 and got[5] == low and got[0] == 3 and got[1] == -3


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
def test_f16_softmax_sums_in_f32(opt_level: int) -> None:
    """A 3000-long f16 row summed in half precision drops the small terms (rows summed to 1.05,
    10% off): softmax on f16 computes in f32 and rounds once, as PyTorch does. Every output is
    within two f16 roundings of the float64 result, or a subnormal step (2^-24)."""
    t = "tensor<4x3000xf16>"
    text = f"""
func.func @main(%x: {t}) -> {t} {{
  %0 = "versa.softmax"(%x) {{axis = 1 : i64}} : ({t}) -> {t}
  return %0 : {t}
}}"""
    x = np.random.default_rng(RNG_SEED).integers(-4, 5, (4, 3000)).astype(np.float16)
    (got,) = compile_and_run(text, [x], opt_level)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=2 * 2.0**-11, atol=2.0**-24)


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
def test_f16_batch_norm_computes_in_f32(opt_level: int) -> None:
    """batch_norm on f16 computes in f32 and rounds once, as PyTorch does: each output is within
    one f16 rounding of the float64 result (in f16 arithmetic, five roundings stack and eps
    vanishes beside the variance)."""
    t, c = "tensor<2x3x4x5xf16>", "tensor<3xf16>"
    text = f"""
func.func @main(%x: {t}, %s: {c}, %b: {c}, %m: {c}, %v: {c}) -> {t} {{
  %0 = "versa.batch_norm"(%x, %s, %b, %m, %v) {{epsilon = 1.0e-02 : f32}} : ({t}, {c}, {c}, {c}, {c}) -> {t}
  return %0 : {t}
}}"""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.uniform(90, 110, (2, 3, 4, 5)).astype(np.float16)
    scale, bias = rng.uniform(0.5, 3, 3).astype(np.float16), rng.uniform(-1, 1, 3).astype(np.float16)
    mean, var = np.full(3, 100, np.float16), rng.uniform(0.3, 3, 3).astype(np.float16)
    (got,) = compile_and_run(text, [x, scale, bias, mean, var], opt_level)
    per_channel = [a.astype(np.float64).reshape(1, 3, 1, 1) for a in (scale, bias, mean, var)]
    s, b, m, v = per_channel
    want = (x.astype(np.float64) - m) / np.sqrt(v + 1e-2) * s + b
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11, atol=2.0**-14)


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
@pytest.mark.parametrize(("op", "axes"), [("reduce_sum", [1]), ("reduce_sum", [0, 1]), ("reduce_mean", [1])])
def test_f16_sums_accumulate_in_f32(op: str, axes: list[int], opt_level: int) -> None:
    """An f16 accumulator stops growing once the sum's ulp exceeds the terms (a row of 4096
    values near 1 summed to 2048 or so): reduce_sum/mean over f16 sum in f32 and round once,
    as PyTorch does. Each output is within one f16 rounding of the float64 result."""
    t, kept = "tensor<3x4096xf16>", "tensor<3xf16>" if axes == [1] else "tensor<f16>"
    text = f"""
func.func @main(%x: {t}) -> {kept} {{
  %0 = "versa.{op}"(%x) {{axes = array<i64: {", ".join(map(str, axes))}>, keepdims = false}} : ({t}) -> {kept}
  return %0 : {kept}
}}"""
    x = np.random.default_rng(RNG_SEED).uniform(0.5, 1.5, (3, 4096)).astype(np.float16)
    (got,) = compile_and_run(text, [x], opt_level)
    reduce = np.mean if op == "reduce_mean" else np.sum
    want = reduce(x.astype(np.float64), axis=tuple(axes))
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11)
