"""report.html: one model's report as a self-contained page (page.py's shell, plots.py's PNGs).

This module draws the head of the page (title, verdict, errors, the summary's cards and
facts); `sections.py` draws the measured sections below it. A section whose data is null says
why (facts.missing) instead of vanishing, so a failed validation or a skipped profile still
reads as a report.
"""

from urllib.parse import quote

from versa.optimizer import facts, sections, units
from versa.optimizer.page import badge, card, document, esc, key_values


def render(report: dict) -> str:
    """The page's HTML text for a report that `report.validate` accepts."""
    body = [_header(report), _errors(report), _summary(report), *sections.render(report)]
    body.append(
        f"<footer>Versa {esc(report['versa']['version'])} · {esc(report['created'])} · report.json"
        f" beside this page holds the same data (schema {esc(report['schema'])},"
        f" version {report['version']}).</footer>"
    )
    return document(f"Versa report: {report['model']['name']}", "".join(body))


def _header(report: dict) -> str:
    model, options = report["model"], report["options"]
    word, tone = facts.verdict(report)
    links = "".join(f'<a href="#{name}">{esc(title)}</a>' for name, title in sections.SECTIONS)
    return (
        f'<header class="top"><h1>{esc(model["name"])} {badge(word, tone)}</h1>'
        f'<div class="sub">{esc(model["format"])} model <code>{esc(model["source"])}</code> · target'
        f" {esc(options['target'])} · -O{options['opt_level']}</div><nav>{links}</nav></header>"
    )


def _errors(report: dict) -> str:
    if not report["errors"]:
        return ""
    items = "".join(
        f"<li><b>{esc(e['step'])}</b>: <pre>{esc(e['message'])}</pre></li>" for e in report["errors"]
    )
    return f'<div class="alert" id="errors"><h3>Errors</h3><ul>{items}</ul></div>'


def _summary(report: dict) -> str:
    cards = "".join(_cards(report))
    model, options = report["model"], report["options"]
    tune = options["tune"]
    threads = options["threads"] or "default"
    rows = [
        ("Model", f"{esc(model['name'])} ({esc(model['format'])})"),
        ("Source", f"<code>{esc(model['source'])}</code>"),
        ("Inputs", _tensors(model["inputs"])),
        ("Outputs", _tensors(model["outputs"])),
        ("Target", f"{esc(options['target'])}, -O{options['opt_level']}, {esc(threads)} threads"),
        ("Tuning", esc("off" if tune is False else "default budget" if tune is True else f"{tune} s budget")),
        ("Machine", esc(_machine(report["machine"]))),
        ("Artifact", _artifact(report["artifact"])),
    ]
    if options["input_shapes"]:
        given = options["input_shapes"].items()
        shapes = ", ".join(f"{name}={sections.shape_text(shape)}" for name, shape in given)
        rows.insert(4, ("Input shapes", f"<code>{esc(shapes)}</code>"))
    return sections.section("summary", f'<div class="cards">{cards}</div>{key_values(rows)}')


def _cards(report: dict) -> list[str]:
    timing, accuracy, compile_, memory = (report[k] for k in ("timing", "accuracy", "compile", "memory"))
    cards = []
    if timing:
        before, after = units.ms(timing["reference_ms"]), units.ms(timing["versa_ms"])
        tone = "good" if timing["speedup"] >= 1 else "bad"
        value = f'<span class="{tone}">{units.speedup(timing["speedup"])}</span>'
        cards.append(card("Speed-up", value, f"{esc(timing['reference'])} {before} → Versa {after}"))
    else:
        cards.append(card("Speed-up", "—", "not measured"))
    if accuracy:
        tone = "good" if accuracy["verdict"] == "pass" else "bad"
        value = f'<span class="{tone}">{esc(accuracy["verdict"].upper())}</span>'
        cards.append(
            card("Accuracy", value, f"{esc(facts.worst_error(accuracy))} vs {esc(accuracy['reference'])}")
        )
    else:
        cards.append(card("Accuracy", "—", "not validated"))
    if compile_:
        cards.append(card("Compile", units.seconds(compile_["seconds"]), f"cache {esc(compile_['cache'])}"))
    if memory:
        ref = memory["reference_peak_bytes"]
        reference = sections.reference_name(report)
        note = f"{esc(reference)}: {units.size(ref)}" if ref is not None else "reference not measured"
        cards.append(card("Peak memory", units.size(memory["peak_bytes"]), note))
    return cards


def _tensors(tensors: list[dict]) -> str:
    if not tensors:
        return "—"
    return ", ".join(
        f"<code>{esc(t['name'])}</code> {esc(sections.shape_text(t['shape']))} {esc(t['dtype'])}"
        for t in tensors
    )


def _machine(machine: dict) -> str:
    text = (
        f"{machine['cpu']} ({machine['isa']}, {machine['cores']} cores, {machine['vector_bits']}-bit vectors"
    )
    if machine["fma_peak_gflops"] is not None:
        text += f", FMA peak {machine['fma_peak_gflops']:.0f} GFLOP/s"
    if machine["bandwidth_gbs"] is not None:
        text += f", {machine['bandwidth_gbs']:.0f} GB/s"
    return text + ")"


def _artifact(artifact: dict | None) -> str:
    if not artifact:
        return "none written"
    links = (
        f'<a href="{esc(quote(artifact[k]))}"><code>{esc(artifact[k])}</code></a>'
        for k in ("library", "header")
    )
    return " · ".join(links)
