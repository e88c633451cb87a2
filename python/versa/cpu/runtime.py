"""JIT execution through MLIR's ExecutionEngine.

The entry point is compiled with `llvm.emit_c_interface`; after `lower-to-llvm` its results are
out-params (`buffer-results-to-out-params`), so `_mlir_ciface_<entry>` takes one memref
descriptor pointer per input and then one per result. The wrapper checks that count against the
lowered signature rather than assuming it. A function with dynamic dims (`tensor<?x64xf32>`)
is called with descriptors that carry each call's sizes, after its shape program
(`versa.call_shapes`, read from the versa IR before the pipeline) has checked them and sized
the results; a static function's calls do no such work.

The compile cache (`versa.cache`, on unless VERSA_CACHE_DIR=off) hooks in here, so every
compile that JITs shares it: the key is taken before the pipeline runs; a hit loads the code of
an earlier compile and runs neither the pipeline nor LLVM (`module` is then left unlowered and
`JitFunction.module` is None), a miss compiles and writes the entry.
"""

import ctypes
import dataclasses
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from versa import compiler, log
from versa.cache import jit as cached
from versa.cache.store import Store
from versa.call_shapes import ShapeProgram
from versa.cpu import openmp
from versa.cpu.memref import OutputPool, PackedCall, ShapedCalls
from versa.cpu.memref import aligned_empty as aligned_empty  # where callers have found it
from versa.cpu.profile import Kernel, kernel_table
from versa.cpu.symbols import check_external_symbols
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ExecutionEngine, ir
from versa.passes.bufferize.plan_buffers import arena_bytes
from versa.passes.common.base import collect
from versa.passes.cpu import buffer_cache
from versa.signature import TensorSpec, find_function

_log = log.get("jit")


@dataclass(frozen=True)
class MemoryUse:
    """The bytes a compiled function touches per call. Intermediates live in one arena planned
    at compile time (`versa-plan-buffers`), allocated once per compiled function (`arena` adds
    those of the functions it calls: kernels shared between layers have their own); allocations
    the plan could not take (dynamic sizes, buffers inside loops) are counted, not sized, and
    so are arguments and results with dynamic dims (their bytes are each call's)."""

    inputs: int
    outputs: int
    arena: int
    heap_allocations: int  # malloc calls left in the code (each call runs them)
    sized_per_call: int = 0  # arguments and results with dynamic dims, not in inputs/outputs

    @property
    def peak(self) -> int:
        """Inputs + results + the arena: the most the function holds at once, heap aside."""
        return self.inputs + self.outputs + self.arena

    def summary(self) -> str:
        heap = f", {self.heap_allocations} heap allocation(s) not planned" if self.heap_allocations else ""
        dynamic = f", {self.sized_per_call} tensor(s) sized per call" if self.sized_per_call else ""
        return (
            f"memory: peak {self.peak} bytes (inputs {self.inputs}, results {self.outputs}, "
            f"intermediates {self.arena} in the arena{heap}{dynamic})"
        )


# What a memref.alloc becomes: a call of the module's buffer cache (`versa-buffer-cache`), or
# libc's where a module was lowered without it.
_HEAP = (buffer_cache.ALLOC, "malloc", "aligned_alloc")


def _in_buffer_cache(op: ir.Operation) -> bool:
    """Whether `op` is in the cache's own functions (whose malloc serves the calls of ALLOC)."""
    while op.name != "llvm.func":
        op = op.parent
    return op.attributes["sym_name"].value in (buffer_cache.ALLOC, buffer_cache.FREE)


def _memory_use(
    module: ir.Module, name: str, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> MemoryUse:
    calls = collect(module.operation, lambda op: op.name == "llvm.call" and "callee" in op.attributes)
    callees = {str(op.attributes["callee"])[1:] for op in calls}
    mallocs = [op for op in calls if str(op.attributes["callee"])[1:] in _HEAP and not _in_buffer_cache(op)]
    # the entry's arena, and those of the functions it calls (kernels shared between layers)
    arenas = arena_bytes(module)
    arena = arenas.get(name, 0) + sum(size for f, size in arenas.items() if f in callees and f != name)
    static = [[s.nbytes for s in specs if s.is_static] for specs in (inputs, outputs)]
    dynamic = len(inputs) + len(outputs) - len(static[0]) - len(static[1])
    return MemoryUse(sum(static[0]), sum(static[1]), arena, len(mallocs), dynamic)


def _release(release: Callable[[], None], code: object) -> None:
    release()  # `code` is an argument only to stay loaded until now


def _symbol_address(library: ctypes.CDLL, name: str) -> int | None:
    try:
        return ctypes.cast(getattr(library, name), ctypes.c_void_p).value
    except AttributeError:  # compiled before the buffer cache existed
        return None


def _ready(array: object, spec: TensorSpec) -> bool:
    """Whether `array` can be passed as it is: an ndarray of the spec, C-contiguous."""
    return (
        type(array) is np.ndarray
        and array.shape == spec.shape
        and array.dtype == spec.dtype
        and array.flags.c_contiguous
    )


def _has_bf16(module: ir.Module) -> bool:
    """Whether a value of the lowered module has a bf16 type (scalar, vector or aggregate)."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        found = any("bf16" in str(r.type) for r in op.results)
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


class JitFunction:
    """A versa function compiled to machine code; call it with NumPy arrays. `from_cache`: its
    code came from the compile cache (`module` is None then: no lowered module exists).
    `shapes`: what checks and sizes a call of a function with dynamic dims (`call_shapes`); None
    for a static one, whose calls check their arguments against its specs alone."""

    from_cache = False
    kernels: list = []  # a profiling compile's kernels (`cpu.profile`), whose counters it keeps
    library: ctypes.CDLL | None = None  # the cached code, loaded (the engine holds it otherwise)
    shapes: ShapeProgram | None = None
    release_buffers: weakref.finalize | None = None  # frees the module's held blocks (at unload)

    def __init__(
        self,
        module: ir.Module,
        entry: str | None = None,
        *,
        pipeline: Sequence[compiler.Element] | str = "lower-to-llvm",
        llvm_opt_level: int = 3,  # LLVM's -O for the machine code (the pipeline sets Versa's tier)
        cache: bool | Store = True,  # False: always compile (for a caller that reads `module` or
        # `engine`); a Store: that one, not VERSA_CACHE_DIR's (a hot shape's child compile)
        module_digest: str | None = None,  # `cache.keys.module_digest(module)`, if the caller has it
    ):
        function = find_function(module, entry)
        self.name = function.attributes["sym_name"].value
        self.inputs = [TensorSpec.of(t) for t in function.type.inputs]
        self.outputs = [TensorSpec.of(t) for t in function.type.results]
        elements = compiler.parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
        cache = cached.store() if cache is True else (cache or None)
        key = cached.key(module, elements, llvm_opt_level, module_digest) if cache else None
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(module.context)
        hit = cached.load(cache, key, self.name, self.inputs, self.outputs) if cache else None
        if hit is not None:
            self.module, self.engine, self.library, self.from_cache = None, None, hit.library, True
            self.memory = MemoryUse(**hit.memory)
            self.kernels = [Kernel.from_dict(k) for k in hit.kernels]
            self.shapes = None if hit.shapes is None else ShapeProgram.from_json(hit.shapes)
            self._release_on_unload(_symbol_address(hit.library, buffer_cache.RELEASE), hit.library)
            self._ready(hit.address)
            return
        self.shapes = ShapeProgram.of(function)  # before the passes rewrite the function
        compiler.run_passes(module, elements)
        self._load(module, llvm_opt_level, position_independent=cache is not None)
        self.kernels = kernel_table(module)
        if cache is not None:
            memory, kernels = dataclasses.asdict(self.memory), [dataclasses.asdict(k) for k in self.kernels]
            shapes = None if self.shapes is None else self.shapes.to_json()
            cached.save(
                cache, key, self.engine, self.name, self.inputs, self.outputs, memory, kernels, shapes
            )

    @classmethod
    def lowered(
        cls,
        module: ir.Module,
        name: str,
        inputs: Sequence[TensorSpec],
        outputs: Sequence[TensorSpec],
        llvm_opt_level: int = 3,
    ) -> "JitFunction":
        """Machine code for a module already in the llvm dialect (lowered elsewhere, say by
        another process or machine: `versa.tuning`'s Ray workers), whose entry `name` had
        `inputs` and `outputs` before lowering and was marked `llvm.emit_c_interface`."""
        function = cls.__new__(cls)
        function.name, function.inputs, function.outputs = name, list(inputs), list(outputs)
        function._load(module, llvm_opt_level)
        return function

    def _load(self, module: ir.Module, llvm_opt_level: int, position_independent: bool = False) -> None:
        """The lowered `module` compiled by LLVM, its entry looked up and made callable;
        `position_independent` code can be linked into a shared library (the cache's)."""
        self._check_signature(module)
        check_external_symbols(module, openmp.provides)
        libraries = openmp.shared_libraries()  # the allowlist (SECURITY.md)
        if llvm_opt_level > 2 and _has_bf16(module):
            # LLVM's O3 vectorizes a scalar bf16 copy loop (a ragged bf16 transpose) into
            # accesses its x86 backend cannot select: it aborts the process ("Do not know how
            # to soft promote"). Our vector code is MLIR's; O2 loses nothing measurable there.
            llvm_opt_level = 2
            _log.info("%s: LLVM -O2, not -O3 (the module holds bf16)", self.name)
        start = time.perf_counter()
        try:
            self.engine = ExecutionEngine(
                module, opt_level=llvm_opt_level, shared_libs=libraries, enable_pic=position_independent
            )
            address = self.engine.raw_lookup(f"_mlir_ciface_{self.name}")
        except (RuntimeError, ValueError) as err:
            raise CompileError([Diagnostic("error", f"JIT compilation failed: {err}")]) from None
        _log.info("%s: LLVM -O%d in %.3f s", self.name, llvm_opt_level, time.perf_counter() - start)
        if not address:  # LLVM could not materialise the function: never call address 0
            raise CompileError(
                [Diagnostic("error", f"JIT compilation failed: no code for '_mlir_ciface_{self.name}'")]
            )
        self.module = module
        self.memory = _memory_use(module, self.name, self.inputs, self.outputs)
        self._release_on_unload(self.engine.raw_lookup(buffer_cache.RELEASE), self.engine)
        self._ready(address)

    def _release_on_unload(self, address: int | None, code: object) -> None:
        """Free the blocks the module's buffer cache holds once this function is collected,
        before its `code` (engine or library, kept alive until then) is unloaded."""
        if address:
            self.release_buffers = weakref.finalize(self, _release, ctypes.CFUNCTYPE(None)(address), code)
            self.release_buffers.atexit = False  # the process frees everything at exit anyway

    def _ready(self, address: int) -> None:
        """Callable: `address` is the entry's `_mlir_ciface_` wrapper. With dynamic dims, each
        tuple of argument shapes gets its own descriptors and result pool (`ShapedCalls`); a
        call then never passes `_ready`'s test of a static spec and takes `_call_general`."""
        self._shaped = None
        if self.shapes is None and not all(s.is_static for s in (*self.inputs, *self.outputs)):
            raise CompileError([Diagnostic("error", f"'{self.name}' has dynamic dims but no shape program")])
        if self.shapes is not None and not all(s.is_static for s in self.inputs):
            self._shaped = ShapedCalls(address, self.outputs, self.shapes.resolve)
            return
        self._results = self.outputs
        if self.shapes is not None:  # static arguments, dynamic results: their sizes, once
            sizes = self.shapes.resolve(tuple(s.shape for s in self.inputs))
            self._results = [s.at(size) for s, size in zip(self.outputs, sizes, strict=True)]
        self._pool = OutputPool(self._results)
        self._call = PackedCall(address, [s.shape for s in (*self.inputs, *self._results)])

    def _check_signature(self, module: ir.Module) -> None:
        wrapper = f"_mlir_ciface_{self.name}"
        for op in module.body.operations:
            if op.operation.name == "llvm.func" and op.attributes["sym_name"].value == wrapper:
                count = len(op.regions[0].blocks[0].arguments)
                expected = len(self.inputs) + len(self.outputs)
                if count != expected:
                    raise CompileError(
                        [
                            Diagnostic(
                                "error",
                                f"'{wrapper}' takes {count} arguments"
                                f", expected {expected} (inputs + out-params)",
                            )
                        ]
                    )
                return
        raise CompileError([Diagnostic("error", f"lowered module has no '{wrapper}'")])

    def __call__(
        self, *arrays: np.ndarray, out: Sequence[np.ndarray] | np.ndarray | None = None
    ) -> list[np.ndarray]:
        """Run on `arrays`; results go into `out` (arrays of the result types, returned as
        given) or into arrays the function owns: one is reused once the caller has dropped it,
        so a steady-state loop never touches fresh pages."""
        if len(arrays) != len(self.inputs):
            raise ValueError(f"{self.name} takes {len(self.inputs)} inputs, got {len(arrays)}")
        for array, spec in zip(arrays, self.inputs, strict=True):
            if not _ready(array, spec):  # the common case costs one check per argument
                return self._call_general(arrays, out)
        outs = self._pool.take() if out is None else self._check_out(out, arrays, self._results)
        self._call([*arrays, *outs])
        return outs

    def _call_general(self, arrays: Sequence[np.ndarray], out) -> list[np.ndarray]:
        """A call whose arguments need converting, or of a function with dynamic dims: its
        argument shapes are checked and its results sized by `shapes` (ShapeError if it does
        not take them), memoized per tuple of shapes."""
        arrays = [self._coerce(a, s, i) for i, (a, s) in enumerate(zip(arrays, self.inputs, strict=True))]
        if self._shaped is None:
            call, pool, outputs = self._call, self._pool, self._results
        else:
            call, pool, outputs = self._shaped.bind(tuple(a.shape for a in arrays))
        outs = pool.take() if out is None else self._check_out(out, arrays, outputs)
        call([*arrays, *outs])
        return outs

    def _coerce(self, array: np.ndarray, spec: TensorSpec, index: int) -> np.ndarray:
        """`array` as the call passes it; a dynamic spec's sizes are the shape program's to check."""
        array = np.asarray(array)
        if array.dtype != spec.dtype or (spec.is_static and array.shape != spec.shape):
            raise ValueError(f"argument {index} must be {spec}, got {array.dtype}{list(array.shape)}")
        return np.require(array, requirements="C")  # ascontiguousarray makes 0-d 1-d

    def _check_out(
        self, out: Sequence[np.ndarray] | np.ndarray, inputs: Sequence[np.ndarray], specs: list[TensorSpec]
    ) -> list[np.ndarray]:
        outs = [out] if isinstance(out, np.ndarray) else list(out)
        if len(outs) != len(specs):
            raise ValueError(f"{self.name} has {len(specs)} results, got {len(outs)} out= arrays")
        for i, (array, spec) in enumerate(zip(outs, specs, strict=True)):
            if not _ready(array, spec) or not array.flags.writeable:
                raise ValueError(
                    f"out[{i}] must be a writeable C-contiguous {spec} ndarray, "
                    f"got {getattr(array, 'dtype', type(array).__name__)}{list(np.shape(array))}"
                )
            others = [*inputs, *outs[:i]]
            if any(np.may_share_memory(array, other) for other in others):
                raise ValueError(f"out[{i}] overlaps an input or another result")
        return outs

    def time(self, arrays: Sequence[np.ndarray], repeat: int) -> list[float]:
        """Wall-clock seconds of `repeat` calls (after one warm-up call)."""
        self(*arrays)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self(*arrays)
            times.append(time.perf_counter() - start)
        return times
