"""versa-specialize-shapes: a function with dynamic dims made static for given sizes.

    versa-opt --versa-specialize-shapes="sizes=batch:4,seq:128" model.mlir

A dynamic compile serves every size, but its code is slower than a static compile's for some
(tiles sized for unknown extents, remainder loops). This pass rewrites a versa function with
`?` dims into the function a static import of those sizes gives: the argument types take the
sizes, and every versa op's result type is what its rules give for them (`call_shape`, the
rules the runtime checks a dynamic call with, `versa.call_shapes`), so sizes that break a rule or
a range are refused here, as a call would be. `versa.dims` and `versa.dim_ranges` go: the
function then compiles exactly as a static one. The runtime uses it for the hot shapes of a
dynamic compile (`versa.frontends.torch.hot_shapes`).

`sizes` names the symbols of the arguments' `versa.dims` (a dynamic dim without one is
`arg<i>.dim<d>`). Only functions with dynamic arguments change; each needs all its symbols.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from versa.call_shapes import DIMS_ATTR, RANGES_ATTR, ShapeError, ShapeProgram
from versa.dialects.core import dims_of, tensor_type
from versa.dialects.shapes import RuleError
from versa.dialects.versa import OPS
from versa.mlir import func, ir

from ..common.base import Pass, PassError, collect

Shape = tuple[int, ...]


@dataclass(frozen=True)
class VersaSpecializeShapes(Pass):
    name = "versa-specialize-shapes"
    summary = "Make a function's dynamic dims static for given sizes (sizes=symbol:n,...)"

    sizes: str = ""

    def run(self, module: ir.Operation) -> None:
        sizes = _parse(self.sizes)
        for function in collect(module, lambda op: op.name == "func.func"):
            function = function.opview
            if function.is_external or not _dynamic(function.type.inputs):
                continue
            program = ShapeProgram.of(function)
            try:
                shapes = program.argument_shapes(sizes, {})
            except ShapeError as err:
                raise PassError(f"'{self.name}' {err}", function.location) from None
            specialize(function, shapes)


def specialize(function: func.FuncOp, shapes: Sequence[Shape]) -> None:
    """Rewrite `function` (versa IR with dynamic dims) to take arguments of `shapes`: every
    type static. PassError, located at the op, where the sizes break a rule or a range."""
    with function.context, function.location:
        _specialize(function, shapes)


def _specialize(function: func.FuncOp, shapes: Sequence[Shape]) -> None:
    program = ShapeProgram.of(function)
    try:
        program.resolve(tuple(tuple(s) for s in shapes))  # ranks, symbols and ranges, as a call
    except ShapeError as err:
        raise PassError(f"sizes the function does not take: {err.reason}", function.location) from None
    block = function.regions[0].blocks[0]
    ops = list(block.operations)
    compiled = {id(op): [dims_of(v.type) for v in op.operands] for op in ops if op.name in OPS}
    for argument, shape in zip(block.arguments, shapes, strict=True):
        argument.set_type(tensor_type(tuple(shape), argument.type.element_type))
    for op in ops:
        results = [r for r in op.results if isinstance(r.type, ir.ShapedType) and None in dims_of(r.type)]
        if not results:
            continue
        if op.regions:  # a versa.fused group's body would keep its `?`s
            raise PassError("runs on versa IR before versa-fuse: this op has a region", op.location)
        if op.name not in OPS or len(op.results) != 1:  # ShapeProgram.of refused these already
            raise PassError(f"'{op.name}' has no shape rule for its dynamic result", op.location)
        rule = OPS[op.name]
        sizes = [dims_of(v.type) for v in op.operands]
        try:
            shape = rule.call_shape(sizes, rule.attrs(op), dims_of(results[0].type), compiled[id(op)])
        except RuleError as err:
            raise PassError(f"'{op.name}' op {err}", op.location) from None
        results[0].set_type(tensor_type(tuple(shape), results[0].type.element_type))
    returned = [v.type for v in ops[-1].operands] if ops and ops[-1].name == "func.return" else []
    inputs = [a.type for a in block.arguments]
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, returned))
    _drop_dims(function)


def _drop_dims(function: func.FuncOp) -> None:
    """Remove `versa.dims` from the argument attributes and `versa.dim_ranges` from `function`."""
    if RANGES_ATTR in function.attributes:
        del function.attributes[RANGES_ATTR]
    if "arg_attrs" not in function.attributes:
        return
    kept = []
    for entry in ir.ArrayAttr(function.attributes["arg_attrs"]):
        named = {n.name: n.attr for n in ir.DictAttr(entry) if n.name != DIMS_ATTR}
        kept.append(ir.DictAttr.get(named))
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(kept)


def _dynamic(types) -> bool:
    return any(isinstance(t, ir.ShapedType) and not ir.ShapedType(t).has_static_shape for t in types)


def _parse(text: str) -> dict[str, int]:
    """`batch:4,seq:128` as {symbol: size}."""
    sizes = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        symbol, _, size = item.rpartition(":")
        if not symbol or not size.isdigit():
            raise PassError(f"'versa-specialize-shapes' sizes: '{item}' is not symbol:size")
        sizes[symbol] = int(size)
    return sizes
