"""Print what `versa-opt` prints for every file under test/, into one folder, to compare two trees.

A refactoring that claims no behaviour change (NFC) is checked by running this before and after
and diffing the folders (`diff -r`):

    .venv/bin/python scripts/ir_snapshot.py /tmp/ir-before
    ... the change ...
    .venv/bin/python scripts/ir_snapshot.py /tmp/ir-after && diff -r /tmp/ir-before /tmp/ir-after

Extra arguments (paths under test/) snapshot only those files. Reproducer file names, which are
random, are masked.

For each file it records, per `versa-opt` command in the file's RUN lines (the command up to the
first pipe, `%s` filled in), the exit code, stdout and stderr; and for every `.mlir` file, also
the malformed corpus, what `versa-opt` prints for it through the whole CPU pipeline for both x86
ISA levels (errors included). Targets are named, so the output does not depend on the host.
"""

import concurrent.futures
import hashlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT / "test"
BIN = Path(sys.executable).parent
FULL = [
    "--pass-pipeline=builtin.module(versa-layout{target=%s},versa-canonicalize,versa-fuse,"
    "lower-to-llvm{target=%s})",
]


def run_commands(path: Path) -> list[list[str]]:
    """The versa-opt commands of `path`'s RUN lines (continuations joined), `%s` filled in."""
    text = path.read_text(errors="replace")
    lines = re.findall(r"//\s*RUN:(.*)", text)
    joined, commands = "", []
    for line in lines:
        joined += line.rstrip()
        if joined.endswith("\\"):
            joined = joined[:-1]
            continue
        for segment in joined.split("|"):
            words = shlex.split(segment.replace("%s", str(path)))
            while words and words[0] in ("not", "env") or (words and "=" in words[0]):
                words = words[1:]
            if words and words[0] == "versa-opt":
                commands.append(words)
        joined = ""
    for level in ("x86-64-v3", "x86-64-v4"):
        commands.append(["versa-opt", FULL[0].replace("%s", level), str(path)])
    return commands


def snapshot(path: Path) -> str:
    parts = []
    for words in run_commands(path):
        env = {k: v for k, v in os.environ.items() if k != "VERSA_HOST_TARGET"}
        try:
            done = subprocess.run(
                [str(BIN / words[0]), *words[1:]], capture_output=True, timeout=300, env=env, cwd=ROOT
            )
            out, err, rc = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = b"", b"timeout", -1
        shown = " ".join(words).replace(str(ROOT), "<root>")
        parts.append(f"$ {shown}\nrc={rc}\n--- stdout sha256 {hashlib.sha256(out).hexdigest()}\n")
        err_text = err.decode(errors="replace").replace(str(ROOT), "<root>")
        err_text = re.sub(r"versa-reproducer-\w+\.mlir", "versa-reproducer-<tmp>.mlir", err_text)
        parts.append(err_text + "\n")
    return "".join(parts)


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in TEST.rglob("*.mlir") if "Output" not in p.parts)
    if len(sys.argv) > 2:  # only these files (paths under test/)
        files = [TEST / name for name in sys.argv[2:]]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for path, text in zip(files, pool.map(snapshot, files), strict=True):
            name = str(path.relative_to(TEST)).replace("/", "__")
            (out / f"{name}.txt").write_text(text)
    print(f"{len(files)} files -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
