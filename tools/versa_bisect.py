"""versa-bisect: name the first pass after which a program's results drift from the reference.

    versa-bisect model.mlir                                   # lower-to-llvm (opt-level 3)
    versa-bisect model.mlir --inputs in.npz --pipeline 'versa-canonicalize,versa-fuse,lower-to-llvm'

The pipeline runs pass by pass; each stage is judged by NumPy while it is versa IR, else
JIT-run (see `versa.fuzz.bisect`). The smallest op that drifts on its own is written as a
standalone program (`--output-dir`, default `.`): `bisect-<pass>.mlir` + `.npz` (arg0, ...),
ready for `versa-run FILE --inputs FILE.npz --check`. Exit code 1 when a pass drifts.
"""

import argparse
import re
from pathlib import Path

import numpy as np
from versa import compiler
from versa.cpu.runtime import find_function
from versa.fuzz import bisect
from versa.tools.common import ArgumentParser, read_input, tool_main, write_output
from versa.tools.versa_run import read_npz


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-bisect", description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("--inputs", help=".npz with arg0, arg1, ... (default: the fuzzer's inputs)")
    parser.add_argument("--pipeline", default="lower-to-llvm", help="the pipeline to bisect")
    parser.add_argument("--output-dir", default=".", help="where the reproducer goes")
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    filename, data = read_input(args.input)
    text = compiler.decode(data)
    elements = compiler.parse_pipeline(args.pipeline)
    inputs = None
    if args.inputs:
        module = bisect.parse(text)
        count = len(find_function(module, None).type.inputs)
        inputs = read_npz(args.inputs, [f"arg{i}" for i in range(count)])
    culprit = bisect.bisect(text, elements, inputs)
    if culprit is None:
        print(f"{filename}: no drift through {len(elements)} steps of '{args.pipeline}'")
        return 0
    what = "fails" if culprit.failed else "is the first after which the results drift"
    print(f"{filename}: step {culprit.step} '{culprit.name}' {what}: {culprit.message}")
    if culprit.reproducer is not None:
        stem = Path(args.output_dir) / f"bisect-{re.sub(r'[^A-Za-z0-9_-]+', '_', culprit.name)}"
        write_output(f"{stem}.mlir", culprit.reproducer)
        np.savez(f"{stem}.npz", **{f"arg{i}": a for i, a in enumerate(culprit.reproducer_inputs)})
        print(f"smallest failing op: {stem}.mlir (inputs {stem}.npz)")
    return 1


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
