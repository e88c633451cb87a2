"""Run the exported GPU suite and benchmarks on a machine with an NVIDIA GPU.

Needs only NumPy, cuda-bindings and torch (CUDA) there: the Programs were compiled elsewhere
by `export.py`. Checks every case against its NumPy reference, then times each benchmark
kernel against torch CUDA with CUDA events (median of repeats), and prints Markdown.

    python3 bench/gpu/device.py build/gpu [--repeat 20]
"""

import argparse
import importlib
import json
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def load_gpu_package():
    """versa.gpu.plan and .driver without versa/__init__ (which imports MLIR)."""
    for name, path in (("versa", "python/versa"), ("versa.gpu", "python/versa/gpu")):
        module = types.ModuleType(name)
        module.__path__ = [str(ROOT / path)]
        sys.modules.setdefault(name, module)
    return importlib.import_module("versa.gpu.plan"), importlib.import_module("versa.gpu.driver")


def check_suite(folder: Path, plan, driver) -> tuple[int, list[str]]:
    cases = json.loads((folder / "cases.json").read_text())
    arrays = np.load(folder / "cases.npz")
    failures = []
    for case in cases:
        name = case["name"]
        try:
            program = plan.Program.from_json(json.dumps(case["program"]))
            inputs = [arrays[f"{name}/in{i}"] for i in range(len(program.inputs))]
            got = driver.GpuFunction(program)(*inputs)
            for i, value in enumerate(got):
                want = arrays[f"{name}/out{i}"]
                if np.issubdtype(want.dtype, np.integer):
                    np.testing.assert_array_equal(value, want)
                else:
                    np.testing.assert_allclose(value, want, rtol=case["rtol"], atol=case["atol"])
        except Exception as err:  # report every failing case, not just the first
            failures.append(f"{name}: {type(err).__name__}: {str(err)[:300]}")
    return len(cases), failures


def median_ms(fn, repeat: int) -> float:
    import torch  # noqa: PLC0415

    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


def _bench_row(bench: dict, plan, driver, gen, repeat: int, copy_gbs: float) -> str:
    """One benchmark kernel: checked against torch, then timed against it."""
    import torch  # noqa: PLC0415

    program = plan.Program.from_json(json.dumps(bench["program"]))
    function = driver.GpuFunction(program)
    xs = [torch.randn(t.shape, device="cuda", generator=gen) for t in program.inputs]
    torch.backends.cuda.matmul.allow_tf32 = bench.get("tf32", False)  # torch's side of the row
    torch.backends.cudnn.allow_tf32 = bench.get("tf32", False)  # cuDNN's default is TF32
    env = {f"x{i}": x for i, x in enumerate(xs)} | {"torch": torch}
    want = eval(bench["torch"], env)  # noqa: S307  (an expression of our own export)
    (got,) = function(*xs)
    error = ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
    versa_ms = float(np.median(function.time(xs, repeat))) * 1e3
    torch_ms = median_ms(lambda e=bench["torch"], env=env: eval(e, env), repeat)  # noqa: S307
    gbs = bench["bytes"] / versa_ms / 1e6
    tflops = bench["flops"] / versa_ms / 1e9 if bench["flops"] else 0
    return (
        f"| {bench['name']} | {versa_ms:.3f} | {torch_ms:.3f} | {torch_ms / versa_ms:.2f}x | "
        f"{gbs:.0f} | {100 * gbs / copy_gbs:.0f}% | {tflops:.2f} | {error:.1e} |"
    )


def benchmarks(folder: Path, plan, driver, repeat: int) -> list[str]:
    import torch  # noqa: PLC0415

    gen = torch.Generator(device="cuda").manual_seed(0)
    big = torch.empty(1 << 28, device="cuda")  # 1 GiB: the device's copy bandwidth
    copy_ms = median_ms(lambda: big.clone(), repeat)
    copy_gbs = 2 * big.numel() * 4 / copy_ms / 1e6
    rows = [
        f"device: {torch.cuda.get_device_name()}; copy bandwidth {copy_gbs:.0f} GB/s (torch clone of 1 GiB)",
        "",
        "| kernel | Versa ms | torch ms | torch/Versa | Versa GB/s | % of copy | TFLOP/s | max rel err |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for bench in json.loads((folder / "bench.json").read_text()):
        try:
            rows.append(_bench_row(bench, plan, driver, gen, repeat, copy_gbs))
        except Exception as err:  # report the failing kernel, time the others
            rows.append(f"| {bench['name']} | failed: {type(err).__name__}: {str(err)[:200]} |")
    a = torch.randn(4096, 4096, device="cuda")
    for label, setting in (("fp32", False), ("tf32", True)):
        torch.backends.cuda.matmul.allow_tf32 = setting
        ms = median_ms(lambda: a @ a, repeat)
        rows.append(f"\ncuBLAS (torch) matmul 4096² {label}: {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-bench", action="store_true")
    parser.add_argument("--output", type=Path, help="also write the report here (Markdown)")
    args = parser.parse_args()
    plan, driver = load_gpu_package()
    count, failures = check_suite(args.folder, plan, driver)
    lines = [f"numeric suite: {count - len(failures)}/{count} cases match the NumPy reference", ""]
    lines += [f"- FAIL {failure}" for failure in failures]
    if not args.no_bench:
        lines += benchmarks(args.folder, plan, driver, args.repeat)
    print("\n".join(lines))
    if args.output:
        header = [
            "# Versa on an NVIDIA GPU",
            "",
            "Commands: `.venv/bin/python bench/gpu/export.py build/gpu` (compile to PTX + launch plans),",
            f"then `python3 bench/gpu/device.py build/gpu --repeat {args.repeat}` on the GPU machine.",
            f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Times: CUDA events, median of the",
            "repeats; Versa runs each program as one CUDA graph replay; torch runs eager CUDA kernels.",
            "",
        ]
        args.output.write_text("\n".join(header + lines) + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
