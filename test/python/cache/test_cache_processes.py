"""The compile cache across processes, tested like a database: a second process loads what a
first one wrote, a writer killed midway leaves no entry, two writers of one key leave one good
entry. Each process is a fresh Python (`cache_helpers.CHILD`); nothing here is timed."""

import os
import signal
import time

from cache_helpers import compile_in_a_process, entries, finish, start
from versa.cache.store import Store, decode

# Patches os.replace (which commits an entry) in the child: it says so on stderr, then waits.
PAUSE_BEFORE_COMMIT = """
import os, sys, time
_replace = os.replace
def _paused(source, target):
    if str(target).endswith(".entry"):
        print("COMMITTING", flush=True, file=sys.stderr)
        time.sleep(600)
    _replace(source, target)
os.replace = _paused
"""

# Both writers hold their whole entry under a temporary name until both do, then commit.
COMMIT_TOGETHER = """
import os, pathlib, time
_replace = os.replace
def _together(source, target):
    if str(target).endswith(".entry"):
        folder = pathlib.Path(os.environ["BARRIER"])
        (folder / str(os.getpid())).touch()
        deadline = time.monotonic() + 120
        while len(list(folder.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    _replace(source, target)
os.replace = _together
"""


def test_a_second_process_loads_the_code_and_skips_the_pipeline(tmp_path):
    first, log = compile_in_a_process(tmp_path)
    assert not first["from_cache"] and "cache miss" in log and "cache write" in log
    assert "passes in" in log  # VERSA_LOG=info: the pipeline ran, timed
    (entry,) = entries(tmp_path)
    second, log = compile_in_a_process(tmp_path)
    assert second["from_cache"] and "cache hit" in log
    assert "passes in" not in log and "versa-codegen" not in log  # no pass ran
    assert second["out"] == first["out"] and second["arena"] == first["arena"]
    assert entries(tmp_path) == [entry]


def test_a_writer_killed_before_its_commit_leaves_no_entry(tmp_path):
    writer = start(tmp_path, PAUSE_BEFORE_COMMIT)
    for line in writer.stderr:  # the log, then the pause
        if "COMMITTING" in line:
            break
    writer.send_signal(signal.SIGKILL)
    writer.communicate(timeout=60)  # reaped, its pipes closed
    assert entries(tmp_path) == []
    (leftover,) = tmp_path.glob("v*/??/.tmp-*")  # the whole entry, under a temporary name
    (link,) = tmp_path.glob("v*/.tmp-link-*")  # where the library was linked
    assert leftover.stat().st_size > 0
    report, log = compile_in_a_process(tmp_path)
    assert not report["from_cache"] and "cache write" in log
    again, _ = compile_in_a_process(tmp_path)
    assert again["from_cache"] and again["out"] == report["out"]
    old = time.time() - 2 * 3600  # an hour later, eviction removes the killed writer's files
    for path in (leftover, link):
        os.utime(path, (old, old))
    Store(tmp_path, 1 << 30).evict()
    assert not leftover.exists() and not link.exists() and len(entries(tmp_path)) == 1


def test_two_writers_of_one_key_leave_one_good_entry(tmp_path):
    cache, barrier = tmp_path / "cache", tmp_path / "barrier"
    barrier.mkdir()
    writers = [start(cache, COMMIT_TOGETHER, BARRIER=str(barrier)) for _ in range(2)]
    (a, log_a), (b, log_b) = (finish(w) for w in writers)
    assert len(list(barrier.iterdir())) == 2  # both reached the commit before either made it
    assert not a["from_cache"] and not b["from_cache"] and a["out"] == b["out"]
    assert "cache write" in log_a and "cache write" in log_b
    (entry,) = entries(cache)
    decode(entry.parent.name + entry.stem, entry.read_bytes())  # whole and checked
    third, _ = compile_in_a_process(cache)
    assert third["from_cache"] and third["out"] == a["out"]
