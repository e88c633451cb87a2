"""Tuned against analytic: what `versa-tune` buys on the suite's rows, in one process.

    python -m bench.tuning --rows 'HF BERT|linear' --budget 120 --threads 2 [--db PATH]

For each row: tune its program (`versa.tune`, the row's own budget; kernels a database already
holds are not measured again, so a second run re-times only), then compile it twice, with the
analytic choices (`tuning_db=""`) and with the database's, check both outputs against each
other, and time them in interleaved rounds (medians). Kernel rows are versa IR; real-model rows
(`HF ...`) go through `versa.compile` as users' models do. Writes its section of RESULTS.md
between `<!-- tuning:begin -->` and `<!-- tuning:end -->` (the other sections stay).
"""

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- tuning:begin -->", "<!-- tuning:end -->"


def _compile(case, tuning_db: str, threads: int):
    """(runner, compile seconds) for the row's program with `tuning_db` ("" = analytic)."""
    import torch
    import versa
    from versa.compiler import Chunk, parse_module
    from versa.context import make_context
    from versa.cpu.runtime import JitFunction
    from versa.options import CompileOptions

    start = time.perf_counter()
    if case.versa_text is None:
        args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
        compiled = versa.compile(case.module, args, tuning_db=tuning_db)
        return (lambda: [np.asarray(compiled(*args))]), time.perf_counter() - start
    options = CompileOptions.create(threads=threads, tuning_db=tuning_db)
    jit = JitFunction(parse_module(Chunk(case.versa_text, 1), make_context()), pipeline=options.passes())
    return (lambda: jit(*case.arrays)), time.perf_counter() - start


def _program(case) -> str:
    if case.versa_text is not None:
        return case.versa_text
    import torch
    import versa

    args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
    return versa.import_torch(case.module, tuple(args)).operation.get_asm(enable_debug_info=True)


def measure(row, db: str, budget_s: float, threads: int, repeat: int, log) -> dict:
    import versa

    case = row.build()
    started = time.perf_counter()
    reports = versa.tune(_program(case), budget_s=budget_s, tuning_db=db, threads=threads, progress=False)
    tune_s = time.perf_counter() - started
    (analytic, analytic_s), (tuned, tuned_s) = (_compile(case, d, threads) for d in ("", db))
    a, t = analytic(), tuned()
    for x, y in zip(a, t, strict=True):
        scale = float(np.max(np.abs(x))) + 1e-6
        assert np.allclose(x, y, rtol=1e-3, atol=1e-3 * scale), f"{row.name}: tuned output differs"
    samples = {"analytic": [], "tuned": []}
    for r in range(repeat):
        for name, fn in (("analytic", analytic), ("tuned", tuned))[:: 1 if r % 2 else -1]:
            time.sleep(0.1)  # the other system's OpenMP workers go back to sleep
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    result = {
        "row": row.name,
        "analytic": float(np.median(samples["analytic"])),
        "tuned": float(np.median(samples["tuned"])),
        "kernels": len(reports),
        "measured": sum(r.measured for r in reports),
        "improved": sum(1 for r in reports if r.speedup > 1.0),
        "tune_s": tune_s,
        "compile_s": (analytic_s, tuned_s),
    }
    log(
        f"{row.name}: analytic {result['analytic'] * 1e3:.3f} ms, tuned {result['tuned'] * 1e3:.3f} ms "
        f"({result['analytic'] / result['tuned']:.2f}x); {result['improved']}/{result['kernels']} kernels "
        f"improved, {result['measured']} candidates, tuning {tune_s:.0f} s"
    )
    return result


def section(results: list[dict], command: str, threads: int) -> str:
    from bench.machine import cpu_name

    lines = [
        BEGIN,
        "## Tuned against analytic strategy choices (`python -m bench.tuning`)",
        "",
        f"Command: `{command}`; {cpu_name()}, {threads} thread(s), load {os.getloadavg()[0]:.2f}.",
        "Analytic: the strategies' choices from the target description; tuned: `versa-tune`'s "
        "measured choices (its database). Medians of interleaved calls; outputs checked equal first.",
        "",
        "| row | analytic ms | tuned ms | speedup | kernels improved | candidates | tuning s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['row']} | {r['analytic'] * 1e3:.3f} | {r['tuned'] * 1e3:.3f} | "
            f"{r['analytic'] / r['tuned']:.2f}x | {r['improved']}/{r['kernels']} | {r['measured']} | "
            f"{r['tune_s']:.0f} |"
        )
    return "\n".join([*lines, END])


def write(path: Path, text: str) -> None:
    old = path.read_text() if path.exists() else ""
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        new = head + text + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(new)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tuning", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", required=True, metavar="REGEX", help="rows to tune (re.search)")
    parser.add_argument("--budget", type=float, default=120.0, help="tuning seconds per row")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--db", default=str(HERE / ".tuning.json"), help="the tuning database")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    threads = args.threads or cores
    os.environ["VERSA_NUM_THREADS"] = str(threads)
    from bench import rows

    selected = [r for r in rows.select(False, args.rows) if r.kind == "compute"]
    if not selected:
        print(f"no compute row matches {args.rows!r}", file=sys.stderr)
        return 1
    import torch

    torch.set_grad_enabled(False)
    results = [measure(r, args.db, args.budget, threads, args.repeat, print) for r in selected]
    command = "python -m bench.tuning " + " ".join(shlex.quote(a) for a in argv)
    write(args.output, section(results, command, threads))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
