"""versa-outline-dynamic: each op with dynamic shapes that `versa-static-tiles` left in a public
function (elementwise ops, transposes, a softmax over a dynamic row) runs in a private function
of its own, one per distinct body, so a model's layers share its code.

    %r = linalg.generic ... outs(%e : tensor<?x768xf32>)
  → %r = call @main__op3(%e, %x, ...)    // private; %e filled in place, layers call the same one

Why: `common/group_functions.py` (a dynamic op is hundreds of ops of loops, masks and thread
splits once vectorized; inline, every layer repeats them for LLVM to compile). Static ops stay
where they are: their kernels are shared by `versa-share-functions` already.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect
from ..common.group_functions import outline
from ..common.tile_functions import Functions


def _dynamic(op: ir.Operation) -> bool:
    return any(isinstance(r.type, ir.RankedTensorType) and not r.type.has_static_shape for r in op.results)


def _in_public_function(op: ir.Operation) -> bool:
    parent = op.parent
    if parent is None or parent.name != "func.func":  # nested in a loop: part of something tiled
        return False
    visibility = parent.attributes["sym_visibility"] if "sym_visibility" in parent.attributes else None
    return visibility is None or ir.StringAttr(visibility).value != "private"


@dataclass(frozen=True)
class VersaOutlineDynamic(Pass):
    name = "versa-outline-dynamic"
    summary = "Move each linalg op with dynamic shapes into a private function, one per distinct body"

    def run(self, module: ir.Operation) -> None:
        functions = Functions()
        dead: list[ir.Operation] = []

        def outlined(op: ir.Operation) -> bool:
            if not op.name.startswith("linalg.") or op.name == "linalg.fill" or len(op.results) != 1:
                return False  # several results (a cumsum's row and running sum): left inline
            return _dynamic(op) and _in_public_function(op)

        for op in collect(module, outlined):
            dead += outline([op], functions, "op")
        for op in dict.fromkeys(dead):  # ops erased last: the walk's list stays valid (facts.md)
            op.erase()
