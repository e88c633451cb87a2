"""The public PyTorch API: `versa.import_torch` and `versa.compile`.

    compiled = versa.compile(model, (x,))        # nn.Module or ExportedProgram
    y = compiled(x)                              # torch tensors (or NumPy arrays) in and out
    gpu = versa.compile(model, (x,), target="cuda")
    y = gpu(x.cuda())                            # CUDA tensors in and out (needs a GPU to run,
    gpu.save("model.json")                       # not to compile): a Program for versa.gpu.driver

Shapes are static: a call with other shapes or dtypes exports and compiles again, cached by
the inputs' signature. Outputs have eager's structure (tensor, tuple, list, dict). With
`dynamic_shapes` (torch.export's: `{"x": {0: torch.export.Dim("batch", max=64)}}`) the dims
it names stay dynamic (`tensor<?x...>`, their ranges on the function: `symbolic.py`), and a call
that differs from the example only there calls the same compiled function.

A model with ops Versa cannot take (sort, topk, cumprod) still compiles for the host CPU: the
export is split around them (`partition`), they run eagerly, after one warning naming them, and
the partitions between them are compiled. GPU targets and `program()`/`save()` need the whole
graph: there the CompileError listing the ops stands, as it does for `import_torch`.
"""

import contextlib
import functools
import warnings
import weakref
from collections.abc import Sequence
from pathlib import Path

import torch
from torch.utils import _pytree as pytree

from versa import targets
from versa.cache import torch_imports
from versa.diagnostics import CompileError
from versa.gpu import Program
from versa.mlir import ir
from versa.options import CompileOptions
from versa.tuning import tuner
from versa.tuning.db import database_path

from .compiled_forms import EagerHosted, Evicted, WholeGraph, host_tensor
from .complex_to_real import program_as_real
from .convert import convert_module, none_results
from .executable import DEFAULT_OPT_LEVEL, Executable, VersaGraph, compile_options, executable
from .hot_shapes import HotShapePolicy
from .importer import functional, import_program, make_torch_context, unroll_recurrent
from .partition import GraphCompiler, Partitioned
from .signatures import dynamic_dims, flat_leaves, quick_key, signature
from .state import State

__all__ = [
    "DEFAULT_OPT_LEVEL",
    "CompiledModule",
    "Executable",
    "VersaGraph",
    "compile",
    "compile_options",
    "import_torch",
    "partition_model",
]


def import_torch(model, example_inputs: Sequence, dynamic_shapes=None) -> ir.Module:
    """The versa module of `model` called on `example_inputs` (weights as constants; the buffers
    the forward mutates as the first arguments, their new values as the first results), the
    dims `dynamic_shapes` names dynamic (as torch.export takes it). Read from the compile cache
    when this model was imported before with these inputs and dynamic_shapes
    (`cache/torch_imports.py`)."""
    what = type(model).__name__
    key = torch_imports.key(model, tuple(example_inputs), {}, "import_torch", dynamic_shapes)
    stored = torch_imports.lookup(key, what, make_torch_context)
    if stored is not None:
        return stored.module
    module, _, _ = _import(model, example_inputs, dynamic_shapes)
    with torch_imports.recording(key, module, what) as pending:
        pending.commit()
    return module


def _import(model, example_inputs: Sequence, dynamic_shapes=None) -> tuple[ir.Module, object, list[int]]:
    """The versa module, the export, and the positions of the outputs that are None (a
    `!torch.none` result: not part of the versa function, put back on each call)."""
    context = make_torch_context()
    torch_module, program = import_program(model, tuple(example_inputs), context, dynamic_shapes)
    return convert_module(torch_module), program, none_results(torch_module)


def _partitioned(graph_module: torch.fx.GraphModule, options: CompileOptions, ranges=None) -> EagerHosted:
    """The export's module (`ExportedProgram.module()`: weights as attributes) with its supported
    partitions compiled, their dynamic dims in the export's `ranges`. Called by `forward`:
    `__call__` runs the export's pre-hook, which checks every input's shape (~40 µs) where the
    signature key already has."""
    partitioned = Partitioned(graph_module, lambda part: VersaGraph(part, options, ranges))
    warnings.warn(partitioned.warning(), stacklevel=6)
    why = partitioned.warning().removeprefix("versa: ")
    return EagerHosted(partitioned.module.forward, f"this one is partitioned: {why}")


def partition_model(model, example_inputs: Sequence, compile_graph: GraphCompiler) -> Partitioned:
    """`model` exported and split as `versa.compile` splits a model whose whole graph does not
    convert (host CPU), each partition compiled by `compile_graph` (`VersaGraph` here): for
    callers that need the pieces, not just a callable (`versa optimize` reports them)."""
    _, graph_module = _export(model, tuple(example_inputs), {}, host=True)
    return Partitioned(graph_module, compile_graph)


def _through_dynamo(model, options: CompileOptions, error: Exception) -> EagerHosted:
    """A model torch.export cannot take (a data-dependent output shape: ctc_loss with tensor
    lengths, nonzero), compiled by torch.compile with this backend instead: Dynamo breaks its
    graph around what it cannot trace, and the pieces reach Versa."""
    from .dynamo import backend  # dynamo imports this module

    why = " ".join(str(error).split())[:300]
    warnings.warn(f"versa: torch.export failed ({why}); compiling through torch.compile", stacklevel=6)
    compiled = torch.compile(model, backend=functools.partial(backend, compile_options=options))
    return EagerHosted(compiled, f"torch.export could not take this one: {why}")


class CompiledModule:
    """`model` compiled by Versa for each input signature it is called with. It holds the
    compiled function of its example inputs; those of the other signatures live while the
    executable cache keeps them (VERSA_MEMORY_CACHE_SIZE), and are compiled again when called
    after it has evicted them (a load, with the compile cache on)."""

    def __init__(
        self,
        model,
        example_inputs: Sequence,
        *,
        example_kwargs: dict | None = None,
        target: str | None = None,
        opt_level: int = DEFAULT_OPT_LEVEL,
        tuning_db: str | None = None,
        tune: float | None = None,
        dynamic_shapes=None,
        hot_shapes: HotShapePolicy | int | None = None,
    ):
        self.model = model
        self.dynamic_shapes = dynamic_shapes
        self._dynamic: tuple[frozenset, ...] | None = None  # the export's dynamic dims, per leaf
        self._keywords: list[str] = []  # the keywords in the export's order
        if tune:  # tuned into a database even when none was named: ./versa-tuning.json
            tuning_db = database_path(tuning_db)
        self.options = compile_options(target, opt_level, tuning_db)  # target, tier, threads, ...
        self.tune_budget_s = float(tune or 0)
        self.hot_shapes = HotShapePolicy.of(hot_shapes)
        self._compiled: dict[tuple, WholeGraph | EagerHosted] = {}  # the example inputs' first
        self._quick: dict[tuple, WholeGraph | EagerHosted] = {}  # by quick_key, same entries
        self._held: Executable | None = None  # the example inputs' executable (a whole graph's)
        self._compile(tuple(example_inputs), dict(example_kwargs or {}))

    @property
    def target(self) -> targets.Target:
        """What the code runs on: the host CPU, an ISA level it runs, or a GPU."""
        return self.options.target

    def _key(self, args: tuple, kwargs: dict) -> tuple:
        """The signature of `args` and `kwargs`, less the dims the export left dynamic."""
        named = sorted(kwargs.items())  # the key, whatever order the keywords come in
        if kwargs and self._dynamic and set(kwargs) == set(self._keywords):  # the export's order
            leaves = pytree.tree_leaves((args, [kwargs[k] for k in self._keywords]))
        else:
            leaves = pytree.tree_leaves((args, named)) if kwargs else flat_leaves(args)
        return signature(leaves, self._dynamic) + tuple(name for name, _ in named)

    def _compile(self, args: tuple, kwargs: dict) -> WholeGraph | EagerHosted:
        """The compiled function for the signature of `args` and `kwargs`: whole, or partitioned
        (host CPU only)."""
        key = self._key(args, kwargs)
        if key not in self._compiled or self._compiled[key].evicted:
            host_args = pytree.tree_map(host_tensor, args)
            host_kwargs = pytree.tree_map(host_tensor, kwargs)
            what = type(self.model).__name__  # the imported module from the cache: no export
            dims = self.dynamic_shapes
            import_key = torch_imports.key(self.model, host_args, host_kwargs, "versa.compile", dims)
            stored = torch_imports.lookup(import_key, what, make_torch_context)
            if stored is not None:
                with contextlib.suppress(CompileError):  # else through the export, which may partition
                    parts = (stored.module, stored.in_spec, stored.out_spec, stored.nones, None)
                    compiled = self._whole_graph(*parts, stored.digest)
                    if stored.dynamic is not None:  # as the export's dims below
                        self._dynamic, self._keywords = stored.dynamic, list(kwargs)
                        key = self._key(args, kwargs)
                    self._compiled[key] = compiled
                    return compiled
            try:
                host = self.options.on_cpu
                program, graph_module = _export(self.model, host_args, host_kwargs, host, self.dynamic_shapes)
            except Exception as err:  # torch.export's many errors; Dynamo graph-breaks instead
                if not self.options.on_cpu or isinstance(self.model, torch.export.ExportedProgram):
                    raise
                self._compiled[key] = _through_dynamo(self.model, self.options, err)
                return self._compiled[key]
            if self.dynamic_shapes is not None and self._dynamic is None:
                self._dynamic, self._keywords = dynamic_dims(program), list(kwargs)
                key = self._key(args, kwargs)
            try:
                module, program, nones = _import(program, host_args)
                with torch_imports.recording(import_key, module, what) as pending:
                    state, spec = State(program) or None, program.call_spec
                    parts = (module, spec.in_spec, spec.out_spec, nones, state)
                    self._compiled[key] = self._whole_graph(*parts, pending.digest)
                    if state is None:  # a mutating model's entry would have to name its tensors
                        pending.commit(spec.in_spec, spec.out_spec, nones, self._dynamic)
            except CompileError:
                if graph_module is None:
                    raise
                self._compiled[key] = _partitioned(graph_module, self.options, program.range_constraints)
        return self._compiled[key]

    def _whole_graph(self, module: ir.Module, in_spec, out_spec, nones, state, digest) -> WholeGraph:
        if self.tune_budget_s and self.options.on_cpu:  # measured choices first
            text = module.operation.get_asm(enable_debug_info=True)
            tuner.tune(text, self.options, self.options.tuning_db, self.tune_budget_s)
        function = executable(module, self.options, digest, self.hot_shapes)
        if not self._compiled:  # the example inputs'
            self._held = function
        return WholeGraph(weakref.ref(function), in_spec, out_spec, nones, state)

    def __call__(self, *args, **kwargs):
        try:
            return self._compiled_for(args, kwargs)(args, kwargs)
        except Evicted:
            return self._compile(args, kwargs)(args, kwargs)

    def _compiled_for(self, args: tuple, kwargs: dict) -> WholeGraph | EagerHosted:
        if kwargs:
            return self._compile(args, kwargs)
        quick = quick_key(args, self._dynamic)  # the common call: flat tensors (~3 µs saved)
        compiled = self._quick.get(quick) if quick is not None else None
        if compiled is None or compiled.evicted:
            compiled = self._compile(args, kwargs)
            if quick is not None:
                self._quick[quick] = compiled
        return compiled

    def wait_for_hot_shapes(self, timeout: float | None = None) -> bool:
        """Wait for the static compiles of hot shapes started so far (`hot_shapes.py`); whether
        they all ended in time."""
        functions = [c.function() for c in self._compiled.values() if isinstance(c, WholeGraph)]
        return all(f.hot_shapes.wait(timeout) for f in functions if f is not None and f.hot_shapes)

    def program(self, *args, **kwargs) -> Program:
        """The GPU Program for `args`' signature (the example inputs' by default): PTX and a
        launch plan that `versa.gpu.driver` runs without MLIR. Its arguments are the tensor
        leaves of the inputs, its results eager's outputs flattened (`torch.utils._pytree`),
        each led by the buffers the forward mutates (`import_torch`), which the caller keeps."""
        called = args or kwargs
        return (self._compile(args, kwargs) if called else next(iter(self._compiled.values()))).program()

    def save(self, path: str | Path, *args, **kwargs) -> None:
        """Write `program(*args, **kwargs)` as JSON (`versa.gpu.plan.Program.from_json` reads it)."""
        Path(path).write_text(self.program(*args, **kwargs).to_json())


def _export(
    model, example_inputs: tuple, example_kwargs: dict, host: bool, dynamic_shapes=None
) -> tuple[torch.export.ExportedProgram, object]:
    """`model` exported as the import takes it (functional, recurrent layers unrolled), the dims
    `dynamic_shapes` names dynamic, and for the host its module (`ExportedProgram.module()`),
    taken before the import consumes the graph; torch's deprecation warnings silenced as the
    importer does. Shapes are the cache key: no guards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning, UserWarning))
        if not isinstance(model, torch.export.ExportedProgram):
            model = torch.export.export(
                model, example_inputs, example_kwargs, dynamic_shapes=dynamic_shapes, strict=False
            )
        program = program_as_real(unroll_recurrent(functional(model)))
        return program, program.module(check_guards=False) if host else None


def compile(
    model,
    example_inputs: Sequence = (),
    *,
    example_kwargs: dict | None = None,
    target: str | None = None,
    opt_level: int = DEFAULT_OPT_LEVEL,
    tuning_db: str | None = None,
    tune: float | None = None,
    dynamic_shapes=None,
    hot_shapes: HotShapePolicy | int | None = None,
) -> CompiledModule:  # noqa: A001
    """Compile `model` (an nn.Module or ExportedProgram) for the shapes of `example_inputs` (and
    of `example_kwargs`, for models called with keywords: `model(input_ids=..., mask=...)`), for
    the host CPU (the default), an x86-64 ISA level this CPU runs (`target="x86-64-v3"`: the code an
    AVX2 CPU runs) or an NVIDIA GPU (`target="cuda"`, "nvptx-sm80", "nvptx-sm90").

    CPU code takes the strategy choices measured in `tuning_db` (default VERSA_TUNING_DB);
    `tune=SECONDS` measures them first (`versa.tune`, into `tuning_db` or ./versa-tuning.json;
    kernels already there are not measured again; worker processes are spawned, so a script
    needs the `if __name__ == "__main__":` guard).

    `dynamic_shapes` (as `torch.export.export` takes it) makes the dims it names dynamic: one
    compile serves every size within their ranges; up to `hot_shapes` shapes (default
    VERSA_HOT_SHAPES, else 4; 0: none; or a `HotShapePolicy`) that calls meet most then get a
    static compile of their own, in the background, taken once ready (`hot_shapes.py` says when)."""
    return CompiledModule(
        model,
        example_inputs,
        example_kwargs=example_kwargs,
        target=target,
        opt_level=opt_level,
        tuning_db=tuning_db,
        tune=tune,
        dynamic_shapes=dynamic_shapes,
        hot_shapes=hot_shapes,
    )
