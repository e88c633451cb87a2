"""versa-codegen: tile, vectorize and parallelise contractions with their strategies.

Every linalg op that a strategy accepts (`codegen.select`) is tagged, its strategy writes the
transform sequence for it, and the transform interpreter runs the whole script once, with each
op's kernel outlined into a function of its own meanwhile (`kernels.py`: what the script's
function-wide patterns see is one kernel, not the model). Runs on
tensors, before bufferization (hoisting accumulators only works there). What no strategy
takes is left for `versa-vectorize` and the loop lowering.

    linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, ...)
  → scf.forall { scf.for ... { vector.fma ... : vector<32xf32> } }
"""

import os
from dataclasses import dataclass

from versa import targets
from versa.mlir import ir

from ..base import Pass, PassError
from . import kernels, select
from .script import Script, run_script

_TAG = "versa.codegen"


def cpu_target(pass_name: str, name: str) -> targets.Target:
    """The CPU target called `name`, or a PassError naming the CPU targets."""
    cpus = [n for n in targets.NAMES if targets.get(n).kind == "cpu"]
    if name not in cpus:
        raise PassError(f"'{pass_name}' target '{name}' is not one of {', '.join(cpus)}")
    return targets.get(name)


def default_threads() -> int:
    """`VERSA_NUM_THREADS` if set, else every core this process may use."""
    text = os.environ.get("VERSA_NUM_THREADS", "").strip()
    if text.isdigit() and int(text) > 0:
        return int(text)
    return targets.available_cores()


@dataclass(frozen=True)
class VersaCodegen(Pass):
    name = "versa-codegen"
    summary = "Tile and vectorize contractions per op-family strategy (transform dialect)"
    threads: int = 0  # 0 = VERSA_NUM_THREADS or the available cores
    target: str = "host"  # a CPU target of `versa.targets` (tile sizes come from it)
    print_script: bool = False

    def run(self, module: ir.Operation) -> None:
        target, threads = cpu_target(self.name, self.target), self.threads or default_threads()
        script = Script()
        tagged: list[tuple[ir.Operation, bool]] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            strategy = select(op, target, threads) if op.name.startswith("linalg.") else None
            if strategy is not None:
                key = f"op{len(tagged)}"
                op.attributes[_TAG] = ir.StringAttr.get(key)
                tagged.append((op, strategy.fuses_producers()))
                strategy.emit(script, script.match_tag(_TAG, key), (_TAG, key))
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        if not tagged:
            return
        if self.print_script:
            print(script.text())
        outlined = kernels.outline(tagged)
        run_script(module, script.text(), _TAG)
        for kernel in outlined:
            kernel.inline()
