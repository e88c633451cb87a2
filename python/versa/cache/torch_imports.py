"""Imported torch models by the key of the live model (`torch_key.py`): a second process that
compiles the same model skips `torch.export` and the import, most of a warm start.

An entry is the imported versa module as MLIR bytecode (locations kept: they name the layers),
in the same store as the compiled code (`imports.py` reads and writes it: checked, evicted
alike), with what `versa.compile` needs to call it without the export: the pytree structure of
the inputs and outputs (`torch.utils._pytree.treespec_dumps`, JSON) and which outputs are None
(`convert.none_results`), the module's `module_digest` (taken before it was written: a hit
need not hash ~100 MB of bytecode again), and with `dynamic_shapes` the dims the export left
dynamic, per input leaf (what `CompiledModule` masks in its signatures). The compile cache then
finds the machine code by that digest, as it always does.

What is written: `versa.compile`'s whole-graph path, once the module has compiled (a model that
needed partitioning is never an entry: its warm start must partition too), unless the forward
mutates state (`State`: the entry would have to name the module's tensors; such a model is
rare in inference and goes through the export); `import_torch`'s module as it comes. An entry
whose structure no longer loads (a type gone from pytree's registry) is a miss.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from torch.utils import _pytree as pytree

from versa import log
from versa.cache import jit
from versa.cache.imports import BytecodeRecord, stored_module
from versa.cache.keys import module_digest
from versa.cache.torch_key import model_key
from versa.mlir import ir

KIND = "torch-imported-module"
SPECS = ("in_spec", "out_spec")  # pytree structures of the inputs and outputs, as JSON
_log = log.get("cache")


@dataclass(frozen=True)
class Stored:
    module: ir.Module
    in_spec: pytree.TreeSpec | None  # None for import_torch's entries
    out_spec: pytree.TreeSpec | None
    nones: list[int]
    digest: str | None  # the module's `module_digest` when it was written (versa.compile's)
    dynamic: tuple[frozenset, ...] | None  # per input leaf, the dims left dynamic (versa.compile's)


def key(model, args: tuple, kwargs: dict, purpose: str, dynamic_shapes=None) -> str | None:
    """The entry's key of importing `model(*args, **kwargs)` for `purpose`, the dims
    `dynamic_shapes` names dynamic; None with the cache off or a model whose key cannot be
    taken (then logged at info)."""
    return None if jit.store() is None else model_key(model, args, kwargs, purpose, dynamic_shapes)


def lookup(key: str | None, what: str, context: Callable[[], ir.Context]) -> Stored | None:
    """The entry of `key`, its module parsed into `context()`; None on a miss."""
    store = jit.store()
    if key is None or store is None:
        return None
    found = stored_module(store, key, KIND, context)
    if found is None:
        _log.info("torch import cache miss: %s (%s)", what, key[:16])
        return None
    module, meta = found
    try:
        in_spec, out_spec = (pytree.treespec_loads(meta[k]) if meta[k] else None for k in SPECS)
        nones, digest = [int(n) for n in meta["nones"]], meta.get("module_digest")
        dynamic = meta.get("dynamic")
        dynamic = None if dynamic is None else tuple(frozenset(int(d) for d in dims) for dims in dynamic)
    except (KeyError, TypeError, ValueError, NotImplementedError) as err:
        _log.warning("torch import cache entry %s cannot be used (%s): exporting", key[:16], err)
        return None
    _log.info("torch import cache hit: %s (%s)", what, key[:16])
    return Stored(module, in_spec, out_spec, nones, digest, dynamic)


class Pending:
    """An entry to be, written by `commit` (nothing without a key)."""

    def __init__(self, key: str | None, module: ir.Module, what: str, record: BytecodeRecord | None):
        self.key, self.what, self._record, self._module = key, what, record, module
        self._digest: str | None = None

    @property
    def digest(self) -> str | None:
        """The module's `module_digest`, for the compile and the entry (taken before the compile
        lowers the module); None without a key: the compile takes it."""
        if self._record is not None and self._digest is None:
            self._digest = module_digest(self._module)
        return self._digest

    def commit(
        self, in_spec=None, out_spec=None, nones=(), dynamic: tuple[frozenset, ...] | None = None
    ) -> None:
        if self._record is None:
            return
        try:
            specs = {
                k: pytree.treespec_dumps(s) if s else None
                for k, s in zip(SPECS, (in_spec, out_spec), strict=True)
            }
        except (TypeError, NotImplementedError) as err:  # a type pytree cannot serialize
            _log.info("imported module of %s not cached: its structure has no JSON form (%s)", self.what, err)
            return
        meta = {
            "kind": KIND,
            "model": self.what,
            **specs,
            "nones": list(nones),
            "module_digest": self._digest,
            "dynamic": None if dynamic is None else [sorted(dims) for dims in dynamic],
        }
        self._record.commit(meta, self.what)


@contextmanager
def recording(key: str | None, module: ir.Module, what: str) -> Iterator[Pending]:
    """The entry of `key` for `module` as it is now (its bytecode is taken on entry: a compile
    lowers it in place), written when its `commit` is called."""
    store = jit.store()
    if key is None or store is None:
        yield Pending(key, module, what, None)
        return
    try:
        record = BytecodeRecord(store, key, module)
    except OSError as err:
        _log.info("imported module of %s not cached: %s", what, err)
        yield Pending(key, module, what, None)
        return
    with record:
        yield Pending(key, module, what, record)
