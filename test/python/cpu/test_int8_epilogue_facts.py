"""What an INT8 kernel's epilogue may tell LLVM (passes/cpu/kernels/int8_epilogue_facts.py): the
clamps of a requantize body take `nnan` where their operands are provably not NaN (f32 of an
i32 times a finite constant) and `nsz` where only an fptosi reads the result; a NaN test of such
a value is decided. Anything read at run time, or a constant holding an infinity, a zero
divisor, or a float result that keeps the zero's sign, keeps IEEE's rules. (The kernels' outputs
with these flags are checked bit-exact in test_int8_epilogues.py and test_int8_dot_kernels.py.)
"""

import pytest
from versa.context import make_context
from versa.mlir import ir
from versa.passes.cpu.kernels.int8_epilogue_facts import facts

_MAP = "affine_map<(d0) -> (d0)>"


def _generic(scale: str, body: str, out: str = "i8") -> tuple[ir.Operation, ir.Module]:
    """A generic over acc (i32) and a per-channel scale (`scale`: a constant's value, or
    "argument"), its body `body` (block arguments %a, %s), result `out`; and its module, which
    must outlive it."""
    source = "%arg1" if scale == "argument" else "%s0"
    constant = "" if scale == "argument" else f"%s0 = arith.constant {scale} : tensor<4xf32>"
    text = f"""
func.func @f(%arg0: tensor<4xi32>, %arg1: tensor<4xf32>) -> tensor<4x{out}> {{
  {constant}
  %e = tensor.empty() : tensor<4x{out}>
  %r = linalg.generic {{indexing_maps = [{_MAP}, {_MAP}, {_MAP}], iterator_types = ["parallel"]}}
      ins(%arg0, {source} : tensor<4xi32>, tensor<4xf32>) outs(%e : tensor<4x{out}>) {{
  ^bb0(%a: i32, %s: f32, %o: {out}):
{body}
  }} -> tensor<4x{out}>
  return %r : tensor<4x{out}>
}}"""
    module = ir.Module.parse(text, make_context())
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
    return next(op for op in found if op.name == "linalg.generic"), module


REQUANTIZE = """
    %lo = arith.constant -5.0 : f32
    %hi = arith.constant 250.0 : f32
    %zero = arith.constant 0.0 : f32
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %r = math.roundeven %m : f32
    %c1 = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %nan = arith.cmpf uno, %r, %r : f32
    %v = arith.select %nan, %zero, %c2 : f32
    %i = arith.fptosi %v : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8"""
# body positions: 3 constants, sitofp 3, mulf 4, roundeven 5, max 6, min 7, cmpf 8
FAST = {6: "fastmath<nnan,nsz>", 7: "fastmath<nnan,nsz>", 8: "false"}


def test_requantize_with_constant_scales_is_fast():
    generic, _keep = _generic("dense<[0.01, 0.02, 0.5, 3.0]>", REQUANTIZE)
    assert facts(generic) == FAST


@pytest.mark.parametrize(
    "scale",
    ["argument", "dense<[0.01, 0x7F800000, 0.5, 3.0]>"],  # read at run time; an infinity (inf · 0 = NaN)
    ids=["run-time", "infinite"],
)
def test_scales_that_may_make_nan_keep_ieee_rules(scale):
    generic, _keep = _generic(scale, REQUANTIZE)
    assert facts(generic) == {}


def test_quantize_divides_by_a_constant_scale():
    """A quantize's x / s: bounded where s has no zero, unbounded (x / 0 = inf, 0 / 0 = NaN)
    where it has one."""
    body = REQUANTIZE.replace("%m = arith.mulf %f, %s : f32", "%m = arith.divf %f, %s : f32")
    generic, _keep = _generic("dense<[0.01, 0.02, 0.5, 3.0]>", body)
    assert facts(generic) == FAST
    generic, _keep = _generic("dense<[0.01, 0.0, 0.5, 3.0]>", body)
    assert facts(generic) == {}


def test_a_float_result_keeps_the_sign_of_zero():
    """max(x, 0) written out as f32 (a dequantized ReLU): never NaN, but -0 and +0 are two
    results, so `nnan` alone."""
    body = """
    %zero = arith.constant 0.0 : f32
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32"""
    generic, _keep = _generic("dense<[0.01, 0.02, 0.5, 3.0]>", body, out="f32")
    assert facts(generic) == {3: "fastmath<nnan>"}
