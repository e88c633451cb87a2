"""versa-unroll-hints: LLVM may unroll only innermost loops.

By the time the IR reaches LLVM, every loop that should be unrolled for speed has been: the
strategies' register tiles and vector code are straight-line already. LLVM's O3 unroller still
unrolls the loops around them (a cache-tile loop whose body is a whole micro-kernel, a row
loop around a vectorised row), multiplying code five- to tenfold (MobileNetV2's entry point:
18K → 83K instructions) for no speed, and that code is what the JIT spends its time on
(bench, 2 threads, all rows of bench/rows.py: run time 0.98–1.05x, within noise; compile time
MobileNetV2 batch 8 11.9 → 5.7 s, EfficientNet MBConv 4.6 → 2.0 s, conv3x3 NCHW 0.38 → 0.16 s).
Innermost loops keep LLVM's judgement: disabling it there too cost up to 1.3x (depthwise).

Each scf.for that contains another loop gets `loop_annotation = #llvm.loop_annotation<unroll =
<disable = true>>`, which `convert-scf-to-cf` carries to the loop's back edge as `llvm.loop`
metadata. Runs right before `convert-scf-to-cf`.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect

LOOPS = ("scf.for", "scf.while", "scf.parallel")
NO_UNROLL = "#llvm.loop_annotation<unroll = <disable = true>>"


def _contains_loop(loop: ir.Operation) -> bool:
    inner = collect(loop, lambda op: op.name in LOOPS)
    return any(op != loop for op in inner)


@dataclass(frozen=True)
class VersaUnrollHints(Pass):
    name = "versa-unroll-hints"
    summary = "Forbid LLVM to unroll scf.for loops that contain loops"

    def run(self, module: ir.Operation) -> None:
        attr = ir.Attribute.parse(NO_UNROLL)
        for loop in collect(module, lambda op: op.name == "scf.for"):
            if "loop_annotation" not in loop.attributes and _contains_loop(loop):
                loop.attributes["loop_annotation"] = attr
