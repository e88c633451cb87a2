"""Judge programs in a long-lived subprocess, so that a crash or a hang in the compiler or in
JIT-compiled code becomes a finding instead of the end of the campaign.

Starting Python and the MLIR bindings costs ~0.5 s, more than judging a small program, so one
subprocess judges many programs (restarted after `RECYCLE` of them to bound memory, and after
every crash or timeout). The protocol is one JSON line per request on stdin and tagged lines
on stdout (`@@stage NAME` before each pipeline, `@@verdicts [...]` at the end): untagged
output that compiled code may print is ignored.

    python -m versa.fuzz.worker      # what `Worker` starts
"""

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

from .oracle import PIPELINES, Verdict, judge

STAGE, VERDICTS = "@@stage ", "@@verdicts "
RECYCLE = 200


class Worker:
    """A handle on one worker subprocess; `judge(text)` never raises for the program's sake."""

    def __init__(self, timeout: float = 60.0):
        self.timeout = timeout
        self.process: subprocess.Popen | None = None
        self.served = 0
        self.stderr = None

    def start(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "versa.fuzz.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )
        self.served = 0

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None

    def judge(self, text: str, pipelines: Sequence[str] = tuple(PIPELINES)) -> list[Verdict]:
        if self.process is None or self.served >= RECYCLE:
            self.stop()
            self.start()
        self.served += 1
        request = json.dumps({"text": text, "pipelines": list(pipelines)}) + "\n"
        try:
            self.process.stdin.write(request.encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        return self._read_verdicts()

    def _read_verdicts(self) -> list[Verdict]:
        stage, buffer, deadline = "startup", b"", time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.stop()
                    return [Verdict("finding", "timeout", stage, f"no result within {self.timeout:g} s")]
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    return [self._death(stage)]
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in (raw.decode(errors="replace") for raw in lines):
                    if line.startswith(STAGE):
                        stage = line.removeprefix(STAGE)
                    elif line.startswith(VERDICTS):
                        return [Verdict(**v) for v in json.loads(line.removeprefix(VERDICTS))]

    def _death(self, stage: str) -> Verdict:
        code = self.process.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        self.stop()
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
        return Verdict("finding", "signal", stage, f"the worker died with {how}: {' | '.join(tail)}")


def serve() -> None:
    """The subprocess side: judge each request line, answer with tagged lines."""
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not interleave with the protocol
    for line in sys.stdin:
        request = json.loads(line)

        def stage(name: str) -> None:
            out.write(f"{STAGE}{name}\n")
            out.flush()

        verdicts = judge(request["text"], request["pipelines"], on_stage=stage)
        out.write(VERDICTS + json.dumps([v.to_json() for v in verdicts]) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
