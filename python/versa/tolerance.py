"""The one tolerance policy: how far compiled results may drift from the NumPy reference.

The reference computes floats in float64 and rounds once per op; compiled code computes in the
element type, reorders sums (tiling, vectors, threads) and uses polynomial exp/log/tanh/erf/
sin/cos/tan/atan at -O1 and up. The allowed error is therefore set per op and summed over every
op a result depends on (relative errors of a well-conditioned chain add up):

* element type: a base (rtol, atol) of a few units of roundoff: f32 (1e-5, 1e-6),
  f16 (2e-3, 1e-3), bf16 (1.6e-2, 8e-3), f64 (1e-12, 1e-13); half-precision atol is one unit
  of roundoff at 1 (partial sums near 1 that cancel to a small result keep their absolute
  error);
* op family: **exact** ops (data movement, max/min/abs/neg/relu/clamp, floor/ceil/round/trunc/
  sign, max-pool, reduce_max, select, compare, gather, casts) add nothing, so a chain of them
  must be bit-exact; but a cast that narrows a float (f32 to f16) rounds, and turns an upstream
  error far below its ulp into a whole ulp where a value lies near a rounding boundary: it adds
  1x the base;
  **elementwise** arithmetic adds 1x the base; **transcendental** ops (exp, log, sqrt, pow, tanh,
  erf, gelu, sigmoid, sin, cos, tan, atan, log1p, expm1 and the norms/softmax built on them)
  add 4x (rounding and sign are exact, but they turn an upstream error that crosses an integer
  or zero into a whole step: the fuzzer applies them to exact values only);
* reduction length: ops that sum n terms (matmul and conv over K, reduce_sum/mean, avg-pool,
  cumsum, softmax and layer_norm over their normalised dims) scale their share by sqrt(n), the
  growth of a random-walk rounding error; except f16/bf16 contractions, sums and cumsums, which
  sum in f32 and round once (`F32_SUMS`), so one rounding of the element type bounds them;
* integer and boolean results are compared exactly, whatever produced them.

An element passes when |got - want| <= atol * max(1, max|want|) + rtol * |want|: atol scales
with the result's magnitude, so values that cancel to nearly zero are judged against the size
of their neighbours. NaNs must match NaNs; infinities must match exactly.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from versa.dialects.core import dims_of
from versa.dialects.versa import OPS
from versa.mlir import func, ir

BASE = {"f64": (1e-12, 1e-13), "f32": (1e-5, 1e-6), "f16": (2e-3, 1e-3), "bf16": (1.6e-2, 8e-3)}
FAMILY_SCALE = {"exact": 0.0, "elementwise": 1.0, "transcendental": 4.0}
TRANSCENDENTAL = {
    "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "gelu", "pow",
    "sin", "cos", "tan", "atan", "log1p", "expm1",
    "softmax", "layer_norm", "batch_norm",
}  # fmt: skip
ELEMENTWISE = {"add", "sub", "mul", "div", "matmul", "conv2d", "conv_transpose2d"}
ELEMENTWISE |= {"reduce_sum", "reduce_mean", "avg_pool2d", "cumsum"}
# Ops whose f16/bf16 lowering sums in f32 and rounds once (`linalg_builders.accumulator`, the
# reductions' and cumsum's f32 accumulators): their error does not grow with the length.
F32_SUMS = {"matmul", "conv2d", "conv_transpose2d", "reduce_sum", "reduce_mean", "cumsum"}
HALF = {"f16", "bf16"}


@dataclass(frozen=True)
class Tolerance:
    """Allowed error of one result; `rtol == atol == 0` means bit-exact."""

    rtol: float = 0.0
    atol: float = 0.0

    def __add__(self, other: "Tolerance") -> "Tolerance":
        return Tolerance(self.rtol + other.rtol, self.atol + other.atol)


EXACT = Tolerance()


def op_family(name: str) -> str:
    """ "exact", "elementwise" or "transcendental" for a versa op name ("add" or "versa.add")."""
    name = name.removeprefix("versa.")
    if name in TRANSCENDENTAL:
        return "transcendental"
    return "elementwise" if name in ELEMENTWISE else "exact"


def reduction_length(name: str, operand_shapes: Sequence[Sequence[int]], attrs: dict) -> int:
    """How many terms one result element of op `name` sums (1 for ops that sum nothing)."""
    name = name.removeprefix("versa.")
    x = tuple(operand_shapes[0]) if operand_shapes else ()
    if name == "matmul":
        return x[-1]
    if name == "conv2d":
        w = operand_shapes[1]
        return math.prod(w[1:]) if attrs.get("layout", "NCHW") == "NCHW" else math.prod(w[:3])
    if name == "conv_transpose2d":
        w = operand_shapes[1]
        return w[0] // attrs.get("groups", 1) * w[2] * w[3]
    if name in ("reduce_sum", "reduce_mean"):
        axes = attrs.get("axes")
        return math.prod(x) if axes is None else math.prod(x[a] for a in axes)
    if name in ("softmax", "cumsum"):
        return x[attrs["axis"]]
    if name == "layer_norm":
        return math.prod(x[attrs["axis"] :])
    if name == "avg_pool2d":
        return math.prod(attrs["kernel"])
    return 1


def for_op(name: str, element: str, reduction: int = 1) -> Tolerance:
    """The error one op with a result of `element` type may add."""
    if element not in BASE:
        return EXACT
    if element in HALF and name.removeprefix("versa.") in F32_SUMS:
        reduction = 1
    scale = FAMILY_SCALE[op_family(name)] * math.sqrt(max(1, reduction))
    rtol, atol = BASE[element]
    return Tolerance(rtol * scale, atol * scale)


DYNAMIC_EXTENT = 4096  # the size assumed for a dynamic dim where a bound depends on it


def for_ir_op(op: ir.OpView) -> Tolerance:
    """`for_op` of a versa op in IR; ops of other dialects add nothing."""
    name = op.operation.name
    if name not in OPS or not op.results:
        return EXACT
    attrs = OPS[name].attrs(op)
    # A dynamic dim counts as DYNAMIC_EXTENT terms: the bound holds for sums up to that long.
    shapes = [tuple(DYNAMIC_EXTENT if d is None else d for d in dims_of(v.type)) for v in op.operands]
    element = str(op.results[0].type.element_type)
    if name == "versa.cast" and _narrows(op.operands[0].type.element_type, op.results[0].type.element_type):
        return for_op("add", element)
    return for_op(name, element, reduction_length(name, shapes, attrs))


def _narrows(source: ir.Type, result: ir.Type) -> bool:
    """Whether a cast from `source` to `result` rounds one float to a narrower one."""
    floats = isinstance(source, ir.FloatType) and isinstance(result, ir.FloatType)
    return floats and ir.FloatType(result).width < ir.FloatType(source).width


def for_function(function: func.FuncOp) -> list[Tolerance]:
    """Per result of `function`: the sum of `for_ir_op` over every op that result depends on
    (nested regions such as `versa.fused` included); integer and boolean results are exact."""
    block = function.regions[0].blocks[0]
    return_op = list(block.operations)[-1]
    return [_cone_tolerance(v) for v in return_op.operands]


def _cone_tolerance(value: ir.Value) -> Tolerance:
    if str(value.type.element_type) not in BASE:
        return EXACT
    total, seen, stack = EXACT, set(), [value]
    while stack:
        op = stack.pop().owner
        if isinstance(op, ir.Block) or op.operation in seen:  # a block argument, or done
            continue
        seen.add(op.operation)
        total += for_ir_op(op)
        stack.extend(op.operands)
        stack.extend(_nested_yields(op))
    return total


def _nested_yields(op: ir.OpView) -> list[ir.Value]:
    """The values a region op yields (the producers inside it belong to the cone too)."""
    values = []
    for region in op.operation.regions:
        for block in region.blocks:
            ops = list(block.operations)
            if ops:
                values.extend(ops[-1].operands)
    return values


def check(got: np.ndarray, want: np.ndarray, tolerance: Tolerance = EXACT) -> str | None:
    """None when `got` matches `want` under `tolerance`, else a one-line reason."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {list(got.shape)} differs from the reference's {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"element type {got.dtype} differs from the reference's {want.dtype}"
    if not np.issubdtype(want.dtype, np.floating) or tolerance == EXACT:
        same = got == want
        if want.dtype.kind == "f":
            same |= np.isnan(got) & np.isnan(want)
        return _describe(got, want, ~same, "exactly")
    g, w = got.astype(np.float64), want.astype(np.float64)
    finite = np.isfinite(w) & np.isfinite(g)
    scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
    with np.errstate(invalid="ignore"):
        close = np.abs(g - w) <= tolerance.atol * scale + tolerance.rtol * np.abs(w)
    same_special = (np.isnan(g) & np.isnan(w)) | (~finite & (g == w))
    bad = ~((finite & close) | same_special)
    return _describe(got, want, bad, f"within rtol {tolerance.rtol:.3g}, atol {tolerance.atol:.3g}")


def max_abs_error(got: np.ndarray, want: np.ndarray) -> float:
    """The largest |got - want| (NaNs ignored; 0 for empty arrays)."""
    with np.errstate(invalid="ignore"):
        diff = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    return float(np.nanmax(diff)) if diff.size and not np.all(np.isnan(diff)) else 0.0


def _describe(got: np.ndarray, want: np.ndarray, bad: np.ndarray, how: str) -> str | None:
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"{count} of {bad.size} elements do not match the reference {how} "
        f"(first at {list(where)}: got {got[where].item()!r}, want {want[where].item()!r}; "
        f"max abs error {max_abs_error(got, want):.3g})"
    )
