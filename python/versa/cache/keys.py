"""The key of a compile: a sha256 over everything that decides the machine code it produces.

    the module             before the pipeline, as bytecode without locations (they change no
                           code), constants included (weights are code: folded, packed, baked in)
    the pipeline           each element: an upstream element's text, a Versa pass's flag and
                           options (a target as its name and fingerprint, a tuning database as
                           the digest of its content: tuning it again is another compile)
    LLVM's -O              the JIT's code generator level
    the host               `tuning.db.fingerprint` of the target the JIT runs on (the pinned ISA
                           level when VERSA_HOST_TARGET names one), and the CPU and features
                           LLVM itself detects (the JIT's code generator compiles for them)
    the runtime            the OpenMP runtime's path (the library the code is linked against)
    the compiler           `versa.version.compiler_digest()`: Versa's version, a digest of its
                           compiler source, the torch-mlir (MLIR) and llvmlite versions

Anything not in the key must not change the code: the cache returns what the first compile of
a key produced. Everything a Versa pass reads from the environment is already one of its fields
(`VERSA_CODEGEN_STRICT` is `strict`), and the thread count is in the expanded pipeline's text.
"""

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import llvmlite.binding as llvm

from versa import targets
from versa.mlir import PassManager, ir
from versa.passes.common.base import Pass
from versa.tuning.db import fingerprint
from versa.version import compiler_digest

FORMAT = "versa-compile-key 1"


def module_digest(module: ir.Module) -> str:
    """sha256 of the module as MLIR bytecode, locations stripped (they change no code). Bytecode,
    not text: a model's weights are most of it and text prints them in hex (HF BERT-base: 1.5 GB
    of text, ~8 s to print and hash; 775 MB of bytecode, ~1 s), streamed into the hash. A caller
    with a key of its own (`versa.compile`'s in-memory cache) computes it once, for both."""
    copy = module.operation.clone(ip=False)  # weights are shared resources: not copied
    try:
        strip = PassManager.parse("builtin.module(strip-debuginfo)", module.context)
        strip.enable_verifier(False)  # invalid IR is the pipeline's to report, with locations
        strip.run(copy)
        sink = _HashSink()
        copy.write_bytecode(sink)
    finally:
        copy.erase()
    return sink.digest.hexdigest()


class _HashSink:
    """A file for `write_bytecode` that hashes what it is given and keeps nothing."""

    def __init__(self):
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return len(data)


def compile_key(
    module_digest: str, elements: Sequence[str | Pass], llvm_opt_level: int, libraries: Iterable[str]
) -> str:
    """The hex sha256 key of compiling the module of `module_digest` (before its pipeline) with
    `elements`."""
    digest = hashlib.sha256()
    for line in (
        FORMAT,
        f"compiler {compiler_digest()}",
        f"host {fingerprint(targets.host())}",
        f"llvm host {llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}",
        f"llvm -O{llvm_opt_level}",
        f"libraries {' '.join(libraries)}",
        *(f"element {element_text(e)}" for e in elements),
        f"module {module_digest}",
    ):
        digest.update(line.encode() + b"\n")
    return digest.hexdigest()


def element_text(element: str | Pass) -> str:
    """One pipeline element as the key sees it."""
    if not isinstance(element, Pass):
        return " ".join(element.split())
    options = " ".join(
        f"{f.name}={_value(f.name, getattr(element, f.name))}" for f in dataclasses.fields(element)
    )
    return f"{element.name}{{{options}}}"


def _value(name: str, value: object) -> str:
    if isinstance(value, targets.Target):
        return f"{value.name}[{fingerprint(value)}]"
    if name == "tuning_db" and value:
        return f"{value}#{file_digest(str(value))}"
    return repr(value)


def file_digest(path: str) -> str:
    """sha256 of a file's bytes, or "absent" (a tuning database not written yet)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "absent"
