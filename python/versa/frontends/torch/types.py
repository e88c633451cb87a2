"""Torch-dialect types read as text (they have no Python API) and dtype tables.

parse_tensor_type("!torch.vtensor<[4,16],f32>")  →  TensorType((4, 16), "f32")
parse_tensor_type("!torch.vtensor<[?,16],f32>", dynamic=True)  →  TensorType((None, 16), "f32")

A dynamic dim is None in a shape tuple (the versa dialect's convention), `?` in MLIR types.
"""

import re
from dataclasses import dataclass

import torch

from versa.mlir import ir

_VTENSOR = re.compile(r"!torch\.vtensor<\[([-\d,?]*)\],(\w+|complex<\w+>)>")  # complex: refused by name

# torch-dialect element → builtin element (versa's names); unsigned 8-bit has no versa type
ELEMENT = {
    "f32": "f32",
    "f16": "f16",
    "bf16": "bf16",
    "f64": "f64",
    "si64": "i64",
    "si32": "i32",
    "si8": "i8",
    "i1": "i1",
    "ui8": "ui8",
}

TORCH_ELEMENT = {versa: torch_name for torch_name, versa in ELEMENT.items()}  # versa → torch-dialect

# torch.dtype ↔ versa element type names
TORCH_DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int8: "i8",
    torch.bool: "i1",
    torch.uint8: "ui8",
}

# c10::ScalarType codes, as `dtype` operands carry them
SCALAR_TYPES = {0: "ui8", 1: "i8", 3: "i32", 4: "i64", 5: "f16", 6: "f32", 7: "f64", 11: "i1", 15: "bf16"}

# the element types a compiled Versa function takes and returns
SUPPORTED = ("f32", "f16", "bf16", "i64", "i32", "i8", "i1")
# What a conversion takes: SUPPORTED, and bytes (bool tensors arrive as uint8; a literal widens
# them). Any other element type (f64, complex) refuses its op, which then runs eagerly.
CONVERTIBLE = (*SUPPORTED, "ui8")


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int | None, ...]  # None: a dynamic dim
    element: str  # versa name: "f32", "i64", ...

    def mlir(self) -> ir.RankedTensorType:
        dims = [ir.ShapedType.get_dynamic_size() if d is None else d for d in self.shape]
        return ir.RankedTensorType.get(dims, element_type(self.element))

    @property
    def dynamic(self) -> bool:
        return None in self.shape

    def __str__(self) -> str:
        return f"{self.element}{list(self.shape)}"


def parse_tensor_type(t: ir.Type, dynamic: bool = False) -> TensorType | None:
    """The shape and element of a `!torch.vtensor`, or None for another type. A dynamic one is
    None too unless `dynamic` (its `?` dims then None): callers that handle no dynamic dims
    (the fallback, coverage) keep refusing them by the type alone."""
    match = _VTENSOR.fullmatch(str(t))
    if not match or (("-" in match.group(1) or "?" in match.group(1)) and not dynamic):
        return None
    dims = tuple(None if d in ("?", "-1") else int(d) for d in match.group(1).split(",") if d)
    return TensorType(dims, ELEMENT.get(match.group(2), match.group(2)))


def value_shape(t: ir.ShapedType) -> tuple[int | None, ...]:
    """A builtin tensor type's shape with None for its dynamic dims (MLIR's bindings give
    them as a huge negative number, which arithmetic would silently take)."""
    return tuple(None if t.is_dynamic_dim(i) else d for i, d in enumerate(t.shape))


def element_type(name: str) -> ir.Type:
    if name in ("i1", "i8", "i32", "i64"):
        return ir.IntegerType.get_signless(int(name[1:]))
    return ir.Type.parse(name)


def is_float(name: str) -> bool:
    return name in ("f32", "f16", "bf16", "f64")
