"""What the outputs derive from a report, decided once: whether the model failed and why, its
worst error, why a section is missing. The page, the console summary and the index page all
read them here, so they never disagree."""

from versa.optimizer import units


def failed(report: dict) -> bool:
    """A model failed when any step reported an error (an accuracy 'fail' alone is a verdict)."""
    return bool(report["errors"])


def failure(report: dict) -> dict | None:
    """The first error ({step, message}): what the index shows as the reason."""
    return report["errors"][0] if report["errors"] else None


def verdict(report: dict) -> tuple[str, str]:
    """(word, tone) for the report's headline: the tone is a page.badge tone."""
    if failed(report):
        return "failed", "bad"
    if report["accuracy"] is None:
        return "not validated", "warn"
    return ("pass", "good") if report["accuracy"]["verdict"] == "pass" else ("accuracy fail", "bad")


def worst_error(accuracy: dict) -> str:
    """The largest absolute error over the outputs, as text ("not finite" if any is)."""
    errors = [output["max_abs"] for output in accuracy["outputs"]]
    if not errors:
        return "no outputs"
    if any(e is None for e in errors):
        return "max |err| not finite"
    return f"max |err| {units.error(max(errors))}"


def missing(report: dict, step: str) -> str:
    """Why a section is null, as a sentence: the step's error, or why it was skipped."""
    text = _missing(report, step)
    return text if text.endswith((".", "!", "?")) else text + "."


def _missing(report: dict, step: str) -> str:
    for entry in report["steps"]:
        if entry["name"] != step:
            continue
        if entry["status"] == "failed":
            messages = [e["message"] for e in report["errors"] if e["step"] == step]
            reason = messages[0] if messages else entry["detail"] or "no message"
            return f"The {step} step failed: {reason}"
        if entry["status"] == "skipped":
            return f"The {step} step was skipped" + (f": {entry['detail']}" if entry["detail"] else ".")
        return f"The {step} step ran but produced nothing" + (
            f": {entry['detail']}" if entry["detail"] else "."
        )
    return f"The {step} step did not run."
