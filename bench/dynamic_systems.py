"""The systems of the dynamic-shapes benchmark (bench/dynamic_shapes.py) and its measurement.

Each system is compiled for the model once where it can take every shape (Versa's dynamic
compile, Inductor's `dynamic=True`, an ONNX export with dynamic axes), or once per shape
(Versa's static compile, which is what a user without dynamic shapes pays at every new shape).
A shape is measured as the suite measures a row (bench/driver.py): outputs checked against a
float64 eager reference first, then the systems interleaved, R rounds, medians.
"""

import copy
import gc
import io
import re
import resource
import statistics
import time
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from bench import dynamic_hot, hf_models
from bench.driver import check, reason
from bench.peers import ort_session

Call = Callable[[torch.Tensor, torch.Tensor], np.ndarray]
SYSTEMS = ("torch eager", "Versa dynamic", "Versa static", "Inductor dynamic", "ONNX Runtime")


class Tokens(nn.Module):
    """The model called with token ids and an attention mask by name, its hidden states out."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)[0]


@dataclass(frozen=True)
class Model:
    name: str
    real: hf_models.RealModel  # the real-model row it is built as

    def build(self) -> Tokens:
        torch.manual_seed(0)
        module = Tokens(self.real.build()).eval()
        hf_models.realistic_parameters(module)
        return module


def _row(prefix: str) -> hf_models.RealModel:
    return next(m for m in hf_models.MODELS if m.label.startswith(prefix))


MODELS = [Model("BERT-base", _row("HF BERT-base")), Model("Llama-style 135M GQA", _row("HF Llama-style"))]


@dataclass
class Measured:
    """One model over the grid: per shape and system the median seconds per call, or why not;
    compiles: per system, how many and their seconds in all."""

    model: str
    times: dict[tuple[int, int], dict[str, float | str]] = field(default_factory=dict)
    compiles: dict[str, list[float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    graphs: int = 0  # the graphs Dynamo compiled for Inductor over the grid


def _numpy(out) -> np.ndarray:
    return out.detach().numpy() if isinstance(out, torch.Tensor) else np.asarray(out[0])


def _versa_dynamic(
    module: Tokens, example: tuple, max_seq: int, measured: Measured, repeat: int, held
) -> Call:
    import versa

    batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=max_seq)
    dims = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        start = time.perf_counter()
        compiled = versa.compile(module, example, dynamic_shapes=dims, hot_shapes=dynamic_hot.policy(repeat))
        held.append(compiled)
        compiled(*example)  # compiled by now
        measured.compiles["Versa dynamic"] = [time.perf_counter() - start]
    eager = [str(w.message) for w in warned if "ran eagerly" in str(w.message)]
    measured.notes += [f"Versa dynamic: {e.removeprefix('versa: ')}" for e in eager]
    return lambda ids, mask: _numpy(compiled(ids, mask))


def _inductor_dynamic(module: Tokens) -> Call:
    torch._dynamo.reset()
    compiled = torch.compile(module, dynamic=True, options={"freezing": True})
    return lambda ids, mask: _numpy(compiled(ids, mask))


def _onnx_runtime(module: Tokens, example: tuple, threads: int) -> Call:
    buffer, quiet = io.BytesIO(), io.StringIO()
    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
    with warnings.catch_warnings(), redirect_stdout(quiet), redirect_stderr(quiet):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            example,
            buffer,
            dynamo=False,
            opset_version=17,
            input_names=list(axes),
            dynamic_axes=axes,
        )
    session = ort_session(buffer.getvalue(), threads)
    return lambda ids, mask: session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]


def _prepared(name: str, make: Callable[[], Call], log) -> Call | str:
    try:
        return make()
    except Exception as err:  # noqa: BLE001  (a system that fails is a table entry)
        log(f"  {name}: {reason(err)}")
        return f"n/a ({reason(err)})"


PEERS = ("torch eager", "Inductor dynamic", "ONNX Runtime")  # the systems that are not Versa


def measure(
    model: Model, shapes: list[tuple[int, int]], repeat: int, threads: int, log, peers: str = "", done=None
) -> Measured:
    """Every system of SYSTEMS at every shape of `model`; of PEERS, those `peers` matches (re.search).
    `done`: called with the Measured so far after each shape (a process that dies keeps those).

    A shape's static compile is freed once its row is measured; it stays resident only while the
    executable cache (`versa.frontends.torch.executable_cache`) keeps it: a quarter of the
    machine's memory by default, two or three compiles of these models, so bench/dynamic_shapes.py
    runs each model in a process of its own with VERSA_MEMORY_CACHE_SIZE=0 (only what a live
    object holds: the dynamic compile, the shape's static one, the newest hot version)."""
    import versa

    measured = Measured(model.name)
    module = model.build()
    reference = copy.deepcopy(module).double()
    vocab = module.model.config.vocab_size
    max_seq = module.model.config.max_position_embeddings
    rng = np.random.default_rng(0)
    example = (torch.from_numpy(rng.integers(0, vocab, (2, 16))), torch.ones(2, 16, dtype=torch.int64))
    systems: dict[str, Call | str] = {"torch eager": lambda ids, mask: _numpy(module(ids, mask))}
    wanted = {p for p in PEERS if re.search(peers, p)}
    held = []  # the dynamic compile, for its hot shapes (bench/dynamic_hot.py)
    systems["Versa dynamic"] = _prepared(
        "Versa dynamic", lambda: _versa_dynamic(module, example, max_seq, measured, repeat, held), log
    )
    if "Inductor dynamic" in wanted:
        systems["Inductor dynamic"] = _prepared("Inductor dynamic", lambda: _inductor_dynamic(module), log)
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    for name, seconds in measured.compiles.items():
        log(f"  {name}: compiled in {sum(seconds):.1f} s")
    if "ONNX Runtime" in wanted:
        systems["ONNX Runtime"] = _prepared(
            "ONNX Runtime", lambda: _onnx_runtime(module, example, threads), log
        )
    if "torch eager" not in wanted:
        del systems["torch eager"]
    for batch, seq in shapes:
        ids = torch.from_numpy(rng.integers(0, vocab, (batch, seq)))
        mask = torch.ones(batch, seq, dtype=torch.int64)
        expected = _numpy(reference(ids, mask))
        start = time.perf_counter()
        static = versa.compile(module, (ids, mask))  # compiles here or at its first call
        built = time.perf_counter() - start
        systems["Versa static"] = lambda ids, mask, static=static: _numpy(static(ids, mask))
        times, first = _measure_shape(systems, ids, mask, expected, model.real.reduction, repeat)
        for name, extra in (("Versa static", built), ("Inductor dynamic", 0.0)):  # compiled per shape
            if name in first:
                measured.compiles.setdefault(name, []).append(first[name] + extra)
                log(f"  {name}: first call {measured.compiles[name][-1]:.1f} s beyond steady state")
        if (
            held
            and isinstance(times.get("Versa dynamic"), float)
            and isinstance(times.get("Versa static"), float)
        ):
            hot = dynamic_hot.measure(
                held[0], static, ids, mask, expected, model.real.reduction, repeat, times["Versa dynamic"]
            )
            if "compile" in hot:
                measured.compiles.setdefault("Versa hot", []).append(hot.pop("compile"))
            times.update(hot)
        measured.times[(batch, seq)] = times
        log(f"  batch {batch} seq {seq}: " + ", ".join(f"{k} {_show(k, v)}" for k, v in times.items()))
        del systems["Versa static"], static
        gc.collect()  # the static compile's module and engine (cycles through MLIR objects)
        now = _current_gb()
        log(f"  peak resident after batch {batch} seq {seq}: {_resident_gb():.1f} GB (now {now:.1f} GB)")
        if done is not None:
            measured.graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"] - graphs
            done(measured)
    measured.graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"] - graphs
    return measured


def _measure_shape(systems, ids, mask, expected, reduction, repeat) -> tuple[dict, dict[str, float]]:
    """Check, then time interleaved: the median seconds per call (or why not) per system, and
    how much longer than that each one's first call took (a compile, where it compiles then)."""
    results: dict[str, float | str] = {}
    first: dict[str, float] = {}
    for name, call in systems.items():
        if isinstance(call, str):
            results[name] = call
            continue
        try:
            start = time.perf_counter()
            out = call(ids, mask)
            first[name] = time.perf_counter() - start
            problem = check([out], [expected], reduction)
        except Exception as err:  # noqa: BLE001
            problem = reason(err)
        if problem:
            results[name] = f"wrong ({problem})" if "error" in problem else f"n/a ({problem})"
    timed = [n for n in systems if n not in results]
    samples: dict[str, list[float]] = {n: [] for n in timed}
    for _ in range(repeat):
        for name in timed:
            start = time.perf_counter()
            systems[name](ids, mask)
            samples[name].append(time.perf_counter() - start)
    for name in timed:
        results[name] = statistics.median(samples[name])
    beyond = {n: max(first[n] - results[n], 0.0) for n in timed}
    return {n: results[n] for n in SYSTEMS if n in results}, beyond


def _resident_gb() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)


def _current_gb() -> float:
    """This process's resident memory now (VmRSS), 0.0 where /proc does not say."""
    try:
        with open("/proc/self/status") as status:
            line = next((x for x in status if x.startswith("VmRSS:")), "VmRSS: 0 kB")
    except OSError:
        return 0.0
    return int(line.split()[1]) / (1 << 20)


RATIOS = ("hot / static", "stall")  # dynamic_hot's entries that are ratios, not seconds


def _show(name: str, value: float | str) -> str:
    if not isinstance(value, float):
        return value
    return f"{value:.2f}x" if name in RATIOS else f"{value * 1e3:.1f} ms"
