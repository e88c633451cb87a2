"""versa-run on functions with dynamic dims: `--dim NAME=N` and `--input-shape argI=D0,...` size
random inputs, `.npz` inputs bring their own sizes, and sizes the function does not take (a
missing dim, a broken range or symbol, an op's rule) are exit code 1 with one clear line, at
the op whose rule refused them or else at the function."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dynamic_programs import ADD_RELU

MATMUL = """\
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x?xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
"""
STATIC = """\
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def versa_run(tmp_path, text: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    path = tmp_path / "f.mlir"
    path.write_text(text)
    script = Path(sys.executable).parent / "versa-run"  # the console script: its errors name it
    command = [str(script) if script.exists() else "versa-run", str(path), "-O1", *args]
    environ = {**os.environ, "VERSA_CACHE_DIR": "off", **env}
    return subprocess.run(command, capture_output=True, text=True, env=environ, cwd=tmp_path, timeout=300)


@pytest.mark.parametrize(
    ("sizes", "shape"),
    [
        (["--dim", "batch=5"], [5, 64]),
        (["--input-shape", "arg0=3,64", "--input-shape", "arg1=3,64"], [3, 64]),
    ],
    ids=["dim", "input-shape"],
)
def test_run_sizes_random_inputs(tmp_path, sizes, shape):
    result = versa_run(tmp_path, ADD_RELU, "--random", "--check", *sizes)
    assert result.returncode == 0, result.stderr
    assert f"result0: float32{shape}" in result.stdout
    assert "check result0: OK" in result.stdout


def test_run_takes_the_sizes_of_npz_inputs(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "in.npz", arg0=rng.random((7, 64), np.float32), arg1=rng.random((7, 64), np.float32))
    result = versa_run(tmp_path, ADD_RELU, "--inputs", "in.npz", "--check")
    assert result.returncode == 0, result.stderr
    assert "result0: float32[7, 64]" in result.stdout and "check result0: OK" in result.stdout


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (
            ADD_RELU,
            ["--random"],
            "f.mlir:1:1: error: dynamic dims without a size: 'batch' (argument 0 dim 0): "
            "give --dim NAME=N or --input-shape argI=D0,D1,...",
        ),
        (
            ADD_RELU,
            ["--random", "--dim", "batch=17"],
            "f.mlir:1:1: error: argument 0 dim 0 = 17 exceeds the maximum 16 of 'batch'",
        ),
        (
            ADD_RELU,
            ["--random", "--dim", "seq=3"],
            "versa-run: error: --dim seq: the function has no such dim or argument "
            "(its dynamic dims: batch; 2 argument(s))",
        ),
        (
            MATMUL,
            ["--random", "--input-shape", "arg0=4,64", "--input-shape", "arg1=32,8"],
            "f.mlir:2:8: error: 'versa.matmul' op contraction dims differ: K = 64 (lhs) vs 32 (rhs) "
            "(operand shapes [4, 64], [32, 8])",
        ),
        (
            STATIC,
            ["--random", "--dim", "n=3"],
            "versa-run: error: --dim and --input-shape size dynamic dims: this function has none",
        ),
    ],
    ids=["missing", "range", "unknown", "rule", "static"],
)
def test_run_refuses_sizes_the_function_does_not_take(tmp_path, text, args, message):
    result = versa_run(tmp_path, text, *args)
    assert result.returncode == 1
    assert result.stderr.strip().endswith(message), result.stderr
    assert "Traceback" not in result.stderr


def test_run_refuses_npz_inputs_that_break_a_symbol(tmp_path):
    np.savez(tmp_path / "in.npz", arg0=np.zeros((4, 64), np.float32), arg1=np.zeros((5, 64), np.float32))
    result = versa_run(tmp_path, ADD_RELU, "--inputs", "in.npz")
    assert result.returncode == 1
    expected = "f.mlir:1:1: error: 'in.npz': argument 1 dim 0 = 5: symbol 'batch' is 4 in argument 0 (dim 0)"
    assert result.stderr.strip().endswith(expected), result.stderr


def test_run_limits_buffers_at_the_call_sizes(tmp_path):
    result = versa_run(tmp_path, ADD_RELU, "--random", "--dim", "batch=4", VERSA_MAX_BUFFER_BYTES="1000")
    assert result.returncode == 1
    assert (
        "error: result0 [4, 64] needs 1024 bytes (1.0 KiB), more than the limit of 1000 bytes"
        in result.stderr
    )
