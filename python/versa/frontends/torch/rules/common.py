"""Helpers the rule modules share: operands as tensors of a given element type, axes, and the
rule of a plain unary op."""

from collections.abc import Callable, Sequence

import numpy as np

from versa.dialects import builders as vb
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir
from versa.reference import numpy_dtype

from .. import types
from ..convert import Node, Unsupported, rule


def element(x: ir.Value) -> str:
    return str(x.type.element_type)


def rank(x: ir.Value) -> int:
    return len(x.type.shape)


def shape(x: ir.Value) -> tuple[int | None, ...]:
    """x's dims, None where dynamic (only rules registered `dynamic=True` see one)."""
    return types.value_shape(x.type)


def as_tensor(node: Node, x, elem: str) -> ir.Value:
    """`x` (a tensor or a Python number) as a tensor of element type `elem`."""
    if isinstance(x, ir.Value):
        return x if element(x) == elem else vb.cast(x, types.element_type(elem))
    if isinstance(x, bool | int | float):
        return node.constant(x, elem)
    raise Unsupported(f"operand {x!r} is neither a tensor nor a number")


def promoted(node: Node, *xs) -> list[ir.Value]:
    """The operands in the element type torch computes in: the result's, for arithmetic."""
    return [as_tensor(node, x, node.out.element) for x in xs]


def unary_rule(
    name: str,
    build: Callable[[ir.Value], ir.Value],
    integer: Callable[[ir.Value], ir.Value] | None = None,
) -> None:
    """Register torch.aten.<name> as `build` on the operand promoted to the result's element
    type (integer inputs of float ops become float); with `integer`, integer tensors take
    `integer` instead (floor of an integer tensor is the tensor itself). Elementwise: it
    takes dynamic dims."""

    def convert(node: Node, x):
        if integer is not None and not types.is_float(element(x)):
            return integer(x)
        return build(*promoted(node, x))

    convert.__name__ = name
    rule(f"torch.aten.{name}", dynamic=True)(convert)


def common_element(*xs) -> str:
    """The element type of mixed tensor/number operands (comparisons: the result is i1)."""
    tensors = [x for x in xs if isinstance(x, ir.Value)]
    elems = {element(t) for t in tensors}
    if len(elems) == 1:
        elem = elems.pop()
        if any(isinstance(x, float) for x in xs) and not types.is_float(elem):
            return "f32"
        return elem
    floats = [e for e in elems if types.is_float(e)]
    if floats:
        return "f32" if "f32" in floats else floats[0]
    return "i64" if "i64" in elems else sorted(elems)[0]


def pairs(values, n: int = 2) -> list[int]:
    """A torch int-or-list size argument as n values (one value repeated)."""
    values = [values] if isinstance(values, int) else list(values)
    return values * n if len(values) == 1 else values


def axes(dims: int | Sequence[int] | None, x: ir.Value) -> list[int]:
    """Normalised axes; None or [] means every axis (torch's convention for reductions)."""
    if dims is None:
        return list(range(rank(x)))
    dims = [dims] if isinstance(dims, int) else list(dims)
    return sorted(d % max(rank(x), 1) for d in dims) if dims else list(range(rank(x)))


def axis(dim: int, x: ir.Value) -> int:
    return dim % max(rank(x), 1)


def require_float(x: ir.Value, what: str) -> None:
    if not types.is_float(element(x)):
        raise Unsupported(f"{what} of {element(x)} tensors")


def transpose(x: ir.Value, perm: Sequence[int]) -> ir.Value:
    """`versa.transpose`, done now when `x` is a constant (weights: no run-time transpose)."""
    if isinstance(x, ir.OpResult) and x.owner.operation.name == "versa.constant" and element(x) != "bf16":
        attr = x.owner.operation.attributes["value"]
        # elements_to_numpy widens a splat (zeros_like, full) to f64 / i64: keep the element
        # type, or the constant is f64 (an invalid versa.constant) with a cast after it
        data = elements_to_numpy(attr).astype(numpy_dtype(attr.type.element_type), copy=False)
        return vb.constant(np.ascontiguousarray(np.transpose(data, perm)))
    return vb.transpose(x, perm=list(perm))
