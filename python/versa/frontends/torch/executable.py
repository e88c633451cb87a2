"""A converted versa module, compiled and called on torch tensors: the layer under `versa.compile`
and the torch.compile backend.

`Executable` compiles for the host CPU (JIT) or a GPU (a Program) and converts at the boundary;
`executable` shares one among graphs that print the same; `VersaGraph` is one ATen graph
(torch.compile's, or a partition) imported, converted and compiled, called boxed.
"""

import os
import time
import weakref
from collections.abc import Sequence

import numpy as np
import torch

from versa import targets
from versa.cache.keys import module_digest
from versa.cache.store import Store
from versa.cpu import child_compile, runtime
from versa.diagnostics import CompileError, Diagnostic
from versa.gpu import Program, compile_gpu, driver
from versa.mlir import ir
from versa.options import CompileOptions
from versa.passes.optimize.specialize_shapes import specialize
from versa.signature import find_function

from .convert import BOUNDARY_RESULTS, convert_module, none_results
from .executable_cache import ExecutableCache, resident_bytes
from .hot_shapes import HotShapePolicy, HotShapes
from .importer import import_graph, make_torch_context

# O3: OpenMP threads where they pay (codegen's threads_worth). Measured beside torch eager on 2
# cores: a small ResNet (1x3x112x112) 3.2 ms at O3, 5.8 at O2 (torch 4.0); an MLP 64x768x3072
# 1.55 ms at O3, 3.2 at O2 (torch 3.3); timed interleaved with torch calls, both ~6.9 / 3.5 ms
# (torch's spinning workers hold the cores), so O2 is never the faster.
DEFAULT_OPT_LEVEL = 3  # versa.compile's and the torch.compile backend's
HOST_NAMES = (None, "host", "x86-64", "cpu")
GPU_NAMES = ("cuda", "nvptx-sm80", "nvptx-sm90")


def compile_options(
    target: str | None = None, opt_level: int = DEFAULT_OPT_LEVEL, tuning_db: str | None = None
) -> CompileOptions:
    """The options of a compile by `versa.compile` or the torch.compile backend, where it starts:
    `target` is None for the host CPU (the default), an x86-64 ISA level this CPU runs
    ("x86-64-v3": AVX2 code, as most users' CPUs run it), or an NVIDIA target ("cuda": this
    machine's GPU, compiling needs none); f32 matmuls as `torch.set_float32_matmul_precision`
    says now; `tuning_db` (None: VERSA_TUNING_DB's) holds measured strategy choices (versa-tune).
    CompileError for a target this CPU cannot run or no target."""
    if target not in (*HOST_NAMES, *targets.NAMED_LEVELS, *GPU_NAMES):
        known = ", ".join(repr(n) for n in (*HOST_NAMES[1:], *targets.NAMED_LEVELS, *GPU_NAMES))
        message = f"versa.compile: unknown target {target!r} (one of {known})"
        raise CompileError([Diagnostic("error", message)])
    # "medium" is "high" on the GPU: TF32 tensor cores (bf16 passes would be medium's option)
    precision = "highest" if torch.get_float32_matmul_precision() == "highest" else "high"
    try:
        return CompileOptions.create(
            target, opt_level=opt_level, matmul_precision=precision, runnable=True, tuning_db=tuning_db
        )
    except (targets.TargetError, ValueError) as err:
        raise CompileError([Diagnostic("error", f"versa.compile: {err}")]) from None


def to_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        if x.dtype in _NUMPY_DTYPES and not x.requires_grad and not x.is_cuda and x.is_contiguous():
            return x.numpy()  # the common case: no new tensor on the way
        x = x.detach().cpu().contiguous()
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy()  # bf16 crosses as f32 (exact)
    return np.asarray(x)


_NUMPY_DTYPES = frozenset(
    {torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.int8, torch.uint8}
    | {torch.bool}
)


def on_gpu(x) -> bool:
    return isinstance(x, torch.Tensor) and x.is_cuda


class Executable:
    """A versa module compiled for the host CPU (JIT) or a GPU (a Program, loaded by the
    CUDA driver on the first call), called on a flat list of tensors or arrays: torch in,
    torch out (CUDA tensors stay on the device), NumPy in, NumPy out. `nbytes`: what it holds,
    estimated (`executable_cache.resident_bytes`). A CPU one with dynamic dims compiles static
    versions of its hot shapes as `hot_shapes` says (`hot_shapes.py`; None: the default policy).
    `store`: the compile cache to load from (None: VERSA_CACHE_DIR's)."""

    hot_shapes: HotShapes | None = None

    def __init__(
        self,
        module: ir.Module,
        options: CompileOptions,
        module_digest: str | None = None,
        hot_shapes: HotShapePolicy | None = None,
        store: Store | None = None,
    ):
        self.program: Program | None = None
        self.bf16_results = _bf16_results(module)  # f32 at the boundary: cast back to torch.bfloat16
        if options.on_cpu:  # the JIT (and its compile cache): the host or an ISA level it runs
            passes = options.passes()
            policy = hot_shapes or HotShapePolicy.of(None)
            kept = _copy(module) if policy.limit and _dynamic(module) else None  # before the passes
            start = time.perf_counter()
            cache = True if store is None else store
            self._function = runtime.JitFunction(
                module, pipeline=passes, module_digest=module_digest, cache=cache
            )
            if kept is not None:
                took = time.perf_counter() - start
                dynamic = child_compile.DynamicModule(kept, options)
                self.hot_shapes = HotShapes(
                    lambda shapes: _static(kept, dynamic, options, shapes), policy, took
                )
        else:  # the PTX is always built at -O3 (translate.emit_ptx)
            passes = options.versa_passes()  # versa-layout takes the GPU's conv layout, like a CPU's
            self.program = compile_gpu(module, options.target, None, passes, options.matmul_precision)
            self._function = None  # a GpuFunction once called: raises GpuUnavailable without a GPU
        self.nbytes = resident_bytes(self._function, self.program)

    def __call__(self, leaves: Sequence) -> list:
        # NumPy in, NumPy out (the first leaf decides most calls without the generator)
        if self.hot_shapes is not None:
            shapes = tuple(tuple(x.shape) for x in leaves)
            static = self.hot_shapes.static(shapes)
            if static is not None:
                return static(leaves)
            start = time.perf_counter()
            outputs = self._call(leaves)
            self.hot_shapes.record(shapes, time.perf_counter() - start)
            return outputs
        return self._call(leaves)

    def _call(self, leaves: Sequence) -> list:
        returns_numpy = bool(leaves) and isinstance(leaves[0], np.ndarray)
        returns_numpy = returns_numpy and all(isinstance(x, np.ndarray) for x in leaves)
        if self.program is None:
            outputs = self._function(*[to_numpy(x) for x in leaves])
        else:
            if self._function is None:
                self._function = driver.GpuFunction(self.program)
            if any(on_gpu(x) and x.device.index not in (None, 0) for x in leaves):
                raise ValueError("versa runs GPU programs on device 0 (cuda:0)")
            args = [x.detach().contiguous() if on_gpu(x) else to_numpy(x) for x in leaves]
            outputs = self._function(*args)  # torch CUDA tensors when any input is one
        outputs = [
            y if returns_numpy or isinstance(y, torch.Tensor) else torch.from_numpy(y) for y in outputs
        ]
        for i in [] if returns_numpy else self.bf16_results:
            outputs[i] = outputs[i].to(torch.bfloat16)
        return outputs


def executable(
    module: ir.Module,
    options: CompileOptions,
    digest: str | None = None,
    hot_shapes: HotShapePolicy | None = None,
    store: Store | None = None,
) -> Executable:
    """`Executable(module, ...)`, shared by every graph whose module prints the same: Dynamo
    retraces a model it has compiled for batch B as a symbolic graph once it sees B+1, and its
    specialization to B again (or a second `versa.compile` of one model) is then no recompile.
    Kept while the executables kept fit in VERSA_MEMORY_CACHE_SIZE (`executable_cache`).
    `digest`: the module's `module_digest`, where the caller has it (a cached import)."""
    digest = digest or module_digest(module)  # also the compile cache's (large with weights)
    key = (digest, options, _database_state(options.tuning_db), hot_shapes or HotShapePolicy.of(None))
    found = _EXECUTABLES.get(key)
    if found is None:
        found = Executable(module, options, digest, hot_shapes, store)
        _EXECUTABLES.add(key, found)
    return found


def _database_state(path: str) -> tuple:
    """What a compile read from the tuning database, as far as a cache key must know: a database
    tuned since (versa.compile(..., tune=)) is a different compile."""
    try:
        stat = os.stat(path) if path else None
    except OSError:
        return ()
    return (stat.st_size, stat.st_mtime_ns) if stat else ()


_EXECUTABLES = ExecutableCache()


def _dynamic(module: ir.Module) -> bool:
    types = find_function(module, None).type.inputs
    return any(isinstance(t, ir.ShapedType) and not ir.ShapedType(t).has_static_shape for t in types)


def _copy(module: ir.Module) -> ir.Module:
    """A copy of `module` (its ops; attributes, weights among them, are the context's, shared)."""
    with module.context, ir.Location.unknown():
        copy = ir.Module.create()
        for named in module.operation.attributes:
            copy.operation.attributes[named.name] = named.attr
        with ir.InsertionPoint(copy.body):
            for op in module.body.operations:
                op.operation.clone()
    return copy


def _static(
    versa: ir.Module, dynamic: child_compile.DynamicModule, options: CompileOptions, shapes
) -> weakref.ref:
    """The executable of `versa` (kept from before a dynamic compile) made static for argument
    `shapes` (`versa-specialize-shapes`), compiled in a child process (`child_compile`) and
    loaded from its compile cache; referenced weakly: the executable cache keeps it."""
    module = _copy(versa)
    specialize(find_function(module, None), shapes)
    where, temporary = child_compile.cache_folder()
    try:
        store, digest, said = dynamic.compile(shapes, where)
        found = executable(module, options, digest, store=store)
    finally:
        if temporary is not None:
            temporary.cleanup()
    if found._function is not None and not found._function.from_cache:
        raise RuntimeError(f"the child's compile was not found in its cache ({said}): compiled here instead")
    return weakref.ref(found)


def _bf16_results(module: ir.Module) -> list[int]:
    """The results `convert` carried as f32 because they are bf16 (its BOUNDARY_RESULTS attribute)."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and BOUNDARY_RESULTS in op.attributes:
            return list(ir.DenseI64ArrayAttr(op.attributes[BOUNDARY_RESULTS]))
    return []


class VersaGraph:
    """One ATen graph (torch.compile's, or a partition) compiled by Versa; called (boxed) with a
    list of tensors. `ranges`: its dynamic dims' (`import_graph`)."""

    def __init__(self, graph_module: torch.fx.GraphModule, options: CompileOptions, ranges=None):
        torch_module = import_graph(graph_module, make_torch_context(), ranges)
        self.nones = none_results(torch_module)
        self.function = executable(convert_module(torch_module), options)
        self._boxed_call = True  # AOTAutograd's calling convention (read from the instance): one list

    def __call__(self, args: list) -> list[torch.Tensor]:
        inputs = list(args)
        args.clear()  # the boxed convention: the callee may free its inputs
        results: list = self.function([a for a in inputs if isinstance(a, torch.Tensor)])  # numbers: baked in
        for position in self.nones:
            results.insert(position, None)
        return results
