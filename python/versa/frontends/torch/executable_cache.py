"""The compiled executables a process keeps for reuse (`executable.executable`), bounded by the
bytes they hold, not by their count: one static `versa.compile` of BERT-base holds ~2 GB, so 64
of them (the old bound) were more than most machines have.

What one holds, measured on MLPs with 128 and 48 MiB of f32 weights (VERSA_CACHE_DIR=off, RSS
after `malloc_trim`): compiled here, each one kept grows the process by ~4.8 times its constants
(646 MB for 134 MB, 245 for 50). Its ExecutionEngine holds them three times, freed as it goes
(the loaded sections, the object file the engine keeps for `dump_to_object_file`, the copy
LLVM's GDB registration keeps), and the heap the compile left around them the rest; plus ~5 MiB
of its own (the JIT, the code: a 3-op graph's engine 5.4 MB, a 6-layer encoder's 7.9). The
lowered module holds nothing large (dropping it freed nothing). Loaded from the compile cache,
it holds the library mapped, its constants once and the code (`cache.jit.Library.nbytes`: +128
MB an entry, freed as it goes). Both hold the arena (`MemoryUse.arena`, static storage of the
code) and a static function's result pools (`OutputPool.KEEP` arrays a result; a dynamic one's
are sized per call, bounded by `ShapedCalls.POOLS`, and not counted). A GPU program holds its PTX
and its constants on the host. `resident_bytes` adds these up from what is cheap to know: the
lowered module's top-level globals, the library's size, the memory use.

The least recently used go first, down to `budget()`; the newest is always kept, whatever its
size. An evicted executable is freed at once, unless a user's object holds it: a live
`CompiledModule` its example inputs' (its other signatures' weakly: compiled again once
evicted), a partitioned model its partitions', torch.compile its graphs'.
"""

import math
import os
import threading
from collections import OrderedDict
from pathlib import Path

from versa import environment, log
from versa.cpu.memref import OutputPool
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

ENGINE_COPIES = 5  # of its constants, what a compile kept in an ExecutionEngine adds (4.8 measured)
ENGINE_BYTES = 6 << 20  # an engine beside its constants: the JIT and the code (5.4-7.9 MB measured)
BUDGET_SHARE = 4  # of the process's memory: the default budget is a quarter
CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")  # a container's limit (cgroup v2), below the machine's
_log = log.get("cache")


def budget() -> int:
    """VERSA_MEMORY_CACHE_SIZE, else a quarter of the memory the process may use (the machine's,
    or its container's limit, the smaller): the cache only saves compiles (the compile cache
    makes them loads), and the rest is the model's own weights, a compile's peak (several
    times the weights) and the data. 5.8 GB on a 23 GB machine: two BERT-base shapes."""
    try:
        return environment.memory_cache_size(_memory() // BUDGET_SHARE)
    except ValueError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None


def _memory() -> int:
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = CGROUP_LIMIT.read_text().strip()
    except OSError:
        return physical
    return min(physical, int(limit)) if limit.isdigit() else physical


def resident_bytes(function, program) -> int:
    """The bytes an executable holds: its JIT function's (`runtime.JitFunction`) or, where
    `function` is None, its GPU program's (`gpu.Program`) host bytes."""
    if function is None:
        return len(program.ptx) + sum(len(data) for data in program.constants.values())
    if function.library is not None:
        code = function.library.nbytes
    else:
        code = ENGINE_COPIES * constant_bytes(function.module) + ENGINE_BYTES
    pools = OutputPool.KEEP * function.memory.outputs if function.shapes is None else 0
    return code + function.memory.arena + pools


def constant_bytes(module: ir.Module) -> int:
    """The bytes of a lowered module's constant globals (splats are fills, not data)."""
    total = 0
    for op in module.body.operations:
        if op.operation.name == "llvm.mlir.global" and "value" in op.attributes:
            value = op.attributes["value"]  # weights as bytes are resource blobs (versa-byte-globals)
            if _is_resource(value) or (isinstance(value, ir.DenseElementsAttr) and not value.is_splat):
                shaped = ir.ShapedType(value.type)
                total += math.prod(shaped.shape) * ((getattr(shaped.element_type, "width", 64) + 7) // 8)
    return total


def _is_resource(value: ir.Attribute) -> bool:
    """Whether `value` is a `dense_resource` (the bindings hand it over undowncast)."""
    try:
        ir.DenseResourceElementsAttr(value)
    except ValueError:
        return False
    return True


class ExecutableCache:
    """Executables by key, the least recently used first out once their `nbytes` pass
    `budget()`, read at each insertion (so a changed VERSA_MEMORY_CACHE_SIZE applies). Locked:
    hot shapes' static compiles (`hot_shapes.py`) add from a background thread."""

    def __init__(self):
        self._entries: OrderedDict[tuple, object] = OrderedDict()
        self.bytes = 0  # the sum of the entries' `nbytes`
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple):
        """The executable of `key`, now the most recently used; None if there is none."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def add(self, key: tuple, executable) -> None:
        """Keep `executable` (its `nbytes` estimated), evicting others down to the budget."""
        with self._lock:
            self._add(key, executable)

    def _add(self, key: tuple, executable) -> None:
        self._entries[key] = executable
        self.bytes += executable.nbytes
        limit = budget()
        while self.bytes > limit and len(self._entries) > 1:
            _, evicted = self._entries.popitem(last=False)
            self.bytes -= evicted.nbytes
            _log.info(
                "compiled graph evicted from memory (%.1f MiB; %d kept, %.1f of %.1f MiB)",
                evicted.nbytes / 2**20,
                len(self._entries),
                self.bytes / 2**20,
                limit / 2**20,
            )
