"""Imported models by their file's content: a model file (ONNX) read again skips the import.

The compile cache keys a compile by the versa module, so a process that has the module starts
from the cache in well under a second; but a file must be imported first (ONNX → torch-mlir →
versa: ResNet-50 2-3 s, more than the rest of a warm start). A file, unlike a Python model, is
all of its own content: sha256 of its bytes, with what else the import reads (the input
shapes) and `compiler_digest()` (the importer's code and torch-mlir's version), keys the
imported module, stored as MLIR bytecode (locations kept: they name the model's layers) in the
same store, checked and evicted alike. `stored_module` and `BytecodeRecord` read and write such
an entry for any importer (`torch_imports.py` keys torch models by their code and weights).
"""

import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from versa import log
from versa.cache import jit
from versa.cache.store import Store
from versa.mlir import ir
from versa.version import compiler_digest

KIND = "imported-module"
_log = log.get("cache")


def import_key(path: str, importer: str, settings: dict) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            digest.update(block)
    parts = ["versa-import-key 1", importer, digest.hexdigest(), json.dumps(settings, sort_keys=True)]
    return hashlib.sha256("\n".join([*parts, compiler_digest()]).encode()).hexdigest()


def stored_module(
    store: Store, key: str, kind: str, context: Callable[[], ir.Context]
) -> tuple[ir.Module, dict[str, Any]] | None:
    """The module of the entry `key` of `kind` (parsed into `context()`) and its metadata; None
    when there is none (a corrupt one is removed by the store) or it does not parse."""
    entry = store.get(key)
    if entry is None or entry.meta.get("kind") != kind:
        return None
    try:
        return ir.Module.parse(entry.payload, context()), entry.meta
    except ir.MLIRError as err:  # checked bytes of a compiler that no longer reads them
        _log.warning("cache entry %s does not parse (%s): importing again", key[:16], err)
        return None


class BytecodeRecord:
    """A module's bytecode written aside now (a later compile may change the module in place),
    committed as the entry of `key` by `commit`; a record never committed leaves nothing.
    A context manager: the file aside goes at its exit."""

    def __init__(self, store: Store, key: str, module: ir.Module):
        self.store, self.key = store, key
        self.store.root.mkdir(parents=True, exist_ok=True)
        self._folder = tempfile.TemporaryDirectory(dir=self.store.root, prefix=".tmp-import-")
        self.payload = Path(self._folder.name, "module.mlirbc")
        try:
            with open(self.payload, "wb") as f:
                module.operation.write_bytecode(f)
        except OSError:
            self._folder.cleanup()
            raise

    def commit(self, meta: dict[str, Any], what: str) -> None:
        try:
            self.store.put(self.key, meta, self.payload)
        except OSError as err:
            _log.info("imported module of %s not cached: %s", what, err)
            return
        _log.info("import cache write: %s (%s)", what, self.key[:16])

    def __enter__(self) -> "BytecodeRecord":
        return self

    def __exit__(self, *_) -> None:
        self._folder.cleanup()


def cached_import(
    path: str, importer: str, settings: dict, make: Callable[[ir.Context | None], ir.Module]
) -> ir.Module:
    """The versa module of the file `path` from the cache (in a new versa context), else
    `make(None)`'s (then stored). Off with the compile cache (VERSA_CACHE_DIR=off)."""
    store = jit.store()
    if store is None:
        return make(None)
    from versa.context import make_context

    key = import_key(path, importer, settings)
    stored = stored_module(store, key, KIND, make_context)
    if stored is not None:
        _log.info("import cache hit: %s (%s)", path, key[:16])
        return stored[0]
    module = make(None)
    try:
        with BytecodeRecord(store, key, module) as record:
            record.commit({"kind": KIND, "importer": importer, "source": str(path)}, path)
    except OSError as err:
        _log.info("imported module of %s not cached: %s", path, err)
    return module
