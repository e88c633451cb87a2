"""The JIT's cache entries: the machine code of a `JitFunction` as a shared library.

A miss compiles as ever (the pipeline, then MLIR's ExecutionEngine), with position-independent
code, and keeps running on that engine; its object (`dump_to_object_file`: the very code the
engine runs) is linked into a shared library for this host (`cpu.aot.link_shared_file`; calls
into the OpenMP runtime resolve to `cpu.openmp`'s library, the one the engine was given) and
written with the entry's signature and memory use. A hit skips the pipeline and LLVM: the store
copies the library to a private file and checks the copy (`Store.checkout`), which is loaded
(`dlopen`) and unlinked, and the address of the engine's packed wrapper of
`_mlir_ciface_<name>` (`packed_symbol`) goes to the same `PackedCall`. The copy (by the kernel)
buys two things: the code that runs is exactly the bytes whose checksum was verified, and every
load is a library of its own (`dlopen` returns an already loaded library for the same file, and
two `JitFunction`s of one key would then share the arena in its `.bss`, as two engines never do).
The library is unloaded once nothing holds it (`Library`): CPython never unloads a CDLL, so a
process that drops its compiles (`versa.compile`'s executables, evicted) would otherwise keep
each one's constants mapped, and the disk space of its unlinked copy, until it exits.

A hit has no lowered module: `JitFunction.module` and `.engine` are None then (what tests and
`versa-opt` inspect; they compile without the cache, and `JitFunction(..., cache=False)` always
compiles). A function with dynamic dims keeps its shape program (`versa.call_shapes`) in the
entry: a hit has no module to build it from.
"""

import _ctypes
import ctypes
import logging
import os
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from versa import environment, log, targets
from versa.cache.keys import compile_key, module_digest
from versa.cache.store import Store
from versa.cpu import aot, openmp
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ExecutionEngine, ir
from versa.signature import TensorSpec
from versa.version import compiler_digest

KIND = "jit-shared-library"
_log = log.get("cache")
_failed: list[str] = []  # why entries could not be written in this process


@dataclass(frozen=True)
class Loaded:
    address: int  # of `packed_symbol(name)`
    memory: dict[str, int]  # `runtime.MemoryUse`'s fields
    library: "Library"  # keeps the code loaded
    kernels: list[dict]  # a profiling compile's kernel table (`cpu.profile.Kernel`s as dicts)
    shapes: dict | None  # a function with dynamic dims: its `call_shapes.ShapeProgram` as JSON


class Library(ctypes.CDLL):
    """An entry's code, loaded from its private copy (RTLD_LOCAL), unloaded (`dlclose`) once
    the last reference goes: the `JitFunction`'s, or a `KernelCounters`' reading its globals.
    `nbytes`: the library's size, its code and constants (what it maps)."""

    def __init__(self, path: str, nbytes: int):
        super().__init__(path)
        self.nbytes = nbytes
        weakref.finalize(self, _ctypes.dlclose, self._handle).atexit = False  # at exit: left mapped


def store() -> Store | None:
    """The cache VERSA_CACHE_DIR and VERSA_CACHE_SIZE describe now, or None when it is off."""
    folder = environment.cache_dir()
    try:
        return None if folder is None else Store(folder, environment.cache_size())
    except ValueError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None


def key(module: ir.Module, elements: Sequence, llvm_opt_level: int, digest: str | None = None) -> str:
    """The key of compiling `module` (its `module_digest` when the caller has it)."""
    digest = digest or module_digest(module)
    found = compile_key(digest, elements, llvm_opt_level, openmp.shared_libraries())
    _log.debug("compile key %s", found)
    return found


def _specs(specs: Sequence[TensorSpec]) -> list:
    return [[list(s.shape), s.dtype.str] for s in specs]  # a dynamic dim: null


def load(cache: Store, key: str, name: str, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]):
    """The cached code of `key`, loaded; None on a miss (or an entry that cannot be used)."""
    path, copy = cache.path(key), None
    try:
        if not path.exists():
            _log.info("cache miss: %s (%s)", name, key[:16])
            return None
        fd, copy = tempfile.mkstemp(dir=path.parent, prefix=".tmp-load-", suffix=".so")
        os.close(fd)
        meta = cache.checkout(key, Path(copy))
        if meta is None:
            _log.info("cache miss: %s (%s)", name, key[:16])
            return None
        expected = (KIND, name, _specs(inputs), _specs(outputs))
        if (meta.get("kind"), meta.get("entry"), meta.get("inputs"), meta.get("outputs")) != expected:
            _log.warning("cache entry %s is not '%s' as compiled now: compiling", key[:16], name)
            return None
        openmp.shared_libraries()  # the OpenMP runtime, from the allowlist, before the code needs it
        library = Library(copy, meta["payload_bytes"])  # its symbols stay out of the process's namespace
        address = ctypes.cast(getattr(library, packed_symbol(name)), ctypes.c_void_p).value
    except (OSError, AttributeError) as err:
        _log.warning("cache entry %s could not be loaded (%s): compiling", key[:16], err)
        return None
    finally:
        if copy is not None:
            Path(copy).unlink(missing_ok=True)  # loaded (mapped) or refused: the name goes
    _log.info("cache hit: %s (%s, %d bytes)", name, key[:16], meta["payload_bytes"])
    return Loaded(address, meta["memory"], library, meta.get("kernels", []), meta.get("shapes"))


def packed_symbol(name: str) -> str:
    """The symbol `PackedCall` calls: the ExecutionEngine's packed wrapper (one `void**` of
    arguments) of `_mlir_ciface_<name>`, which `raw_lookup` finds by prefixing `_mlir_`."""
    return f"_mlir__mlir_ciface_{name}"


def save(
    cache: Store,
    key: str,
    engine: ExecutionEngine,
    name: str,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    memory: dict[str, int],
    kernels: Sequence[dict] = (),
    shapes: dict | None = None,
) -> None:
    """Write the engine's code as the entry of `key`. A failure costs the next process a
    compile, not this one its result: it is logged (a warning the first time), not raised."""
    meta = {
        "kind": KIND,
        "entry": name,
        "inputs": _specs(inputs),
        "outputs": _specs(outputs),
        "memory": memory,
        "kernels": list(kernels),
        "shapes": shapes,
        "versa": compiler_digest(),
    }
    try:
        cache.folder.mkdir(parents=True, exist_ok=True)
        cache.root.mkdir(mode=0o700, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache.root, prefix=".tmp-link-") as tmp:
            obj, library = Path(tmp, "code.o"), Path(tmp, "code.so")
            engine.dump_to_object_file(str(obj))
            soname = f"libversa-{key[:16]}.so"
            aot.link_shared_file(obj, library, targets.host(), soname, openmp.shared_libraries())
            size = library.stat().st_size
            path = cache.put(key, meta, library)
    except (CompileError, OSError, RuntimeError) as err:
        reason = err.diagnostics[0].message if isinstance(err, CompileError) else str(err)
        level = logging.INFO if _failed else logging.WARNING  # a broken setup warns once
        _log.log(level, "compiled code of '%s' not cached: %s", name, reason)
        _failed.append(reason)
        return
    _log.info("cache write: %s (%s, %d bytes)", name, path, size)
