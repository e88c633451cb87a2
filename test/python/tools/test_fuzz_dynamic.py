"""The fuzzer's dynamic programs (issue 46): variants with `?` dims tied by `versa.dims`, judged
by one compile called at several sizes, with wrong results and refusals that the reference does
not share reported as findings, through the worker and a campaign."""

import numpy as np
import pytest
from versa import compiler
from versa.call_shapes import ShapeError, ShapeProgram
from versa.context import make_context
from versa.cpu.runtime import JitFunction, find_function
from versa.diagnostics import CompileError, Diagnostic
from versa.fuzz import campaign, inputs, oracle
from versa.fuzz.dynamic import specialized, variant
from versa.fuzz.program import Program, from_function
from versa.fuzz.reduce import reduce, verifies
from versa.fuzz.worker import Worker

PIPELINES = ("O0", "O3")
KNOWN = """func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<3xf32>)
    -> (tensor<4x3xf32>, tensor<4xf32>) {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = "versa.add"(%0, %c) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = "versa.tanh"(%1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = "versa.softmax"(%2) {axis = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = "versa.reduce_sum"(%2) {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %3, %4 : tensor<4x3xf32>, tensor<4xf32>
}
"""


MODULES = []  # the parsed modules, kept alive while their functions are read


def parse(text: str):
    MODULES.append(compiler.parse_module(compiler.Chunk(text, 1), make_context()))
    return find_function(MODULES[-1], None)


@pytest.fixture(scope="module")
def known() -> Program:
    program = from_function(parse(KNOWN))
    assert program is not None and not program.dynamic
    return program


def test_variant_ties_its_dynamic_dims_in_the_text(known):
    made = {}
    for seed in range(8):
        dynamic = variant(known, seed)
        assert dynamic is not None and dynamic.dynamic and verifies(dynamic)
        made[dynamic.sizes[0]] = dynamic
    assert set(made) == {3, 4, 8}  # the leading dims (%c has 3), all of them valid choices
    text = made[8].text()
    assert 'tensor<4x?xf32> {versa.dims = [4 : i64, "n"]}' in text
    assert 'tensor<?x3xf32> {versa.dims = ["n", 3 : i64]}' in text
    assert "fuzz.sizes = array<i64: 8, 1, 10" in text
    shapes = ShapeProgram.of(parse(text))
    assert shapes.symbols() == {"n": [(0, 1), (1, 0)]}
    assert shapes.resolve(((4, 5), (5, 3), (3,))) == ((4, 3), (4,))
    again = from_function(parse(text))  # the text carries the whole program, sizes included
    assert again.text() == text and again.sizes == made[8].sizes
    static = specialized(again, 5)
    assert [a.type.shape for a in static.args] == [(4, 5), (5, 3), (3,)] and "?" not in static.text()


def test_inputs_follow_the_size_of_each_call():
    function = parse(variant(from_function(parse(KNOWN)), 1).text())
    one, again, other = (inputs.for_function(function, size=n) for n in (6, 6, 2))
    assert all(np.array_equal(x, y) for x, y in zip(one, again, strict=True))
    assert 6 in one[0].shape and 2 in other[0].shape and one[2].shape == (3,)
    with pytest.raises(ValueError, match="dynamic dims"):
        inputs.for_function(function)


@pytest.mark.parametrize("seed", range(4))
def test_variants_are_ok_at_every_size(known, seed):
    dynamic = variant(known, seed)
    calls = oracle.reference_calls(parse(dynamic.text()))
    assert [c.size for c in calls] == list(dynamic.sizes) and len(calls) >= 3
    assert all(c.want is not None for c in calls)
    assert oracle.judge(dynamic.text(), PIPELINES, on_stage=lambda _: None) == [oracle.Verdict("ok")]


class WrongResults(JitFunction):
    """Compiled code that is off by one, at every call."""

    def __call__(self, *arrays, out=None):
        return [g + 1 for g in super().__call__(*arrays, out=out)]


class RefusesEverything(JitFunction):
    def __call__(self, *arrays, out=None):
        raise ShapeError("argument 0 dim 0 = 1: refused by this test")


def refusing_one(function, arrays):
    """The reference with a rule that refuses any dim of 1 in the first argument."""
    if 1 in arrays[0].shape:
        raise CompileError([Diagnostic("error", "refused by this test")])
    return oracle_interpret(function, arrays)


oracle_interpret = oracle.interpret


def kinds(verdicts: list[oracle.Verdict]) -> set[tuple[str, str]]:
    return {(v.kind, v.message.split(":")[0]) for v in verdicts}


def test_wrong_results_and_refusals_that_the_reference_does_not_share_are_findings(known, monkeypatch):
    dynamic = next(d for d in (variant(known, seed) for seed in range(8)) if d.sizes[0] == 4)
    text, size = dynamic.text(), dynamic.sizes[0]  # %a is ?x8: 1x8 at n=1
    monkeypatch.setattr(oracle, "JitFunction", WrongResults)
    assert kinds(oracle.judge(text, ["O0"], on_stage=lambda _: None)) >= {
        ("mismatch", f"n={size}"),
        ("mismatch", "n=1"),
    }
    monkeypatch.setattr(oracle, "JitFunction", RefusesEverything)
    verdicts = oracle.judge(text, ["O0"], on_stage=lambda _: None)
    assert {v.kind for v in verdicts} == {"shape-check"} and "the call is refused" in verdicts[0].message
    monkeypatch.setattr(oracle, "JitFunction", JitFunction)
    monkeypatch.setattr(oracle, "interpret", refusing_one)
    verdicts = oracle.judge(text, ["O0"], on_stage=lambda _: None)
    assert [(v.kind, v.message.split(":")[0]) for v in verdicts] == [("shape-check", "n=1")]
    assert "the reference refuses it" in verdicts[0].message


def test_reducer_keeps_a_dynamic_program_valid(known):
    dynamic = variant(known, 0)
    reduced = reduce(dynamic, lambda p: any(op.name == "softmax" for op in p.ops) and p.dynamic)
    assert [op.name for op in reduced.ops] == ["softmax"] and verifies(reduced)
    assert reduced.sizes == dynamic.sizes and "versa.dims" in reduced.text()


def test_campaign_of_dynamic_programs_through_the_worker():
    source = campaign.Source(3, mutants=0.0, max_ops=4, dynamic=1.0, quantized=0.0)
    report = campaign.run(source, programs=6, jobs=2, pipelines=("O0",))
    assert report.programs == 6 and report.statuses["invalid"] == 0
    cases = [source.case(i) for i in range(6)]
    assert sum(c.origin.endswith("made dynamic") for c in cases) >= 4
    dynamic = next(c.program for c in cases if c.program.dynamic)
    worker = Worker()
    try:  # what a saved regression case replays: the text alone
        assert worker.judge(dynamic.text(), ["O0"]) == oracle.judge(
            dynamic.text(), ["O0"], on_stage=lambda _: None
        )
    finally:
        worker.stop()
