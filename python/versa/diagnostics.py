"""Diagnostics in mlir-opt's format: `file:line:col: error: message`.

MLIR reports through `MLIRError.error_diagnostics` (and a context handler for warnings); the
bindings name every parsed buffer "-", so locations are re-labelled with the real file name.
"""

import re
from dataclasses import dataclass, field

from versa.mlir import ir

_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    line: int | None = None
    col: int | None = None
    notes: tuple["Diagnostic", ...] = field(default=())

    def format(self, filename: str) -> str:
        where = f"{filename}:{self.line}:{self.col}: " if self.line is not None else f"{filename}: "
        text = f"{where}{self.severity}: {self.message}"
        return "\n".join([text, *(n.format(filename) for n in self.notes)])


class CompileError(Exception):
    """One or more error diagnostics; the tools print them and exit with code 1."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics

    def format(self, filename: str) -> str:
        return "\n".join(d.format(filename) for d in self.diagnostics)


_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


def location_line_col(location: ir.Location | str) -> tuple[int | None, int | None]:
    match = _LOC.search(str(location))
    if not match or match.group(2) == "0":  # line 0: the whole buffer, no position
        return None, None
    return int(match.group(2)), int(match.group(3))


def from_mlir(diag) -> Diagnostic:
    """Convert an `ir.DiagnosticInfo` or `ir.Diagnostic` (with its notes)."""
    line, col = location_line_col(diag.location)
    notes = tuple(from_mlir(n) for n in diag.notes)
    return Diagnostic(_SEVERITY.get(diag.severity, "error"), diag.message, line, col, notes)


def from_mlir_error(err: ir.MLIRError) -> CompileError:
    diags = [from_mlir(d) for d in err.error_diagnostics]
    if not diags:
        diags = [Diagnostic("error", str(err).strip())]
    return CompileError(diags)


def error_at(location: ir.Location | None, message: str) -> CompileError:
    line, col = location_line_col(location) if location is not None else (None, None)
    return CompileError([Diagnostic("error", message, line, col)])
