"""Synthetic `versa optimize` reports: a full one (every section, a ResNet-like profile), one of a
model whose validation failed and that was never profiled, and one whose import failed (every
measured section null). Each call returns a fresh dict to change."""

import copy

LAYERS = [
    ("conv_7x7_s2", "conv", ["conv1"], 1, 1.85, 236e6, 12.1e6, "GFLOP/s"),
    (
        "conv_3x3_64",
        "conv",
        ["layer1.0.conv1", "layer1.0.conv2", "layer1.1.conv1", "layer1.1.conv2"],
        4,
        1.42,
        462e6,
        3.3e6,
        "GFLOP/s",
    ),
    (
        "conv_3x3_128",
        "conv",
        ["layer2.0.conv2", "layer2.1.conv1", "layer2.1.conv2"],
        3,
        1.10,
        347e6,
        2.5e6,
        "GFLOP/s",
    ),
    (
        "conv_3x3_256",
        "conv",
        ["layer3.0.conv2", "layer3.1.conv1", "layer3.1.conv2"],
        3,
        1.05,
        347e6,
        4.9e6,
        "GFLOP/s",
    ),
    (
        "conv_3x3_512",
        "conv",
        ["layer4.0.conv2", "layer4.1.conv1", "layer4.1.conv2"],
        3,
        1.21,
        347e6,
        14.2e6,
        "GFLOP/s",
    ),
    ("conv_3x3_s2_128", "conv", ["layer2.0.conv1"], 1, 0.31, 116e6, 1.6e6, "GFLOP/s"),
    ("conv_1x1_s2_256", "matmul", ["layer3.0.downsample.0"], 1, 0.09, 13e6, 0.9e6, "GFLOP/s"),
    ("maxpool_3x3_s2", "pool", ["maxpool"], 1, 0.12, None, 4.0e6, "GB/s"),
    ("add_relu_rows", "row kernel", ["layer1.0.add", "layer1.1.add"], 8, 0.21, None, 9.6e6, "GB/s"),
    ("global_avgpool", "pool", ["avgpool"], 1, 0.02, None, 0.1e6, "GB/s"),
    ("linear_fc", "matmul", ["fc"], 1, 0.06, 1.02e6, 2.05e6, "GB/s"),
    ("softmax_rows", "row kernel", ["softmax"], 1, 0.01, None, 8e3, "GB/s"),
]


def _layer(kernel, family, sources, calls, ms, flops, moved, unit):
    amount = flops if unit == "GFLOP/s" else moved
    rate = amount / (ms * 1e-3) / 1e9
    limit = 2400.0 if unit == "GFLOP/s" else 60.0
    return {
        "kernel": kernel,
        "family": family,
        "sources": [f"resnet18.py:{40 + i}:{s}" for i, s in enumerate(sources)],
        "calls": calls,
        "ms": ms,
        "percent": 100 * ms / 7.9,
        "flops": flops,
        "bytes": moved,
        "rate": rate,
        "rate_unit": unit,
        "percent_of_limit": 100 * rate / limit,
    }


FULL = {
    "schema": "versa-optimize-report",
    "version": 1,
    "created": "2026-11-22T09:30:00+00:00",
    "versa": {"version": "0.1.0"},
    "model": {
        "name": "resnet18",
        "source": "models/resnet18.onnx",
        "format": "onnx",
        "inputs": [{"name": "input", "shape": [1, 3, 224, 224], "dtype": "float32"}],
        "outputs": [{"name": "logits", "shape": [1, 1000], "dtype": "float32"}],
    },
    "options": {"target": "host", "opt_level": 3, "threads": 16, "tune": False, "input_shapes": {}},
    "machine": {
        "cpu": "sapphirerapids",
        "isa": "x86-64-v4",
        "cores": 16,
        "vector_bits": 512,
        "fma_peak_gflops": 2400.0,
        "bandwidth_gbs": 60.0,
    },
    "steps": [
        {"name": "import", "seconds": 1.2, "status": "ok", "detail": None},
        {"name": "compile", "seconds": 11.4, "status": "ok", "detail": "48 kernels"},
        {"name": "validate", "seconds": 0.8, "status": "ok", "detail": None},
        {"name": "benchmark", "seconds": 6.1, "status": "ok", "detail": None},
        {"name": "profile", "seconds": 4.3, "status": "ok", "detail": None},
        {"name": "memory", "seconds": 0.4, "status": "ok", "detail": None},
        {"name": "artifact", "seconds": 2.2, "status": "ok", "detail": None},
    ],
    "compile": {
        "seconds": 11.4,
        "cache": "miss",
        "passes": [
            {"name": "versa-optimize", "seconds": 0.42},
            {"name": "versa-codegen", "seconds": 2.61},
            {"name": "one-shot-bufferize", "seconds": 0.35},
            {"name": "versa-plan-buffers", "seconds": 0.12},
            {"name": "convert-to-llvm", "seconds": 0.9},
            {"name": "LLVM code generation", "seconds": 6.4},
        ],
    },
    "accuracy": {
        "reference": "onnxruntime",
        "verdict": "pass",
        "policy": "versa.tolerance per element type and op family; inputs uniform(-1, 1), seed 0",
        "outputs": [
            {
                "name": "logits",
                "shape": [1, 1000],
                "dtype": "float32",
                "max_abs": 3.1e-6,
                "max_rel": 2.2e-5,
                "atol": 1e-4,
                "rtol": 1e-3,
                "ok": True,
            }
        ],
    },
    "timing": {
        "reference": "onnxruntime",
        "reference_ms": 14.8,
        "versa_ms": 7.4,
        "speedup": 2.0,
        "rounds": 50,
        "threads": 16,
    },
    "profile": {
        "instrumented_total_ms": 7.9,
        "uninstrumented_total_ms": 7.4,
        "overhead_percent": 6.8,
        "unattributed_ms": 0.45,
        "layers": [_layer(*layer) for layer in LAYERS],
    },
    "memory": {
        "weights_bytes": 46_800_000,
        "arena_bytes": 3_211_264,
        "inputs_bytes": 602_112,
        "outputs_bytes": 4_000,
        "peak_bytes": 51_000_000,
        "reference_peak_bytes": 98_000_000,
        "buffers": [
            {"name": "fc.weight", "bytes": 2_048_000, "kind": "weight"},
            {"name": "layer4.1.conv2.weight", "bytes": 9_437_184, "kind": "weight"},
            {"name": "arena (conv1 output)", "bytes": 3_211_264, "kind": "arena"},
            {"name": "input", "bytes": 602_112, "kind": "input"},
            {"name": "logits", "bytes": 4_000, "kind": "output"},
        ],
    },
    "decisions": [
        {
            "kind": "fusion",
            "subject": "conv_3x3_64",
            "message": "fused batch_norm + relu into the convolution's epilogue",
            "location": "resnet18.py:41:layer1.0.conv1",
        },
        {
            "kind": "layout",
            "subject": "model",
            "message": "NHWC activations (conv_layout of x86-64-v4)",
            "location": None,
        },
        {
            "kind": "declined",
            "subject": "global_avgpool",
            "message": "not fused into fc: a reduction feeds a matmul <& 'quoted'>",
            "location": "resnet18.py:50:avgpool",
        },
    ],
    "fallbacks": [
        {"op": "onnx.Softmax", "source": "resnet18.py:52:softmax", "reason": "axis=-1 with a <dynamic> batch"}
    ],
    "artifact": {"library": "libresnet18.so", "header": "resnet18.h"},
    "errors": [],
}


def full_report() -> dict:
    return copy.deepcopy(FULL)


def validation_failed_report() -> dict:
    """Accuracy failed (one output off, one not finite), no profile, no memory, no artifact."""
    report = full_report()
    report["model"]["name"] = "bert-tiny"
    report["model"]["outputs"].append({"name": "pooled", "shape": [1, 128], "dtype": "float32"})
    outputs = report["accuracy"]["outputs"]
    outputs[0].update(max_abs=0.52, max_rel=0.31, ok=False)
    outputs.append({**outputs[0], "name": "pooled", "shape": [1, 128], "max_abs": None, "max_rel": None})
    report["accuracy"]["verdict"] = "fail"
    report["profile"] = report["memory"] = report["artifact"] = None
    for step in report["steps"]:
        if step["name"] in ("profile", "memory", "artifact"):
            step.update(
                status="skipped", seconds=0.0, detail="--no-profile" if step["name"] == "profile" else None
            )
    return report


def import_failed_report() -> dict:
    """The import failed: every measured section null, the error in `errors`."""
    report = full_report()
    report["model"].update(name="weird<model>", source="models/weird.onnx", inputs=[], outputs=[])
    report["compile"] = report["accuracy"] = report["timing"] = report["profile"] = None
    report["memory"] = report["artifact"] = None
    report["decisions"], report["fallbacks"] = [], []
    report["steps"] = [{"name": "import", "seconds": 0.3, "status": "failed", "detail": None}] + [
        {"name": name, "seconds": 0.0, "status": "skipped", "detail": "the import failed"}
        for name in ("compile", "validate", "benchmark", "profile", "memory", "artifact")
    ]
    report["errors"] = [
        {
            "step": "import",
            "message": "models/weird.onnx:1:1: error: no rule for onnx op 'Weird' <script>x</script>",
        }
    ]
    return report
