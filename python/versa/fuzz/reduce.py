"""Shrink a failing program to a small one that fails the same way (delta debugging).

`reduce(program, fails)` tries candidates in rounds until none is accepted: fewer results;
each op cut out (its result becomes a new argument) or bypassed (its users read one of its
operands instead); optional attributes dropped; smaller shapes (`shrink.py`). A candidate is
kept when it verifies, is smaller (`Program.size`) and `fails` still holds; `fails` is the
expensive part (a compile), so the number of calls is capped by `budget`.
"""

import threading
from collections.abc import Callable, Iterator

from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError

from . import shrink
from .program import Arg, Program, retype

Oracle = Callable[[Program], bool]


def reduce(program: Program, fails: Oracle, budget: int = 300) -> Program:
    """The smallest program found that still `fails` (`program` itself if none is)."""
    best, calls = program, 0
    progress = True
    while progress and calls < budget:
        progress = False
        for candidate in candidates(best):
            if candidate.size() >= best.size() or not verifies(candidate):
                continue
            calls += 1
            if fails(candidate):
                best, progress = candidate, True
                break
            if calls >= budget:
                break
    return best


def candidates(program: Program) -> Iterator[Program]:
    """Smaller variants of `program`, the biggest cuts first."""
    yield from fewer_results(program)
    for index in reversed(range(len(program.ops))):
        yield from cut_op(program, index)
    for index in range(len(program.ops)):
        yield from drop_attrs(program, index)
    yield from shrink.candidates(program)


def fewer_results(program: Program) -> Iterator[Program]:
    if len(program.results) < 2:
        return
    for i in range(len(program.results)):
        p = program.copy()
        p.results = [p.results[i]]
        p.remove_dead()
        yield p


def _replace_uses(program: Program, old: object, new: object) -> None:
    for op in program.ops:
        op.operands = [new if v is old else v for v in op.operands]
    program.results = [new if v is old else v for v in program.results]


def cut_op(program: Program, index: int) -> Iterator[Program]:
    """Op `index` bypassed (users read a same-typed operand), or replaced by an argument."""
    op = program.ops[index]
    for operand_index, operand in enumerate(op.operands):
        if operand.type == op.type:
            p = program.copy()
            _replace_uses(p, p.ops[index], p.ops[index].operands[operand_index])
            p.remove_dead()
            yield p
    p = program.copy()
    arg = Arg(p.ops[index].type)
    p.args.append(arg)
    _replace_uses(p, p.ops[index], arg)
    p.remove_dead()
    yield p


def drop_attrs(program: Program, index: int) -> Iterator[Program]:
    """Op `index` without one of its written attributes (the default applies, if any)."""
    for name in list(program.ops[index].attrs):
        p = program.copy()
        del p.ops[index].attrs[name]
        if retype(p):
            yield p


_PARSE_LOCK = threading.Lock()


def verifies(program: Program) -> bool:
    """Whether `program`'s text parses and verifies. One thread at a time: creating contexts
    and parsing from several Python threads at once crashed a campaign (SIGSEGV)."""
    with _PARSE_LOCK:
        try:
            compiler.parse_module(compiler.Chunk(program.text(), 1), make_context())
        except CompileError:
            return False
    return True
