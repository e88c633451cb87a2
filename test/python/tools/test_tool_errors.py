"""The tools' error contract (docs/design.md, "Tools"): bad input gives a located diagnostic
(`file:line:col: error: ...`) and exit code 1, never a Python traceback.

Each case runs versa-opt / versa-run as a subprocess on input written to `tmp_path`. Parse errors
live here rather than in `test/Dialect/versa/invalid.mlir`: a file that does not parse cannot be
checked split by split with `--verify-diagnostics`.
"""

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from versa.passes import PASSES, PIPELINES

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
MODULES = {"versa-opt": "versa.tools.versa_opt", "versa-run": "versa.tools.versa_run"}
LIMIT_ENV = "VERSA_MAX_BUFFER_BYTES"

GOOD = """\
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""

# Fails the verifier on line 2: relu keeps its operand's shape.
BAD = """\
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<8xf32>
  return %a : tensor<4xf32>
}
"""


def tool(name: str) -> list[str]:
    """The console script next to this Python, or the module when it is not installed."""
    script = BIN / name
    if script.exists():
        return [str(script)]
    found = shutil.which(name)
    return [found] if found else [sys.executable, "-m", MODULES[name]]


def run(
    name: str, *args: str | Path, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """The tool's exit code and output; `env` adds to the environment (without VERSA_MAX_BUFFER_BYTES)."""
    environ = {k: v for k, v in os.environ.items() if k != LIMIT_ENV}
    return subprocess.run(
        [*tool(name), *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
        env={**environ, **(env or {})},
    )


def stderr_of(result: subprocess.CompletedProcess) -> str:
    text = result.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in text, text
    return text


def assert_located_error(
    result: subprocess.CompletedProcess, filename: str | Path, line: int, message: str = ""
) -> str:
    """Exit code 1 and a first error `filename:line:col: error: ...message...`."""
    err = stderr_of(result)
    assert result.returncode == 1, err
    pattern = rf"^{re.escape(str(filename))}:(\d+):(\d+): error: (.*)$"
    match = re.search(pattern, err, re.MULTILINE)
    assert match, f"no '{filename}:<line>:<col>: error: ' diagnostic in:\n{err}"
    assert int(match.group(1)) == line, err
    assert int(match.group(2)) >= 1, err
    assert message in match.group(3), err
    return err


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# ----------------------------------------------------------------------------- versa-opt: input


def test_good_input_succeeds(tmp_path):
    result = run("versa-opt", write(tmp_path, "good.mlir", GOOD))
    assert result.returncode == 0, stderr_of(result)
    assert b'"versa.relu"' in result.stdout


def test_syntax_error(tmp_path):
    src = GOOD.replace("(tensor<4xf32>) -> tensor<4xf32>", "(tensor<4xf32> -> tensor<4xf32>")
    path = write(tmp_path, "syntax.mlir", src)
    assert_located_error(run("versa-opt", path), path, 3, "expected ')'")


def test_unknown_versa_op(tmp_path):
    path = write(tmp_path, "unknown_op.mlir", GOOD.replace("versa.relu", "versa.nope"))
    assert_located_error(run("versa-opt", path), path, 3, "versa.nope")


def test_unknown_dialect_op(tmp_path):
    path = write(tmp_path, "unknown_dialect.mlir", GOOD.replace("versa.relu", "nodialect.relu"))
    assert_located_error(run("versa-opt", path), path, 3, "unregistered dialect")


def test_verifier_failure(tmp_path):
    src = """\
func.func @f(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x8xf32> {

  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""
    path = write(tmp_path, "verify.mlir", src)
    assert_located_error(
        run("versa-opt", path), path, 3, "'versa.add' op operand shapes [4, 8] and [3, 8] are not broadcast"
    )


def test_garbage_bytes(tmp_path):
    path = write(tmp_path, "garbage.mlir", b"\n\x01\x02#!$ garbage }}}{{{\x7f")
    assert_located_error(run("versa-opt", path), path, 2)


def test_non_utf8_bytes(tmp_path):
    path = write(tmp_path, "latin1.mlir", b"// ok\n\xff\xfe func")
    assert_located_error(run("versa-opt", path), path, 2, "UTF-8")


def test_nul_byte(tmp_path):
    path = write(tmp_path, "nul.mlir", GOOD.encode() + b"\x00\n")
    assert_located_error(run("versa-opt", path), path, 6, "NUL")


def test_truncated_file(tmp_path):
    cut = GOOD.index('"versa.relu"') + len('"versa.relu"(%0')
    path = write(tmp_path, "truncated.mlir", GOOD[:cut])
    assert_located_error(run("versa-opt", path), path, 3)


def test_empty_file_succeeds(tmp_path):
    result = run("versa-opt", write(tmp_path, "empty.mlir", ""))
    assert result.returncode == 0, stderr_of(result)
    assert b"module" in result.stdout


def test_missing_file(tmp_path):
    path = tmp_path / "does_not_exist.mlir"
    result = run("versa-opt", path)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert str(path) in err and "error: " in err, err


def test_directory_as_input(tmp_path):
    result = run("versa-opt", tmp_path)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert str(tmp_path) in err and "error: " in err, err


def test_stdin_input():
    result = run("versa-opt", "-", stdin=("// first line\n" + BAD).encode())
    assert_located_error(result, "<stdin>", 3, "'versa.relu' op result shape [8] does not match")


def test_stdin_input_succeeds():
    result = run("versa-opt", "-", stdin=GOOD.encode())
    assert result.returncode == 0, stderr_of(result)
    assert b'"versa.add"' in result.stdout


def test_split_input_file_reports_line_in_second_chunk(tmp_path):
    path = write(tmp_path, "split.mlir", GOOD + "\n// -----\n\n" + BAD)
    # GOOD has 5 lines; then a blank, the marker, a blank: BAD's `versa.relu` is line 10.
    result = run("versa-opt", path, "--split-input-file")
    assert_located_error(result, path, 10, "'versa.relu' op result shape [8] does not match")
    assert result.stdout.count(b"func.func @f") == 1  # the good chunk is still printed


# ----------------------------------------------------------------------------- versa-opt: flags


def test_unknown_pass_flag(tmp_path):
    path = write(tmp_path, "good.mlir", GOOD)
    result = run("versa-opt", path, "--no-such-pass")
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "no-such-pass" in err, err


def test_bad_pass_option(tmp_path):
    path = write(tmp_path, "good.mlir", GOOD)
    result = run("versa-opt", path, "--lower-to-llvm=opt-level=x")
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "opt-level" in err and "'x'" in err, err
    # An error without a location names the tool or the input file, not a placeholder.
    assert re.match(rf"^(versa-opt|versa_opt\.py|{re.escape(str(path))}): error: ", err), err


def test_list_passes_names_every_pass_and_pipeline():
    result = run("versa-opt", "--list-passes")
    assert result.returncode == 0, stderr_of(result)
    listed = set(re.findall(r"^\s+--([\w-]+)", result.stdout.decode(), re.MULTILINE))
    missing = (set(PASSES) | set(PIPELINES)) - listed
    assert not missing, f"--list-passes lacks {sorted(missing)}"


def test_emit_irdl_matches_checked_in_file():
    """dialects/versa.irdl.mlir is `versa-opt --emit-irdl` output; regenerate it with
    `versa-opt --emit-irdl -o dialects/versa.irdl.mlir` after changing the dialect."""
    result = run("versa-opt", "--emit-irdl")
    assert result.returncode == 0, stderr_of(result)
    assert result.stdout == (ROOT / "dialects" / "versa.irdl.mlir").read_bytes()


# ----------------------------------------------------------------------------- versa-run


TWO_ARGS = GOOD  # @f takes arg0 and arg1


def test_versa_run_without_inputs(tmp_path):
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS))
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "--inputs" in err, err


def test_versa_run_npz_lacks_arg1(tmp_path):
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.ones(4, np.float32))
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--inputs", inputs)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "arg1" in err, err


def test_versa_run_npz_wrong_shape(tmp_path):
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.ones(3, np.float32), arg1=np.ones(4, np.float32))
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--inputs", inputs)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "arg" in err, err


def test_versa_run_missing_npz(tmp_path):
    missing = tmp_path / "nope.npz"
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--inputs", missing)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "nope.npz" in err, err


def test_versa_run_unknown_entry(tmp_path):
    path = write(tmp_path, "f.mlir", TWO_ARGS)
    result = run("versa-run", path, "--random", "--entry", "no_such_function")
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert "error: " in err and "no_such_function" in err, err


def test_versa_run_syntax_error(tmp_path):
    path = write(tmp_path, "f.mlir", TWO_ARGS.replace("return %1", "return %1 :"))
    assert_located_error(run("versa-run", path, "--random"), path, 4)


def test_versa_run_missing_file(tmp_path):
    path = tmp_path / "does_not_exist.mlir"
    result = run("versa-run", path, "--random")
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert str(path) in err and "error: " in err, err


def test_versa_run_good_input_succeeds(tmp_path):
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--random", "--check")
    assert result.returncode == 0, stderr_of(result)
    assert b"check result0: OK" in result.stdout


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        # a dynamic dim needs a size from the command line (--dim or --input-shape)
        ("%a: tensor<?xf32>) -> tensor<?xf32>", "error: dynamic dims without a size: 'arg0.dim0'"),
        ("%a: f32) -> f32", "error: can only pass ranked tensors to and from the JIT, got f32"),
    ],
    ids=["dynamic", "scalar"],
)
def test_versa_run_rejects_signatures_it_cannot_feed(tmp_path, signature, message):
    result_type = signature.split("-> ")[1]
    path = write(tmp_path, "f.mlir", f"func.func @d({signature} {{\n  return %a : {result_type}\n}}\n")
    result = run("versa-run", path, "--random")
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert f"{path}:" in err and message in err, err


# ----------------------------------------------------------------------------- versa-run: buffer limit

HUGE = "tensor<100000000000xf32>"  # 372.5 GiB: numpy would raise ArrayMemoryError


def test_versa_run_refuses_huge_argument(tmp_path):
    src = f"""\
func.func @main(%a: {HUGE}) -> {HUGE} {{
  %0 = "versa.relu"(%a) : ({HUGE}) -> {HUGE}
  return %0 : {HUGE}
}}
"""
    path = write(tmp_path, "huge.mlir", src)
    message = (
        f"arg0 ({HUGE}) needs 400000000000 bytes (372.5 GiB), more than the limit of 4294967296 bytes "
        f"(set {LIMIT_ENV} to raise it)"
    )
    assert_located_error(run("versa-run", path, "--random", "--check"), path, 1, message)


def test_versa_run_refuses_huge_result(tmp_path):
    src = """\
func.func @main(%a: tensor<4xf32>) -> tensor<4x300000000xf32> {
  %0 = "versa.broadcast_to"(%a) : (tensor<4xf32>) -> tensor<300000000x4xf32>
  %1 = "versa.reshape"(%0) : (tensor<300000000x4xf32>) -> tensor<4x300000000xf32>
  return %1 : tensor<4x300000000xf32>
}
"""
    path = write(tmp_path, "huge_result.mlir", src)
    message = "result0 (tensor<4x300000000xf32>) needs 4800000000 bytes (4.5 GiB), more than the limit"
    assert_located_error(run("versa-run", path, "--random"), path, 1, message)


def test_versa_run_buffer_limit_from_environment(tmp_path):
    path = write(tmp_path, "f.mlir", TWO_ARGS)  # 16-byte buffers
    result = run("versa-run", path, "--random", env={LIMIT_ENV: "16"})
    assert result.returncode == 0, stderr_of(result)
    result = run("versa-run", path, "--random", env={LIMIT_ENV: "15"})
    message = "arg0 (tensor<4xf32>) needs 16 bytes (16 B), more than the limit of 15 bytes"
    assert_located_error(result, path, 1, message)


def test_versa_run_bad_buffer_limit(tmp_path):
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--random", env={LIMIT_ENV: "lots"})
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert f"error: {LIMIT_ENV} must be a non-negative number of bytes, got 'lots'" in err, err


def test_versa_run_help_documents_buffer_limit():
    result = run("versa-run", "--help")
    assert result.returncode == 0, stderr_of(result)
    assert LIMIT_ENV in result.stdout.decode() and "4294967296" in result.stdout.decode()


# ----------------------------------------------------------------------------- versa-run: bad .npz


def npz_bytes(**arrays: np.ndarray) -> bytes:
    """What np.savez writes (stored, not compressed: byte offsets below are stable)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


GOOD_NPZ = npz_bytes(arg0=np.ones(4, np.float32), arg1=np.ones(4, np.float32))


def bad_crc(data: bytes) -> bytes:
    """GOOD_NPZ with bytes of arg0.npy's header zeroed: np.load opens it, reading arg0 fails."""
    return data[:60] + bytes(20) + data[80:]


def npy_bytes() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ones(4, np.float32))
    return buffer.getvalue()


@pytest.mark.parametrize(
    "content",
    [
        np.random.default_rng(0).bytes(256),
        b"PK\x03\x04" + np.random.default_rng(1).bytes(256),  # zipfile.BadZipFile
        b"",
        GOOD_NPZ[: len(GOOD_NPZ) // 2],
        GOOD_NPZ[:-10],
        bad_crc(GOOD_NPZ),  # np.load is lazy: fails when arg0 is read
        npz_bytes(arg0=np.array([{"a": 1}, None], dtype=object), arg1=np.ones(4, np.float32)),
        npy_bytes(),  # a .npy, not an .npz
    ],
    ids=[
        "random",
        "zip-magic-garbage",
        "empty",
        "truncated-half",
        "truncated-end",
        "bad-crc",
        "pickle",
        "npy",
    ],
)
def test_versa_run_unreadable_npz(tmp_path, content):
    inputs = write(tmp_path, "junk.npz", content)
    result = run("versa-run", write(tmp_path, "f.mlir", TWO_ARGS), "--inputs", inputs)
    err = stderr_of(result)
    assert result.returncode == 1, err
    assert re.match(
        rf"^(versa-run|versa_run\.py): error: could not read inputs '{re.escape(str(inputs))}': ", err
    ), err
