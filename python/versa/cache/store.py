"""The compile cache on disk: one file per key, written whole or not at all, checked when read.

    <folder>/v1/<key[:2]>/<key[2:]>.entry

An entry is one file, so that one rename commits it: a header line with the format and a sha256
of everything after it, a JSON line of metadata (what the loader needs and `versa cache info`
shows), then the payload (a shared library). One file and one checksum leave no state in which
a reader could pair metadata with another writer's payload, and a byte flipped anywhere (header,
metadata or code) fails the check: the entry is deleted and the caller compiles again. An entry
is never loaded unchecked.

A reader copies the payload to a private file (the kernel copies it: `sendfile`) and checks
the copy, so the code it then loads is exactly the code it checked, whatever happens to the
entry meanwhile. Writers go through `versa.files.atomic_write` (temporary file in the same
folder, fsync, rename, fsync of the folder): a writer killed at any point leaves either no
entry or a whole one, plus at most a `.tmp-*` file (or link folder) that the next eviction
removes once it is an hour old. Two writers of one key both rename a whole entry of the same
compile over the name: the last one stays, either is right. Readers need no lock.

A checksum finds corruption, not tampering: whoever can write an entry can plant code. So the
folders are created private (0700, files 0600) and code is loaded only from an entry file and
folders this user owns and nobody else may write (`_private`; SECURITY.md).

The access time a least-recently-used eviction needs is the entry's mtime, set on every hit
(atime is unreliable: `relatime`/`noatime` mounts). Eviction runs after each write: entries,
oldest use first, are removed until the total is at most the limit (`VERSA_CACHE_SIZE`).
"""

import datetime
import hashlib
import json
import mmap
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from versa import log
from versa.files import atomic_write, copy_range

FORMAT = 1
MAGIC = b"VERSA-CACHE"
SUFFIX = ".entry"
STALE_TEMPORARY_S = 3600  # a `.tmp-*` file this old is a killed writer's, not a running one's

_log = log.get("cache")


class CorruptEntry(ValueError):
    """An entry that fails its checks: truncated, a flipped byte, another format or key."""


@dataclass(frozen=True)
class Entry:
    key: str
    meta: dict[str, Any]
    payload: bytes


@dataclass(frozen=True)
class Info:
    folder: Path
    entries: int
    total_bytes: int
    limit_bytes: int
    oldest_use: float | None  # seconds since the epoch
    newest_use: float | None


def _header(key: str, meta: dict[str, Any], size: int) -> bytes:
    """The metadata line of an entry whose payload has `size` bytes."""
    meta = {**meta, "key": key, "payload_bytes": size}
    return json.dumps(meta, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _first_line(checksum: str) -> bytes:
    return b"%s %d %s\n" % (MAGIC, FORMAT, checksum.encode())


def encode(key: str, meta: dict[str, Any], payload: bytes) -> bytes:
    line = _header(key, meta, len(payload))
    return _first_line(hashlib.sha256(line + payload).hexdigest()) + line + payload


def check(key: str, first: bytes, line: bytes, payload) -> dict[str, Any]:
    """The metadata of an entry read as its first line, metadata line and payload (bytes, a
    memoryview or an mmap), every byte checked; CorruptEntry otherwise."""
    parts = first.rstrip(b"\n").split(b" ")
    if len(parts) != 3 or parts[0] != MAGIC or parts[1] != str(FORMAT).encode():
        raise CorruptEntry("not a cache entry of this format")
    digest = hashlib.sha256(line)
    digest.update(payload)
    if digest.hexdigest().encode() != parts[2]:
        raise CorruptEntry("checksum mismatch")
    try:
        meta = json.loads(line)
    except ValueError:
        raise CorruptEntry("unreadable metadata") from None
    if not isinstance(meta, dict) or meta.get("key") != key or meta.get("payload_bytes") != len(payload):
        raise CorruptEntry("metadata does not match the entry")
    return meta


def decode(key: str, data: bytes) -> Entry:
    """The entry in `data`, checked whole; CorruptEntry otherwise."""
    view = memoryview(data)
    first_end = data.find(b"\n") + 1
    line_end = data.find(b"\n", first_end) + 1
    if not 0 < first_end < line_end:
        raise CorruptEntry("truncated")
    meta = check(key, data[:first_end], data[first_end:line_end], view[line_end:])
    return Entry(key, meta, bytes(view[line_end:]))


class Store:
    """The entries under `folder` (created on the first write), at most `limit` bytes."""

    def __init__(self, folder: str | os.PathLike, limit: int):
        self.folder = Path(folder)
        self.root = self.folder / f"v{FORMAT}"
        self.limit = limit

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key[2:]}{SUFFIX}"

    def get(self, key: str) -> Entry | None:
        """The checked entry of `key`, read whole and marked as used now; None when there is
        none (a corrupt one is removed, with a warning)."""
        path = self.path(key)
        try:
            with open(path, "rb") as f:  # the payload read once, into the bytes returned
                first, line, payload = f.readline(200), f.readline(1 << 20), f.read()
        except FileNotFoundError:
            return None
        try:
            meta = check(key, first, line, payload)
        except CorruptEntry as err:
            return self._corrupt(path, err)
        self._used(path)
        return Entry(key, meta, payload)

    def checkout(self, key: str, copy: Path) -> dict[str, Any] | None:
        """The payload of `key` copied to the new file `copy` (by the kernel) and checked there,
        so that what the caller then uses is exactly what was checked; the metadata, or None
        when there is no entry (a corrupt one is removed, with a warning)."""
        path = self.path(key)
        try:
            entry = os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb")
        except FileNotFoundError:
            return None
        with entry, open(copy, "wb") as target:
            if not self._private(entry.fileno(), path.parent, self.root):
                _log.warning("%s or its folders are writable by others: not loading code from it", path)
                return None
            first, line = entry.readline(200), entry.readline(1 << 20)
            size = os.fstat(entry.fileno()).st_size - entry.tell()
            copy_range(entry.fileno(), target.fileno(), entry.tell(), size)
            try:
                with _mapped(copy, size) as payload:
                    meta = check(key, first, line, payload)
            except CorruptEntry as err:
                return self._corrupt(path, err)
        self._used(path)
        return meta

    @staticmethod
    def _private(*files: int | Path) -> bool:
        """Whether each file (an open descriptor) or folder is this user's and nobody else may
        write it: code is loaded only from there (SECURITY.md)."""
        for file in files:
            stat = os.fstat(file) if isinstance(file, int) else os.stat(file)
            if stat.st_uid != os.getuid() or stat.st_mode & 0o022:
                return False
        return True

    def _corrupt(self, path: Path, err: Exception) -> None:
        _log.warning("corrupt cache entry %s (%s): removed, compiling again", path, err)
        path.unlink(missing_ok=True)

    @staticmethod
    def _used(path: Path) -> None:
        try:
            os.utime(path)  # the last use, for eviction
        except OSError:
            pass

    def put(self, key: str, meta: dict[str, Any], payload: Path) -> Path:
        """Write the entry of `key` with the file `payload` (atomically, durably), then evict
        down to the limit."""
        path = self.path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        for folder in (self.root, path.parent):  # private: see `_private`
            folder.mkdir(mode=0o700, exist_ok=True)
        meta = {**meta, "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
        size = payload.stat().st_size
        line = _header(key, meta, size)
        digest = hashlib.sha256(line)
        with _mapped(payload, size) as data:
            digest.update(data)
        atomic_write(path, [_first_line(digest.hexdigest()), line, payload], durable=True)
        self.evict()
        return path

    def _files(self) -> list[tuple[Path, os.stat_result]]:
        """The files of the shards (entries, temporaries) and the link folders beside them."""
        found = []
        for path in [*self.root.glob("??/*"), *self.root.glob(".tmp-*")]:
            try:
                found.append((path, path.stat()))
            except FileNotFoundError:  # evicted or renamed meanwhile
                pass
        return found

    def evict(self) -> None:
        """Remove killed writers' leftovers, then the least recently used entries while the
        total exceeds the limit (an entry larger than the limit goes too)."""
        entries, now = [], time.time()
        for path, stat in self._files():
            if path.suffix == SUFFIX:
                entries.append((stat.st_mtime, stat.st_size, path))
            elif path.name.startswith(".tmp-") and now - stat.st_mtime > STALE_TEMPORARY_S:
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.limit:
                break
            path.unlink(missing_ok=True)
            total -= size
            _log.info("evicted %s (%d bytes; %d bytes left, limit %d)", path.name, size, total, self.limit)

    def info(self) -> Info:
        entries = [stat for path, stat in self._files() if path.suffix == SUFFIX]
        uses = [stat.st_mtime for stat in entries]
        total = sum(stat.st_size for stat in entries)
        oldest, newest = (min(uses), max(uses)) if uses else (None, None)
        return Info(self.folder, len(entries), total, self.limit, oldest, newest)

    def clear(self) -> int:
        """Remove every entry, of every format (`v<N>` folders; nothing else in the folder, which
        a user may have pointed at a folder of their own); the number of entries removed."""
        count = sum(1 for _ in self.folder.glob(f"v[0-9]*/??/*{SUFFIX}"))
        for folder in self.folder.glob("v[0-9]*"):
            shutil.rmtree(folder, ignore_errors=True)
        return count


@contextmanager
def _mapped(path: Path, size: int) -> Iterator[bytes | mmap.mmap]:
    """The first `size` bytes of a file, mapped (read once, by the hash; no copy in Python)."""
    if size == 0:  # mmap refuses empty files
        yield b""
        return
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ) as data:
        yield data
