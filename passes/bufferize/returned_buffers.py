"""versa-drop-returned-buffers: `drop-equivalent-buffer-results` until no function returns a
buffer it was given, however deep the calls that fill it are nested.

Upstream's pass drops a result that is a function's own argument, and its callers then use the
operand they passed; it looks at the returned value only, not through loops. A function whose
loops yield what a call returned (`versa-static-tiles` puts each row of tiles in a function of
its own: `common/group_functions.outline_tail`) returns its argument only once the callee's
result is dropped and canonicalization folds the loops that now yield their iteration argument.
So the two run in turn, one level of calls at a time, until the functions' types stop changing;
a result left dynamic would be refused by `buffer-results-to-out-params` ("cannot create out
param for dynamically shaped result").
"""

from dataclasses import dataclass

from versa.mlir import PassManager, ir

from ..common.base import Pass, collect


def _signatures(module: ir.Operation) -> list[str]:
    return [str(op.attributes["function_type"]) for op in collect(module, lambda op: op.name == "func.func")]


@dataclass(frozen=True)
class VersaDropReturnedBuffers(Pass):
    name = "versa-drop-returned-buffers"
    summary = "drop-equivalent-buffer-results and canonicalize in turn until no function returns its argument"

    def run(self, module: ir.Operation) -> None:
        drop = PassManager.parse("builtin.module(drop-equivalent-buffer-results)", module.context)
        fold = PassManager.parse("builtin.module(canonicalize)", module.context)
        before = _signatures(module)
        for _ in range(len(before) + 1):  # each round drops at least one result, or ends
            drop.run(module)
            after = _signatures(module)
            if after == before:
                return
            fold.run(module)
            before = after
