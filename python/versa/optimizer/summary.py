"""The console summary `versa optimize` prints when it is done: one screen (at most 25 lines),
plain text, the headline numbers and where the full report is. Everything here is also in the
report; the summary only chooses what a user reads first."""

import os
from pathlib import Path

from versa.optimizer import facts, units

TOP = 5
WIDTH = 100


def summary(report: dict, out_dir: str | os.PathLike | None = None) -> str:
    """The summary's text (lines joined, no trailing newline); `out_dir` is where the report was
    written (the artifact's paths are relative to it), None when it was not written."""
    model, options, machine = report["model"], report["options"], report["machine"]
    word, _ = facts.verdict(report)
    lines = [f"versa optimize: {model['name']}: {word.upper()}"]
    signature = f"{len(model['inputs'])} input(s), {len(model['outputs'])} output(s)"
    lines.append(_row("model", f"{model['source']} ({model['format']}, {signature})"))
    threads = options["threads"] or "default"
    lines.append(
        _row(
            "target", f"{options['target']} -O{options['opt_level']}, {threads} threads, on {machine['cpu']}"
        )
    )
    lines += _accuracy(report) + _speed(report) + _compile(report) + _partitioning(report)
    lines += _memory(report) + _layers(report)
    if report["decisions"] or report["fallbacks"]:
        ops = sorted({f["op"] for f in report["fallbacks"]})
        named = f" ({', '.join(ops[:3])}{', ...' if len(ops) > 3 else ''})" if ops else ""
        declined = sum(d["kind"] in ("declined", "fallback") for d in report["decisions"])
        decided = f"{len(report['decisions'])} decision(s) ({declined} declined)"
        counts = f"{decided}, {len(report['fallbacks'])} fallback(s){named}"
        lines.append(_row("compiler", counts))
    for error in report["errors"][:3]:
        first = error["message"].strip().splitlines()[0] if error["message"].strip() else "no message"
        lines.append(_row("error", f"{error['step']}: {first}"))
    if len(report["errors"]) > 3:
        lines.append(_row("", f"... and {len(report['errors']) - 3} more error(s) in the report"))
    folder = Path(out_dir) if out_dir is not None else None
    if report["artifact"]:
        paths = [report["artifact"][k] for k in ("library", "header")]
        lines.append(_row("artifact", ", ".join(str(folder / p) if folder else p for p in paths), clip=False))
    if folder is not None:
        lines.append(_row("report", f"{folder / 'report.html'} (data: {folder / 'report.json'})", clip=False))
    return "\n".join(lines)


def _accuracy(report: dict) -> list[str]:
    accuracy = report["accuracy"]
    if not accuracy:
        return [_row("accuracy", facts.missing(report, "validate"))]
    failing = [o["name"] for o in accuracy["outputs"] if not o["ok"]]
    text = f"{accuracy['verdict'].upper()} vs {accuracy['reference']}, {facts.worst_error(accuracy)}"
    if failing:
        text += f"; outside tolerance: {', '.join(failing)}"
    return [_row("accuracy", text)]


def _speed(report: dict) -> list[str]:
    timing = report["timing"]
    if not timing:
        return [_row("speed", facts.missing(report, "benchmark"))]
    verb = "faster" if timing["speedup"] >= 1 else "slower"
    factor = timing["speedup"] if timing["speedup"] >= 1 else 1 / timing["speedup"]
    text = (
        f"{timing['reference']} {units.ms(timing['reference_ms'])} -> Versa {units.ms(timing['versa_ms'])}:"
        f" {units.speedup(factor)} {verb} (median of {timing['rounds']})"
    )
    return [_row("speed", text)]


def _compile(report: dict) -> list[str]:
    compile_ = report["compile"]
    if not compile_:
        return [_row("compile", facts.missing(report, "compile"))]
    return [_row("compile", f"{units.seconds(compile_['seconds'])} (cache {compile_['cache']})")]


def _partitioning(report: dict) -> list[str]:
    """A partitioned torch model: the share Versa compiled, then the ops left to PyTorch, each
    with its module path and source line (file name only: the report has the path)."""
    parts = report.get("partitioning")
    if not parts:
        return []
    share = f"{parts['compiled_ops']} of {parts['ops']} ops ({units.percent(parts['compiled_percent'])})"
    left = report["fallbacks"]
    text = f"{parts['partitions']} compiled, {share}; {len(left)} op(s) left to PyTorch"
    lines = [_row("partitions", text)]
    for fallback in left[:TOP]:
        where = os.path.basename(fallback["source"]) if fallback["source"] else "unknown line"
        module = fallback.get("module") or "(root)"
        lines.append(f"  {fallback['op']} in {module} at {where}: {fallback['reason']}"[:WIDTH])
    if len(left) > TOP:
        lines.append(f"  ... and {len(left) - TOP} more in the report")
    return lines


def _memory(report: dict) -> list[str]:
    memory = report["memory"]
    if not memory:
        return []
    text = f"peak {units.size(memory['peak_bytes'])}"
    ref = memory["reference_peak_bytes"]
    if ref:
        reference = report["timing"]["reference"] if report["timing"] else "reference"
        text += f" vs {reference} {units.size(ref)} ({memory['peak_bytes'] / ref:.2f}x)"
    text += f"; weights {units.size(memory['weights_bytes'])}, arena {units.size(memory['arena_bytes'])}"
    return [_row("memory", text)]


def _layers(report: dict) -> list[str]:
    profile = report["profile"]
    if not profile or not profile["layers"]:
        return []
    layers = sorted(profile["layers"], key=lambda layer: layer["ms"], reverse=True)
    total = units.ms(profile["instrumented_total_ms"])
    lines = [_row("top layers", f"of {len(layers)} kernels, {total} per instrumented call")]
    for layer in layers[:TOP]:
        rate = units.rate(layer["rate"], layer["rate_unit"]) if layer["rate"] is not None else ""
        if rate and layer["percent_of_limit"] is not None:
            rate += f" ({units.percent(layer['percent_of_limit'])} of limit)"
        name = layer["sources"][0] if layer["sources"] else layer["kernel"]
        name = f"{layer['family']} {name}"
        name = name if len(name) <= 34 else name[:33] + "~"
        lines.append(
            f"  {units.percent(layer['percent']):>6} {units.ms(layer['ms']):>10}  {name:<34} {rate}".rstrip()
        )
    return lines


def _row(label: str, text: str, clip: bool = True) -> str:
    """A labelled line, cut at WIDTH unless it names a path (a cut path is no use)."""
    line = f"{label:<11}{text}"
    return line if not clip or len(line) <= WIDTH else line[: WIDTH - 3] + "..."
