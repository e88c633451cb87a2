"""versa-optimize: the versa-level optimisations, in the order every compile runs them.

Before a target pipeline (`lower-to-llvm`, `lower-to-nvvm`): convolutions in the layout the
target's codegen is fastest with, with their transposes moved to the function boundary (so that
fusion sees them); then simplification, then fusion into `versa.fused` regions.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from versa import targets

from ..common.base import Pass, target_option
from ..common.pipeline import Pipeline
from .canonicalize import VersaCanonicalize
from .fuse import VersaFuse
from .layout import VersaLayout


@dataclass(frozen=True)
class VersaOptimize(Pipeline):
    name = "versa-optimize"
    summary = "Optimise versa IR for a target: layout, canonicalize, fuse"
    target: targets.Target = target_option(kind=None)  # a CPU or GPU target: its conv layout

    def steps(self) -> Iterator[str | Pass]:
        yield VersaLayout(target=self.target)
        yield VersaCanonicalize()
        yield VersaFuse()
