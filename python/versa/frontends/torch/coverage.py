"""Coverage before compiling: every (torch op, dtype, rank) of a model with the path it takes.

    versa.coverage(model, (x,))   →  [CoverageRow("torch.aten.conv2d", "f32", 4, "versa", 2), ...]

Paths: "versa" (a conversion rule), or "unsupported: <why>" (no rule, or a rule that refuses
these arguments). The same survey backs `versa-import --coverage`.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from versa.mlir import ir

from .convert import survey


@dataclass(frozen=True)
class CoverageRow:
    op: str
    dtype: str
    rank: int
    path: str
    count: int


def coverage_of(torch_module: ir.Module) -> list[CoverageRow]:
    _, conversion = survey(torch_module)
    rows = [CoverageRow(*key, count) for key, count in conversion.paths.items()]
    return sorted(rows, key=lambda r: (r.path != "versa", r.op, r.dtype, r.rank))


def coverage(model, example_inputs: Sequence) -> list[CoverageRow]:
    """The coverage of an nn.Module (or ExportedProgram) called on `example_inputs`."""
    from .importer import import_program, make_torch_context

    torch_module, _ = import_program(model, tuple(example_inputs), make_torch_context())
    return coverage_of(torch_module)


def format_coverage(rows: list[CoverageRow]) -> str:
    lines = [f"{'op':<48} {'dtype':<6} {'rank':>4} {'count':>5}  path"]
    lines += [f"{r.op:<48} {r.dtype:<6} {r.rank:>4} {r.count:>5}  {r.path}" for r in rows]
    native = sum(r.count for r in rows if r.path == "versa")
    total = sum(r.count for r in rows)
    lines.append(f"{native} of {total} ops convert to versa")
    return "\n".join(lines)
