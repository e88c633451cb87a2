"""What `versa optimize` takes: a model, its example inputs, and the framework it came from,
which is the reference for accuracy and the "before" of the benchmark.

    model.onnx              ONNX Runtime (CPU, same threads)
    model.pt2               a saved torch.export program: torch eager
    model.mlir              versa IR: the NumPy reference (no "before" time)
    package.module:factory  a callable returning (torch module, example inputs): torch eager

A torch model with ops Versa does not take (no rule converts them) comes without a versa module:
`partitioned.py` runs it as `versa.compile` does, those ops in PyTorch, the rest compiled.

Inputs are seeded random values of the model's input types (integer inputs, token ids, in
[0, 100) or below the embedding size the factory's inputs show), so runs are repeatable.
"""

import importlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

SEED = 0
_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass
class Source:
    name: str
    path: str  # what the user gave
    format: str  # onnx | pt2 | mlir | torch
    module: ir.Module | None  # versa IR, weights as constants; None: a torch model to partition
    inputs: list[np.ndarray]
    input_names: list[str]
    reference_name: str  # onnxruntime | torch | numpy
    reference: Callable[[list[np.ndarray]], list[np.ndarray]]  # outputs as NumPy arrays
    timed_reference: bool  # whether the reference is timed as the "before"
    torch_model: object = None  # the torch module, when it must run partitioned (partitioned.py)
    refused: CompileError | None = None  # why it cannot be imported whole: the ops Versa does not take


def model_format(model: str) -> str:
    """The format of MODEL from its suffix (or the `module:factory` form); a CompileError if none."""
    if _FACTORY.match(model) and not os.path.exists(model):
        return "torch"
    suffix = os.path.splitext(model)[1].lower()
    formats = {".onnx": "onnx", ".pt2": "pt2", ".mlir": "mlir"}
    if suffix not in formats:
        raise CompileError(
            [
                Diagnostic(
                    "error",
                    f"{model}: not a model Versa takes (.onnx, .pt2, .mlir, or package.module:factory)",
                )
            ]
        )
    if not os.path.isfile(model):
        raise CompileError([Diagnostic("error", f"{model}: no such file")])
    return formats[suffix]


def _random(shape: Sequence[int], dtype: np.dtype, rng: np.random.Generator, high: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(tuple(shape)).astype(dtype)
    if dtype.kind == "b":
        return rng.random(tuple(shape)) < 0.5
    return rng.integers(0, high, tuple(shape)).astype(dtype)


def _torch_reference(module) -> Callable:
    import torch

    def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
        with torch.no_grad():
            out = module(*[torch.from_numpy(np.array(a)) for a in arrays])
        # Flattened as torch.export flattens the outputs Versa compiles: nested tuples, dicts and
        # registered containers (transformers' ModelOutput) alike, in the same order.
        leaves = torch.utils._pytree.tree_leaves(out)
        return [t.detach().numpy() for t in leaves if isinstance(t, torch.Tensor)]

    return run


def _from_torch(name: str, path: str, fmt: str, module, example: Sequence) -> Source:
    import torch

    from versa.frontends.torch.api import import_torch

    arrays = [t.detach().numpy().copy() if isinstance(t, torch.Tensor) else np.asarray(t) for t in example]
    names = [f"arg{i}" for i in range(len(arrays))]
    reference = _torch_reference(module)
    try:
        versa_module = import_torch(module, [torch.from_numpy(a) for a in arrays])
    except CompileError as refused:  # ops Versa does not take: run partitioned, as versa.compile does
        return Source(name, path, fmt, None, arrays, names, "torch", reference, True, module, refused)
    return Source(name, path, fmt, versa_module, arrays, names, "torch", reference, True)


def _factory(model: str) -> Source:
    module_name, attr = model.split(":")
    try:
        made = getattr(importlib.import_module(module_name), attr)()
    except (ImportError, AttributeError) as err:
        raise CompileError([Diagnostic("error", f"{model}: cannot load the factory: {err}")]) from None
    if not (isinstance(made, tuple) and len(made) == 2):
        raise CompileError(
            [Diagnostic("error", f"{model}: the factory must return (module, example inputs)")]
        )
    torch_module, example = made
    torch_module.eval()
    return _from_torch(attr, model, "torch", torch_module, list(example))


def _pt2(path: str) -> Source:
    import torch

    try:
        program = torch.export.load(path)
    except Exception as err:  # torch raises many types for a file that is not a program
        raise CompileError(
            [Diagnostic("error", f"{path}: not a saved torch.export program: {err}")]
        ) from None
    example = program.example_inputs[0] if program.example_inputs else None
    if example is None:
        raise CompileError([Diagnostic("error", f"{path}: the program was saved without example inputs")])
    return _from_torch(_stem(path), path, "pt2", program.module(), list(example))


def _onnx(path: str, input_shapes: dict[str, list[int]] | None, threads: int) -> Source:
    import onnxruntime

    from versa.frontends.onnx import import_onnx, load

    module = import_onnx(path, input_shapes)  # from the cache when this file was imported before
    proto = load(path, input_shapes)  # ONNX Runtime runs the model as the importer read it
    rng = np.random.default_rng(SEED)
    graph_inputs = [i for i in proto.graph.input if i.name not in {t.name for t in proto.graph.initializer}]
    function = _entry(module)
    dynamic = [
        i.name for i, t in zip(graph_inputs, function.type.inputs, strict=False) if not t.has_static_shape
    ]
    if dynamic:  # the profile and the artifact are of one shape
        message = (
            f"{path}: input(s) {', '.join(dynamic)} have symbolic dims; versa optimize measures one shape: "
            "pin them with --input-shape name=D0,D1,..."
        )
        raise CompileError([Diagnostic("error", message)])
    arrays = [_random(t.shape, _numpy_type(t.element_type), rng) for t in function.type.inputs]
    names = [i.name for i in graph_inputs]
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        return session.run(None, dict(zip(names, inputs, strict=True)))

    return Source(_stem(path), path, "onnx", module, arrays, names, "onnxruntime", run, True)


def _mlir(path: str) -> Source:
    from versa import compiler, reference
    from versa.context import make_context

    with open(path, "rb") as f:
        text = compiler.decode(f.read())
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    function = _entry(module)
    rng = np.random.default_rng(SEED)
    arrays = [_random(t.shape, _numpy_type(t.element_type), rng) for t in function.type.inputs]

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        return reference.interpret(_entry(module), inputs)

    names = [f"arg{i}" for i in range(len(arrays))]
    return Source(_stem(path), path, "mlir", module, arrays, names, "numpy", run, True)


def _entry(module: ir.Module):
    from versa.signature import find_function

    return find_function(module, None)


def _numpy_type(element: ir.Type) -> np.dtype:
    from versa.reference import numpy_dtype

    return numpy_dtype(element)


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def load_model(
    model, input_shapes: dict[str, list[int]] | None = None, threads: int = 1, example_inputs: Sequence = ()
) -> Source:
    """MODEL (a path, `package.module:factory`, or a torch module called on `example_inputs`)
    as versa IR with its inputs and reference; CompileError for what cannot be read."""
    if not isinstance(model, str):
        model.eval()
        name = type(model).__name__
        return _from_torch(name, name, "torch", model, list(example_inputs))
    fmt = model_format(model)
    if fmt == "torch":
        return _factory(model)
    if fmt == "pt2":
        return _pt2(model)
    if fmt == "onnx":
        return _onnx(model, input_shapes, threads)
    return _mlir(model)
