"""Shared pytest helpers: compile versa IR text and run it, or evaluate it with NumPy."""

import os

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction, TensorSpec, find_function
from versa.environment import CACHE_DIR, CODEGEN_STRICT
from versa.reference import interpret

# A codegen strategy whose script fails leaves its op to plain loops in users' compiles; in the
# tests it fails the compile, so that a broken strategy shows (test_codegen_fallback unsets it).
os.environ.setdefault(CODEGEN_STRICT, "1")
# No compile cache (versa.cache), whatever the environment says: a test that compiles must run
# the pipeline it tests (a hit would skip it, and many tests read the lowered module, which a
# hit does not have), tests stay independent of each other and of earlier runs, and nothing is
# written into the user's cache. The subprocesses of tests inherit it; the cache's own tests
# (test/python/cache/) turn it on in a folder of their own.
os.environ[CACHE_DIR] = "off"


class Compiled:
    def __init__(self, text: str, pipeline: str = "lower-to-llvm"):
        self.text = text
        self.module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
        function = find_function(self.module, None)
        self.specs = [TensorSpec.of(t) for t in function.type.inputs]
        self.jit = JitFunction(self.module, pipeline=pipeline)

    def random_inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in self.specs]


def reference(text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return interpret(find_function(module, None), inputs)


@pytest.fixture
def compile_versa():
    return Compiled
