"""CLI: .venv/bin/python -m bench.dynamic_shapes [--models REGEX] [--batches 1,4,16]
[--seqs 16,128,512] [--repeat R] [--threads N]: one dynamic compile against a compile per shape.

Issue 46's measure: a model compiled once with dynamic batch and sequence
(`versa.compile(..., dynamic_shapes=...)`) serves every shape of a grid; each shape is timed
against Versa's static compile of that shape, torch eager, Inductor's dynamic compile
(`torch.compile(dynamic=True)`) and ONNX Runtime (one export with dynamic axes). The models are
the real-model rows' BERT-base and Llama-style decoder (bench/hf_models.py: `transformers`
classes, random weights), called with token ids and an all-ones attention mask.

Per shape, every system's output is checked against eager's first (a failed check is a table
entry, not a time), then the systems are timed interleaved, R rounds, medians. Compiles are
counted and timed: Versa's dynamic compile once (its first call), Versa's static one per shape
(the first call of each), Inductor's per shape (first call less the median: its recompiles
show up there). The table goes to stdout and into bench/RESULTS.md between the
`report.DYNAMIC_BEGIN`/`DYNAMIC_END` markers (the rest of the file is never touched).

Memory: each model is measured in a spawned process of its own (as bench/isolate.py measures a
row), which sends its results back after each shape and exits, so nothing of one model (its
compiles, Inductor's graphs, the ONNX session, the allocators' heaps) is resident during the
next; a process that dies (OOM-killed) keeps the shapes it sent, and the reason is a note. In
it VERSA_MEMORY_CACHE_SIZE=0 (unless set): the in-process executable cache keeps only what a
live object holds, not the last ~6 GB of static compiles (a quarter of the machine by default:
with it, the BERT-base and Llama-style grid grew by ~3 GB a shape, 13.5 GB after BERT's four).
"""

import argparse
import os
import re
import shlex
import sys
import time
from pathlib import Path

from bench.fusion import fix_threads_for

HERE = Path(__file__).resolve().parent


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=".venv/bin/python -m bench.dynamic_shapes",
        description="Time a dynamic compile against a static compile per shape, Inductor dynamic and "
        "ONNX Runtime over a batch x sequence grid; writes a section of bench/RESULTS.md.",
    )
    parser.add_argument("--models", metavar="REGEX", help="only models whose name matches (re.search)")
    parser.add_argument("--batches", default="1,4,16", help="batch sizes (default 1,4,16)")
    parser.add_argument("--seqs", default="16,128,512", help="sequence lengths (default 16,128,512)")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds R (default 5)")
    parser.add_argument("--threads", type=int, default=None, help="threads per system (default: all cores)")
    parser.add_argument(
        "--peers",
        default="",
        metavar="REGEX",
        help="peers whose name matches (default: all of torch eager, Inductor dynamic, ONNX Runtime; "
        "'^$' for none: Versa dynamic against Versa static only, where the peers would not fit in memory)",
    )
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="markdown file to update")
    args = parser.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(",")]
    args.seqs = [int(s) for s in args.seqs.split(",")]
    if args.repeat < 1 or min(args.batches) < 1 or min(args.seqs) < 2:
        parser.error("--repeat and batches must be at least 1, sequences at least 2")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    threads = fix_threads_for(args.threads)
    os.environ.setdefault("VERSA_CACHE_DIR", "off")  # cold compiles: their times are measured
    os.environ.setdefault("VERSA_MEMORY_CACHE_SIZE", "0")  # no compile kept beyond its row (above)

    from bench import dynamic_report, dynamic_systems, machine

    models = [m for m in dynamic_systems.MODELS if not args.models or re.search(args.models, m.name)]
    if not models:
        print(f"no model matches --models {args.models!r}", file=sys.stderr)
        return 1
    command = ".venv/bin/python -m bench.dynamic_shapes" + "".join(f" {shlex.quote(a)}" for a in argv)
    shapes = [(b, s) for b in args.batches for s in args.seqs]
    started = time.perf_counter()
    print(f"machine: {machine.cpu_name()}, {threads} thread(s); shapes {shapes}", flush=True)
    measured = []
    for model in models:  # the section is rewritten after each model: a killed run keeps those done
        print(f"{model.name} ...", flush=True)
        measured.append(_isolated(model.name, shapes, args.repeat, threads, args.peers))
        elapsed = time.perf_counter() - started
        section = dynamic_report.section(measured, command, machine.cpu_name(), threads, args.repeat, elapsed)
        dynamic_report.write(args.output, section)
    print(section)
    print(f"wrote {args.output} ({elapsed:.0f} s)")
    return 0


def _isolated(model: str, shapes, repeat: int, threads: int, peers: str):
    """`dynamic_systems.measure` of `model` (its name) in a spawned child; the shapes it sent
    before it died, if it did, with the reason as a note."""
    import multiprocessing

    from bench import dynamic_systems
    from bench.isolate import death_reason

    context = multiprocessing.get_context("spawn")  # not fork: see bench/isolate.py
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(model, shapes, repeat, threads, peers, send), name=model)
    sys.stdout.flush()
    sys.stderr.flush()
    child.start()
    send.close()  # the child holds the only writing end: its exit reads as EOF here
    latest = dynamic_systems.Measured(model)
    try:
        while True:
            try:
                latest = receive.recv()
            except EOFError:
                break
        child.join()
    except KeyboardInterrupt:
        child.terminate()
        child.join()
        raise
    finally:
        receive.close()
    if child.exitcode != 0:
        why = death_reason(child.exitcode).replace("row process", "the model's process")
        print(f"  {model}: {why}", flush=True)
        latest.notes.append(f"{why}, after {len(latest.times)} of {len(shapes)} shapes")
    return latest


def _child(model: str, shapes, repeat: int, threads: int, peers: str, send) -> None:
    """The child: measure `model`, sending the results after each shape, then exit."""
    import resource

    import torch

    from bench import dynamic_systems

    def log(line: str) -> None:
        print(line, flush=True)

    torch.set_grad_enabled(False)
    torch.set_num_threads(threads)
    try:
        found = next(m for m in dynamic_systems.MODELS if m.name == model)
        dynamic_systems.measure(found, shapes, repeat, threads, log, peers, done=send.send)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)  # KiB on Linux
        log(f"  peak resident memory of {model}'s process: {peak:.1f} GB")
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        send.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
