"""versa-target-attributes: every function names the CPU and features it is compiled for.

LLVM's code generator picks each function's instructions from its `target-cpu` and
`target-features` attributes, and only without them from the target machine's. The JIT's
target machine is always this machine's CPU (MLIR's ExecutionEngine detects the host), so
without the attributes code for `x86-64-v3` compiled on an AVX-512 machine would use AVX-512
registers and instructions (and need none of the libcalls an AVX2 CPU needs): it would not be
the code an AVX2 machine runs. With them, the JIT and llvmlite's target machines (ahead of
time) generate the same code for the same target. The machine's own CPU needs no attributes:
its target machines are already it (and LLVM 22 and 24 disagree on a few feature names).

Runs last in `lower-to-llvm`, on `llvm.func`s with a body:

    llvm.func @f(...) attributes {target_cpu = "x86-64-v3",
                                  target_features = #llvm.target_features<["+avx", "+avx2", ...]>}
"""

from dataclasses import dataclass

from versa import targets
from versa.mlir import ir

from ..common.base import Pass, target_option


def function_attributes(target: targets.Target) -> dict[str, str]:
    """The llvm.func attributes (as MLIR text) that pin `target`'s CPU and features; none for
    the machine's own CPU."""
    if target.is_machine:
        return {}
    features = ", ".join(f'"{f}"' for f in target.llvm_features.split(",") if f)
    return {
        "target_cpu": f'"{target.cpu}"',
        "target_features": f"#llvm.target_features<[{features}]>",
    }


@dataclass(frozen=True)
class VersaTargetAttributes(Pass):
    name = "versa-target-attributes"
    summary = "Name the target's CPU and features on every llvm.func (the JIT's machine is the host)"
    target: targets.Target = target_option()

    def run(self, module: ir.Operation) -> None:
        attributes = {k: ir.Attribute.parse(v) for k, v in function_attributes(self.target).items()}
        if not attributes:
            return
        for op in module.regions[0].blocks[0].operations:
            if op.operation.name == "llvm.func" and op.operation.regions[0].blocks:
                for key, value in attributes.items():
                    op.operation.attributes[key] = value
