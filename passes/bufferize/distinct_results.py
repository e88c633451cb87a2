"""versa-distinct-results: give every function result its own tensor before bufferization.

    return %0, %0  →  %c = bufferization.alloc_tensor() copy(%0); return %0, %c

`buffer-results-to-out-params{hoist-static-allocs}` writes each result straight into its
out-param; a buffer returned twice crashes that upstream pass (seen with LLVM ~24), and two
out-params cannot share one buffer anyway. A copy per repeated result fixes both. The copy
bufferizes to a `memref.copy` of whole buffers, an `llvm.memcpy`: a `linalg.copy` made here met
no vectorizer (they run before) and ran as scalar loops (a 2 MiB result: 300 µs, not 50).
"""

from dataclasses import dataclass

from versa.mlir import bufferization, ir

from ..common.base import Pass, collect


def _distinct_returns(ret: ir.Operation) -> None:
    seen: set[ir.Value] = set()
    for index, value in enumerate(list(ret.operands)):
        if value not in seen or not isinstance(value.type, ir.RankedTensorType):
            seen.add(value)
            continue
        with ir.InsertionPoint(ret), ret.location:
            ret.operands[index] = bufferization.alloc_tensor(value.type, [], copy=value)


@dataclass(frozen=True)
class VersaDistinctResults(Pass):
    name = "versa-distinct-results"
    summary = "Copy function results that repeat a value, so each result has its own buffer"

    def run(self, module: ir.Operation) -> None:
        for ret in collect(module, lambda op: op.name == "func.return"):
            _distinct_returns(ret)
