"""The shape of a Versa pass: a frozen dataclass whose fields are its options.

`Pass.from_options("opt-level=3 target=x86-64")` parses MLIR's option syntax; `run(module)` does
the work on the `builtin.module` operation and raises `PassError` (or any exception) on failure.
An option that names a target (`target_option()`) holds the `versa.targets.Target` once the pass
is built: text and Python callers name it, the pass never looks a name up.
The driver (`versa.compiler`) adds passes to an upstream PassManager as Python passes, so they
mix freely with upstream passes in one pipeline.
"""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from versa import targets
from versa.mlir import ir


class PassError(Exception):
    """A pass refused its input; the message becomes a diagnostic at `location`."""

    def __init__(self, message: str, location: ir.Location | None = None):
        super().__init__(message)
        self.location = location


@dataclass(frozen=True)
class Pass:
    """Base of every Versa pass. Subclasses set `name` (the CLI flag) and `summary`."""

    name: ClassVar[str]
    summary: ClassVar[str]

    def __post_init__(self) -> None:
        for option in dataclasses.fields(self):
            if "target_kind" in option.metadata:
                named = getattr(self, option.name)
                try:
                    target = targets.resolve(named, option.metadata["target_kind"])
                except targets.TargetError as err:
                    raise PassError(f"'{self.name}' {err}") from None
                object.__setattr__(self, option.name, target)

    def run(self, module: ir.Operation) -> None:
        raise NotImplementedError

    @classmethod
    def from_options(cls, text: str) -> "Pass":
        """Parse `key=value key2=value2` (MLIR pass-option syntax) into the dataclass fields."""
        fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for item in text.split():
            key, _, raw = item.partition("=")
            field = fields.get(key)
            if field is None:
                known = ", ".join(sorted(fields)) or "none"
                raise PassError(f"'{cls.name}' has no option '{key}' (options: {known})")
            values[field.name] = _convert(raw, field.type, cls.name, key)
        return cls(**values)


def target_option(kind: str | None = "cpu") -> Any:
    """A dataclass field for an option that names a target (of `kind`, None: any): the host's
    CPU unless set; the pass holds the resolved `Target` (`versa.targets.resolve`)."""
    return field(default="host", metadata={"target_kind": kind})


def collect(module: ir.Operation, predicate: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """The ops nested in `module` for which `predicate` holds, in walk order: a list, so that a
    pass can rewrite or erase them after the walk."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return found


def _convert(raw: str, type_: Any, pass_name: str, key: str) -> Any:
    try:
        if type_ in (bool, "bool"):
            if raw not in ("true", "false", "1", "0", ""):
                raise ValueError(raw)
            return raw in ("true", "1", "")
        if type_ in (int, "int"):
            return int(raw)
        return raw
    except ValueError:
        raise PassError(f"'{pass_name}' option '{key}' has invalid value '{raw}'") from None
