"""The i64 and i1 element types and the comparison, logic and indexing ops beyond single-op
cases (those are `WIDE_TYPES`, `LOGICAL` and `INDEXING` in test_lowering_numerics): every cast
pair, i1 across the JIT boundary, extreme gather indices, the elementwise new ops inside
`versa.fused` groups, constants, and the builders of the new ops."""

import re

import numpy as np
import pytest
from conftest import reference
from test_lowering_numerics import DTYPES, RNG_SEED, compile_and_run, tensor_type
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.dialects import builders as vb
from versa.dialects.semantics import evaluate
from versa.dialects.shapes import RuleError
from versa.mlir import func, ir
from versa.passes.optimize.fuse import VersaFuse

OPT_LEVELS = pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
CAST_TYPES = ("f32", "f16", "bf16", "i32", "i8", "i64", "i1")
FLOATS = ("f32", "f16", "bf16")


# ----------------------------------------------------------------------------- casts


def cast_inputs(src: str, dst: str, rng: np.random.Generator) -> np.ndarray:
    """Values of `src` (bf16 as f32) whose conversion to `dst` is specified and, for float
    destinations, exact: floats in range with fractions (and NaN for i1), integers full-width
    (narrowing wraps) unless a float must hold them exactly."""
    n = 45
    if src == "i1":
        return rng.random(n) < 0.5
    if src in FLOATS:
        limit = 255 if "bf16" in (src, dst) else 400  # bf16 holds 8 significant bits
        x = rng.integers(-limit, limit + 1, n) / 4.0
        if dst == "i1":
            x[::5] = 0.0
            x[1] = np.nan
        return x.astype(np.float16 if src == "f16" else np.float32)
    dtype = DTYPES[src]
    if dst == "i1":
        return rng.integers(-3, 4, n).astype(dtype)
    if dst in ("f16", "bf16"):
        return rng.integers(-128, 128, n).astype(dtype)
    info = np.iinfo(dtype)
    limit = 2**24 if dst == "f32" else info.max
    return rng.integers(max(info.min, -limit), min(info.max, limit), n, endpoint=True).astype(dtype)


@OPT_LEVELS
@pytest.mark.parametrize(("src", "dst"), [(s, d) for s in CAST_TYPES for d in CAST_TYPES if s != d])
def test_cast_every_pair(src: str, dst: str, opt_level: int) -> None:
    """float → int truncates toward zero, int → float rounds, → i1 is != 0 (NaN too), i1 → 0/1,
    int ↔ int sign-extends or wraps. bf16 has no NumPy type: it is cast from and to f32 inside
    the function, on values it holds exactly."""
    x = cast_inputs(src, dst, np.random.default_rng(RNG_SEED))
    outer_in, outer_out = ("f32" if t == "bf16" else t for t in (src, dst))
    n = len(x)
    chain, value, current = [], "%x", outer_in
    for target in ([src] if src == "bf16" else []) + [dst] + (["f32"] if dst == "bf16" else []):
        chain.append(
            f'  %{len(chain)} = "versa.cast"({value}) : ({tensor_type((n,), current)}) -> '
            f"{tensor_type((n,), target)}"
        )
        value, current = f"%{len(chain) - 1}", target
    out_type = tensor_type((n,), outer_out)
    text = (
        f"func.func @main(%x: {tensor_type((n,), outer_in)}) -> {out_type} {{\n"
        + "\n".join(chain)
        + f"\n  return {value} : {out_type}\n}}\n"
    )
    (got,) = compile_and_run(text, [x], opt_level)
    with np.errstate(invalid="ignore"):
        want = x.astype(DTYPES[outer_out])  # truncates floats toward zero, wraps integers
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- i1 at the JIT boundary

BOOL_BOUNDARY = """
func.func @main(%m: tensor<37xi1>, %a: tensor<37xf32>) -> (tensor<37xi1>, tensor<37xi1>, tensor<37xi1>) {
  %0 = "versa.not"(%m) : (tensor<37xi1>) -> tensor<37xi1>
  %z = "versa.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "versa.compare"(%a, %z) {predicate = "gt"} : (tensor<37xf32>, tensor<f32>) -> tensor<37xi1>
  return %m, %0, %1 : tensor<37xi1>, tensor<37xi1>, tensor<37xi1>
}
"""


@OPT_LEVELS
def test_i1_crosses_the_jit_as_one_byte_numpy_bool(opt_level: int) -> None:
    """A memref of i1 holds a byte per element, as a NumPy bool array: inputs pass through
    unchanged, results are exactly 0 or 1 (37 elements: vector tails too)."""
    rng = np.random.default_rng(RNG_SEED)
    m, a = rng.random(37) < 0.5, rng.standard_normal(37).astype(np.float32)
    same, negated, positive = compile_and_run(BOOL_BOUNDARY, [m, a], opt_level)
    for got in (same, negated, positive):
        assert got.dtype == np.bool_ and set(np.unique(got.view(np.uint8))) <= {0, 1}
    np.testing.assert_array_equal(same, m)
    np.testing.assert_array_equal(negated, ~m)
    np.testing.assert_array_equal(positive, a > 0)


# ----------------------------------------------------------------------------- gather bounds


@OPT_LEVELS
@pytest.mark.parametrize("index_type", ["i32", "i64"])
def test_gather_wraps_once_then_clamps(index_type: str, opt_level: int) -> None:
    """Negative indices wrap once (i + n); what is still out of [0, n) is clamped: the extremes
    of the index type read row 0 or row n - 1, never outside the table."""
    info = np.iinfo(DTYPES[index_type])
    indices = np.array([info.min, info.max, -8, -7, -1, 0, 3, 6, 7, 1000], DTYPES[index_type])
    rows = [0, 6, 0, 0, 6, 0, 3, 6, 6, 6]
    table = np.arange(21, dtype=np.float32).reshape(7, 3)
    t_table, t_idx, t_out = (
        tensor_type(s, e) for s, e in [((7, 3), "f32"), ((10,), index_type), ((10, 3), "f32")]
    )
    text = (
        f"func.func @main(%t: {t_table}, %i: {t_idx}) -> {t_out} {{\n"
        f'  %0 = "versa.gather"(%t, %i) {{axis = 0 : i64}} : ({t_table}, {t_idx}) -> {t_out}\n'
        f"  return %0 : {t_out}\n}}\n"
    )
    np.testing.assert_array_equal(
        evaluate("gather", [table, indices], {"axis": 0}, (10, 3), np.float32), table[rows]
    )
    (got,) = compile_and_run(text, [table, indices], opt_level)
    np.testing.assert_array_equal(got, table[rows])


# ----------------------------------------------------------------------------- versa.fused

FUSED_LOGIC = """
func.func @main(%a: tensor<3x37xf32>, %b: tensor<37xf32>, %m: tensor<3x1xi1>, %i: tensor<3x37xi64>)
    -> (tensor<3x37xf32>, tensor<3x37xi1>, tensor<3x37xf32>) {
  %0 = "versa.compare"(%a, %b) {predicate = "ge"} : (tensor<3x37xf32>, tensor<37xf32>) -> tensor<3x37xi1>
  %1 = "versa.and"(%0, %m) : (tensor<3x37xi1>, tensor<3x1xi1>) -> tensor<3x37xi1>
  %2 = "versa.not"(%1) : (tensor<3x37xi1>) -> tensor<3x37xi1>
  %3 = "versa.select"(%2, %a, %b) : (tensor<3x37xi1>, tensor<3x37xf32>, tensor<37xf32>) -> tensor<3x37xf32>
  %4 = "versa.cast"(%3) : (tensor<3x37xf32>) -> tensor<3x37xi64>
  %5 = "versa.add"(%4, %i) : (tensor<3x37xi64>, tensor<3x37xi64>) -> tensor<3x37xi64>
  %6 = "versa.compare"(%5, %i) {predicate = "ne"} : (tensor<3x37xi64>, tensor<3x37xi64>) -> tensor<3x37xi1>
  %7 = "versa.or"(%6, %m) : (tensor<3x37xi1>, tensor<3x1xi1>) -> tensor<3x37xi1>
  %z = "versa.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %8 = "versa.compare"(%a, %z) {predicate = "lt"} : (tensor<3x37xf32>, tensor<f32>) -> tensor<3x37xi1>
  %9 = "versa.neg"(%a) : (tensor<3x37xf32>) -> tensor<3x37xf32>
  %10 = "versa.select"(%8, %9, %a) : (tensor<3x37xi1>, tensor<3x37xf32>, tensor<3x37xf32>) -> tensor<3x37xf32>
  return %3, %7, %10 : tensor<3x37xf32>, tensor<3x37xi1>, tensor<3x37xf32>
}
"""


def test_versa_fuse_groups_the_logic_ops() -> None:
    """compare/and/not/select, cast/add/compare/or and compare/neg/select (an i1 only in
    registers: |a|) each become one elementwise group."""
    with make_context() as ctx, ir.Location.unknown():
        module = compiler.parse_module(compiler.Chunk(FUSED_LOGIC, 1), ctx)
        VersaFuse().run(module.operation)
        groups = [
            op for op in module.body.operations[0].regions[0].blocks[0] if op.operation.name == "versa.fused"
        ]
        members = [[inner.operation.name for inner in g.regions[0].blocks[0]][:-1] for g in groups]
    assert members == [
        ["versa.compare", "versa.and", "versa.not", "versa.select"],
        ["versa.cast", "versa.add", "versa.compare", "versa.or"],
        ["versa.compare", "versa.neg", "versa.select"],
    ]


@pytest.mark.parametrize("opt_level", [0, 1, 3], ids=["O0", "O1", "O3"])
def test_fused_logic_matches_reference(opt_level: int) -> None:
    rng = np.random.default_rng(RNG_SEED)
    a = rng.integers(-3, 4, (3, 37)).astype(np.float32)
    a[0, :5] = np.nan
    inputs = [a, rng.integers(-3, 4, 37).astype(np.float32), rng.random((3, 1)) < 0.5]
    inputs.append(rng.integers(-(2**40), 2**40, (3, 37)).astype(np.int64))
    want = reference(FUSED_LOGIC, inputs)
    module = compiler.parse_module(compiler.Chunk(FUSED_LOGIC, 1), make_context())
    got = JitFunction(module, "main", pipeline=f"versa-fuse,lower-to-llvm{{opt-level={opt_level}}}")(*inputs)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


# ----------------------------------------------------------------------------- builders


def i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def test_builders_type_the_new_ops() -> None:
    """Each new builder derives its result type from the op's rules: i1 for compare, the
    on_true type for select, i64 for argmax, x's dims around the indices' for gather."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        args = [ir.RankedTensorType.get(s, t) for s, t in [((4, 8), f32), ((8,), f32), ((10, 8), f32)]]
        args.append(ir.RankedTensorType.get((2, 3), i64()))
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp("main", (args, [])).add_entry_block()
        a, b, table, ids = entry.arguments
        with ir.InsertionPoint(entry):
            mask = vb.compare(a, b, predicate="le")
            values = [
                mask,
                vb.select(vb.logical_not(vb.logical_or(vb.logical_and(mask, mask), mask)), a, b),
                vb.gather(table, ids, axis=0),
                vb.gather(table, vb.iota([5], i64(), axis=0), axis=-1),
                vb.reduce_argmax(a, axis=1),
                vb.reduce_argmax(a, axis=0, keepdims=True),
                vb.cumsum(vb.iota([2, 3], f32, axis=1), axis=1),
                vb.conv_transpose2d(
                    vb.reshape(a, [1, 2, 4, 4]),
                    vb.constant(np.ones((2, 3, 3, 3), np.float32)),
                    strides=[2, 2],
                    padding=[1, 1, 1, 1],
                    output_padding=[1, 1],
                ),
            ]
            func.ReturnOp([])
        assert [str(v.type) for v in values] == [
            "tensor<4x8xi1>",
            "tensor<4x8xf32>",
            "tensor<2x3x8xf32>",
            "tensor<10x5xf32>",
            "tensor<4xi64>",
            "tensor<1x8xi64>",
            "tensor<2x3xf32>",
            "tensor<1x3x8x8xf32>",
        ]
        assert module.operation.verify()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a, i: vb.compare(a, a, predicate="lte"), "attribute 'predicate' must be one of"),
        (lambda a, i: vb.compare(a, i, predicate="eq"), "operand element types differ: f32 vs i64"),
        (lambda a, i: vb.select(a, a, a), "condition element type must be i1, got f32"),
        (lambda a, i: vb.logical_and(a, a), "expects i1 or an integer element type, got f32"),
        (lambda a, i: vb.gather(a, a, axis=0), "indices element type must be i32 or i64, got f32"),
        (lambda a, i: vb.gather(a, i, axis=2), "axis 2 is out of range for rank 2"),
        (lambda a, i: vb.iota([3], ir.IntegerType.get_signless(1), axis=0), "expects a numeric"),
        (lambda a, i: vb.iota([3, 4], i64(), axis=2), "axis 2 is out of range for rank 2"),
        (lambda a, i: vb.reduce_argmax(a, axis=-3), "axis -3 is out of range for rank 2"),
        (lambda a, i: vb.cumsum(i, axis=5), "axis 5 is out of range for rank 2"),
        (lambda a, i: vb.conv_transpose2d(a, a), "input and filter must have rank 4"),
    ],
)
def test_new_builders_raise_rule_errors(call, message: str) -> None:
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        types = [ir.RankedTensorType.get((4, 8), t) for t in (ir.F32Type.get(), i64())]
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp("bad", (types, [])).add_entry_block()
        with ir.InsertionPoint(entry), pytest.raises(RuleError, match=re.escape(message)):
            call(*entry.arguments)
        assert not list(entry.operations)  # the rule fired before any op was created


MASKED_MATMUL = """
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x80xf32>, %m: tensor<64x80xi1>) -> tensor<64x80xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<64x32xf32>, tensor<32x80xf32>) -> tensor<64x80xf32>
  %c = "versa.constant"() {value = dense<-1.0e+04> : tensor<f32>} : () -> tensor<f32>
  %1 = "versa.select"(%m, %0, %c) : (tensor<64x80xi1>, tensor<64x80xf32>, tensor<f32>) -> tensor<64x80xf32>
  return %1 : tensor<64x80xf32>
}
"""


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3], ids=["O0", "O1", "O2", "O3"])
@pytest.mark.parametrize("fuse", ["", "versa-fuse,"], ids=["unfused", "fused"])
def test_masked_matmul_epilogue_reads_the_mask_as_bytes(fuse: str, opt_level: int) -> None:
    """An attention-style mask after a matmul: the epilogue strategy vectorizes a consumer that
    reads an i1 tensor, whose vector loads must read bytes (versa-byte-bools), not packed bits."""
    rng = np.random.default_rng(RNG_SEED)
    inputs = [
        rng.integers(-3, 4, (64, 32)).astype(np.float32),
        rng.integers(-3, 4, (32, 80)).astype(np.float32),
    ]
    inputs.append(rng.random((64, 80)) < 0.5)
    want = reference(MASKED_MATMUL, inputs)[0]
    module = compiler.parse_module(compiler.Chunk(MASKED_MATMUL, 1), make_context())
    (got,) = JitFunction(module, "main", pipeline=f"{fuse}lower-to-llvm{{opt-level={opt_level}}}")(*inputs)
    np.testing.assert_array_equal(got, want)
