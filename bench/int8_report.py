"""The INT8 section of bench/RESULTS.md (bench/int8.py), between the `report.INT8_BEGIN`/`INT8_END`
markers; the suite's rewrite of the file keeps it (`report.kept_sections`)."""

import os
import time
from pathlib import Path

from bench.report import INT8_BEGIN, INT8_END, ms_cell, write_marked


def _ratio(times: dict, over: str, under: str) -> str:
    a, b = times.get(over), times.get(under)
    return f"{b / a:.2f}x" if isinstance(a, float) and isinstance(b, float) else "—"


def table(rows: list, systems: tuple[str, ...]) -> list[str]:
    head = ["model", *(f"{s} ms" for s in systems), "Versa INT8 vs FP32", "Versa INT8 vs ORT INT8"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.label, *(ms_cell(row.times.get(s)) for s in systems)]
        cells += [_ratio(row.times, "Versa INT8", "Versa FP32"), _ratio(row.times, "Versa INT8", "ORT INT8")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def checks(rows: list, systems: tuple[str, ...]) -> list[str]:
    head = ["model", *systems]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        lines.append("| " + " | ".join([row.label, *(row.checks.get(s, "—") for s in systems)]) + " |")
    return lines


def section(
    rows: list,
    command: str,
    threads: int,
    load: tuple[float, float, float],
    repeat: int,
    calibration: int,
    elapsed: float,
    note: str = "",
) -> str:
    from bench.int8 import SYSTEMS
    from bench.machine import cpu_name

    stamp = time.strftime("%Y-%m-%d")
    text = [
        INT8_BEGIN,
        "## INT8 inference (issue 47)",
        "",
        f"`{command}` · {cpu_name()}, {threads} thread(s) · {stamp} · R = {repeat}, medians · "
        f"load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end · {elapsed:.0f} s",
        "",
        *([note, ""] if note else []),
        "Milliseconds per call. Versa INT8: the float module quantized with PT2E (torchao 0.18, "
        f"`X86InductorQuantizer` default config, {calibration} random calibration batches), then "
        "`versa.compile`; ORT INT8: the float module's ONNX export through "
        "`onnxruntime.quantization.quantize_static` (QDQ, per-channel int8 weights, uint8 "
        "activations, the same calibration batches); OpenVINO INT8 (QDQ): OpenVINO's CPU plugin on "
        "that QDQ model (NNCF, OpenVINO's own INT8 path, is not installed). FP32 columns: the float "
        "module compiled by each system. Ratios > 1: Versa INT8 faster.",
        "",
        *table(rows, SYSTEMS),
        "",
        "Outputs against the float module run eagerly (checked before timing): max |Δ| · relative "
        "L2 error · top-1 agreement (classifiers, over the batch's images: one at batch 1; BERT's "
        "output is its last hidden state). Random weights and random calibration data: the INT8 "
        "errors say how close the systems' quantizations are to each other, not a trained model's "
        "accuracy.",
        "",
        *checks(rows, SYSTEMS),
        "",
    ]
    compiles = [
        f"{row.label}: " + ", ".join(f"{s} {t:.0f} s" for s, t in row.compiles.items()) for row in rows
    ]
    text += [
        "Build times (quantization, export, compile; ORT FP32's includes the ONNX export and "
        "`quantize_static`, whose model ORT INT8 and OpenVINO INT8 reuse): " + "; ".join(compiles) + ".",
        "",
    ]
    return "\n".join([*text, INT8_END])


def write(path: Path, text: str) -> None:
    write_marked(path, INT8_BEGIN, INT8_END, text)
