"""The framework's memory for the report: how much the reference takes to load the model and
run it once, in a fresh process (`python -m versa.optimizer.reference_memory MODEL`).

Measured as the peak resident set (VmHWM, reset to the current one after the framework's
import through `/proc/self/clear_refs`) at the end of the model's first call, less the resident
set before the model was loaded: weights as the framework holds them, its workspace,
activations and one-time initialisation (oneDNN's JIT kernels, thread pools). A fresh process,
because the peak of the optimizer's own process is set by compiles. Versa's `peak_bytes`
(weights + arena + inputs + outputs) is the like quantity on its side. Torch models come from
files and factories only (a module object given to `versa.optimize` is not re-created
elsewhere); versa IR has no framework.
"""

import json
import os
import subprocess
import sys

SEED = 0
TIMEOUT_S = 600


def _status(field: str) -> int:
    """A `/proc/self/status` size (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> bool:
    """Set the peak resident set (VmHWM) to the current one (Linux: `clear_refs` 5), so that
    the peak the framework's import reached does not hide the model's."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _onnx(path: str, input_shapes: dict) -> None:
    import numpy as np
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("VERSA_NUM_THREADS", "0") or 0)
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(SEED)
    feeds = {}
    for meta in session.get_inputs():
        shape = input_shapes.get(meta.name) or [d if isinstance(d, int) else 1 for d in meta.shape]
        kind = meta.type.removeprefix("tensor(").removesuffix(")")
        dtype = {"float": np.float32, "double": np.float64, "int64": np.int64, "int32": np.int32}.get(
            kind, np.float32
        )
        feeds[meta.name] = (
            rng.standard_normal(shape) if dtype in (np.float32, np.float64) else rng.integers(0, 2, shape)
        ).astype(dtype)
    session.run(None, feeds)


def _torch(model: str) -> None:
    import importlib

    import torch

    if model.endswith(".pt2"):
        program = torch.export.load(model)
        module, example = program.module(), program.example_inputs[0]
    else:
        name, attr = model.split(":")
        module, example = getattr(importlib.import_module(name), attr)()
        module.eval()
    with torch.no_grad():
        module(*example)


def measure(model: str, fmt: str, input_shapes: dict, threads: int) -> int | None:
    """The reference's peak bytes for `model` (format `fmt`), or None where there is none."""
    if fmt not in ("onnx", "pt2", "torch") or not isinstance(model, str):
        return None
    env = {**os.environ, "VERSA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    command = [sys.executable, "-m", "versa.optimizer.reference_memory", model, fmt, json.dumps(input_shapes)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    if done.returncode != 0:
        return None
    return int(done.stdout.strip().splitlines()[-1])


def main() -> None:
    model, fmt, shapes = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    if fmt == "onnx":
        import numpy  # noqa: F401  (the libraries themselves are not the model's memory)
        import onnxruntime  # noqa: F401
    else:
        import torch  # noqa: F401
    reset = _reset_peak()
    resident, peak = _status("VmRSS"), _status("VmHWM")
    _onnx(model, shapes) if fmt == "onnx" else _torch(model)
    # Without the reset, the peak can be the import's: the resident set's growth is then the
    # better (lower) bound of the two.
    grown = _status("VmHWM") - (resident if reset else peak)
    print(max(grown, _status("VmRSS") - resident, 0))


if __name__ == "__main__":
    main()
