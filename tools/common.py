"""What every Versa tool shares: reading input, writing output, and the error contract
(a located diagnostic and exit code 1, never a Python traceback)."""

import argparse
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

from versa import log, targets
from versa.diagnostics import CompileError
from versa.optimizer import units

TRACEBACK_ENV = "VERSA_TRACEBACK"


class ToolError(Exception):
    """A problem with the tool's own input (a missing file, a bad flag)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error exits with 1 like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(1)


def add_verbosity(parser: argparse.ArgumentParser) -> None:
    """`-v`: log more than VERSA_LOG says, one level per `v` (versa.log)."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log to stderr: -v passes and their times, cache hits (info), -vv debug",
    )


def configure_logging(verbosity: int = 0) -> None:
    """VERSA_LOG raised by `verbosity` steps; a VERSA_LOG that is no level is a ToolError."""
    try:
        log.configure(verbosity)
    except ValueError as err:
        raise ToolError(str(err)) from None


def human_bytes(n: int) -> str:
    """`n` bytes in binary units: 400000000000 -> '372.5 GiB' (the optimizer's writing)."""
    return units.size(n)


def read_input(path: str) -> tuple[str, bytes]:
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return path, f.read()
    except OSError as err:
        raise ToolError(f"could not open input file '{path}': {err.strerror}") from None


def write_output(path: str, text: str) -> None:
    if not text.endswith("\n"):
        text += "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    _write_file(path, text.encode())


def write_binary(path: str, data: bytes) -> None:
    """Write `data` to `path`; to stdout (`-`) only when it is not a terminal."""
    if path == "-":
        if sys.stdout.isatty():
            raise ToolError("refusing to write binary output to a terminal: give -o FILE")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return
    _write_file(path, data)


def _write_file(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as err:
        raise ToolError(f"could not write output file '{path}': {err.strerror}") from None


def tool_main(run: Callable[[list[str]], int]) -> None:
    prog = os.path.basename(sys.argv[0])
    try:
        configure_logging()  # a bad VERSA_LOG stops every tool with exit code 1
        code = run(sys.argv[1:])
    except (ToolError, targets.TargetError) as err:  # a target the machine or environment names
        sys.stderr.write(f"{prog}: error: {err}\n")
        code = 1
    except CompileError as err:
        sys.stderr.write(err.format(prog) + "\n")
        code = 1
    except MemoryError:
        sys.stderr.write(f"{prog}: error: out of memory\n")
        code = 1
    except KeyboardInterrupt:
        code = 130
    except Exception as err:  # a bug in Versa, not in the input: still no traceback
        sys.stderr.write(f"{prog}: error: internal error: {type(err).__name__}: {err}\n")
        sys.stderr.write(f"{prog}: note: please report it with its input ({TRACEBACK_ENV}=1: traceback)\n")
        if os.environ.get(TRACEBACK_ENV):
            traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.exit(code)


def input_shapes(specs: list[str]) -> dict[str, list[int]]:
    """`--input-shape NAME=D0,D1,...` flags (repeatable) as {name: dims}; ToolError if malformed."""
    shapes = {}
    for spec in specs:
        name, _, dims = spec.rpartition("=")
        try:
            shapes[name] = [int(d) for d in dims.split(",")]
        except ValueError:
            raise ToolError(f"--input-shape {spec!r}: expected NAME=D0,D1,... with integer dims") from None
        if not name:
            raise ToolError(f"--input-shape {spec!r}: expected NAME=D0,D1,...")
    return shapes
