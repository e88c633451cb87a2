"""Files that several processes share: written whole or not at all, read under a lock.

The tuning database and the compile cache are read and written by processes that may run at
once or be killed at any point. A reader must never see half a file, so a file is written to a
temporary name in its own folder (same filesystem) and renamed over the final name, which POSIX
makes atomic: the name holds the old file or the new one, never a mixture. `durable` adds the
fsyncs that make the new content survive a crash of the machine too (the data before the rename,
the folder after it), for files whose loss costs minutes of compiling.
"""

import fcntl
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


def atomic_write(
    path: str | os.PathLike, data: bytes | Sequence[bytes | Path], *, durable: bool = False
) -> None:
    """Replace `path` by `data` atomically (a killed writer leaves at most a `.tmp-*` file):
    bytes, or parts written one after the other, a Path part as its file's content (copied by
    the kernel: a compiled library need not pass through Python)."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".tmp-{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            for part in [data] if isinstance(data, bytes) else data:
                if isinstance(part, Path):
                    handle.flush()
                    with open(part, "rb") as source:
                        copy_range(source.fileno(), handle.fileno(), 0, os.fstat(source.fileno()).st_size)
                    handle.seek(0, os.SEEK_END)
                else:
                    handle.write(part)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if durable:
        sync_folder(path.parent)


def copy_range(source: int, target: int, offset: int, count: int) -> None:
    """`count` bytes of the file `source` from `offset` appended at `target`'s position, copied
    by the kernel (sendfile); OSError when `source` ends before."""
    while count > 0:
        sent = os.sendfile(target, source, offset, count)
        if sent == 0:
            raise OSError(f"the file ended {count} bytes early")
        offset, count = offset + sent, count - sent


def sync_folder(folder: str | os.PathLike) -> None:
    """fsync a folder, so that a rename or unlink in it is on disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """An exclusive lock on the side file `<path>.lock` (fcntl: released if the holder dies)."""
    path = Path(path)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
