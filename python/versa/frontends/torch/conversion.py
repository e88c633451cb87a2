"""What one conversion met: the ops it refused, where they are in the user's model, and the
path each op took (a rule, torch-mlir's fallback), for the one error and for `coverage`."""

import os
import re
from collections import Counter
from dataclasses import dataclass, field

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

from . import fallback, types


@dataclass
class Conversion:
    """What one conversion met: the refused ops (with places) and every op's path (coverage)."""

    unsupported: Counter = field(default_factory=Counter)
    where: dict[str, list[ir.Location]] = field(default_factory=dict)
    paths: Counter = field(default_factory=Counter)  # (op, dtype, rank, path) -> count
    copies: fallback.Fallback = field(default_factory=fallback.Fallback)

    def refuse(self, name: str, reason: str, location: ir.Location) -> None:
        key = f"{name}: {reason}" if reason else name
        self.unsupported[key] += 1
        self.where.setdefault(key, []).append(location)

    def record(self, op: ir.OpView, name: str, path: str) -> None:
        tensors = [
            t for t in map(types.parse_tensor_type, [v.type for v in (*op.operands, *op.results)]) if t
        ]
        dtype, rank = (tensors[0].element, len(tensors[0].shape)) if tensors else ("-", 0)
        self.paths[(name, dtype, rank, path)] += 1

    def refuse_boundary(self, values: list[ir.Value], reason: str, signature: ir.Location) -> None:
        """Refuse the ops that make (or read) tensors of a type Versa cannot pass in or out (a
        uint8 result), each at its own place, so that partitioning leaves those ops alone to
        PyTorch and compiles the rest; a value that is both an argument and a result refuses the
        signature."""
        for value in values:
            if isinstance(value, ir.OpResult):
                ops = [value.owner]
            else:
                ops = [use.owner for use in value.uses if use.owner.name != "func.return"] or [None]
            for op in ops:
                if op is None:
                    self.refuse("function signature", reason, signature)
                    continue
                self.refuse(_op_name(op), reason, op.location)

    def retag(self, name: str, old: str, new: str) -> None:
        """One op `name` recorded with path `old` takes path `new` (a fallback that failed)."""
        for key in list(self.paths):
            if key[0] == name and key[3] == old:
                self.paths[key] -= 1
                self.paths[key[:3] + (new,)] += 1
                self.paths += Counter()  # drop zero counts
                return

    def lower_fallback(self, out: ir.Module) -> None:
        """The ops copied for torch-mlir's lowering (`fallback`) lowered in `out`; those it
        leaves, or all when it fails, refused."""
        try:
            remaining = fallback.lower(out)
        except ir.MLIRError as err:
            remaining = []
            first = next((d.message for d in err.error_diagnostics), str(err)).splitlines()[0]
            for name in self.copies.copied:
                self.refuse(name, f"torch-mlir's linalg lowering failed ({first})", out.operation.location)
                self.retag(name, "linalg fallback", "unsupported")
        for op in remaining:
            name = _op_name(op)
            self.refuse(
                name, "neither a versa rule nor torch-mlir's linalg lowering converts it", op.location
            )
            self.retag(name, "linalg fallback", "unsupported")

    def error(self) -> CompileError:
        lines = [
            f"{count}x {key}{_source(self.where[key])}" for key, count in sorted(self.unsupported.items())
        ]
        total = sum(self.unsupported.values())
        message = f"{total} torch op(s) cannot be converted to versa:\n  " + "\n  ".join(lines)
        return CompileError([Diagnostic("error", message)])


def _op_name(op: ir.Operation) -> str:
    """A torch op's name (`torch.operator "name"`: the op torch-mlir has no definition for)."""
    return ir.StringAttr(op.attributes["name"]).value if op.name == "torch.operator" else op.name


_FRAME = re.compile(r'"([^"]+)":(\d+):\d+')


def source_line(location: ir.Location) -> str | None:
    """`file:line` of the innermost frame outside PyTorch itself: the line in the user's model."""
    frames = _FRAME.findall(str(location))
    user = [f for f in frames if f"{os.sep}torch{os.sep}" not in f[0]]
    file, line = (user or frames or [(None, None)])[0]
    if file == "-":  # parsed IR text: the line in it
        return f"line {line}"
    return f"{file}:{line}" if file else None


def _source(locations: list[ir.Location]) -> str:
    places = list(dict.fromkeys(p for p in map(source_line, locations) if p))
    more = f", +{len(places) - 3} more" if len(places) > 3 else ""
    return f" (at {', '.join(places[:3])}{more})" if places else ""
