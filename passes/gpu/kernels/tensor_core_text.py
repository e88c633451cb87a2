"""Pieces shared by the tensor-core kernel templates (`versa-gpu-mma`, `versa-gpu-wgmma`): the
kernel text with its index constants, the cp.async copy-ahead step of their shared-memory
rings, the tile checks, and how big a matmul must be to take them."""

import re

from ...common.base import PassError

MIN_TILE = (64, 64, 16)  # M, N, K below which tensor-core tiles would be mostly padding


def big_enough(m: int, n: int, k: int) -> bool:
    """At least a 64 x 64 tile of C and 16 of K: smaller matmuls (a tiny model's heads, 12 x 12
    x 8 each) waste the tensor cores' tiles and stay on CUDA cores (`versa-gpu-matmul`)."""
    return all(x >= low for x, low in zip((m, n, k), MIN_TILE, strict=True))


class KernelLines:
    """The text of one kernel, line by line, with the index constants it uses."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append("    " + line)

    def text(self) -> str:
        body = "\n".join(self.lines)
        used = sorted({int(v) for v in re.findall(r"%c(\d+)\b", body)})
        return "\n".join(f"    %c{v} = arith.constant {v} : index" for v in used) + "\n" + body


def copy_ahead(w: KernelLines, stage_copies, ahead: int, stages: int, k_tiles: int) -> None:
    """In the loop over tiles %t: the copies of tile t + `ahead` into its stage of the ring,
    where there is such a tile, as one cp.async group (committed even when empty, so that each
    wait.group counts the same groups)."""
    w(f"  %tn = arith.addi %t, %c{ahead} : index")
    w(f"  %more = arith.cmpi ult, %tn, %c{k_tiles} : index")
    w("  scf.if %more {")
    w(f"    %sn = arith.remui %tn, %c{stages} : index")
    stage_copies("%tn", "%sn", "n")
    w("  }")
    w("  nvvm.cp.async.commit.group")


def check_tiles(name: str, tiles, shared_limit: int) -> None:
    """A PassError where a tensor-core kernel cannot use `tiles` (their `check`, or more shared
    memory per block than `shared_limit`)."""
    if problem := tiles.check():
        raise PassError(f"'{name}': {problem} ({tiles})")
    if tiles.shared_bytes > shared_limit:
        raise PassError(
            f"'{name}': {tiles.shared_bytes} bytes of shared memory per block, over the "
            f"{shared_limit} a block may have ({tiles})"
        )
