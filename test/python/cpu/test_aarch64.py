"""AArch64 ahead of time, without an AArch64 machine: the programs of test_aot compiled for
aarch64-neon and aarch64-sve, linked with examples/c/run_model.c by the GNU cross compiler and
run under qemu user mode, against the NumPy reference.

NEON code runs on qemu's Neoverse-N1 (the target's CPU); SVE code on qemu's `max` CPU at
several vector lengths, since scalable code must be right at any of them. The cross tools come
from scripts/setup.sh (Debian: qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross);
without them every test here skips, saying so.
"""

from pathlib import Path

import pytest
from test_aot import (
    ROOT,
    SAMPLE,
    example,
    load,
    needs,
    program_params,
    run_from_c,
    run_tool,
    undefined_and_needed,
)
from versa.cpu import aot

SYSROOT = "/usr/aarch64-linux-gnu"  # the cross glibc: qemu's -L, where it finds ld-linux and libc


def qemu(cpu: str) -> tuple[str, ...]:
    return ("qemu-aarch64-static", "-L", SYSROOT, "-cpu", cpu)


RUNNERS = {
    "aarch64-neon": qemu("neoverse-n1"),
    "aarch64-sve": qemu("max,sve-default-vector-length=32"),  # 256-bit vectors
}


@pytest.fixture(autouse=True)
def cross_tools() -> None:
    needs("aarch64-linux-gnu-gcc", "qemu-aarch64-static")


@pytest.mark.parametrize("target", RUNNERS)
@pytest.mark.parametrize("param", program_params(SAMPLE))
def test_program_under_qemu(param: tuple, target: str, tmp_path: Path) -> None:
    """Every example and the sample of ops, linked statically into the driver."""
    program = load(param)
    program.check(run_from_c(program, target, tmp_path, shared=False, runner=RUNNERS[target]))


@pytest.mark.parametrize("bytes_", [16, 64])
def test_sve_at_other_vector_lengths(bytes_: int, tmp_path: Path) -> None:
    program = example(ROOT / "examples/mlp.mlir")
    runner = qemu(f"max,sve-default-vector-length={bytes_}")
    program.check(run_from_c(program, "aarch64-sve", tmp_path, shared=False, runner=runner))


@pytest.mark.parametrize("target", RUNNERS)
def test_shared_library_under_qemu(target: str, tmp_path: Path) -> None:
    """The driver linked dynamically against the model's shared library (found by rpath)."""
    program = example(ROOT / "examples/mlp.mlir")
    program.check(run_from_c(program, target, tmp_path, shared=True, runner=RUNNERS[target]))


def test_shared_library_needs_only_libc_and_libm(tmp_path: Path) -> None:
    needs("nm", "readelf")
    library = tmp_path / "libmlp.so"
    done = run_tool(ROOT / "examples/mlp.mlir", "--target", "aarch64-sve", "--emit-shared", "-o", library)
    assert done.returncode == 0, done.stderr
    assert library.read_bytes()[18:20] == (183).to_bytes(2, "little")  # EM_AARCH64
    undefined, needed = undefined_and_needed(library)
    assert undefined and undefined <= aot.LIBC | aot.LIBM
    assert needed <= {"libc.so.6", "libm.so.6"}
