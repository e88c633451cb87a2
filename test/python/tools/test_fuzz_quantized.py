"""The fuzzer's quantized programs (issue 47): quantize → qmatmul / qconv2d → requantize →
dequantize chains that verify, cover the cases the builder aims at, draw their bytes over the
whole range, are judged bit-exact on their integer results, and take a small share of a
campaign without changing its other cases."""

import numpy as np
from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.fuzz import campaign, inputs, oracle
from versa.fuzz.quantized import SHARE, generate
from versa.fuzz.reduce import verifies

PIPELINES = ("O0", "O3")
JUDGED = (2, 5, 8, 9, 11, 17)  # seeds with each op, per-channel requantize, dequantize


def _function(text: str):
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return module, find_function(module, None)


def test_programs_verify_and_cover_the_chain():
    programs = [generate(seed) for seed in range(60)]
    assert generate(7).text() == generate(7).text()
    assert all(verifies(p) for p in programs)
    names = {op.name for p in programs for op in p.ops}
    assert {"quantize", "qmatmul", "qconv2d", "requantize", "dequantize"} <= names
    ops = [op for p in programs for op in p.ops]
    per_channel = [op for op in ops if op.name == "requantize" and op.operands[1].type.shape]
    assert per_channel and any(op.name == "requantize" and not op.operands[1].type.shape for op in ops)
    contractions = [op for op in ops if op.name in ("qmatmul", "qconv2d")]
    elements = {(op.operands[0].type.element, op.operands[1].type.element) for op in contractions}
    assert {"ui8", "i8"} <= {a for a, _ in elements} and {"ui8", "i8"} <= {b for _, b in elements}
    assert any(op.operands[1].name == "constant" for op in contractions)
    assert any(op.operands[1] in p.args for p in programs for op in p.ops if op.name == "qmatmul")
    assert any(op.attrs.get("groups", 1) > 1 for op in contractions if op.name == "qconv2d")


def test_bytes_take_their_whole_range():
    """8-bit arguments of quantized ops: the corners (255, -128) a contraction must get right."""
    program = next(p for p in map(generate, range(100)) if any(a.type.element == "ui8" for a in p.args))
    module, function = _function(program.text())
    arrays = inputs.for_function(function)
    drawn = [a for a, arg in zip(arrays, program.args, strict=True) if arg.type.element == "ui8"]
    assert max(a.max() for a in drawn) > 200
    assert all(
        t == tolerance.EXACT
        for t, r in zip(tolerance.for_function(function), program.results, strict=True)
        if not r.type.is_float
    )


def test_seeds_are_judged_bit_exact():
    for seed in JUDGED:
        verdicts = oracle.judge(generate(seed).text(), PIPELINES, on_stage=lambda _: None)
        assert [v.status for v in verdicts] == ["ok"], (seed, verdicts)


def test_a_wrong_integer_is_a_finding(monkeypatch):
    """One unit off in one byte is a mismatch: integer results have no tolerance."""
    text = generate(2).text()

    class OffByOne(oracle.JitFunction):
        def __call__(self, *args):
            outputs = [np.array(o) for o in super().__call__(*args)]
            flat = outputs[0].reshape(-1)
            flat[0] = flat[0] + 1 if flat[0] < np.iinfo(flat.dtype).max else flat[0] - 1
            return outputs

    monkeypatch.setattr(oracle, "JitFunction", OffByOne)
    assert [v.kind for v in oracle.judge(text, ["O0"], on_stage=lambda _: None)] == ["mismatch"]


def test_a_small_share_of_a_campaign():
    quantized, plain = campaign.Source(5), campaign.Source(5, quantized=0.0)
    cases = [quantized.case(i) for i in range(300)]
    share = sum(c.origin == "quantized" for c in cases) / len(cases)
    assert 0.5 * SHARE < share < 2 * SHARE
    others = [c for c in cases if c.origin != "quantized"]
    assert all(c.program.text() == plain.case(c.index).program.text() for c in others[:40])
