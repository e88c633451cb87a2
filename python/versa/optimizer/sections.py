"""The measured sections of report.html, in reading order: before/after, accuracy, the ops left
to PyTorch (partitions of a torch model), per-layer profile, memory, what the compiler did,
compile passes, steps (html.py draws the head and the summary above them). The per-layer
table comes sorted by time, slowest first, and its headers re-sort it (page.SORT_SCRIPT)."""

from versa.optimizer import facts, plots, units
from versa.optimizer.page import Cell, Column, badge, cell, empty, esc, figure, key_values, table

SECTIONS = (
    ("summary", "Summary"),
    ("speed", "Before / after"),
    ("accuracy", "Accuracy"),
    ("partitioning", "Partitions"),
    ("profile", "Per-layer profile"),
    ("memory", "Memory"),
    ("compiler", "What the compiler did"),
    ("passes", "Compile passes"),
    ("steps", "Steps"),
)


def render(report: dict) -> list[str]:
    """The sections after the summary, as HTML fragments."""
    drawn = (_speed, _accuracy, _partitioning, _profile, _memory, _compiler, _passes, _steps)
    return [f(report) for f in drawn]


def section(name: str, body: str) -> str:
    return f'<section id="{name}"><h2>{esc(dict(SECTIONS)[name])}</h2>{body}</section>'


def shape_text(shape: list) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def reference_name(report: dict) -> str:
    """What the framework's side is called (onnxruntime, torch, ...): the timing's name first."""
    for name in ("timing", "accuracy"):
        if report[name]:
            return report[name]["reference"]
    return "reference"


def _speed(report: dict) -> str:
    timing = report["timing"]
    if not timing:
        return section("speed", empty(facts.missing(report, "benchmark")))
    png = plots.before_after(timing)
    plot = figure(png, "before/after bar plot", "Median time per call.", "plot-before-after")
    rows = [
        ("Reference", f"{esc(timing['reference'])}: {units.ms(timing['reference_ms'])} per call"),
        ("Versa", f"{units.ms(timing['versa_ms'])} per call"),
        ("Speed-up", f"<b>{units.speedup(timing['speedup'])}</b>"),
        ("Measured", f"median of {timing['rounds']} rounds, {timing['threads']} threads each"),
    ]
    return section("speed", plot + key_values(rows))


def _accuracy(report: dict) -> str:
    accuracy = report["accuracy"]
    if not accuracy:
        return section("accuracy", empty(facts.missing(report, "validate")))
    tone = "good" if accuracy["verdict"] == "pass" else "bad"
    head = (
        f"<p>{badge(accuracy['verdict'], tone)} against {esc(accuracy['reference'])} on the same inputs."
        f" Policy: {esc(accuracy['policy'])}</p>"
    )
    columns = [Column("Output"), Column("Shape"), Column("Type"), Column("Max abs error", True)]
    columns += [Column("Max rel error", True), Column("atol", True), Column("rtol", True), Column("Within")]
    rows = [
        [
            cell(o["name"]),
            cell(shape_text(o["shape"])),
            cell(o["dtype"]),
            cell(units.error(o["max_abs"]), o["max_abs"]),
            cell(units.error(o["max_rel"]), o["max_rel"]),
            cell(f"{o['atol']:.1e}", o["atol"]),
            cell(f"{o['rtol']:.1e}", o["rtol"]),
            Cell('<span class="good">yes</span>' if o["ok"] else '<span class="bad">no</span>'),
        ]
        for o in accuracy["outputs"]
    ]
    return section("accuracy", head + table(columns, rows, "accuracy-table"))


def _partitioning(report: dict) -> str:
    """A torch model Versa could not import whole: the share it compiled, and each op it left to
    PyTorch with its module path, source line and why (the report's `fallbacks`)."""
    parts = report.get("partitioning")  # optional: reports before it was added have none
    if not parts:
        whole = "None: Versa imported the model whole, no op ran in PyTorch." if report["compile"] else None
        return section("partitioning", empty(whole or facts.missing(report, "compile")))
    failed = parts["failed_partitions"]
    failed = f", {failed} failed to compile and ran eagerly" if failed else ""
    head = (
        f"<p>Versa could not import this model whole: {esc(parts['reason'])}</p><p>As"
        f" <code>versa.compile</code> does, those ops ran in PyTorch eager around {parts['partitions']}"
        f" compiled partition(s){failed}: <b>{parts['compiled_ops']} of {parts['ops']} ops"
        f" ({units.percent(parts['compiled_percent'])})</b> compiled by Versa.</p>"
    )
    columns = [Column("Op"), Column("Module"), Column("Source"), Column("Reason")]
    rows = [
        [_code(f["op"]), cell(f.get("module") or "(root)"), _location(f["source"]), cell(f["reason"])]
        for f in report["fallbacks"]
    ]
    return section("partitioning", head + table(columns, rows, "left-to-pytorch", sortable=True))


def _profile(report: dict) -> str:
    profile = report["profile"]
    if not profile:
        return section("profile", empty(facts.missing(report, "profile")))
    head = (
        f"<p>One call of the instrumented build took {units.ms(profile['instrumented_total_ms'])}"
        f" (plain build {units.ms(profile['uninstrumented_total_ms'])}, instrumentation overhead"
        f" {profile['overhead_percent']:+.1f}%); {units.ms(profile['unattributed_ms'])} fell outside"
        " every kernel. Click a column's header to sort by it.</p>"
    )
    layers = sorted(profile["layers"], key=lambda layer: layer["ms"], reverse=True)
    if not layers:
        return section("profile", head + empty("No kernel was timed."))
    shown = min(len(layers), plots.TOP_LAYERS)
    caption = f"The {shown} slowest kernels; the table lists all {len(layers)}."
    plot = figure(plots.layer_times(layers), "time per layer bar plot", caption, "plot-layers")
    columns = [Column("Kernel"), Column("Family"), Column("Model layers"), Column("Calls", True)]
    columns += [Column("Time", True), Column("Share", True), Column("FLOPs", True), Column("Bytes", True)]
    columns += [Column("Rate", True), Column("Of limit", True)]
    rows = [
        [
            Cell(f"<code>{esc(layer['kernel'])}</code>"),
            cell(layer["family"]),
            _sources(layer["sources"]),
            cell(layer["calls"], layer["calls"]),
            cell(units.ms(layer["ms"]), layer["ms"]),
            cell(units.percent(layer["percent"]), layer["percent"], share=layer["percent"]),
            cell(units.count(layer["flops"]), layer["flops"]),
            cell(units.size(layer["bytes"]), layer["bytes"]),
            cell(units.rate(layer["rate"], layer["rate_unit"]), layer["rate"]),
            cell(units.percent(layer["percent_of_limit"]), layer["percent_of_limit"]),
        ]
        for layer in layers
    ]
    return section("profile", head + plot + table(columns, rows, "layers", True, (4, "descending")))


def _memory(report: dict) -> str:
    memory = report["memory"]
    if not memory:
        return section("memory", empty(facts.missing(report, "memory")))
    reference = reference_name(report)
    png = plots.memory(memory, reference)
    plot = figure(png, "memory bar plot", "Peak memory of one call, by part.", "plot-memory")
    ref = memory["reference_peak_bytes"]
    ratio = f" ({memory['peak_bytes'] / ref:.2f}× {esc(reference)}'s)" if ref else ""
    rows = [
        ("Peak", f"<b>{units.size(memory['peak_bytes'])}</b>{ratio}"),
        (f"{reference} peak", units.size(ref) if ref is not None else "not measured"),
        ("Weights", units.size(memory["weights_bytes"])),
        ("Arena", units.size(memory["arena_bytes"]) + " (intermediate buffers, planned statically)"),
        ("Inputs / outputs", f"{units.size(memory['inputs_bytes'])} / {units.size(memory['outputs_bytes'])}"),
    ]
    body = plot + key_values(rows)
    if memory["buffers"]:
        columns = [Column("Buffer"), Column("Kind"), Column("Size", True)]
        buffers = [
            [cell(b["name"]), cell(b["kind"]), cell(units.size(b["bytes"]), b["bytes"])]
            for b in sorted(memory["buffers"], key=lambda b: b["bytes"], reverse=True)
        ]
        body += "<h3>Largest buffers</h3>" + table(columns, buffers, "buffers", True, (2, "descending"))
    return section("memory", body)


def _compiler(report: dict) -> str:
    decisions, fallbacks = report["decisions"], report["fallbacks"]
    if not (decisions or fallbacks or report["compile"]):
        return section("compiler", empty(facts.missing(report, "compile")))
    body = "<h3>Decisions</h3>"
    if decisions:
        columns = [Column("Kind"), Column("Subject"), Column("Decision"), Column("Location")]
        rows = [
            [
                _kind(d["kind"]),
                Cell(f"<code>{esc(d['subject'])}</code>"),
                cell(d["message"]),
                _location(d["location"]),
            ]
            for d in decisions
        ]
        body += table(columns, rows, "decisions", sortable=True)
    else:
        body += empty("No decisions were recorded.")
    body += "<h3>Fallbacks</h3>"
    if fallbacks:
        columns = [Column("Op"), Column("Location"), Column("Reason")]
        rows = [
            [Cell(f"<code>{esc(f['op'])}</code>"), _location(f["source"]), cell(f["reason"])]
            for f in fallbacks
        ]
        body += table(columns, rows, "fallbacks", sortable=True)
    else:
        body += empty("None: every op was compiled by Versa's own rules.")
    return section("compiler", body)


def _passes(report: dict) -> str:
    compile_ = report["compile"]
    if not compile_:
        return section("passes", empty(facts.missing(report, "compile")))
    passes = compile_["passes"]
    if not passes:
        return section("passes", empty(f"No pass ran (cache {compile_['cache']})."))
    total = sum(p["seconds"] for p in passes) or 1.0
    columns = [Column("Pass"), Column("Time", True), Column("Share", True)]
    rows = [
        [
            Cell(f"<code>{esc(p['name'])}</code>"),
            cell(units.seconds(p["seconds"]), p["seconds"]),
            cell(units.percent(100 * p["seconds"] / total), p["seconds"], share=100 * p["seconds"] / total),
        ]
        for p in passes
    ]
    head = (
        f"<p>{len(rows)} passes in pipeline order, {units.seconds(total)} of the compile's"
        f" {units.seconds(compile_['seconds'])} (cache {esc(compile_['cache'])}).</p>"
    )
    return section("passes", head + table(columns, rows, "passes", sortable=True))


def _steps(report: dict) -> str:
    tones = {"ok": "good", "failed": "bad", "skipped": "plain"}
    columns = [Column("Step"), Column("Status"), Column("Time", True), Column("Detail")]
    rows = [
        [
            cell(s["name"]),
            Cell(badge(s["status"], tones[s["status"]])),
            cell("—" if s["status"] == "skipped" else units.seconds(s["seconds"]), s["seconds"]),
            cell(s["detail"] or ""),
        ]
        for s in report["steps"]
    ]
    return section("steps", table(columns, rows, "steps") if rows else empty("No step ran."))


def _kind(kind: str) -> Cell:
    return Cell(badge(kind, {"declined": "warn", "fallback": "bad"}.get(kind, "plain")))


def _sources(sources: list[str]) -> Cell:
    shown = ", ".join(sources[:3]) + (f" +{len(sources) - 3} more" if len(sources) > 3 else "")
    return Cell(f'<span title="{esc(", ".join(sources))}">{esc(shown)}</span>')


def _code(text: str) -> Cell:
    return Cell(f"<code>{esc(text)}</code>")


def _location(location: str | None) -> Cell:
    return Cell(f"<code>{esc(location)}</code>" if location else '<span class="empty">unknown</span>')
