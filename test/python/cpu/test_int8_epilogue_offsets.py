"""The integer terms an INT8 epilogue adds to the accumulator, moved into the kernel's start
values (passes/cpu/kernels/int8_epilogue_offsets.py): a zero point's column term and a bias,
per filter or one for all, summed with their signs (the kernels' results with them are checked
bit-exact in test_int8_epilogues.py and test_int8_dot_kernels.py). Left in the body: a term
read at run time, c - acc, and a chain whose raw accumulator something else reads too.
"""

from versa.context import make_context
from versa.mlir import ir
from versa.passes.cpu.kernels.int8_epilogue_offsets import offsets

DIMS = ("%n", "%oh", "PIXEL", "FILTER")
_ID = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
_FILTER = "affine_map<(d0, d1, d2, d3) -> (d3)>"
_BIAS = "affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>"  # a [1, 1, 1, F] bias at batch 1
_ONE = "affine_map<(d0, d1, d2, d3) -> ()>"


def _offsets(body: str):
    """offsets() of a generic over acc [1, 2, 2, 4] (%a), a column term [4] (%c), a bias
    [1, 1, 1, 4] (%b), a 0-d constant (%k) and a run-time i32 [4] (%r), its body `body`."""
    text = f"""
func.func @f(%acc: tensor<1x2x2x4xi32>, %run: tensor<4xi32>) -> tensor<1x2x2x4xi32> {{
  %col = arith.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %bias = arith.constant dense<[[[[1, 2, 3, 4]]]]> : tensor<1x1x1x4xi32>
  %one = arith.constant dense<1000> : tensor<i32>
  %e = tensor.empty() : tensor<1x2x2x4xi32>
  %r = linalg.generic {{indexing_maps = [{_ID}, {_FILTER}, {_BIAS}, {_ONE}, {_FILTER}, {_ID}],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc, %col, %bias, %one, %run
          : tensor<1x2x2x4xi32>, tensor<4xi32>, tensor<1x1x1x4xi32>, tensor<i32>, tensor<4xi32>)
      outs(%e : tensor<1x2x2x4xi32>) {{
  ^bb0(%a: i32, %c: i32, %b: i32, %k: i32, %t: i32, %o: i32):
{body}
  }} -> tensor<1x2x2x4xi32>
  return %r : tensor<1x2x2x4xi32>
}}"""
    module = ir.Module.parse(text, make_context())
    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.ADVANCE)
    generic = next(op for op in found if op.name == "linalg.generic")
    positions, total = offsets(generic, 0, DIMS, 6)  # 6 filters: two of padding
    return positions, total.tolist()


def test_column_term_bias_and_a_constant_are_absorbed():
    positions, total = _offsets(
        """
    %0 = arith.subi %a, %c : i32
    %1 = arith.addi %b, %0 : i32
    %2 = arith.addi %1, %k : i32
    %3 = arith.muli %2, %2 : i32
    linalg.yield %3 : i32"""
    )
    assert positions == (0, 1, 2)
    assert total == [991, 982, 973, 964, 1000, 1000]  # -c + b + 1000; padding: the 0-d term


def test_a_run_time_term_ends_the_chain():
    positions, total = _offsets(
        """
    %0 = arith.subi %a, %c : i32
    %1 = arith.addi %0, %t : i32
    %2 = arith.addi %1, %b : i32
    linalg.yield %2 : i32"""
    )
    assert positions == (0,) and total == [-10, -20, -30, -40, 0, 0]


def test_negation_and_a_raw_reader_stay():
    body = """
    %0 = arith.subi %c, %a : i32
    linalg.yield %0 : i32"""
    assert _offsets(body) == ((), [0] * 6)
    body = """
    %0 = arith.addi %a, %b : i32
    %1 = arith.muli %a, %0 : i32
    linalg.yield %1 : i32"""
    assert _offsets(body) == ((), [0] * 6)  # %a itself is read again: it must stay the raw sum
