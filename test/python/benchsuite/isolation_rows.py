"""A row table for test_isolation.py: rows a spawned child finds by name (bench/isolate.py's
`table`), one cheap and one that kills its process the way the kernel's OOM killer does."""

import os
import signal

from bench.rows import Row, relu

PROBE = "BENCH_ISOLATION_PROBE"  # set by the test in the parent; the child must see it


def _small_relu():
    if os.environ.get(PROBE) != "inherited":  # a child that lost the parent's environment
        raise RuntimeError(f"{PROBE} is {os.environ.get(PROBE)!r} in the row's process")
    return relu(4096)


def _killed():
    os.kill(os.getpid(), signal.SIGKILL)


ROWS = [Row("relu 4K", "memory", _small_relu), Row("killed row", "compute", _killed)]
