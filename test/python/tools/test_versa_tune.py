"""versa-tune from the command line: the knobs it lists, a run into a database, bad input."""

import json
import subprocess
import sys

PROGRAM = """func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %x = "versa.matmul"(%a, %b) : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  return %x : tensor<64x96xf32>
}"""


def tune(*args: str, cwd=None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "versa.tools.versa_tune", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=cwd)


def test_list_space_prints_each_kernels_knobs(tmp_path):
    program = tmp_path / "mm.mlir"
    program.write_text(PROGRAM)
    result = tune(str(program), "--list-space", "--threads", "2", "--target", "x86-64-v3")
    assert result.returncode == 0, result.stderr
    assert "linalg.matmul 64x128 * 128x96 -> 64x96 f32 (MatmulStrategy, 1 use(s)" in result.stdout
    for knob in ("register:", "kr:", "kc:", "nc:", "mc:", "split:", "pack_b:"):
        assert knob in result.stdout


def test_a_run_writes_the_database_and_a_second_reuses_it(tmp_path):
    program, database = tmp_path / "mm.mlir", tmp_path / "db.json"
    program.write_text(PROGRAM)
    first = tune(str(program), "--budget", "4s", "--db", str(database), "--threads", "2", "-q")
    assert first.returncode == 0, first.stderr
    assert "1 kernel(s)" in first.stdout
    (entry,) = json.loads(database.read_text())["entries"]
    assert entry["op"] == "linalg.matmul 64x128 * 128x96 -> 64x96 f32" and entry["threads"] == 2
    second = tune(str(program), "--budget", "4s", "--db", str(database), "--threads", "2", "-q")
    assert "(db)" in second.stdout and "0 candidate(s) measured" in second.stdout


def test_bad_input_is_a_located_error(tmp_path):
    program = tmp_path / "bad.mlir"
    program.write_text('func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %x = "versa.nope"(%a)\n}\n')
    result = tune(str(program), "--list-space")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{program}:2:" in result.stderr and "error:" in result.stderr


def test_bad_flags_and_databases_exit_1(tmp_path):
    program, database = tmp_path / "mm.mlir", tmp_path / "db.json"
    program.write_text(PROGRAM)
    assert tune(str(program), "--budget", "soon").returncode == 1
    assert tune(str(program), "--target", "nvptx-sm80", "--list-space").returncode == 1
    database.write_text("{not json")
    result = tune(str(program), "--db", str(database), "--budget", "1s", "-q")
    assert result.returncode == 1 and "not a Versa tuning database" in result.stderr
    assert database.read_text() == "{not json"  # the user's file is left as it was
    result = tune(str(program), "--db", str(program), "--budget", "1s", "-q")
    assert result.returncode == 1 and "refusing" in result.stderr
