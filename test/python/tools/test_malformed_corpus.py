"""Every file of the malformed corpus (`test/Malformed/`) through every tool: exit code 1 and an
`error:` diagnostic (located where the input has a location), never a traceback, a signal or a hang.

The tools run in-process (`main()` with `sys.argv` set, SystemExit caught): some 2,000 runs as
subprocesses would take minutes. A small sample also runs as subprocesses, which is where a
signal (a negative return code) shows. `run-only/` holds valid IR that only versa-run must
refuse (absurd shapes, nothing to run); `npz/` holds bad `--inputs` for versa-run.
Regenerate `mutated/` and `truncated/` with `test/Malformed/grow.py`.
"""

import contextlib
import faulthandler
import io
import re
import sys
from pathlib import Path

import pytest
from test_tool_errors import run, stderr_of
from versa import compiler
from versa.tools import versa_import, versa_opt, versa_run, versa_translate
from versa.verify_diagnostics import expectations

CORPUS = Path(__file__).resolve().parents[2] / "Malformed"
FILES = sorted(p for p in CORPUS.glob("*/*.mlir"))
NPZ = sorted(CORPUS.glob("npz/*.npz"))
HANG_SECONDS = 60
# Categories whose inputs carry no position for some tools: versa-import reads binary input as
# ONNX, and a file that is valid IR (run-only) has nothing to point at.
UNLOCATED = {"versa-import": {"bytes"}}

TOOLS = {
    "versa-opt": (versa_opt, []),
    "versa-opt --versa-fuse --cse": (versa_opt, ["--versa-fuse", "--cse"]),
    "versa-opt --lower-to-llvm": (versa_opt, ["--lower-to-llvm=opt-level=1"]),
    "versa-run": (versa_run, ["--random", "--check"]),
    "versa-translate": (versa_translate, ["--mlir-to-llvmir"]),
    "versa-import": (versa_import, []),
}
PIPELINE_TOOLS = ("versa-opt --versa-fuse --cse", "versa-opt --lower-to-llvm")

TWO_ARGS = """\
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def call(module, argv: list[str]) -> tuple[int, str]:
    """`module.main()` in this process: its exit code and stderr. A hang ends the test run
    with every thread's stack (faulthandler), not a silent wait."""
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.StringIO()
    old_argv = sys.argv
    sys.argv = [module.__name__.rsplit(".", 1)[-1].replace("_", "-"), *argv]
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            module.main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        faulthandler.cancel_dump_traceback_later()
        sys.argv = old_argv
    return code, stderr.getvalue()


def problem(path: Path, tool: str, code: int, err: str) -> str | None:
    """What is wrong with one run, or None."""
    category = path.parent.name
    if "Traceback" in err or "internal error" in err:
        return f"internal error:\n{err}"
    if code == 0 and category == "run-only" and tool != "versa-run":
        return None  # valid IR: only versa-run must refuse it
    if code != 1:
        return f"exit code {code}, expected 1:\n{err}"
    if not re.search(rf"^{re.escape(str(path))}(:\d+:\d+)?: error: ", err, re.MULTILINE):
        return f"no '{path}: error:' line:\n{err}"
    located = category != "run-only" and category not in UNLOCATED.get(tool, ())
    if located and not re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: ", err, re.MULTILINE):
        return f"the error has no line:col:\n{err}"
    return None


def test_corpus_is_large_enough():
    assert len(FILES) + len(NPZ) >= 300
    assert {p.parent.name for p in FILES} >= {"syntax", "verifier", "bytes", "nesting", "mutated"}


def files_for(tool: str) -> list[Path]:
    """Every file; a pipeline differs from plain versa-opt only once the input has parsed, so
    pipelines get the files that parse (run-only/), the deep ones and every fifth of the rest."""
    if tool not in PIPELINE_TOOLS:
        return FILES
    return [p for i, p in enumerate(FILES) if p.parent.name in ("run-only", "nesting") or i % 5 == 0]


@pytest.mark.parametrize("tool", TOOLS)
def test_every_file_is_refused_with_a_diagnostic(tool):
    module, flags = TOOLS[tool]
    failures = []
    for path in files_for(tool):
        code, err = call(module, [str(path), *flags])
        found = problem(path, tool, code, err)
        if found:
            failures.append(f"{tool} {path.relative_to(CORPUS)}: {found}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:20])


def test_verifier_errors_are_the_expected_ones():
    """Files with `expected-error` comments: versa-opt's first error is that one, on that line."""
    failures = []
    for path in FILES:
        text = path.read_text(errors="replace")
        expected = expectations(text, 1)
        if not expected:
            continue
        code, err = call(versa_opt, [str(path)])
        first = re.search(rf"^{re.escape(str(path))}:(\d+):\d+: error: (.*)$", err, re.MULTILINE)
        if not first or all(int(first.group(1)) != e.line or e.text not in first.group(2) for e in expected):
            failures.append(f"{path.name}: expected {[(e.line, e.text) for e in expected]}, got:\n{err}")
    assert not failures, "\n".join(failures[:20])


def test_bad_npz_inputs(tmp_path):
    program = tmp_path / "two_args.mlir"
    program.write_text(TWO_ARGS)
    failures = []
    for npz in NPZ:
        code, err = call(versa_run, [str(program), "--inputs", str(npz)])
        if code != 1 or "Traceback" in err or "internal error" in err:
            failures.append(f"{npz.name}: exit code {code}:\n{err}")
        elif not re.match(rf"^versa-run: error: .*{re.escape(str(npz))}", err):
            failures.append(f"{npz.name}: the error does not name the file:\n{err}")
    assert not failures, "\n".join(failures)


SAMPLE = ["nesting/deep_regions.mlir", "bytes/random_4k.mlir", "run-only/huge_intermediate.mlir"]
SAMPLE_TOOLS = [["versa-opt", "--lower-to-llvm"], ["versa-run", "--random", "--check"]]


@pytest.mark.parametrize("name", SAMPLE)
@pytest.mark.parametrize("tool", SAMPLE_TOOLS, ids=lambda t: t[0])
def test_sample_as_subprocess(name, tool):
    """Real processes: a crash in native code shows as a signal, not as a dead pytest."""
    path = CORPUS / name
    result = run(tool[0], path, *tool[1:])
    err = stderr_of(result)
    assert result.returncode >= 0, f"killed by signal {-result.returncode}:\n{err}"
    if tool[0] == "versa-run" or not name.startswith("run-only"):
        assert result.returncode == 1 and f"{path}" in err and "error: " in err, err


def test_nesting_up_to_the_limit_parses(tmp_path):
    depth = compiler.MAX_NESTING - 1  # with the attribute dict: exactly the limit
    path = tmp_path / "deep.mlir"
    path.write_text("func.func @f() attributes {a = " + "[" * depth + "]" * depth + "} {\n  return\n}\n")
    assert call(versa_opt, [str(path)])[0] == 0
    path.write_text(path.read_text().replace("[", "[[", 1).replace("]", "]]", 1))
    code, err = call(versa_opt, [str(path)])
    assert code == 1 and f"{path}:1:" in err and "nesting deeper than" in err, err


def test_a_bug_is_an_internal_error_not_a_traceback(monkeypatch, tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(TWO_ARGS)
    monkeypatch.setattr(versa_opt, "process_chunk", lambda *a: 1 / 0)
    code, err = call(versa_opt, [str(path)])
    assert code == 1 and "Traceback" not in err, err
    assert err.startswith("versa-opt: error: internal error: ZeroDivisionError: division by zero"), err
    monkeypatch.setenv("VERSA_TRACEBACK", "1")
    assert "Traceback" in call(versa_opt, [str(path)])[1]
