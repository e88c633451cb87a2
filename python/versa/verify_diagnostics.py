"""`--verify-diagnostics`: match emitted diagnostics against `expected-*` comments, as mlir-opt.

// expected-error @+1 {{result shape}}      (also @above, @below, @-N, @N, or none: same line)
"""

import re
from dataclasses import dataclass

from versa.diagnostics import Diagnostic

_EXPECTED = re.compile(r"expected-(error|warning|note|remark)\s*(@above|@below|@[+-]?\d+)?\s*\{\{(.*?)\}\}")


@dataclass
class Expected:
    severity: str
    line: int
    text: str
    seen: bool = False


def expectations(text: str, first_line: int) -> list[Expected]:
    found = []
    for i, source_line in enumerate(text.splitlines()):
        line = first_line + i
        for m in _EXPECTED.finditer(source_line):
            where = m.group(2) or ""
            if where == "@above":
                target = line - 1
            elif where == "@below":
                target = line + 1
            elif where.startswith(("@+", "@-")):
                target = line + int(where[1:])
            elif where:
                target = int(where[1:])
            else:
                target = line
            found.append(Expected(m.group(1), target, m.group(3)))
    return found


def flatten(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics with their notes, minus the op dumps MLIR attaches (mlir-opt turns those
    off under --verify-diagnostics)."""
    out = []
    for d in diags:
        if d.severity == "note" and d.message.startswith("see current operation"):
            continue
        out.append(d)
        out.extend(flatten(list(d.notes)))
    return out


def check(expected: list[Expected], diags: list[Diagnostic], filename: str) -> list[str]:
    """Errors (formatted) for unexpected diagnostics and expectations never produced."""
    problems = []
    for d in flatten(diags):
        match = next(
            (
                e
                for e in expected
                if not e.seen and e.severity == d.severity and e.line == d.line and e.text in d.message
            ),
            None,
        )
        if match is None:
            where = f"{filename}:{d.line}:{d.col}: " if d.line is not None else f"{filename}: "
            problems.append(f"{where}error: unexpected {d.severity}: {d.message}")
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            problems.append(f'{filename}:{e.line}: error: expected {e.severity} "{e.text}" was not produced')
    return problems
