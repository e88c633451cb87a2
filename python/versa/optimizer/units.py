"""How the optimizer's outputs write numbers: one place, so that the console summary, the report
page, its plots and the index page all say "6.20 ms" and "48.3 MiB" alike."""

MIB = 1024 * 1024


def ms(value: float | None) -> str:
    """A time in milliseconds, to three significant digits or so (sub-ms times keep their µs)."""
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms" if value >= 0.1 else f"{value * 1000:.1f} µs"


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    return (
        f"{value:.1f} s" if value >= 10 else f"{value:.2f} s" if value >= 0.01 else f"{value * 1000:.1f} ms"
    )


def size(value: int | float | None) -> str:
    """Bytes in binary units (memory is allocated in pages and arenas, not in powers of ten):
    400000000000 -> '372.5 GiB'. The tools write sizes with it too (`tools/common.py`)."""
    if value is None:
        return "—"
    scaled, units = float(value), ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while scaled >= 1024 and len(units) > 1:
        scaled, units = scaled / 1024, units[1:]
    return f"{value:.0f} B" if units[0] == "B" else f"{scaled:.1f} {units[0]}"


def speedup(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def percent(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}%" if value < 99.95 else f"{value:.0f}%"


def error(value: float | None) -> str:
    """A numerical error: scientific, since what matters is its order of magnitude."""
    if value is None:
        return "not finite"
    return "0" if value == 0 else f"{value:.2e}"


def rate(value: float | None, unit: str | None) -> str:
    if value is None or unit is None:
        return "—"
    return f"{value:.1f} {unit}" if value < 1000 else f"{value:.0f} {unit}"


def count(value: float | None) -> str:
    """A large count (FLOPs, bytes moved) with an SI prefix: these are rates' numerators."""
    if value is None:
        return "—"
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}"
    return f"{value:.0f}"
