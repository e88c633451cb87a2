"""A peer held to an older ISA on this machine: OpenVINO's CPU plugin in a child process whose
oneDNN may use no more than AVX2 (`ONEDNN_MAX_CPU_ISA`, read once, when the library loads: hence
a process of its own). bench/int8.py's `--both-isas` times it beside Versa's x86-64-v3 code, so
the AVX2 rows compare AVX2 code with AVX2 code. ONNX Runtime has no such switch (MLAS picks its
kernels from CPUID; its ISA is a build option), so its rows stay AVX-512.

The child (`python -m bench.int8_isa_peer MODEL.onnx INPUTS.npz THREADS OUTPUT.npy [f32]`; f32:
a float model, run in f32 as bench/peers.py's OpenVino, never bf16) compiles the model twice:
once with per-layer counters, to check the executed layers' kernels (`exec_type`, e.g.
`brgconv_avx2_I8`): oneDNN's primitives (convs, matmuls, pools, fused subgraphs) obey the cap,
but a few of the plugin's own kernels do not (ReduceMean stays `jit_avx512_*` in 2026.4;
`OV_CPU_MAX_ISA` is a debug-build switch), so the child fails where AVX-512 or AMX code takes
most of the time and otherwise names what stayed above AVX2 and its share (`ready <which>`).
Then it compiles for timing, writes its first output to OUTPUT.npy, and answers each `call`
line with the seconds that call took (timed in the child: the pipe's round trip is not the
peer's time).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

ISA_ENV = {"ONEDNN_MAX_CPU_ISA": "AVX2"}  # oneDNN's cap (DNNL_MAX_CPU_ISA is its older name)
_WIDER = ("avx512", "amx")  # kernel names of code above AVX2


def wider_kernels(exec_types: list[str]) -> list[str]:
    """The kernels in `exec_types` that use more than AVX2 (empty: the cap took effect)."""
    return sorted({e for e in exec_types if any(w in e.lower() for w in _WIDER)})


class IsaPeer:
    """The parent's handle on a child: a call (returning the output of its first call) whose
    `seconds` is the child's time of the last call."""

    def __init__(self, model: bytes, arrays: list, threads: int, folder: str, name: str, f32: bool):
        import numpy as np

        base = Path(folder) / name.replace(" ", "_").replace("(", "").replace(")", "")
        model_path, inputs, output = (
            base.with_suffix(".onnx"),
            base.with_suffix(".npz"),
            base.with_suffix(".npy"),
        )
        model_path.write_bytes(model)
        np.savez(inputs, *arrays)
        command = [
            sys.executable,
            "-m",
            "bench.int8_isa_peer",
            str(model_path),
            str(inputs),
            str(threads),
            str(output),
        ]
        command += ["f32"] if f32 else []
        self.child = subprocess.Popen(
            command,
            env={**os.environ, **ISA_ENV},
            cwd=Path(__file__).resolve().parents[1],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        said = self.child.stdout.readline().strip()
        if not said.startswith("ready"):
            self.child.kill()
            raise RuntimeError(said or f"the child exited ({self.child.wait()})")
        self.above = said.removeprefix("ready").strip()  # layers the cap did not reach, if any
        self.output = np.load(output)
        self.seconds = 0.0

    def __call__(self):
        self.child.stdin.write("call\n")
        self.child.stdin.flush()
        self.seconds = float(self.child.stdout.readline())
        return self.output

    def __del__(self):
        if getattr(self, "child", None) and self.child.poll() is None:
            self.child.stdin.close()  # the child ends at the end of its input
            self.child.wait()


def _serve(model_path: str, inputs_path: str, threads: int, output: str, f32: bool) -> None:
    import numpy as np
    import openvino

    core = openvino.Core()
    model = core.read_model(model_path)
    with np.load(inputs_path) as saved:
        arrays = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads}
    if f32:
        config["INFERENCE_PRECISION_HINT"] = "f32"
    counted = core.compile_model(model, "CPU", {**config, "PERF_COUNT": True}).create_infer_request()
    counted.infer(arrays)
    executed = [p for p in counted.get_profiling_info() if p.status.name == "EXECUTED"]
    wider = set(wider_kernels([p.exec_type for p in executed]))
    above = [p for p in executed if p.exec_type in wider]
    share = sum(p.real_time.total_seconds() for p in above) / max(
        sum(p.real_time.total_seconds() for p in executed), 1e-9
    )
    if share > 0.5:
        print(f"the ISA cap did not take: {', '.join(sorted(wider)[:4])}", flush=True)
        return
    left = sorted({f"{p.node_type} {p.exec_type}" for p in above})
    request = core.compile_model(model, "CPU", config).create_infer_request()
    np.save(output, request.infer(arrays, share_inputs=True, share_outputs=False).to_tuple()[0])
    print(f"ready {', '.join(left)} ({100 * share:.1f}% of the time)" if left else "ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "call":
            break
        start = time.perf_counter()
        request.infer(arrays, share_inputs=True, share_outputs=False)
        print(time.perf_counter() - start, flush=True)


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:] == ["f32"])
