"""versa-serial-foralls: `scf.forall` loops marked `versa.serial` become `scf.for` nests.

A codegen strategy that fuses an op into a loop along a destination (conv_epilogue: the conv
is the init of its epilogue) needs `fuse_into_containing_op`, which fuses through the shared
outs of an `scf.forall` only. Such a loop is meant to run serially inside a thread, not as a
second level of OpenMP threads, so the strategy marks it, and after bufferization (upstream's
`loop.forall_to_for` needs a forall without shared outs) this pass makes it an `scf.for` nest.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect
from .strategies.script import SERIAL, Script, run_script

_TAG = "versa.serial_forall"


@dataclass(frozen=True)
class VersaSerialForalls(Pass):
    name = "versa-serial-foralls"
    summary = "Rewrite the bufferized scf.forall loops marked versa.serial as scf.for nests"

    def run(self, module: ir.Operation) -> None:
        # Only bufferized loops (no results): forall_to_for refuses shared outs.
        loops = collect(
            module, lambda op: op.name == "scf.forall" and SERIAL in op.attributes and not op.results
        )
        if not loops:
            return
        script = Script()
        for index, loop in enumerate(loops):
            loop.attributes[_TAG] = ir.StringAttr.get(f"l{index}")
            dims = len(loop.regions[0].blocks[0].arguments)
            script.forall_to_for(script.match_tag(_TAG, f"l{index}"), dims)
        run_script(module, script.text(), _TAG)
