"""Mutants of the programs the test suite and the examples already hold.

Why: hand-written tests sit on the interesting shapes and attribute corners that a random
generator rarely hits; a small change to them (operands swapped, an attribute moved within its
valid range, an op inserted) probes the neighbourhood of every case someone thought of. Only
mutants that verify are kept.
"""

import random
from collections.abc import Iterable
from pathlib import Path

from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.dialects.attributes import Bool, Elements, Float, Int, Ints, OneOf
from versa.dialects.versa import OPS

from . import shapes_ops
from .generate import Generator
from .program import Program, from_function, retype
from .reduce import verifies

MAX_OPS, MAX_ELEMENTS = 24, 4096
SKIPPED_DIRS = {"Malformed", "Output"}  # deliberately broken inputs; lit's scratch files


def load_corpus(roots: Iterable[Path]) -> list[Program]:
    """Every versa-only function of the `.mlir` files under `roots` that is small enough
    (the test suite's deliberately malformed inputs left out)."""
    corpus, context = [], make_context()
    for root in roots:
        for path in sorted(Path(root).rglob("*.mlir")):
            if SKIPPED_DIRS & set(path.parts):
                continue
            text = path.read_text(errors="replace")
            for chunk in compiler.split_input(text, True):
                corpus.extend(_programs(chunk, context))
    return corpus


def _programs(chunk: compiler.Chunk, context) -> list[Program]:
    try:
        module = compiler.parse_module(chunk, context)
    except CompileError:
        return []
    programs = []
    for op in module.body.operations:
        program = from_function(op) if op.operation.name == "func.func" and op.regions[0].blocks else None
        small = program is not None and len(program.ops) <= MAX_OPS and program.size()[1] <= MAX_ELEMENTS
        if small and not program.dynamic:  # the edits draw static shapes; `dynamic.py` adds `?`s
            programs.append(program)
    return programs


def mutate(program: Program, seed: int, attempts: int = 8) -> Program | None:
    """A verified mutant of `program` (one to three edits), or None if no attempt verified."""
    rng = random.Random(seed)
    for _ in range(attempts):
        mutant = program.copy()
        edits = [rng.choice(EDITS) for _ in range(rng.randint(1, 3))]
        if all(edit(mutant, rng) for edit in edits) and retype(mutant) and verifies(mutant):
            return mutant
    return None


def swap_operands(program: Program, rng: random.Random) -> bool:
    ops = [op for op in program.ops if len(op.operands) >= 2]
    if not ops:
        return False
    op = rng.choice(ops)
    i, j = rng.sample(range(len(op.operands)), 2)
    op.operands[i], op.operands[j] = op.operands[j], op.operands[i]
    return True


def replace_operand(program: Program, rng: random.Random) -> bool:
    """An operand replaced by an earlier value of the same type."""
    for op in rng.sample(program.ops, len(program.ops)):
        index = rng.randrange(len(op.operands)) if op.operands else None
        earlier = list(program.values())[: len(program.args) + program.ops.index(op)]
        same = [v for v in earlier if index is not None and v.type == op.operands[index].type]
        if same:
            op.operands[index] = rng.choice(same)
            return True
    return False


def change_attribute(program: Program, rng: random.Random) -> bool:
    """One attribute moved to another value its spec accepts."""

    def mutable(op) -> list[str]:
        specs = OPS[f"versa.{op.name}"].ATTRS
        return sorted(name for name, spec in specs.items() if not isinstance(spec, Elements))

    ops = [op for op in program.ops if mutable(op)]
    if not ops:
        return False
    op = rng.choice(ops)
    specs = OPS[f"versa.{op.name}"].ATTRS
    name = rng.choice(mutable(op))
    rank = len(op.operands[0].type.shape) if op.operands else len(op.type.shape)
    op.attrs[name] = _new_value(specs[name], op.attrs.get(name), rank, rng)
    return op.attrs[name] is not None


def _new_value(spec, old, rank: int, rng: random.Random):
    if isinstance(spec, Ints):
        length = rank if spec.length == "rank" else spec.length
        length = len(old) if length is None and old is not None else length or rng.randint(0, rank)
        values = [rng.randint(spec.minimum or 0, 3) for _ in range(length)]
        return (
            rng.sample(range(rank), rank) if old is not None and sorted(old) == list(range(rank)) else values
        )
    if isinstance(spec, Bool):
        return not old
    if isinstance(spec, Int):
        return rng.randint(1, 4) if spec.positive else rng.randint(-rank, max(rank - 1, 0))
    if isinstance(spec, Float):
        return rng.choice([1e-5, 1e-3, 0.5, 2.0]) if spec.positive else rng.uniform(-2, 2)
    if isinstance(spec, OneOf):
        return rng.choice(spec.choices)
    return None


def insert_op(program: Program, rng: random.Random) -> bool:
    """A generated op reading an existing value, returned as an extra result or read by a user
    of that value in its place (when the types allow)."""
    gen = Generator(rng.randrange(1 << 30))
    gen.program = program
    gen.ranges = {id(v): (-10.0, 10.0) for v in program.values()}
    x = rng.choice(list(program.values()))
    before = len(program.ops)
    try:
        new = gen.unary(x) if rng.random() < 0.5 else shapes_ops.random_op(gen, x)
    except ValueError:  # a maker's shape rule refused x (size-0 dims from the tests, ...)
        return False
    if new is None:
        return False
    _move_after_operands(program, before)
    users = [
        op for op in program.users(x) if op is not new and program.ops.index(op) > program.ops.index(new)
    ]
    if new.type == x.type and users and rng.random() < 0.5:
        user = rng.choice(users)
        user.operands = [new if v is x else v for v in user.operands]
    else:
        program.results.append(new)
    return True


def _move_after_operands(program: Program, first_new: int) -> None:
    """Move the ops appended from `first_new` on to just after the last op they read, so that
    later ops may read them too."""
    old, new = program.ops[:first_new], program.ops[first_new:]
    position = {id(op): i for i, op in enumerate(old)}
    read = [position[id(v)] for op in new for v in op.operands if id(v) in position]
    at = max(read, default=-1) + 1
    program.ops = old[:at] + new + old[at:]


EDITS = [swap_operands, replace_operand, change_attribute, insert_op]
