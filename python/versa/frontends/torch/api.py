"""The public PyTorch API: `versa.import_torch` and `versa.compile`.

    compiled = versa.compile(model, (x,))        # nn.Module or ExportedProgram
    y = compiled(x)                              # torch tensors (or NumPy arrays) in and out
    gpu = versa.compile(model, (x,), target="cuda")
    y = gpu(x.cuda())                            # CUDA tensors in and out (needs a GPU to run,
    gpu.save("model.json")                       # not to compile): a Program for versa.gpu.driver

Shapes are static: a call with other shapes or dtypes exports and compiles again, cached by
the inputs' signature. Outputs have eager's structure (tensor, tuple, list, dict).

A model with ops Versa cannot take (sort, topk, scatter) still compiles for the host CPU: the
export is split around them (`partition`), they run eagerly, after one warning naming them, and
the partitions between them are compiled. GPU targets and `program()`/`save()` need the whole
graph: there the CompileError listing the ops stands, as it does for `import_torch`.
"""

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch.utils import _pytree as pytree

from versa import runtime, targets
from versa.diagnostics import CompileError, Diagnostic
from versa.gpu import Program, compile_gpu, driver
from versa.mlir import ir

from .convert import BOUNDARY_RESULTS, convert_module, none_results
from .importer import functional, import_graph, import_program, make_torch_context, unroll_recurrent
from .partition import Partitioned

# O3: OpenMP threads where they pay (codegen's threads_worth). Measured beside torch eager on 2
# cores: a small ResNet (1x3x112x112) 3.2 ms at O3, 5.8 at O2 (torch 4.0); an MLP 64x768x3072
# 1.55 ms at O3, 3.2 at O2 (torch 3.3); timed interleaved with torch calls, both ~6.9 / 3.5 ms
# (torch's spinning workers hold the cores), so O2 is never the faster.
DEFAULT_OPT_LEVEL = 3  # versa.compile's and the torch.compile backend's
DEFAULT_PIPELINE = "versa-layout,versa-canonicalize,versa-fuse,lower-to-llvm{{opt-level={opt_level}}}"
# Before `lower-to-nvvm`: versa-layout takes the GPU target's conv_layout, like the CPU's.
GPU_PIPELINE = "versa-layout{{target={target}}},versa-canonicalize,versa-fuse"
HOST_NAMES = (None, "host", "x86-64", "cpu")
GPU_NAMES = ("cuda", "nvptx-sm80", "nvptx-sm90")


def import_torch(model, example_inputs: Sequence) -> ir.Module:
    """The versa module of `model` called on `example_inputs` (weights as constants)."""
    module, _, _ = _import(model, example_inputs)
    return module


def _import(model, example_inputs: Sequence) -> tuple[ir.Module, object, list[int]]:
    """The versa module, the export, and the positions of the outputs that are None (a
    `!torch.none` result: not part of the versa function, put back on each call)."""
    torch_module, program = import_program(model, tuple(example_inputs), make_torch_context())
    return convert_module(torch_module), program, none_results(torch_module)


def _signature(leaves: list) -> tuple:
    """Shapes and dtypes (torch and NumPy spell them alike here) and the non-tensor values."""
    return tuple(
        (tuple(x.shape), str(x.dtype).removeprefix("torch.")) if hasattr(x, "shape") else ("const", repr(x))
        for x in leaves
    )


def gpu_target(name: str | None) -> targets.Target | None:
    """The NVIDIA target `name` stands for, None for the host CPU, CompileError otherwise.

    "cuda" is nvptx-sm80 where this machine's GPU is of compute capability 8.x (sm_80 code
    runs on all of them), else nvptx-sm90: compiling needs no GPU."""
    if name in HOST_NAMES:
        return None
    if name not in GPU_NAMES:
        known = ", ".join(repr(n) for n in (*HOST_NAMES[1:], *GPU_NAMES))
        raise CompileError([Diagnostic("error", f"versa.compile: unknown target {name!r} (one of {known})")])
    if name == "cuda":
        try:
            name = "nvptx-sm80" if driver.compute_capability()[0] == 8 else "nvptx-sm90"
        except driver.GpuUnavailable:
            name = "nvptx-sm90"
    return targets.get(name)


def to_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().contiguous()
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy()  # bf16 crosses as f32 (exact)
    return np.asarray(x)


def _on_gpu(x) -> bool:
    return isinstance(x, torch.Tensor) and x.is_cuda


class Executable:
    """A versa module compiled for the host CPU (JIT) or a GPU (a Program, loaded by the
    CUDA driver on the first call), called on a flat list of tensors or arrays: torch in,
    torch out (CUDA tensors stay on the device), NumPy in, NumPy out."""

    def __init__(self, module: ir.Module, target: targets.Target | None, opt_level: int = DEFAULT_OPT_LEVEL):
        self.program: Program | None = None
        self.bf16_results = _bf16_results(module)  # f32 at the boundary: cast back to torch.bfloat16
        if target is None:
            pipeline = DEFAULT_PIPELINE.format(opt_level=opt_level)
            self._function = runtime.JitFunction(module, pipeline=pipeline)
        else:  # the PTX is always built at -O3 (translate.emit_ptx)
            self.program = compile_gpu(module, target, None, GPU_PIPELINE.format(target=target.name))
            self._function = None  # a GpuFunction once called: raises GpuUnavailable without a GPU

    def __call__(self, leaves: Sequence) -> list:
        returns_numpy = bool(leaves) and all(isinstance(x, np.ndarray) for x in leaves)
        if self.program is None:
            outputs = self._function(*[to_numpy(x) for x in leaves])
        else:
            if self._function is None:
                self._function = driver.GpuFunction(self.program)
            if any(_on_gpu(x) and x.device.index not in (None, 0) for x in leaves):
                raise ValueError("versa runs GPU programs on device 0 (cuda:0)")
            args = [x.detach().contiguous() if _on_gpu(x) else to_numpy(x) for x in leaves]
            outputs = self._function(*args)  # torch CUDA tensors when any input is one
        outputs = [
            y if returns_numpy or isinstance(y, torch.Tensor) else torch.from_numpy(y) for y in outputs
        ]
        for i in [] if returns_numpy else self.bf16_results:
            outputs[i] = outputs[i].to(torch.bfloat16)
        return outputs


def _bf16_results(module: ir.Module) -> list[int]:
    """The results `convert` carried as f32 because they are bf16 (its BOUNDARY_RESULTS attribute)."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and BOUNDARY_RESULTS in op.attributes:
            return list(ir.DenseI64ArrayAttr(op.attributes[BOUNDARY_RESULTS]))
    return []


class VersaGraph:
    """One ATen graph (torch.compile's, or a partition) compiled by Versa; called (boxed) with a
    list of tensors."""

    def __init__(self, graph_module: torch.fx.GraphModule, target: targets.Target | None, opt_level: int):
        torch_module = import_graph(graph_module, make_torch_context())
        self.nones = none_results(torch_module)
        self.function = Executable(convert_module(torch_module), target, opt_level)
        self._boxed_call = True  # AOTAutograd's calling convention (read from the instance): one list

    def __call__(self, args: list) -> list[torch.Tensor]:
        inputs = list(args)
        args.clear()  # the boxed convention: the callee may free its inputs
        results: list = self.function(inputs)
        for position in self.nones:
            results.insert(position, None)
        return results


class _WholeGraph(NamedTuple):
    """The export compiled as one function: tensor leaves in, eager's output structure back."""

    function: Executable
    out_spec: object
    nones: list[int]

    def __call__(self, args: tuple):
        leaves = [x for x in pytree.tree_leaves(args) if isinstance(x, torch.Tensor | np.ndarray)]
        outputs = self.function(leaves)
        for position in self.nones:  # e.g. (hidden, None) from a model without a cache
            outputs.insert(position, None)
        return pytree.tree_unflatten(outputs, self.out_spec)

    def program(self) -> Program:
        if self.function.program is None:
            raise ValueError("a program exists for GPU targets only (target='cuda')")
        return self.function.program


class _PartitionedGraph:
    """The export's module (`ExportedProgram.module()`: weights as attributes, eager's input and
    output structure) with its supported partitions compiled for the host CPU (JIT)."""

    def __init__(self, graph_module: torch.fx.GraphModule, opt_level: int):
        self.partitioned = Partitioned(graph_module, lambda part: VersaGraph(part, None, opt_level))
        warnings.warn(self.partitioned.warning(), stacklevel=5)

    def __call__(self, args: tuple):
        leaves = pytree.tree_leaves(args)
        returns_numpy = bool(leaves) and all(isinstance(x, np.ndarray) for x in leaves)
        with torch.no_grad():  # as compiled outputs: no autograd history
            outputs = self.partitioned.module(*pytree.tree_map(_host_tensor, args))
        return (
            pytree.tree_map(lambda y: y.numpy() if isinstance(y, torch.Tensor) else y, outputs)
            if returns_numpy
            else outputs
        )

    def program(self) -> Program:
        why = self.partitioned.warning().removeprefix("versa: ")
        message = f"versa.compile: a GPU or AOT program needs the whole graph, this one is partitioned: {why}"
        raise CompileError([Diagnostic("error", message)])


class CompiledModule:
    """`model` compiled by Versa for each input signature it is called with."""

    def __init__(
        self,
        model,
        example_inputs: Sequence,
        *,
        target: str | None = None,
        opt_level: int = DEFAULT_OPT_LEVEL,
    ):
        self.model = model
        self.target = gpu_target(target)
        self.opt_level = opt_level
        self._compiled: dict[tuple, _WholeGraph | _PartitionedGraph] = {}  # the example inputs' first
        self._compile(tuple(example_inputs))

    def _compile(self, args: tuple) -> _WholeGraph | _PartitionedGraph:
        """The compiled function for `args`' signature: whole, or partitioned (host CPU only)."""
        key = _signature(pytree.tree_leaves(args))
        if key not in self._compiled:
            host_args = pytree.tree_map(_host_tensor, args)
            program, graph_module = _export(self.model, host_args, host=self.target is None)
            try:
                module, program, nones = _import(program, host_args)
                function = Executable(module, self.target, self.opt_level)
                self._compiled[key] = _WholeGraph(function, program.call_spec.out_spec, nones)
            except CompileError:
                if graph_module is None:
                    raise
                self._compiled[key] = _PartitionedGraph(graph_module, self.opt_level)
        return self._compiled[key]

    def __call__(self, *args):
        return self._compile(args)(args)

    def program(self, *args) -> Program:
        """The GPU Program for `args`' signature (the example inputs' by default): PTX and a
        launch plan that `versa.gpu.driver` runs without MLIR. Its arguments are the tensor
        leaves of the inputs, its results eager's outputs flattened (`torch.utils._pytree`)."""
        return (self._compile(args) if args else next(iter(self._compiled.values()))).program()

    def save(self, path: str | Path, *args) -> None:
        """Write `program(*args)` as JSON (`versa.gpu.plan.Program.from_json` reads it)."""
        Path(path).write_text(self.program(*args).to_json())


def _export(model, example_inputs: tuple, host: bool) -> tuple[torch.export.ExportedProgram, object]:
    """`model` exported as the import takes it (functional, recurrent layers unrolled), and for the
    host its module (`ExportedProgram.module()`), taken before the import consumes the graph;
    torch's deprecation warnings silenced as the importer does. Shapes are the cache key: no guards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning, UserWarning))
        if not isinstance(model, torch.export.ExportedProgram):
            model = torch.export.export(model, example_inputs, strict=False)
        program = unroll_recurrent(functional(model))
        return program, program.module(check_guards=False) if host else None


def _host_tensor(a):
    """The export runs on the host: CUDA tensors go as CPU copies, NumPy arrays as tensors."""
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a)
    return a.cpu() if _on_gpu(a) else a


def compile(
    model, example_inputs: Sequence, *, target: str | None = None, opt_level: int = DEFAULT_OPT_LEVEL
) -> CompiledModule:  # noqa: A001
    """Compile `model` (an nn.Module or ExportedProgram) for `example_inputs`' shapes, for the
    host CPU (the default) or an NVIDIA GPU (`target="cuda"`, "nvptx-sm80", "nvptx-sm90")."""
    return CompiledModule(model, example_inputs, target=target, opt_level=opt_level)
