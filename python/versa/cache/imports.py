"""Imported models by their file's content: a model file (ONNX) read again skips the import.

The compile cache keys a compile by the versa module, so a process that has the module starts
from the cache in well under a second; but a file must be imported first (ONNX → torch-mlir →
versa: ResNet-50 2-3 s, more than the rest of a warm start). A file, unlike a Python model, is
all of its own content: sha256 of its bytes, with what else the import reads (the input
shapes) and `compiler_digest()` (the importer's code and torch-mlir's version), keys the
imported module, stored as MLIR bytecode (locations kept: they name the model's layers) in the
same store, checked and evicted alike.
"""

import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from versa import log
from versa.cache import jit
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


def cached_import(
    path: str, importer: str, settings: dict, make: Callable[[ir.Context | None], ir.Module]
) -> ir.Module:
    """The versa module of the file `path` from the cache (in a new versa context), else
    `make(None)`'s (then stored). Off with the compile cache (VERSA_CACHE_DIR=off)."""
    store = jit.store()
    if store is None:
        return make(None)
    key = import_key(path, importer, settings)
    entry = store.get(key)
    if entry is not None and entry.meta.get("kind") == KIND:
        _log.info("import cache hit: %s (%s)", path, key[:16])
        from versa.context import make_context

        return ir.Module.parse(bytes(entry.payload), make_context())
    module = make(None)
    try:
        store.root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=store.root, prefix=".tmp-import-") as tmp:
            payload = Path(tmp, "module.mlirbc")
            with open(payload, "wb") as f:
                module.operation.write_bytecode(f)
            store.put(key, {"kind": KIND, "importer": importer, "source": str(path)}, payload)
        _log.info("import cache write: %s (%s)", path, key[:16])
    except OSError as err:
        _log.info("imported module of %s not cached: %s", path, err)
    return module
