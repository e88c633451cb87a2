"""What the compile cache's tests share: a small program, and compiling it in a fresh process
with the cache in a folder of the test's own (the suite's conftest turns the cache off)."""

import json
import os
import subprocess
import sys
from pathlib import Path

# Large enough that -O3 code at 2 threads calls the OpenMP runtime (the library links it).
PROGRAM = """func.func @main(%a: tensor<64x256xf32>, %b: tensor<256x512xf32>, %c: tensor<512xf32>)
    -> tensor<64x512xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %1 = "versa.add"(%0, %c) : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  return %1 : tensor<64x512xf32>
}"""
PIPELINE = "lower-to-llvm{threads=2}"

# Compiles PROGRAM (argv[1]: the pipeline) and prints whether the code came from the cache and
# the result's bytes. A preamble (argv[2], Python) may patch the process first.
CHILD = """
import json, sys
import numpy as np
exec(sys.argv[2])
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from cache_helpers import PROGRAM
module = compiler.parse_module(compiler.Chunk(PROGRAM, 1), make_context())
jit = JitFunction(module, pipeline=sys.argv[1])
rng = np.random.default_rng(0)
(out,) = jit(*[rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in jit.inputs])
print(json.dumps({"from_cache": jit.from_cache, "out": out.tobytes().hex(), "arena": jit.memory.arena}))
"""


def environment(cache: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "VERSA_CACHE_DIR": str(cache), "VERSA_LOG": "info", **extra}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    return env


def start(cache: Path, preamble: str = "", pipeline: str = PIPELINE, **extra: str) -> subprocess.Popen:
    command = [sys.executable, "-c", CHILD, pipeline, preamble]
    env = environment(cache, **extra)
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[dict, str]:
    """The child's report and its stderr (the log); fails the test if it failed."""
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    return json.loads(stdout.splitlines()[-1]), stderr


def compile_in_a_process(cache: Path, preamble: str = "", **extra: str) -> tuple[dict, str]:
    return finish(start(cache, preamble, **extra))


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("v*/??/*.entry"))
