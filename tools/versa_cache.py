"""versa cache: the compile cache on disk (`versa.cache`).

    versa cache info     its folder, entries, total size and limit, least and most recent use
    versa cache clear    remove every entry (the next compile of each model compiles again)

The folder is VERSA_CACHE_DIR (default $XDG_CACHE_HOME/versa, else ~/.cache/versa; `off`
disables the cache), the limit VERSA_CACHE_SIZE (default 2G).
"""

import argparse
import datetime

from versa import environment
from versa.cache.store import Store
from versa.tools.common import ToolError, human_bytes

SUMMARY = "show or empty the compile cache"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("info", help="folder, entries, size, limit")
    actions.add_parser("clear", help="remove every entry")


def open_store() -> Store | None:
    """The cache the environment names, or None when it is off; ToolError for a bad setting or
    a folder that is not one."""
    folder = environment.cache_dir()
    if folder is None:
        return None
    try:
        limit = environment.cache_size()
    except ValueError as err:
        raise ToolError(str(err)) from None
    if folder.exists() and not folder.is_dir():
        raise ToolError(f"{environment.CACHE_DIR}: '{folder}' is not a folder")
    return Store(folder, limit)


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def run(args: argparse.Namespace) -> int:
    store = open_store()
    if store is None:
        print(f"compile cache: off ({environment.CACHE_DIR} turns it off)")
        return 0
    try:
        if args.action == "clear":
            print(f"removed {store.clear()} entries from {store.folder}")
            return 0
        info = store.info()
    except OSError as err:
        raise ToolError(f"compile cache '{store.folder}': {err.strerror or err}") from None
    print(f"folder:     {info.folder}")
    print(f"entries:    {info.entries}")
    print(f"size:       {human_bytes(info.total_bytes)} ({info.total_bytes} bytes)")
    print(f"limit:      {human_bytes(info.limit_bytes)} ({info.limit_bytes} bytes)")
    print(f"oldest use: {_when(info.oldest_use)}")
    print(f"newest use: {_when(info.newest_use)}")
    return 0
