"""versa-distinct-results: give every function result its own tensor before bufferization.

    return %0, %0  →  %c = linalg.copy ins(%0) outs(tensor.empty()); return %0, %c

`buffer-results-to-out-params{hoist-static-allocs}` writes each result straight into its
out-param; a buffer returned twice crashes that upstream pass (seen with LLVM ~24), and two
out-params cannot share one buffer anyway. A copy per repeated result fixes both.
"""

from dataclasses import dataclass

from versa.mlir import ir, linalg, tensor

from .base import Pass, collect


def _distinct_returns(ret: ir.Operation) -> None:
    seen: set[ir.Value] = set()
    for index, value in enumerate(list(ret.operands)):
        if value not in seen or not isinstance(value.type, ir.RankedTensorType):
            seen.add(value)
            continue
        with ir.InsertionPoint(ret), ret.location:
            empty = tensor.empty(value.type.shape, value.type.element_type)
            ret.operands[index] = linalg.copy(value, outs=[empty])


@dataclass(frozen=True)
class VersaDistinctResults(Pass):
    name = "versa-distinct-results"
    summary = "Copy function results that repeat a value, so each result has its own buffer"

    def run(self, module: ir.Operation) -> None:
        for ret in collect(module, lambda op: op.name == "func.return"):
            _distinct_returns(ret)
