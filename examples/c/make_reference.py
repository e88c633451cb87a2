"""Seeded inputs and the NumPy reference output of a versa model, as raw binary files.

    python make_reference.py model.mlir inputs.bin expected.bin [--seed 0]

Each file holds the buffers back to back (arguments, then results, in order; C-contiguous):
what examples/c/run_model.c reads and writes, and what mlp_main.c checks against.
"""

import argparse

import numpy as np
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import TensorSpec, find_function
from versa.reference import interpret
from versa.tools.versa_run import random_input


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("inputs")
    parser.add_argument("expected")
    parser.add_argument("--entry")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with open(args.model) as f:
        module = compiler.parse_module(compiler.Chunk(f.read(), 1), make_context())
    function = find_function(module, args.entry)
    rng = np.random.default_rng(args.seed)
    inputs = [random_input(TensorSpec.of(t), rng) for t in function.type.inputs]
    with open(args.inputs, "wb") as f:
        for array in inputs:
            f.write(np.ascontiguousarray(array).tobytes())
    with open(args.expected, "wb") as f:
        for array in interpret(function, inputs):
            f.write(np.ascontiguousarray(array).tobytes())


if __name__ == "__main__":
    main()
