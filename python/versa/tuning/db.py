"""The tuning database: the best measured strategy point per op signature and machine kind.

A JSON file (`VERSA_TUNING_DB`, or `tuning_db=` on a compile): readable, diffable, copyable to
another machine of the same kind. An entry is keyed by

    target fingerprint   what the point was measured on: triple, CPU, ISA features, vector
                         width and registers, the three cache sizes, cores
    threads              the thread count of the code (a split tuned for 2 is wrong for 16)
    op signature         `versa.passes.cpu.strategies.signature`: the strategy family, the op
                         (shapes, types, indexing, body) and its fused epilogue
    code version         Versa's version and a digest of the strategies' source: a point is a
                         fact about the code that emits it, not just the op

and holds the point (knob values), the default and the best median seconds and when it was
measured. A lookup that finds nothing leaves the analytic choice; so does a point the strategy
rejects (`InvalidPoint`: an entry written for other code). Writes go to a temporary file that
replaces the database atomically, under an exclusive lock on a side file, re-reading the
database inside the lock: two tuners writing at once both keep their entries.
"""

import datetime
import json
import os
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from versa import environment
from versa.files import atomic_write, locked
from versa.targets import Target
from versa.version import source_digest, version

DEFAULT_PATH = "versa-tuning.json"  # where a tune with no database named writes
SCHEMA = 1


@cache
def code_digest() -> str:
    """A digest of the codegen strategies' source (passes/cpu/strategies/*.py)."""
    return f"{version()}+{source_digest(('versa.passes.cpu.strategies',), recursive=False)[:12]}"


def database_path(tuning_db: str | None) -> str:
    """`tuning_db`, else VERSA_TUNING_DB, else ./versa-tuning.json."""
    return str(tuning_db or environment.tuning_db() or DEFAULT_PATH)


def fingerprint(target: Target) -> str:
    l1, l2, l3 = target.caches
    features = ",".join(sorted(target.features))
    return (
        f"{target.triple}/{target.cpu}/{target.vector_bits}b x{target.vector_registers}/"
        f"L1 {l1} L2 {l2} L3 {l3}/{target.cores} cores/{features}"
    )


@dataclass
class Entry:
    target: str  # fingerprint
    threads: int
    signature: str  # the op signature's key
    version: str  # code_digest()
    op: str  # the signature in words
    strategy: str  # the family's class name
    point: dict[str, Any]
    default_s: float
    best_s: float
    candidates: int  # points measured
    measured: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    )

    @property
    def key(self) -> str:
        return entry_key(self.target, self.threads, self.signature, self.version)


def entry_key(target: str, threads: int, signature: str, version: str) -> str:
    return f"{target}|threads={threads}|{signature}|{version}"


class TuningDb:
    """Entries of one database file, read once per (path, size, mtime)."""

    def __init__(self, path: str | os.PathLike, entries: dict[str, Entry] | None = None):
        self.path = Path(path)
        self.entries = entries or {}

    @staticmethod
    def load(path: str | os.PathLike) -> "TuningDb":
        """The database at `path`, empty when there is none; ValueError when it is not one."""
        path = Path(path)
        if not path.exists():
            return TuningDb(path)
        stat = path.stat()
        return TuningDb(path, dict(_read(str(path), stat.st_size, stat.st_mtime_ns)))

    def lookup(self, target: Target, threads: int, signature: str) -> Entry | None:
        return self.entries.get(entry_key(fingerprint(target), threads, signature, code_digest()))

    def save(self, new: list[Entry]) -> None:
        """Merge `new` into the file (read again under the lock) and replace it atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path):
            current = TuningDb.load(self.path).entries if self.path.exists() else {}
            current.update({e.key: e for e in new})
            text = json.dumps(
                {"schema": SCHEMA, "entries": [asdict(e) for e in current.values()]}, indent=1, sort_keys=True
            )
            atomic_write(self.path, (text + "\n").encode())
            self.entries = current


@cache
def _read(path: str, size: int, mtime: int) -> tuple[tuple[str, Entry], ...]:
    try:
        data = json.loads(Path(path).read_text())
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}, expected {SCHEMA}")
        entries = [Entry(**item) for item in data["entries"]]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a Versa tuning database ({err})") from None
    return tuple((e.key, e) for e in entries)
