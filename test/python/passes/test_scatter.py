"""versa.scatter (ONNX ScatterND) beyond the single cases of test_lowering_numerics: the NumPy
reference against a plain loop, the compiled op against the reference with many duplicate,
negative and out-of-range indices over shapes, element types and reductions, an input left
untouched, no index rows at all, and the builder's errors."""

import numpy as np
import pytest
from test_lowering_numerics import compile_and_run, tensor_type
from versa.context import make_context
from versa.dialects import builders as vb
from versa.dialects.semantics import evaluate
from versa.dialects.shapes import RuleError
from versa.mlir import func, ir

LOOP = {"add": lambda a, b: a + b, "max": max, "min": min, "none": lambda a, b: b}


def loop_scatter(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str) -> np.ndarray:
    """ScatterND as the op's docstring states it, one element at a time."""
    out, k = x.copy(), indices.shape[-1]
    rows, values = indices.reshape(-1, k), updates.reshape(-1, *x.shape[k:])
    for row, value in zip(rows, values, strict=True):
        at = [int(c) + n if c < 0 else int(c) for c, n in zip(row, x.shape, strict=False)]
        if not all(0 <= c < n for c, n in zip(at, x.shape, strict=False)):
            continue
        for inner in np.ndindex(*x.shape[k:]):
            out[(*at, *inner)] = LOOP[reduction](out[(*at, *inner)], value[inner])
    return out


def indices_with_duplicates(
    rng: np.random.Generator, rows: tuple[int, ...], lead: tuple[int, ...]
) -> np.ndarray:
    """Coordinates drawn from a few values per dim (so rows repeat), a third of them negative,
    and some beyond each dim either way."""
    columns = [rng.choice([0, n - 1, -1, -n, n, -n - 1, n // 2], size=rows) for n in lead]
    return np.stack(columns, axis=-1)


def values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "i1":
        return rng.random(shape) < 0.5
    return rng.integers(-8, 9, shape).astype({"f32": np.float32, "f16": np.float16, "i32": np.int32}[dtype])


def scatter_text(x_shape, i_shape, u_shape, element: str, index: str, reduction: str) -> str:
    x, i, u = tensor_type(x_shape, element), tensor_type(i_shape, index), tensor_type(u_shape, element)
    return (
        f"func.func @main(%x: {x}, %i: {i}, %u: {u}) -> {x} attributes {{llvm.emit_c_interface}} {{\n"
        f'  %0 = "versa.scatter"(%x, %i, %u) {{reduction = "{reduction}"}} : ({x}, {i}, {u}) -> {x}\n'
        f"  return %0 : {x}\n}}\n"
    )


CASES = [
    # (x shape, index rows, k, element, index type, reduction)
    ((30, 16), (40,), 1, "f32", "i64", "add"),  # an embedding gradient
    ((6, 5, 7), (3, 4), 1, "f32", "i32", "max"),  # rank-2 rows, batched index rows
    ((6, 5, 7), (9,), 2, "f16", "i64", "add"),  # two coordinates, rows of 7
    ((4, 5), (3, 3), 2, "i32", "i64", "min"),  # full coordinates: one element per row
    ((4, 5), (11,), 2, "f32", "i32", "none"),  # last of duplicates wins
    ((8, 33), (12,), 1, "i1", "i64", "none"),  # i1 rows (never vector code)
    ((5,), (7, 2), 1, "f32", "i64", "add"),  # rank-1 input: scalar rows
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{'x'.join(map(str, c[0]))}-k{c[2]}-{c[3]}-{c[5]}")
def test_reference_matches_a_plain_loop(case) -> None:
    shape, rows, k, element, _, reduction = case
    rng = np.random.default_rng(1)
    i = indices_with_duplicates(rng, rows, shape[:k])
    x, u = values(rng, shape, element), values(rng, (*rows, *shape[k:]), element)
    want = loop_scatter(x, i, u, reduction)
    got = evaluate("scatter", [x, i, u], {"reduction": reduction}, shape, x.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{'x'.join(map(str, c[0]))}-k{c[2]}-{c[3]}-{c[5]}")
def test_compiled_scatter_matches_reference(case, opt_level: int) -> None:
    """Small integers as floats: every sum is exact, so any misplaced or lost row shows."""
    shape, rows, k, element, index, reduction = case
    rng = np.random.default_rng(2)
    i = indices_with_duplicates(rng, rows, shape[:k]).astype(np.int32 if index == "i32" else np.int64)
    x, u = values(rng, shape, element), values(rng, (*rows, *shape[k:]), element)
    text = scatter_text(shape, i.shape, u.shape, element, index, reduction)
    x_before = x.copy()
    (got,) = compile_and_run(text, [x, i, u], opt_level)
    np.testing.assert_array_equal(
        got, evaluate("scatter", [x, i, u], {"reduction": reduction}, shape, x.dtype)
    )
    np.testing.assert_array_equal(x, x_before)  # value semantics: the input is not written


def test_no_index_rows_returns_the_input() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i, u = np.zeros((0, 1), np.int64), np.zeros((0, 4), np.float32)
    (got,) = compile_and_run(scatter_text((3, 4), (0, 1), (0, 4), "f32", "i64", "add"), [x, i, u])
    np.testing.assert_array_equal(got, x)


def test_embedding_gradient_sized_rows_into_zeros() -> None:
    """A vocabulary of 300, rows of 256 (vector code), 2048 tokens, into a zeros constant."""
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 300, (2048, 1))
    grads = rng.integers(-4, 5, (2048, 256)).astype(np.float32)
    text = (
        "func.func @main(%i: tensor<2048x1xi64>, %g: tensor<2048x256xf32>) -> tensor<300x256xf32> "
        "attributes {llvm.emit_c_interface} {\n"
        '  %z = "versa.constant"() {value = dense<0.0> : tensor<300x256xf32>} : () -> tensor<300x256xf32>\n'
        '  %0 = "versa.scatter"(%z, %i, %g) {reduction = "add"} : (tensor<300x256xf32>, tensor<2048x1xi64>, '
        "tensor<2048x256xf32>) -> tensor<300x256xf32>\n  return %0 : tensor<300x256xf32>\n}\n"
    )
    (got,) = compile_and_run(text, [ids, grads])
    want = np.zeros((300, 256), np.float32)
    np.add.at(want, ids[:, 0], grads)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("shapes", "elements", "reduction", "message"),
    [
        (((10, 4), (3, 1), (3, 4)), ("f32", "f32", "f32"), "none", "indices element type must be i32 or i64"),
        (((10, 4), (3, 1), (3, 5)), ("f32", "i64", "f32"), "add", "updates shape [3, 5] must be [3, 4]"),
        (((10, 4), (3, 3), (3,)), ("f32", "i64", "f32"), "add", "indices' last dim 3 must be in [1, 2]"),
        (((10, 4), (3, 1), (3, 4)), ("f32", "i64", "f16"), "add", "updates element type f16 differs"),
        (((10,), (3, 1), (3,)), ("i1", "i64", "i1"), "add", "reduction 'add' needs a numeric element type"),
        (((10,), (3, 1), (3,)), ("f32", "i64", "f32"), "mul", "attribute 'reduction' must be one of"),
    ],
    ids=["index_dtype", "updates_shape", "too_many_coordinates", "updates_dtype", "i1_add", "reduction"],
)
def test_builder_rejects_bad_operands(shapes, elements, reduction: str, message: str) -> None:
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        types = [
            ir.RankedTensorType.get(
                list(s), ir.IntegerType.get_signless(int(e[1:])) if e[0] == "i" else ir.Type.parse(e)
            )
            for s, e in zip(shapes, elements, strict=True)
        ]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", (types, []))
            with ir.InsertionPoint(fn.add_entry_block()):
                x, i, u = fn.arguments
                with pytest.raises(RuleError, match=message.replace("[", r"\[").replace("]", r"\]")):
                    vb.scatter(x, i, u, reduction=reduction)
