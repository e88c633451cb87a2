"""One adapter per system: Versa and the systems a user would pick instead.

Each adapter turns a `Case` into a zero-argument callable that runs the program once on the
case's arrays and returns the outputs as NumPy arrays. Everything that a real application would
do once (compiling, exporting, converting inputs into the system's own tensors) happens in
`prepare`, outside the timed call; what every call of a real application pays (allocating the
output, handing it back as a host array) stays inside. A system that cannot be imported gets its
reason from `setup`, and a row it cannot compile raises from `prepare`: the driver turns both into
"n/a (reason)" in the table, never a crash of the run.
"""

import inspect
import io
import os
import time
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import torch

from bench.case import Case, Fn

Runner = Callable[[], list[np.ndarray]]


def _as_list(out) -> list[np.ndarray]:
    outs = out if isinstance(out, list | tuple) else [out]
    return [o.numpy() if isinstance(o, torch.Tensor) else np.asarray(o) for o in outs]


class Peer:
    name = "?"
    compile_s: float | None = None  # wall time of the last prepare(), where it means compiling

    def setup(self, threads: int) -> None:
        """Import the system and fix its thread count; raise if it is not usable here."""

    def prepare(self, case: Case) -> Runner:
        raise NotImplementedError


class Versa(Peer):
    """parse → JitFunction(pipeline, llvm_opt_level=3); threads from VERSA_NUM_THREADS (set by the driver)
    or, once JitFunction grows one, its `threads=` keyword.

    `target` (a `versa.targets` name; None: the host CPU) is the CPU the code is for: the
    pipelines that take a target (versa-optimize, lower-to-llvm) get it unless the pipeline text
    names one, and the torch models go through `versa.compile(..., target=)`. An ISA level this
    CPU runs (x86-64-v3 on an AVX-512 machine) is how one machine measures Versa's AVX2 code."""

    name = "Versa"

    def __init__(self, pipeline: str = "lower-to-llvm", target: str | None = None, name: str = "Versa"):
        self.pipeline, self.target, self.name = pipeline, target, name

    def setup(self, threads: int) -> None:
        from versa.compiler import Chunk, parse_module, parse_pipeline
        from versa.context import make_context
        from versa.cpu.runtime import JitFunction

        os.environ["VERSA_NUM_THREADS"] = str(threads)
        self.threads = threads
        self._parse = lambda text: parse_module(Chunk(text, 1), make_context())
        self._jit = JitFunction
        self._kwargs = {"pipeline": self.pipeline, "llvm_opt_level": 3}
        if self.target is not None:  # pass objects for the target; parsed here so a bad one fails setup
            self._kwargs["pipeline"] = parse_pipeline(self.pipeline, self.target)
        if "threads" in inspect.signature(JitFunction).parameters:
            self._kwargs["threads"] = threads

    def prepare(self, case: Case) -> Runner:
        if case.versa_text is None:  # a torch model: compiled as its users compile it
            return self._compile_torch(case)
        start = time.perf_counter()
        jit = self._jit(self._parse(case.versa_text), **self._kwargs)
        self.compile_s = time.perf_counter() - start
        arrays = case.arrays
        return lambda: jit(*arrays)

    def _compile_torch(self, case: Case) -> Runner:
        """`versa.compile(module, args, target=)` (torch.export, import, the default pipeline; ops
        it cannot take run eagerly between compiled partitions, after a warning): torch tensors
        in and out."""
        import versa

        self.compile_s = None
        args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
        start = time.perf_counter()
        compiled = versa.compile(case.module, args, target=self.target)
        self.compile_s = time.perf_counter() - start
        return lambda: _as_list(compiled(*args))


class TorchEager(Peer):
    name = "torch"

    def setup(self, threads: int) -> None:
        torch.set_num_threads(threads)

    def prepare(self, case: Case) -> Runner:
        module, args = case.module, [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
        return lambda: _as_list(module(*args))


class TorchCompile(Peer):
    """torch.compile (inductor, CPU) with freezing, as inductor's CPU inference advice has it:
    weights become constants that it folds and pre-packs (conv weights to channels-last, linear
    weights into oneDNN/MKL layouts). Set per compile (`options=`, which inductor applies while
    it compiles, on the first, checking call), not in the global config; inductor freezes only
    graphs compiled with grad off, which the suite's process is (`torch.set_grad_enabled(False)`
    in bench/__main__.py). Rows whose weights are inputs (the kernel rows) have nothing to freeze."""

    name = "torch.compile"

    def setup(self, threads: int) -> None:
        import importlib

        torch.set_num_threads(threads)
        importlib.import_module("torch._inductor.config")  # fails early where inductor is unusable

    def prepare(self, case: Case) -> Runner:
        torch._dynamo.reset()  # one row's graphs and guards at a time
        module = torch.compile(case.module, options={"freezing": True})
        args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
        return lambda: _as_list(module(*args))


class Iree(Peer):
    """IREE 3.x on the linalg that Versa's convert-versa-to-linalg emits, llvm-cpu for the host CPU,
    run on the local-task driver with one task group per thread."""

    name = "IREE"

    def setup(self, threads: int) -> None:
        import iree.compiler
        import iree.runtime as rt

        rt.flags.parse_flags(f"--task_topology_group_count={threads}")
        self.rt, self.compiler = rt, iree.compiler
        self.config = rt.Config("local-task")

    def prepare(self, case: Case) -> Runner:
        linalg = self._linalg(case)
        flatbuffer = self.compiler.compile_str(
            linalg,
            extra_args=[
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
            ],
        )
        context = self.rt.SystemContext(config=self.config)
        context.add_vm_module(self.rt.VmModule.copy_buffer(context.instance, flatbuffer))
        fn = context.modules.module["main"]
        args = [self.rt.asdevicearray(self.config.device, a) for a in case.arrays]

        def run() -> list[np.ndarray]:
            out = fn(*args)
            return [o.to_host() for o in (out if isinstance(out, tuple | list) else [out])]

        return run

    @staticmethod
    def _linalg(case: Case) -> str:
        """The row's program through convert-versa-to-linalg; for a torch model (no versa text),
        `versa.import_torch`'s module (weights as constants), converted in place."""
        from versa.compiler import compile_text, parse_pipeline, run_passes

        if case.versa_text is not None:
            return str(compile_text(case.versa_text, "convert-versa-to-linalg"))
        import versa

        args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
        module = versa.import_torch(case.module, args)
        run_passes(module, parse_pipeline("convert-versa-to-linalg"))
        return str(module)


class OnnxRuntime(Peer):
    """The torch module exported in memory (TorchScript exporter, opset 17), CPU execution provider,
    graph optimisations at their default (all)."""

    name = "ONNX Runtime"

    def setup(self, threads: int) -> None:
        import onnxruntime

        self.ort = onnxruntime
        self.threads = threads

    def prepare(self, case: Case) -> Runner:
        args = tuple(torch.from_numpy(a) for a in case.arrays[: case.torch_args])
        buffer = io.BytesIO()
        # Grad enabled while tracing: with it off, nn.TransformerEncoderLayer takes its fused
        # fast path (_transformer_encoder_layer_fwd), which has no ONNX export.
        quiet = io.StringIO()
        with warnings.catch_warnings(), torch.enable_grad(), redirect_stdout(quiet), redirect_stderr(quiet):
            warnings.simplefilter("ignore")
            # Fn: a forward without keyword defaults (TransformerEncoderLayer's is_causal=False
            # would otherwise be traced into a tensor input), in the module's own mode: the export
            # restores the wrapper's mode recursively, and a fresh Fn is in training mode, which
            # would leave batch norms computing batch statistics for the peers after ORT.
            wrapper = Fn(case.module).train(case.module.training)
            torch.onnx.export(wrapper, args, buffer, dynamo=False, opset_version=17)
        session = ort_session(buffer.getvalue(), self.threads)
        names = [i.name for i in session.get_inputs()]
        if len(names) != len(args):
            raise RuntimeError(f"the export has {len(names)} inputs, expected {len(args)}")
        feeds = dict(zip(names, case.arrays[: case.torch_args], strict=True))
        return lambda: session.run(None, feeds)


def ort_session(model: bytes, threads: int):
    """An ONNX Runtime session on the CPU provider with `threads` intra-op threads."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # ORT's idle workers busy-spin by default; interleaved with other systems in one process,
    # that spinning would steal the cores the next system's call needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


class OpenVino(Peer):
    """OpenVINO's CPU plugin on `openvino.convert_model` of the same torch module (traced on the
    row's inputs), compiled with f32 inference precision (checked on the compiled model: on
    CPUs with bf16 or AMX units the plugin would otherwise default to bf16), the latency hint
    (one stream) and the suite's thread count."""

    name = "OpenVINO"

    def setup(self, threads: int) -> None:
        import openvino

        self.ov, self.core, self.threads = openvino, openvino.Core(), threads

    def prepare(self, case: Case) -> Runner:
        args = tuple(torch.from_numpy(a) for a in case.arrays[: case.torch_args])
        self.compile_s = None
        start = time.perf_counter()
        quiet = io.StringIO()
        with warnings.catch_warnings(), redirect_stdout(quiet), redirect_stderr(quiet):
            warnings.simplefilter("ignore")
            model = self.ov.convert_model(case.module, example_input=args)
        config = {
            "INFERENCE_PRECISION_HINT": "f32",
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_NUM_THREADS": self.threads,
        }
        compiled = self.core.compile_model(model, "CPU", config)
        self.compile_s = time.perf_counter() - start
        precision = compiled.get_property("INFERENCE_PRECISION_HINT")
        if precision != self.ov.Type.f32:
            raise RuntimeError(f"INFERENCE_PRECISION_HINT is {precision} after asking for f32")
        request = compiled.create_infer_request()
        inputs = list(case.arrays[: case.torch_args])
        # Inputs read in place (as ORT does); outputs copied out, since the request reuses its
        # output tensors on the next call.
        return lambda: list(request.infer(inputs, share_inputs=True, share_outputs=False).to_tuple())


class NumPy(Peer):
    """NumPy where a user would reach for it (matmuls, relu, sums, transpose); BLAS threads are
    fixed through OPENBLAS_NUM_THREADS before NumPy is first imported."""

    name = "NumPy"

    def prepare(self, case: Case) -> Runner:
        if case.numpy_fn is None:
            raise NotImplementedError("not a NumPy row")
        fn, arrays = case.numpy_fn, case.arrays
        return lambda: [np.asarray(fn(*arrays), np.float32)]


def versa_name(target: str, first: bool) -> str:
    """The system name of Versa compiled for `target`: "Versa" for the run's first target (the
    one peers are compared with in the progress lines), "Versa <target>" for the others."""
    return "Versa" if first else f"Versa {target}"


def all_peers(versa_pipeline: str, targets: list[str] | None = None) -> list[Peer]:
    """Versa once per target (None or "host": the host CPU), then the peers, each once: peers run
    whatever they pick for this CPU, whatever Versa's target."""
    names = targets or ["host"]
    versas = [
        Versa(versa_pipeline, None if t == "host" else t, versa_name(t, i == 0)) for i, t in enumerate(names)
    ]
    return [*versas, TorchEager(), TorchCompile(), Iree(), OnnxRuntime(), OpenVino(), NumPy()]
