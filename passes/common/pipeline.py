"""The shape of a pipeline: a Pass whose `steps()` the driver expands in place.

So `--mlir-print-ir-after-all` shows every step, and a pipeline can be named inside
`--pass-pipeline` like any pass. The pipelines themselves are each phase's `pipeline.py`.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from versa import targets

from .base import Pass, PassError


@dataclass(frozen=True)
class Pipeline(Pass):
    target_option: ClassVar[str] = "target"  # the option that `--target NAME` fills in

    def steps(self) -> Iterator[str | Pass]:
        raise NotImplementedError

    @classmethod
    def with_target(cls, options: str, target: str) -> str:
        """`options` with the target `target` (a `versa.targets` name) unless they name one."""
        if f"{cls.target_option}=" in options:
            return options
        try:
            value = cls.target_value(targets.resolve(target))
        except targets.TargetError:
            raise PassError(f"unknown target '{target}' (versa-opt --list-targets lists them)") from None
        return f"{options} {cls.target_option}={value}".strip()

    @staticmethod
    def target_value(target: targets.Target) -> str:
        return target.name

    def run(self, module) -> None:
        raise PassError(f"pipeline '{self.name}' runs through its steps, not as one pass")
