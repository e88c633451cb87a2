"""`versa cache info|clear` and VERSA_LOG from the command line: output, exit codes, no
tracebacks. The cache lives in each test's own folder."""

import os
import subprocess
import sys

PROGRAM = """func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}"""


def tool(module: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", f"versa.tools.{module}", *args]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env={**os.environ, "VERSA_LOG": "", **env}
    )
    assert "Traceback" not in result.stderr
    return result


def versa(*args: str, **env: str) -> subprocess.CompletedProcess:
    return tool("versa_cli", *args, **env)


def test_info_and_clear(tmp_path):
    cache, program = tmp_path / "cache", tmp_path / "mm.mlir"
    program.write_text(PROGRAM)
    empty = versa("cache", "info", VERSA_CACHE_DIR=str(cache))
    assert empty.returncode == 0 and f"folder:     {cache}" in empty.stdout
    assert "entries:    0" in empty.stdout and "limit:      2.0 GiB" in empty.stdout
    for _ in range(2):  # a miss that writes, then a hit
        run = tool("versa_run", str(program), "--random", "-O", "1", VERSA_CACHE_DIR=str(cache))
        assert run.returncode == 0, run.stderr
    info = versa("cache", "info", VERSA_CACHE_DIR=str(cache), VERSA_CACHE_SIZE="500M")
    assert info.returncode == 0 and "entries:    1" in info.stdout and "limit:      500.0 MiB" in info.stdout
    cleared = versa("cache", "clear", VERSA_CACHE_DIR=str(cache))
    assert cleared.returncode == 0 and cleared.stdout == f"removed 1 entries from {cache}\n"
    assert "entries:    0" in versa("cache", "info", VERSA_CACHE_DIR=str(cache)).stdout


def test_an_off_cache_and_bad_settings(tmp_path):
    off = versa("cache", "info", VERSA_CACHE_DIR="off")
    assert off.returncode == 0 and "off" in off.stdout
    a_file = tmp_path / "file"
    a_file.write_text("")
    result = versa("cache", "info", VERSA_CACHE_DIR=str(a_file))
    assert result.returncode == 1 and f"error: VERSA_CACHE_DIR: '{a_file}' is not a folder" in result.stderr
    result = versa("cache", "info", VERSA_CACHE_DIR=str(tmp_path), VERSA_CACHE_SIZE="big")
    assert result.returncode == 1 and "VERSA_CACHE_SIZE='big' is not a size" in result.stderr
    assert versa().returncode == 1
    assert versa("cache").returncode == 1
    assert versa("cache", "drop").returncode == 1


def test_versa_log_info_prints_pass_times(tmp_path):
    program = tmp_path / "mm.mlir"
    program.write_text(PROGRAM)
    for flags, env in (((), {"VERSA_LOG": "info"}), (("-v",), {})):
        result = tool("versa_run", str(program), "--random", *flags, VERSA_CACHE_DIR="off", **env)
        assert result.returncode == 0, result.stderr
        lines = result.stderr.splitlines()
        assert any(line.startswith("versa.compiler: info: versa-codegen ") for line in lines)
        assert any(line.startswith("versa.compiler: info: convert-func-to-llvm ") for line in lines)
        assert any(line.startswith("versa.compiler: info: ") and " passes in " in line for line in lines)
        assert lines[-1].startswith("versa.jit: info: main: LLVM -O3 in ")
    quiet = tool("versa_run", str(program), "--random", VERSA_CACHE_DIR="off")
    assert quiet.stderr == ""  # the default level prints nothing on a good compile


def test_a_bad_versa_log_is_an_error(tmp_path):
    program = tmp_path / "mm.mlir"
    program.write_text(PROGRAM)
    message = "VERSA_LOG='loud' is not one of warning, info, debug"
    for result in (
        tool("versa_run", str(program), "--random", VERSA_LOG="loud"),
        versa("cache", "info", VERSA_LOG="loud"),
    ):
        assert result.returncode == 1 and f"error: {message}" in result.stderr
    imported = subprocess.run(
        [sys.executable, "-c", "import versa"],
        capture_output=True,
        text=True,
        env={**os.environ, "VERSA_LOG": "loud"},
    )
    assert imported.returncode == 0 and message in imported.stderr  # a library reports, goes on
