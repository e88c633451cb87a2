"""Attribute specs of the versa ops: which builtin attribute each op accepts, and its default.

`dialects.ext` cannot type fields as dense arrays, booleans or elements, so the ops declare
their attributes here and the shared verifier checks them (docs/facts.md, "dialects.ext and IRDL").
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from versa.mlir import ir

from .shapes import RuleError, require

_REQUIRED = object()


class AttrSpec:
    """One attribute: how to read it, and its default (`_REQUIRED` when it has none)."""

    default: Any = _REQUIRED

    def read(self, name: str, attr: ir.Attribute, rank: int) -> Any:
        raise NotImplementedError

    def default_for(self, name: str, rank: int) -> Any:
        if self.default is _REQUIRED:
            raise RuleError(f"requires attribute '{name}'")
        return self.default(rank) if callable(self.default) else self.default


@dataclass(frozen=True)
class Ints(AttrSpec):
    """`array<i64: ...>`; `length` is a count, "rank" (the first operand's rank) or None (any)."""

    length: int | str | None
    default: Any = _REQUIRED
    minimum: int | None = None

    def read(self, name, attr, rank):
        if not isinstance(attr, ir.DenseI64ArrayAttr):
            raise RuleError(f"attribute '{name}' must be an array<i64: ...>, got {attr}")
        values = list(attr)
        want = rank if self.length == "rank" else self.length
        if want is not None and len(values) != want:
            raise RuleError(f"attribute '{name}' must have {want} elements, got {len(values)}")
        if self.minimum is not None and any(v < self.minimum for v in values):
            what = {0: "non-negative", 1: "positive"}.get(self.minimum, f">= {self.minimum}")
            raise RuleError(f"attribute '{name}' must be {what}, got {values}")
        return values


@dataclass(frozen=True)
class Int(AttrSpec):
    default: Any = _REQUIRED
    positive: bool = False

    def read(self, name, attr, rank):
        if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr):
            raise RuleError(f"attribute '{name}' must be an integer, got {attr}")
        if self.positive and attr.value <= 0:
            raise RuleError(f"attribute '{name}' must be positive, got {attr.value}")
        return attr.value


@dataclass(frozen=True)
class Float(AttrSpec):
    default: Any = _REQUIRED
    positive: bool = False

    def read(self, name, attr, rank):
        if not isinstance(attr, ir.FloatAttr):
            raise RuleError(f"attribute '{name}' must be a float, got {attr}")
        if self.positive and attr.value <= 0:
            raise RuleError(f"attribute '{name}' must be positive, got {attr.value}")
        return attr.value


@dataclass(frozen=True)
class Bool(AttrSpec):
    default: Any = _REQUIRED

    def read(self, name, attr, rank):
        if not isinstance(attr, ir.BoolAttr):
            raise RuleError(f"attribute '{name}' must be true or false, got {attr}")
        return attr.value


@dataclass(frozen=True)
class OneOf(AttrSpec):
    """A string enum."""

    choices: tuple[str, ...]
    default: Any = _REQUIRED

    def read(self, name, attr, rank):
        if not isinstance(attr, ir.StringAttr) or attr.value not in self.choices:
            raise RuleError(
                f"attribute '{name}' must be one of {', '.join(map(repr, self.choices))}, got {attr}"
            )
        return attr.value


@dataclass(frozen=True)
class Elements(AttrSpec):
    """Dense elements, read as the attribute itself (NumPy on demand: `elements_to_numpy`)."""

    def read(self, name, attr, rank):
        require(isinstance(attr, ir.DenseElementsAttr), f"attribute '{name}' must be dense elements")
        return attr


def parse_attrs(specs: Mapping[str, AttrSpec], attrs: Any, rank: int) -> dict[str, Any]:
    """Read `attrs` (an op's attribute map or a dict) against `specs`, defaults filled in."""
    present = dict(attrs.items())  # an op's attribute map or a plain dict
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        attr = present.get(name)
        out[name] = spec.default_for(name, rank) if attr is None else spec.read(name, attr, rank)
    return out


def elements_to_numpy(attr: ir.DenseElementsAttr) -> np.ndarray:
    """A dense elements attribute as a NumPy array of its full shape (splats expanded)."""
    shape = tuple(attr.type.shape)
    if attr.is_splat:
        return np.full(shape, np.array(attr.get_splat_value().value))
    return np.array(attr).reshape(shape)


__all__ = [
    "AttrSpec",
    "Bool",
    "Elements",
    "Float",
    "Int",
    "Ints",
    "OneOf",
    "RuleError",
    "elements_to_numpy",
    "parse_attrs",
]
