"""The fuzzer's casts and shapes: float→int casts whose inputs stay clear of truncation's jumps,
empty tensors in generated programs and in the reference, and a reducer that ends on small
shapes."""

import numpy as np
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.fuzz import inputs
from versa.fuzz.generate import generate
from versa.fuzz.program import Arg, Op, Program, Type, from_function
from versa.fuzz.reduce import reduce, verifies
from versa.reference import interpret

SEEDS = range(800)  # some ops meet an empty tensor once or twice in 400 programs


def evaluate(text: str, args: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The reference results of `text` on `args` (the campaign's inputs when None)."""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    function = find_function(module, None)
    return interpret(function, inputs.for_function(function) if args is None else args)


def program_of(text: str) -> Program:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return from_function(find_function(module, None))


def float_to_int_casts(program: Program) -> list[Op]:
    casts = [op for op in program.ops if op.name == "cast"]
    return [op for op in casts if op.operands[0].type.is_float and not op.type.is_float]


def test_float_to_int_cast_inputs_are_clear_of_integers():
    """Each cast input, evaluated on the campaign's inputs, is >= 0.05 from every integer (where
    truncation jumps) and from .5 (where rounding would), and the result fits i8."""
    programs = [p for p in map(generate, SEEDS) if float_to_int_casts(p)]
    for program in programs:
        for cast in float_to_int_casts(program):
            probe = program.copy()
            probe.results = [probe.ops[program.ops.index(cast)].operands[0]]
            probe.remove_dead()
            value = evaluate(probe.text())[0].astype(np.float64)
            fraction = np.abs(value - np.trunc(value))
            assert np.all(np.abs(value) < 128)
            assert np.all((fraction >= 0.05) & (fraction <= 0.95) & (np.abs(fraction - 0.5) >= 0.05))
    assert len(programs) >= 5
    assert {c.type.element for p in programs for c in float_to_int_casts(p)} == {"i8", "i32", "i64"}


def test_generated_programs_with_empty_tensors_verify():
    programs = [p for p in map(generate, SEEDS) if any(0 in v.type.shape for v in p.values())]
    assert len(programs) >= 10 and all(verifies(p) for p in programs)
    empty = {op.name for p in programs for op in p.ops if any(0 in v.type.shape for v in (*op.operands, op))}
    assert {"slice", "concat", "pad", "reshape", "reduce_sum", "conv2d", "layer_norm"} <= empty


def test_reference_of_reductions_over_nothing():
    """max over an empty axis is its identity (as the lowering's init); softmax of nothing is empty."""
    text = """func.func @main(%a: tensor<0x3xf32>, %b: tensor<0x2xi32>)
    -> (tensor<3xf32>, tensor<2xi32>, tensor<0x3xf32>) {
  %0 = "versa.reduce_max"(%a) {axes = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  %1 = "versa.reduce_max"(%b) {axes = array<i64: 0>} : (tensor<0x2xi32>) -> tensor<2xi32>
  %2 = "versa.softmax"(%a) {axis = 0 : i64} : (tensor<0x3xf32>) -> tensor<0x3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<2xi32>, tensor<0x3xf32>
}
"""
    floats, ints, soft = evaluate(text, [np.zeros((0, 3), np.float32), np.zeros((0, 2), np.int32)])
    assert np.all(floats == -np.inf) and np.all(ints == np.iinfo(np.int32).min) and soft.shape == (0, 3)


PLANTED = """func.func @main(%a: tensor<6x8xf32>, %b: tensor<8x10xf32>) -> tensor<2x2x12xf32> {
  %c = "versa.constant"() {value = dense<0.5> : tensor<10xf32>} : () -> tensor<10xf32>
  %0 = "versa.matmul"(%a, %b) : (tensor<6x8xf32>, tensor<8x10xf32>) -> tensor<6x10xf32>
  %1 = "versa.add"(%0, %c) : (tensor<6x10xf32>, tensor<10xf32>) -> tensor<6x10xf32>
  %2 = "versa.reshape"(%1) : (tensor<6x10xf32>) -> tensor<3x20xf32>
  %3 = "versa.broadcast_to"(%2) : (tensor<3x20xf32>) -> tensor<2x3x20xf32>
  %4 = "versa.slice"(%3) {starts = array<i64: 0, 1, 4>, limits = array<i64: 2, 3, 16>}
      : (tensor<2x3x20xf32>) -> tensor<2x2x12xf32>
  %5 = "versa.exp"(%4) : (tensor<2x2x12xf32>) -> tensor<2x2x12xf32>
  return %5 : tensor<2x2x12xf32>
}
"""


def test_reducer_ends_on_small_shapes():
    """A planted failure ("matmul, reshape and slice together miscompile"): the reducer shrinks
    K in both operands at once, refits the reshape and broadcast_to and moves the slice."""
    program = program_of(PLANTED)

    def fails(candidate: Program) -> bool:
        return {"matmul", "reshape", "slice"} <= {op.name for op in candidate.ops}

    reduced = reduce(program, fails)
    assert verifies(reduced) and fails(reduced)
    assert [op.name for op in reduced.ops] == ["matmul", "reshape", "broadcast_to", "slice"]
    assert all(d == 1 for v in reduced.values() for d in v.type.shape), reduced.text()


def test_reducer_keeps_an_empty_dim_and_shrinks_the_others():
    program = Program(args=[Arg(Type((3, 0, 4), "f32")), Arg(Type((3, 1, 4), "f32"))])
    program.ops = [Op("add", program.args[:], {}, Type((3, 0, 4), "f32"))]
    program.results = program.ops[:]
    reduced = reduce(program, lambda p: any(0 in v.type.shape for v in p.values()) and len(p.ops) == 1)
    assert [a.type.shape for a in reduced.args] == [(0,), ()], reduced.text()
