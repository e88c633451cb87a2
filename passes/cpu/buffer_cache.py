"""versa-buffer-cache: large heap buffers that a module frees are kept for its next allocation.

Intermediates of static shape live in an arena planned at compile time (`versa-plan-buffers`).
Those of dynamic shape cannot: their sizes are each call's, so every call mallocs and frees
them. glibc serves a block over its mmap threshold (at most 32 MB) with a fresh `mmap` and
unmaps it on `free`, so each call of a BERT-base at 4 x 512 touched ~350 MB of fresh pages:
89,000 minor page faults a call and 1.45x the static code's time for the same shape
(docs/facts.md). glibc's knobs for this (`M_MMAP_MAX`, `M_TRIM_THRESHOLD`) are process-wide:
they would change how the user's whole process (PyTorch's tensors included) holds memory.

So the module holds its own large free blocks. `finalize-memref-to-llvm{use-generic-functions}`
makes every `memref.alloc` / `memref.dealloc` a call of `_mlir_memref_to_llvm_alloc(bytes)` /
`_mlir_memref_to_llvm_free(pointer)`; this pass defines the two in the module, hidden (each
compiled module, or library built from it, has its own cache; another library's cannot take its
calls):

- `free` of a block of at least `MIN_BYTES` (its size: `malloc_usable_size`) puts it in one of
  `SLOTS` slots: an empty one, or the smallest held if that is smaller (which is then freed);
  anything smaller goes back to `free` (glibc's own bins reuse small blocks without faults);
- `alloc` of at least `MIN_BYTES` takes the smallest held block that fits and wastes at most
  half of itself (a call's sizes repeat from call to call: the steady state is exact fits);
  otherwise `malloc`.

Blocks stay plain `malloc` blocks: a buffer that leaves the module (a returned memref) may be
freed by anyone. A spin lock (`cmpxchg`) guards the slots: OpenMP threads allocate too. The
slots hold at most `SLOTS` blocks between calls, about what one call held live at once; the
module's `__versa_release_buffers()` frees them (the runtime calls it when the code is unloaded).

Hidden, not internal: the ExecutionEngine gives every function a packed wrapper `_mlir_<name>`
and cannot materialise an internal one's, so `dump_to_object_file` (the compile cache, `versa
optimize`'s library) failed with "Symbols not found: _mlir__mlir_memref_to_llvm_alloc".

Written by hand because no library offers a per-module cache that LLVM code can call and that
leaves the process's allocator settings alone. Runs right after `finalize-memref-to-llvm`.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass

ALLOC = "_mlir_memref_to_llvm_alloc"
FREE = "_mlir_memref_to_llvm_free"
RELEASE = "__versa_release_buffers"
MIN_BYTES = 1 << 16  # below this, glibc serves blocks from its heap (mmap starts at 128 KB)
SLOTS = 32

_PTR = "!llvm.ptr"
_ARRAY = f"!llvm.array<{SLOTS} x i64>"


def _globals() -> str:
    zero = f"{{\n  %z = llvm.mlir.zero : {_ARRAY}\n  llvm.return %z : {_ARRAY}\n}}"
    return "\n".join(
        [
            "llvm.mlir.global internal @__versa_buffers_lock(0 : i32) {addr_space = 0 : i32} : i32",
            f"llvm.mlir.global internal @__versa_buffers_ptr() {{addr_space = 0 : i32}} : {_ARRAY} {zero}",
            f"llvm.mlir.global internal @__versa_buffers_size() {{addr_space = 0 : i32}} : {_ARRAY} {zero}",
        ]
    )


_LOCK = """  %lock = llvm.mlir.addressof @__versa_buffers_lock : !llvm.ptr
  %ptrs = llvm.mlir.addressof @__versa_buffers_ptr : !llvm.ptr
  %sizes = llvm.mlir.addressof @__versa_buffers_size : !llvm.ptr
  %unlocked = llvm.mlir.constant(0 : i32) : i32
  %locked = llvm.mlir.constant(1 : i32) : i32
  llvm.br ^spin
^spin:
  %swap = llvm.cmpxchg %lock, %unlocked, %locked acquire monotonic : !llvm.ptr, i32
  %got = llvm.extractvalue %swap[1] : !llvm.struct<(i32, i1)>
  llvm.cond_br %got, ^held, ^spin
^held:"""
_UNLOCK = "  llvm.store %unlocked, %lock atomic release {alignment = 4 : i64} : i32, !llvm.ptr"


def _slot(array: str, index: str, name: str) -> str:
    operands = "!llvm.ptr, i64" if index.startswith("%") else "!llvm.ptr"
    return f"  %{name} = llvm.getelementptr %{array}[0, {index}] : ({operands}) -> !llvm.ptr, {_ARRAY}"


def _scan(pick: str) -> list[str]:
    """Straight-line code over the slots: %best (a size) and %at (its slot) after the last;
    `pick` is the condition (an i1 named %ok<i>) in terms of %s<i> (the slot's size)."""
    lines = ["  %none = llvm.mlir.constant(-1 : i64) : i64", "  %at0 = llvm.mlir.constant(-1 : i64) : i64"]
    for i in range(SLOTS):
        lines += [
            _slot("sizes", str(i), f"sp{i}"),
            f"  %s{i} = llvm.load %sp{i} : !llvm.ptr -> i64",
            pick.format(i=i, prev=f"best{i}"),
            f"  %best{i + 1} = llvm.select %ok{i}, %s{i}, %best{i} : i1, i64",
            f"  %i{i} = llvm.mlir.constant({i} : i64) : i64",
            f"  %at{i + 1} = llvm.select %ok{i}, %i{i}, %at{i} : i1, i64",
        ]
    return lines


def _alloc() -> str:
    """Take the smallest held block of n to 2n bytes, or malloc."""
    pick = (
        '  %fits{i} = llvm.icmp "uge" %s{i}, %n : i64\n'
        '  %tight{i} = llvm.icmp "ule" %s{i}, %twice : i64\n'
        '  %less{i} = llvm.icmp "ult" %s{i}, %{prev} : i64\n'
        "  %both{i} = llvm.and %fits{i}, %tight{i} : i1\n"
        "  %ok{i} = llvm.and %both{i}, %less{i} : i1"
    )
    body = [
        f"llvm.func hidden @{ALLOC}(%n: i64) -> {_PTR} {{",
        f"  %min = llvm.mlir.constant({MIN_BYTES} : i64) : i64",
        '  %large = llvm.icmp "uge" %n, %min : i64',
        "  llvm.cond_br %large, ^cache, ^fresh",
        "^cache:",
        _LOCK,
        "  %one = llvm.mlir.constant(1 : i64) : i64",
        "  %twice = llvm.shl %n, %one : i64",
        "  %best0 = llvm.mlir.constant(-1 : i64) : i64",
        *_scan(pick),
        f'  %found = llvm.icmp "ne" %at{SLOTS}, %none : i64',
        "  llvm.cond_br %found, ^take, ^miss",
        "^take:",
        _slot("ptrs", f"%at{SLOTS}", "pp"),
        _slot("sizes", f"%at{SLOTS}", "ps"),
        "  %held = llvm.load %pp : !llvm.ptr -> i64",
        "  %empty = llvm.mlir.constant(0 : i64) : i64",
        "  llvm.store %empty, %pp : i64, !llvm.ptr",
        "  llvm.store %empty, %ps : i64, !llvm.ptr",
        _UNLOCK,
        f"  %block = llvm.inttoptr %held : i64 to {_PTR}",
        f"  llvm.return %block : {_PTR}",
        "^miss:",
        _UNLOCK,
        "  llvm.br ^fresh",
        "^fresh:",
        f"  %fresh = llvm.call @malloc(%n) : (i64) -> {_PTR}",
        f"  llvm.return %fresh : {_PTR}",
        "}",
    ]
    return "\n".join(body)


def _free() -> str:
    """Hold the block in an empty slot or in place of a smaller one, or free it."""
    pick = '  %ok{i} = llvm.icmp "ult" %s{i}, %{prev} : i64'
    body = [
        f"llvm.func hidden @{FREE}(%p: {_PTR}) {{",
        f"  %null = llvm.mlir.zero : {_PTR}",
        '  %given = llvm.icmp "ne" %p, %null : !llvm.ptr',
        "  llvm.cond_br %given, ^sized, ^done",
        "^sized:",
        f"  %u = llvm.call @malloc_usable_size(%p) : ({_PTR}) -> i64",
        f"  %min = llvm.mlir.constant({MIN_BYTES} : i64) : i64",
        '  %large = llvm.icmp "uge" %u, %min : i64',
        "  llvm.cond_br %large, ^cache, ^release",
        "^cache:",
        _LOCK,
        "  %best0 = llvm.mlir.constant(-1 : i64) : i64",  # the smallest slot: an empty one is 0
        *_scan(pick),
        f'  %smaller = llvm.icmp "ult" %best{SLOTS}, %u : i64',
        "  llvm.cond_br %smaller, ^swap, ^full",
        "^swap:",
        _slot("ptrs", f"%at{SLOTS}", "pp"),
        _slot("sizes", f"%at{SLOTS}", "ps"),
        "  %old = llvm.load %pp : !llvm.ptr -> i64",
        f"  %pi = llvm.ptrtoint %p : {_PTR} to i64",
        "  llvm.store %pi, %pp : i64, !llvm.ptr",
        "  llvm.store %u, %ps : i64, !llvm.ptr",
        _UNLOCK,
        f"  %evicted = llvm.inttoptr %old : i64 to {_PTR}",
        f"  llvm.call @free(%evicted) : ({_PTR}) -> ()",  # free(NULL) of an empty slot: nothing
        "  llvm.return",
        "^full:",
        _UNLOCK,
        "  llvm.br ^release",
        "^release:",
        f"  llvm.call @free(%p) : ({_PTR}) -> ()",
        "  llvm.br ^done",
        "^done:",
        "  llvm.return",
        "}",
    ]
    return "\n".join(body)


def _release() -> str:
    """Free every held block (the code is being unloaded; no call of it runs)."""
    return f"""llvm.func @{RELEASE}() {{
  %ptrs = llvm.mlir.addressof @__versa_buffers_ptr : !llvm.ptr
  %sizes = llvm.mlir.addressof @__versa_buffers_size : !llvm.ptr
  %empty = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %slots = llvm.mlir.constant({SLOTS} : i64) : i64
  llvm.br ^slot(%empty : i64)
^slot(%i: i64):
{_slot("ptrs", "%i", "pp")}
{_slot("sizes", "%i", "ps")}
  %held = llvm.load %pp : !llvm.ptr -> i64
  %block = llvm.inttoptr %held : i64 to {_PTR}
  llvm.call @free(%block) : ({_PTR}) -> ()
  llvm.store %empty, %pp : i64, !llvm.ptr
  llvm.store %empty, %ps : i64, !llvm.ptr
  %next = llvm.add %i, %one : i64
  %more = llvm.icmp "ult" %next, %slots : i64
  llvm.cond_br %more, ^slot(%next : i64), ^done
^done:
  llvm.return
}}"""


_LIBC = {
    "malloc": f"llvm.func @malloc(i64) -> {_PTR}",
    "free": f"llvm.func @free({_PTR})",
    "malloc_usable_size": f"llvm.func @malloc_usable_size({_PTR}) -> i64",
}


@dataclass(frozen=True)
class VersaBufferCache(Pass):
    name = "versa-buffer-cache"
    summary = "define the generic alloc/free of finalize-memref-to-llvm as a per-module cache of large blocks"

    def run(self, module: ir.Operation) -> None:
        body = module.regions[0].blocks[0]
        functions = {
            op.attributes["sym_name"].value: op for op in body.operations if op.operation.name == "llvm.func"
        }
        if ALLOC not in functions and FREE not in functions:
            return  # nothing allocates on the heap
        for name in (ALLOC, FREE):
            if name in functions:
                if len(functions[name].regions[0].blocks):
                    return  # defined already (the pass ran)
                functions[name].operation.erase()
        declarations = [text for name, text in _LIBC.items() if name not in functions]
        text = "\n".join([*declarations, _globals(), _alloc(), _free(), _release()])
        parsed = ir.Module.parse(text, module.context)  # alive until its ops have moved out
        first = body.operations[0]
        for op in list(parsed.body.operations):
            op.operation.move_before(first)
