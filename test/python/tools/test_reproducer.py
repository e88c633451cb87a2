"""Crash reproducers: a pass that fails on valid input leaves a file with the IR before it and
the pass; `versa-opt --run-reproducer` replays it. Refusals of bad input (PassError) leave none.

The failing passes are test-only, registered in PASSES for one test (monkeypatch).
"""

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from versa import compiler, reproducer
from versa.passes import PASSES
from versa.passes.common.base import Pass, PassError
from versa.tools import versa_opt

SOURCE = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


@dataclass(frozen=True)
class Crash(Pass):
    """Raises when the module still holds a versa.exp (a bug in a pass)."""

    name = "test-crash"
    summary = "a pass with a bug"
    limit: int = 3

    def run(self, module):
        if "versa.exp" in str(module):
            raise ZeroDivisionError("boom")


@dataclass(frozen=True)
class Refuse(Pass):
    name = "test-refuse"
    summary = "a pass that refuses its input"

    def run(self, module):
        raise PassError("unsupported input")


@dataclass(frozen=True)
class Fixed(Crash):
    def run(self, module):
        pass


@pytest.fixture
def source(tmp_path, monkeypatch) -> Path:
    monkeypatch.setitem(PASSES, "test-crash", Crash)
    monkeypatch.setitem(PASSES, "test-refuse", Refuse)
    path = tmp_path / "f.mlir"
    path.write_text(SOURCE)
    return path


def reproducer_path(err: str) -> Path:
    match = re.search(r"note: reproducer written to (\S+);", err)
    assert match, err
    return Path(match.group(1))


def test_failing_pass_writes_a_reproducer(source, tmp_path, capsys):
    out = tmp_path / "repro"
    args = [str(source), "--versa-fuse", "--test-crash=limit=7", "--cse", "--mlir-reproducer-dir", str(out)]
    assert versa_opt.run(args) == 1
    err = capsys.readouterr().err
    assert "pass 'test-crash' failed: ZeroDivisionError: boom" in err, err
    path = reproducer_path(err)
    assert path.parent == out and path.name.startswith("versa-reproducer-")
    text = path.read_text()
    # The IR before the failing pass (after versa-fuse), and the failing pass with its options.
    assert '"versa.fused"' in text and '"versa.exp"' in text
    assert reproducer.read_pipeline(text) == "builtin.module(test-crash{limit=7})"
    assert f"versa-opt --run-reproducer {path}" in err


def test_run_reproducer_replays_the_failure(source, tmp_path, capsys, monkeypatch):
    assert versa_opt.run([str(source), "--test-crash", "--mlir-reproducer-dir", str(tmp_path)]) == 1
    path = reproducer_path(capsys.readouterr().err)
    assert versa_opt.run([str(path), "--run-reproducer", "--mlir-reproducer-dir", str(tmp_path)]) == 1
    assert "ZeroDivisionError: boom" in capsys.readouterr().err
    monkeypatch.setitem(PASSES, "test-crash", Fixed)  # the bug fixed: the reproducer passes
    assert versa_opt.run([str(path), "--run-reproducer"]) == 0
    assert '"versa.exp"' in capsys.readouterr().out


def test_default_directory_is_temporary_and_nothing_is_overwritten(source, tmp_path, capsys, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    for _ in range(2):
        assert versa_opt.run([str(source), "--test-crash"]) == 1
    paths = {
        reproducer_path(line) for line in capsys.readouterr().err.splitlines() if "reproducer written" in line
    }
    assert len(paths) == 2 and all(p.parent == temp for p in paths)
    assert source.read_text() == SOURCE


def test_a_refusal_writes_no_reproducer(source, tmp_path, capsys):
    out = tmp_path / "repro"
    assert versa_opt.run([str(source), "--test-refuse", "--mlir-reproducer-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "unsupported input" in err and "reproducer" not in err
    assert not out.exists()


def test_unwritable_directory_is_a_note(source, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert versa_opt.run([str(source), "--test-crash", "--mlir-reproducer-dir", str(blocker / "sub")]) == 1
    assert "note: could not write a reproducer" in capsys.readouterr().err


def test_print_ir_after_failure(source, tmp_path, capfd):
    args = [
        str(source),
        "--test-crash",
        "--mlir-print-ir-after-failure",
        "--mlir-reproducer-dir",
        str(tmp_path),
    ]
    assert versa_opt.run(args) == 1
    err = capfd.readouterr().err
    assert "IR Dump After test-crash Failed" in err and '"versa.exp"' in err, err


def test_run_reproducer_refuses_other_input(source, capsys):
    assert versa_opt.run([str(source), "--run-reproducer"]) == 1
    assert f"{source}: error: not a reproducer" in capsys.readouterr().err
    with pytest.raises(versa_opt.ToolError, match="takes its pipeline from the reproducer"):
        versa_opt.run([str(source), "--run-reproducer", "--cse"])


def test_pipeline_text_round_trips():
    elements = compiler.parse_pipeline("lower-to-llvm{opt-level=1 threads=2},cse")
    again = compiler.parse_pipeline(reproducer.pipeline_text(elements))
    assert again == elements
