"""The dynamic dims of an imported graph, written where the runtime reads them (issue 46).

torch-mlir types a dynamic dim `?` and nothing more: which dims are the same symbol, and the
range torch.export proved for it, live only in the FX graph (each placeholder's fake tensor,
whose sizes are SymInts, and the export's `range_constraints` or Dynamo's ShapeEnv). They are
copied onto the torch-dialect function right after the import, while the FX placeholders and
the function's arguments still correspond one to one, and `convert` carries them over to the
versa function with the arguments it keeps:

    func.func @main(%arg0: tensor<?x?x8xf32> {versa.dims = ["s0", "2*s1", 8]})
        attributes {versa.dim_ranges = {"s0" = array<i64: 1, 64>, "2*s1" = array<i64: 4, 256, 2>}}

A dim is its symbol's name (a dim equal to another argument's dim has the same name) or its
size where static; the range is [min, max] (max -1: unbounded), with a third entry k where the
dim is k·s (torch proved it a multiple of k). Static programs get no attribute at all.
"""

from collections.abc import Mapping, Sequence

import sympy
import torch
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from versa.mlir import ir

from .values import SymbolicInt

DIMS = "versa.dims"  # on each tensor argument: one entry per dim
SYMBOL = "versa.symbol"  # on an argument that is a size (dropped from the versa function)
RANGES = "versa.dim_ranges"  # on the function: symbol -> [min, max(, multiple_of)]
UNBOUNDED = -1


def annotate(module: ir.Module, graph: torch.fx.Graph, ranges: Mapping | None = None) -> None:
    """Write `versa.dims` on the arguments of `module`'s function, just imported from `graph`
    (whose placeholders are now its arguments, in order: the import removed those of the weights
    it made literals), and `versa.dim_ranges` on it, when any has a dynamic dim; a size passed
    as an argument (Dynamo's SymInt inputs) is marked `versa.symbol`, which `convert` reads as
    that size, not an argument. `ranges`: sympy expression -> ValueRanges
    (`ExportedProgram.range_constraints`; by default the ShapeEnv's, which Dynamo's graphs carry)."""
    values = [node.meta.get("val") for node in graph.find_nodes(op="placeholder")]
    sizes = [v for v in values if isinstance(v, torch.SymInt)]
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    sizes += [d for v in tensors for d in v.shape if isinstance(d, torch.SymInt)]
    if not sizes:
        return
    if ranges is None:
        ranges = sizes[0].node.shape_env.var_to_range
    function = [op for op in module.body.operations if op.operation.name == "func.func"][-1].operation
    with module.context:
        _write(function, values, ranges)


def _write(function: ir.Operation, values: list, ranges: Mapping) -> None:
    symbols: dict[str, list[int]] = {}
    arg_attrs = []
    for value in values:
        entries = {}
        if isinstance(value, torch.Tensor):
            dims = [_dim(d, ranges, symbols) for d in value.shape]
            entries[DIMS] = ir.ArrayAttr.get([_dim_attr(d) for d in dims])
        elif isinstance(value, torch.SymInt):
            entries[SYMBOL] = ir.StringAttr.get(str(value.node.expr))
        arg_attrs.append(ir.DictAttr.get(entries))
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(arg_attrs)
    function.attributes[RANGES] = ir.DictAttr.get(
        {name: ir.DenseI64ArrayAttr.get(bounds) for name, bounds in symbols.items()}
    )


def symbol_arguments(function: ir.Operation) -> dict[int, SymbolicInt]:
    """The arguments of a torch-dialect function that are sizes (`versa.symbol`), by position."""
    if "arg_attrs" not in function.attributes:
        return {}
    given = [ir.DictAttr(a) for a in ir.ArrayAttr(function.attributes["arg_attrs"])]
    return {i: SymbolicInt(ir.StringAttr(a[SYMBOL]).value) for i, a in enumerate(given) if SYMBOL in a}


def copy(source: ir.Operation, target: ir.Operation, kept: Sequence[int]) -> None:
    """The annotation of `source` (a torch-dialect function) on `target` (its versa function,
    whose arguments are `source`'s arguments at the positions `kept`)."""
    if RANGES not in source.attributes:
        return
    given = ir.ArrayAttr(source.attributes["arg_attrs"])
    target.attributes["arg_attrs"] = ir.ArrayAttr.get([given[i] for i in kept])
    target.attributes[RANGES] = source.attributes[RANGES]


def _dim(size, ranges: Mapping, symbols: dict[str, list[int]]) -> int | str:
    """A dim's size, or its symbol's name with its range recorded in `symbols`."""
    expr = size.node.expr if isinstance(size, torch.SymInt) else sympy.Integer(size)
    if expr.is_Integer:  # a SymInt torch specialised (or a plain int)
        return int(expr)
    name = str(expr)
    if name not in symbols:
        symbols[name] = _bounds(expr, ranges)
    return name


def _bounds(expr: sympy.Expr, ranges: Mapping) -> list[int]:
    """[min, max] of `expr` (max UNBOUNDED when torch has none), and k for an `expr` of k·s."""
    known = {s: ranges.get(s, ValueRanges.unknown_int()) for s in expr.free_symbols}
    found = ranges.get(expr) or bound_sympy(expr, known)
    bounds = [max(_finite(found.lower, 0), 0), _finite(found.upper, UNBOUNDED)]
    factor, rest = expr.as_coeff_Mul()
    if isinstance(rest, sympy.Symbol) and factor.is_Integer and int(factor) > 1:
        lower = _finite(ranges.get(rest, found).lower, 0)  # the tighter: k times the symbol's own
        bounds[0] = max(bounds[0], int(factor) * lower)
        bounds.append(int(factor))
    return bounds


def _finite(bound: sympy.Expr, otherwise: int) -> int:
    """A range's bound as an int, `otherwise` when infinite (torch's int_oo claims to be finite)."""
    return int(bound) if isinstance(bound, sympy.Integer) else otherwise


def _dim_attr(dim: int | str) -> ir.Attribute:
    if isinstance(dim, str):
        return ir.StringAttr.get(dim)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim)
