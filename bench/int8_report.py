"""The INT8 section of bench/RESULTS.md (bench/int8.py), between the `report.INT8_BEGIN`/`INT8_END`
markers; the suite's rewrite of the file keeps it (`report.kept_sections`)."""

import os
import time
from pathlib import Path

from bench.int8_systems import AVX2_PEERS, PEERS, system_names, versa_systems
from bench.report import INT8_BEGIN, INT8_END, ms_cell, write_marked


def _ratio(times: dict, over: str, under: str) -> str:
    a, b = times.get(over), times.get(under)
    return f"{b / a:.2f}x" if isinstance(a, float) and isinstance(b, float) else "—"


def _ratios(times: dict, target: str, openvino: str = "OpenVINO INT8 (QDQ)") -> list[str]:
    """Versa INT8 (for `target`) against Versa FP32 (the same target), ORT INT8, `openvino`."""
    fp32, int8 = versa_systems(target)
    return [_ratio(times, int8, other) for other in (fp32, "ORT INT8", openvino)]


RATIOS = ("Versa INT8 vs FP32", "Versa INT8 vs ORT INT8", "Versa INT8 vs OpenVINO INT8")


def table(rows: list, target: str) -> list[str]:
    """Versa for `target` and the peers: milliseconds, then Versa INT8's ratios."""
    systems = (*versa_systems(target), *PEERS)
    head = ["model", *(f"{s} ms" for s in systems), *RATIOS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.label, *(ms_cell(row.times.get(s)) for s in systems), *_ratios(row.times, target)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def other_target(rows: list, target: str) -> list[str]:
    """Versa compiled for another target in the same rounds: its columns, ratios to the peers
    (for AVX2 code on an AVX-512 host, to OpenVINO held to AVX2, with its columns)."""
    held = _avx2(target) and any(p in row.times for row in rows for p in AVX2_PEERS)
    systems = (*versa_systems(target), *(AVX2_PEERS if held else ()))
    ratios = (*RATIOS[:2], "Versa INT8 vs OpenVINO INT8 AVX2") if held else RATIOS
    openvino = AVX2_PEERS[1] if held else "OpenVINO INT8 (QDQ)"
    head = ["model", *(f"{s} ms" for s in systems), *ratios]
    said = (
        "OpenVINO also ran held to AVX2 (`ONEDNN_MAX_CPU_ISA=AVX2` in a child process, its "
        "layers' kernels checked by name: bench/int8_isa_peer.py; FP32 on the float ONNX "
        "model); ONNX Runtime has no such switch, so its INT8 time is its AVX-512 code's"
        if held
        else "the peers' times are the table's above"
    )
    lines = [
        f"Versa compiled for `{target}` ({_describe(target)}), in the same rounds ({said}):",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for row in rows:
        cells = [
            row.label,
            *(ms_cell(row.times.get(s)) for s in systems),
            *_ratios(row.times, target, openvino),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    left = [f"{row.label}, {name}: {what}" for row in rows for name, what in row.above_avx2.items()]
    return [*lines, "", *(["Layers the cap did not reach: " + "; ".join(left) + ".", ""] if left else [])]


def _avx2(target: str) -> bool:
    from versa import targets

    t = targets.resolve(target)
    return t.has("avx2") and not t.has("avx512f")


def _describe(target: str) -> str:
    from versa import targets

    t = targets.resolve(target)
    ext = "AVX-512" if t.has("avx512f") else "AVX2" if t.has("avx2") else t.isa
    return f"ISA level {t.isa}, {ext}, {t.vector_bits}-bit vectors"


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
    targets: tuple[str, ...] = ("host",),
) -> str:
    """The section: the first target's table (Versa and the peers), one per other target, the
    output checks and the build times."""
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
        "module compiled by each system. Ratios > 1: Versa INT8 faster."
        + ("" if targets[0] == "host" else f" Versa compiled for `{targets[0]}`."),
        "",
        *table(rows, targets[0]),
        "",
        *(line for target in targets[1:] for line in other_target(rows, target)),
        "Outputs against the float module run eagerly (checked before timing): max |Δ| · relative "
        "L2 error · top-1 agreement (classifiers, over the batch's images: one at batch 1; BERT's "
        "output is its last hidden state). Random weights and random calibration data: the INT8 "
        "errors say how close the systems' quantizations are to each other, not a trained model's "
        "accuracy.",
        "",
        *checks(rows, system_names(list(targets))),
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
