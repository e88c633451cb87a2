"""Grow the malformed corpus by token-level mutation of valid versa programs.

    .venv/bin/python test/Malformed/grow.py [--seed 0] [--mutants 100] [--truncations 30]

Seeds are the splits of `test/Dialect/versa/ops.mlir` and `examples/mlp.mlir`. Each mutant
deletes, duplicates, swaps or replaces one token (or cuts the program short), and is kept only
when Versa's parser or verifier rejects it: a mutant that is still valid IR tests nothing.
The output is deterministic for a seed; the files in `mutated/` and `truncated/` are the corpus,
this script only regenerates them.
"""

import argparse
import random
import re
import sys
from pathlib import Path

from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|[%@^#!]?[\w.$-]+(?:#\d+)?|->|[^\s\w]',
)
# Replacements that are plausible in IR yet often wrong: types, numbers, names, punctuation.
VOCABULARY = [
    "tensor<4xf32>",
    "tensor<0xf32>",
    "tensor<4x?xf32>",
    "tensor<f32>",
    "f64",
    "i1",
    "i64",
    "-1",
    "0",
    "3",
    "9223372036854775807",
    "1.0e+40",
    "nan",
    "%undefined",
    "@missing",
    '"versa.nope"',
    '"versa.yield"',
    "array<i64: -1>",
    "true",
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "dense<1.0>",
    "\\",
    "%0",
]


def seeds() -> list[tuple[str, str]]:
    """(name, text) of every valid program the mutants start from."""
    found = [("mlp", (ROOT / "examples" / "mlp.mlir").read_text())]
    ops = (ROOT / "test" / "Dialect" / "versa" / "ops.mlir").read_text()
    for chunk in re.split(r"^// -----.*$", ops, flags=re.MULTILINE):
        text = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//")).strip()
        match = re.search(r"func\.func @(\w+)", text)
        if match:
            found.append((match.group(1), text + "\n"))
    return found


def is_invalid(text: str) -> bool:
    try:
        compiler.parse_module(compiler.Chunk(text, 1), make_context())
    except CompileError:
        return True
    return False


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One token-level change of `text`, and a note saying what it was."""
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    i = rng.randrange(len(tokens))
    start, end = tokens[i]
    token = text[start:end]
    kind = rng.choice(["delete", "duplicate", "swap", "replace", "vocabulary"])
    if kind == "delete":
        new = ""
    elif kind == "duplicate":
        new = token + " " + token
    elif kind == "swap" and i + 1 < len(tokens):
        s2, e2 = tokens[i + 1]
        return text[:start] + text[s2:e2] + text[end:s2] + token + text[
            e2:
        ], f"swap '{token}' with the next token"
    elif kind == "replace":
        s2, e2 = rng.choice(tokens)
        new = text[s2:e2]
    else:
        new = rng.choice(VOCABULARY)
    line = text.count("\n", 0, start) + 1
    return text[:start] + new + text[end:], f"{kind} '{token}' on line {line} -> '{new}'"


def truncate(text: str, rng: random.Random) -> tuple[str, str]:
    cut = rng.choice([m.end() for m in TOKEN.finditer(text)][:-1])
    return text[:cut], f"cut after byte {cut}"


def grow(kind: str, count: int, rng: random.Random, programs: list[tuple[str, str]]) -> int:
    """Write `count` invalid variants into `HERE/kind`, replacing what was there."""
    out = HERE / kind
    out.mkdir(exist_ok=True)
    for old in out.glob("*.mlir"):
        old.unlink()
    change = mutate if kind == "mutated" else truncate
    seen: set[str] = set()
    attempts = 0
    while len(seen) < count and attempts < count * 50:
        attempts += 1
        name, text = rng.choice(programs)
        variant, note = change(text, rng)
        if variant in seen or not is_invalid(variant):
            continue
        seen.add(variant)
        header = f"// grow.py {kind} of @{name}: {note}\n".replace("\n", " ").rstrip() + "\n"
        (out / f"{name}_{len(seen):03d}.mlir").write_text(header + variant)
    return len(seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mutants", type=int, default=100)
    parser.add_argument("--truncations", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    programs = seeds()
    made = grow("mutated", args.mutants, rng, programs), grow("truncated", args.truncations, rng, programs)
    print(f"{made[0]} mutants, {made[1]} truncations from {len(programs)} programs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
