"""A Python exception inside a rewrite pattern or a pass ends as a located diagnostic and exit
code 1, never a traceback or a crash of the process."""

from dataclasses import dataclass

import pytest
from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.dialects.versa import ReluOp
from versa.passes import PASSES
from versa.passes.common.base import Pass
from versa.passes.common.rewrite import apply_greedily
from versa.tools import versa_opt

SOURCE = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def exploding_pattern(op, rewriter):
    raise ZeroDivisionError("boom")


@dataclass(frozen=True)
class PatternBug(Pass):
    name = "test-pattern-bug"
    summary = "a pass whose pattern raises"

    def run(self, module):
        apply_greedily(module, [(ReluOp, exploding_pattern)])


@dataclass(frozen=True)
class PassBug(Pass):
    name = "test-pass-bug"
    summary = "a pass that raises"

    def run(self, module):
        raise KeyError("missing")


def test_pattern_exception_is_a_located_error():
    module = compiler.parse_module(compiler.Chunk(SOURCE, 1), make_context())
    with pytest.raises(CompileError) as info:
        compiler.run_passes(module, [PatternBug()])
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.col) == (3, 8)
    assert "exploding_pattern" in diag.message and "ZeroDivisionError: boom" in diag.message


def test_pass_exception_is_an_error():
    module = compiler.parse_module(compiler.Chunk(SOURCE, 1), make_context())
    with pytest.raises(CompileError) as info:
        compiler.run_passes(module, [PassBug()])
    assert "pass 'test-pass-bug' failed: KeyError" in info.value.diagnostics[0].message


def test_versa_opt_reports_a_pattern_exception(tmp_path, monkeypatch, capsys):
    path = tmp_path / "f.mlir"
    path.write_text(SOURCE)
    monkeypatch.setitem(PASSES, "versa-fuse", PatternBug)
    assert versa_opt.run([str(path), "--versa-fuse"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:8: error: pattern exploding_pattern failed")
    assert "Traceback" not in err
