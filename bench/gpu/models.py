"""The example models (examples/torch/models.py) compiled by `versa.compile(target=...)` and run
on an NVIDIA GPU against torch eager and torch.compile there.

The GPU machine has torch (CUDA), NumPy and cuda-bindings but no MLIR, so the work is split:

    .venv/bin/python bench/gpu/models.py export build/gpu-models       # here: compile, reference
    python3 bench/gpu/models.py run build/gpu-models [--repeat 50]     # there: check and time

`export` writes one Program per model (`<name>.json`: PTX and launch plan) and `data.npz`: the
inputs, the CPU eager outputs (flattened as torch.utils._pytree does) and the weights, so that
eager on the GPU runs the very model Versa compiled. `run` needs only torch, NumPy, cuda-bindings
and versa/gpu/{plan,driver}.py: it checks each output against the reference with the torch
frontend's tolerance (|got - ref| <= 1e-5 max|ref| + 1e-4 |ref|, integers exact), then prints
a Markdown table of CUDA-event medians: Versa per call (Python, output allocation, one CUDA graph
launch, synchronisation) and its graph replay alone, torch eager, and torch.compile (default mode).
Each model runs three times: in FP32, with TF32 matmuls (`torch.set_float32_matmul_precision("high")`
when Versa compiles, `allow_tf32` for torch; checked to 1e-2 of the output's scale), and in bf16
(weights and floating inputs; checked against CPU eager in bf16 to 5e-2 of the output's scale).

Batch sizes (BATCH): the models are small, so each batch makes the largest activation 0.5-1M
elements, a few waves of the 132 SMs x 2048 threads of an H100/H200, while inputs, references
and weights of all models stay near 30 MB (well inside what travels to the GPU machine).
"""

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BATCH = {
    "mlp": 4096, "cnn": 512, "resnet_basic": 256, "resnet_bottleneck": 512, "mobilenet_v2_block": 256,
    "transformer_encoder": 1024, "gpt2_block": 512, "unet_block": 256,
}  # fmt: skip


def example_models():
    """examples/torch/models.py by path (this file is `models` too)."""
    spec = importlib.util.spec_from_file_location("example_models", ROOT / "examples" / "torch" / "models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export(out: Path, target: str, names: list[str]) -> None:
    import torch  # noqa: PLC0415
    import versa  # noqa: PLC0415
    from torch.utils import _pytree as pytree  # noqa: PLC0415

    models, arrays, manifest = example_models(), {}, {}
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        model, inputs = models.build(name, BATCH[name])
        start = time.perf_counter()
        try:
            versa.compile(model, inputs, target=target).save(out / f"{name}.json")
            torch.set_float32_matmul_precision("high")  # the same model with TF32 matmuls
            versa.compile(model, inputs, target=target).save(out / f"{name}.tf32.json")
        except versa.CompileError as err:
            manifest[name] = {"batch": BATCH[name], "error": str(err)}
            print(f"{name}: compile failed: {err}")
            continue
        finally:
            torch.set_float32_matmul_precision("highest")
        seconds = time.perf_counter() - start
        with torch.no_grad():
            outputs = pytree.tree_leaves(model(*inputs))
        for kind, values in (("in", inputs), ("out", outputs)):
            arrays |= {f"{name}/{kind}{i}": v.numpy() for i, v in enumerate(values)}
        arrays |= {f"{name}/state/{k}": v.numpy() for k, v in model.state_dict().items()}
        manifest[name] = {"batch": BATCH[name], "inputs": len(inputs), "outputs": len(outputs)}
        manifest[name]["bf16"] = export_bf16(model, inputs, target, out / f"{name}.bf16.json", arrays, name)
        print(f"{name}: batch {BATCH[name]}, compiled for {target} in {seconds:.1f} s")
    np.savez(out / "data.npz", **arrays)
    (out / "manifest.json").write_text(json.dumps({"target": target, "models": manifest}, indent=1))
    size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
    print(f"{len(manifest)} models → {out} ({size:.1f} MB)")


def export_bf16(model, inputs, target: str, path: Path, arrays: dict, name: str) -> str:
    """The model in bf16 (weights and floating inputs), compiled to `path`, with CPU eager's bf16
    outputs as the reference (inputs and outputs stored as f32: exact; NumPy has no bf16).
    "OK", or why it did not compile."""
    import copy  # noqa: PLC0415

    import torch  # noqa: PLC0415
    import versa  # noqa: PLC0415
    from torch.utils import _pytree as pytree  # noqa: PLC0415

    half = copy.deepcopy(model).to(torch.bfloat16)
    xs = [x.to(torch.bfloat16) if x.is_floating_point() else x for x in inputs]
    try:
        versa.compile(half, xs, target=target).save(path)
    except versa.CompileError as err:
        return f"compile failed: {str(err)[:160]}"
    with torch.no_grad():
        outputs = pytree.tree_leaves(half(*xs))
    for kind, values in (("in", xs), ("out", outputs)):
        arrays |= {f"{name}/bf16/{kind}{i}": (v.float() if v.is_floating_point() else v).numpy()
                   for i, v in enumerate(values)}  # fmt: skip
    return "OK"


def mismatch(got: np.ndarray, want: np.ndarray, kind: str = "fp32") -> str | None:
    """None when `got` is within the tolerance of `want`, else the worst error. TF32 matmuls
    keep 10 mantissa bits of their inputs, bf16 models 8 bits of everything: then 1e-2 (TF32)
    or 5e-2 (bf16) of the output's scale."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"
    if not np.issubdtype(want.dtype, np.floating):
        return None if np.array_equal(got, want) else "integers differ"
    error = np.abs(got.astype(np.float64) - want)
    scale = np.abs(want).max(initial=0.0)
    bound = {"tf32": 1e-2 * scale, "bf16": 5e-2 * scale}.get(kind, 1e-5 * scale + 1e-4 * np.abs(want))
    return None if (error <= bound).all() else f"max |got - ref| {error.max():.3g}"


def eager_call(torch, model, xs):
    """`model` on `xs`, and a note: models that make tensors in forward (gpt2_block's
    torch.arange) run under torch.device("cuda") where a plain call fails (slower per op)."""
    try:
        model(*xs)
        return lambda: model(*xs), ""
    except RuntimeError:

        def on_cuda():
            with torch.device("cuda"):
                return model(*xs)

        on_cuda()
        return on_cuda, " (under torch.device)"


def run(folder: Path, repeat: int) -> int:
    import torch  # noqa: PLC0415
    from device import load_gpu_package  # noqa: PLC0415  (bench/gpu/device.py)

    plan, driver = load_gpu_package()
    manifest = json.loads((folder / "manifest.json").read_text())
    data, models = np.load(folder / "data.npz"), example_models()
    rows = [
        f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {manifest['target']}; "
        f"CUDA events, median of {repeat}; ms per batch",
        "",
        "| model | batch | Versa ms | Versa graph ms | eager ms | torch.compile ms | eager/Versa | check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    failures = 0
    for name, entry in manifest["models"].items():
        if "error" in entry:
            failures += 1
            rows.append(f"| {name} | {entry['batch']} | | | | | | compile failed: {entry['error'][:120]} |")
            continue
        for variant in ("fp32", "tf32", "bf16"):
            if variant == "bf16" and entry.get("bf16") != "OK":
                rows.append(f"| {name} (bf16) | {entry['batch']} | | | | | | {entry.get('bf16')} |")
                continue
            row, failed = _model_row(torch, plan, driver, folder, data, models, name, entry, repeat, variant)
            rows.append(row)
            failures += failed
    print("\n".join(rows))
    return 1 if failures else 0


def _model_row(torch, plan, driver, folder, data, models, name, entry, repeat, variant) -> tuple[str, bool]:
    """Check and time one model in FP32, with TF32 matmuls, or in bf16 (Versa and torch alike)."""
    from device import median_ms  # noqa: PLC0415  (bench/gpu/device.py)

    tf32 = variant == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    key = f"{name}/bf16" if variant == "bf16" else name
    xs = [torch.from_numpy(data[f"{key}/in{i}"]).cuda() for i in range(entry["inputs"])]
    wants = [data[f"{key}/out{i}"] for i in range(entry["outputs"])]
    suffix = "" if variant == "fp32" else f".{variant}"
    program = plan.Program.from_json((folder / f"{name}{suffix}.json").read_text())
    function = driver.GpuFunction(program)
    got = function(*xs)
    problems = [p for g, w in zip(got, wants, strict=True) if (p := mismatch(g.cpu().numpy(), w, variant))]
    graph_ms = float(np.median(function.time(xs, repeat))) * 1e3
    versa_ms = median_ms(lambda f=function, xs=xs: f(*xs), repeat)
    model, _ = models.build(name, entry["batch"])
    prefix = f"{name}/state/"
    state = {k.removeprefix(prefix): torch.from_numpy(data[k]) for k in data.files if k.startswith(prefix)}
    model.load_state_dict(state)
    model.cuda()
    if variant == "bf16":  # torch runs the model in bf16 on bf16 inputs; Versa took them as f32
        model.to(torch.bfloat16)
        xs = [x.to(torch.bfloat16) if x.is_floating_point() else x for x in xs]
    with torch.no_grad():
        eager, note = eager_call(torch, model, xs)
        eager_ms = median_ms(eager, repeat)
        try:
            torch._dynamo.reset()
            compiled, _ = eager_call(torch, torch.compile(model), xs)
            inductor = f"{median_ms(compiled, repeat):.3f}"
        except Exception as err:  # report, keep benchmarking the others
            reason = (str(err).strip().splitlines() or [""])[0][:100].replace("|", "/")
            inductor = f"failed: {type(err).__name__}: {reason}"
    check = "; ".join(problems) or "OK"
    label = {"fp32": name, "tf32": f"{name} (TF32)", "bf16": f"{name} (bf16)"}[variant]
    row = (
        f"| {label} | {entry['batch']} | {versa_ms:.3f} | {graph_ms:.3f} | {eager_ms:.3f}{note} | "
        f"{inductor} | {eager_ms / versa_ms:.2f}x | {check} |"
    )
    return row, bool(problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    out = sub.add_parser("export", help="compile the models and write the reference (needs MLIR)")
    out.add_argument("out", type=Path)
    out.add_argument("--target", default="nvptx-sm90")
    out.add_argument("--models", nargs="*", default=list(BATCH), choices=list(BATCH))
    device = sub.add_parser("run", help="check and time on the GPU (torch, NumPy, cuda-bindings)")
    device.add_argument("folder", type=Path)
    device.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    if args.mode == "export":
        export(args.out, args.target, args.models)
    else:
        sys.exit(run(args.folder, args.repeat))


if __name__ == "__main__":
    main()
