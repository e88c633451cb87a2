"""versa-collapse-elementwise: elementwise loop nests with as few, as long loops as their operands
allow, so that vectors run along many elements rather than one short row.

`versa-vectorize` tiles the innermost loop to the vector width: an NCHW tensor's rows of 7, 28
or 197 elements each end in a masked partial vector, and a per-channel scale re-reads its scalar
each row. Adjacent loops that every operand reads together, in order (or not at all: a
broadcast), merge into one (`loop_groups`), as `versa-collapse-reductions` does for reductions:

    linalg.generic {maps (d0, d1, d2, d3) -> (d0, d1, d2, d3), -> (d0, d1, 0, 0), -> (d0, d1, d2, d3)}
        ins(%x, %s : tensor<4x96x28x28xf32>, tensor<4x96x1x1xf32>)
  → linalg.generic {maps (d0, d1, d2) -> (d0, d1, d2), -> (d0, d1), -> (d0, d1, d2)}
        ins(%x', %s' : tensor<4x96x784xf32>, tensor<4x96xf32>), then expand_shape

Only loops whose operands merge without a copy once bufferized do (`mergeable_dims`: a slice
that skips part of a row stays as it is). The named copies that no strategy took first become
generics, so that `versa-vectorize` takes them: a slice's `linalg.copy` (rows read whole), and a
`linalg.transpose` that keeps the innermost dim (attention's head split, [B, T, H, D] to
[B, H, T, D]: rows copied whole, which the transpose strategy leaves; as named ops both were
scalar loops). It runs after `versa-codegen`, whose strategies match
their consumers' shapes (a matmul's epilogue), on the generics left at a function's top level,
and leaves a body that reads `linalg.index` alone.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common import linalg_builders as build
from ..common.base import Pass, collect
from .kernels.loop_groups import (
    cloned_generic,
    collapse_operand,
    loop_groups,
    loops_of,
    loops_read,
    map_attr,
    mergeable_dims,
)
from .kernels.loop_groups import reassociation as reassociation_of
from .strategies.script import Script, run_script


def _candidate(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or op.parent.name != "func.func":
        return False
    kinds = [str(it) for it in op.attributes["iterator_types"]]
    if len(kinds) < 2 or any("parallel" not in it for it in kinds):
        return False  # one loop or none: nothing to merge
    if any(o.operation.name == "linalg.index" for o in op.regions[0].blocks[0].operations):
        return False
    return all(isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).has_static_shape
               for v in (*op.operands, *op.results))  # fmt: skip


def _rewrite(op: ir.Operation) -> bool:
    shapes = [ir.RankedTensorType(v.type).shape for v in op.operands]
    maps = [
        loops_read(ir.AffineMapAttr(m).value, s)
        for m, s in zip(op.attributes["indexing_maps"], shapes, strict=True)
    ]
    inputs, loops = len(op.operands) - len(op.results), len(op.attributes["iterator_types"])
    if any(m is None for m in maps) or any(sorted(loops_of(m)) != list(range(loops)) for m in maps[inputs:]):
        return False  # a result must read every loop, once each (a map the verifier can invert)
    kinds = ["parallel"] * loops
    groups = loop_groups(kinds, maps, [mergeable_dims(v) for v in op.operands])
    if len(groups) == len(kinds):
        return False
    group_of = {d: g for g, members in enumerate(groups) for d in members}
    with ir.InsertionPoint(op), op.location:
        operands, new_maps = [], []
        for v, m in zip(op.operands, maps, strict=True):
            collapsed, dims = collapse_operand(v, m, group_of)
            operands.append(collapsed)
            new_maps.append(map_attr(len(groups), dims))
        body = op.regions[0].blocks[0]
        new = cloned_generic(operands[:inputs], operands[inputs:], new_maps, ["parallel"] * len(groups), body)
        for old, result, m in zip(op.results, new.results, maps[inputs:], strict=True):
            if result.type != old.type:
                shape = ir.RankedTensorType(old.type).shape
                result = build.expand(result, shape, reassociation_of(m, group_of))
            old.replace_all_uses_with(result)
    op.erase()
    return True


_NAMED = "versa.generalize"


def _row_copy(op: ir.Operation) -> bool:
    """A named op left at a function's top level that is an elementwise copy of rows."""
    if op.parent.name != "func.func" or not all(
        isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).has_static_shape
        for v in op.operands
    ):
        return False
    if op.name == "linalg.copy":
        return _unit_inner_stride(op.operands[0])
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) if op.name == "linalg.transpose" else []
    return bool(perm) and perm[-1] == len(perm) - 1


def _unit_inner_stride(v: ir.Value) -> bool:
    """Whether `v` reads its rows contiguously: a slice that skips elements of a row (x[..., ::2])
    stays a named copy, whose plain loops beat vector reads of every other element (0.27 vs
    0.31 ms for 4x64x56x56 -> 4x64x28x28 at 1 thread)."""
    owner = v.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "tensor.extract_slice":
        return True
    return list(ir.DenseI64ArrayAttr(owner.attributes["static_strides"]))[-1] == 1


def _generalize(module: ir.Operation) -> None:
    copies = collect(module, lambda op: op.name in ("linalg.copy", "linalg.transpose") and _row_copy(op))
    if not copies:
        return
    script = Script()
    for op in copies:
        op.attributes[_NAMED] = ir.StringAttr.get("copy")
    script.generalize(script.match_tag(_NAMED, "copy"))
    run_script(module, script.text(), _NAMED)


@dataclass(frozen=True)
class VersaCollapseElementwise(Pass):
    name = "versa-collapse-elementwise"
    summary = "Merge adjacent loops of elementwise linalg generics that every operand reads in order"

    def run(self, module: ir.Operation) -> None:
        _generalize(module)
        for op in collect(module, _candidate):
            _rewrite(op)
