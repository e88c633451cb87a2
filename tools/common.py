"""What every Versa tool shares: reading input (and `.npz` arrays, under the per-buffer limit),
writing output, the sizes of dynamic dims, and the error contract (a located diagnostic and
exit code 1, never a Python traceback)."""

import argparse
import math
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

import numpy as np
from versa import log, targets
from versa.call_shapes import ShapeError, ShapeProgram
from versa.diagnostics import CompileError, error_at
from versa.optimizer import units

TRACEBACK_ENV = "VERSA_TRACEBACK"
MAX_BUFFER_ENV = "VERSA_MAX_BUFFER_BYTES"
DEFAULT_MAX_BUFFER_BYTES = 4 << 30  # 4 GiB per argument or result buffer
NPZ_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first member, or an empty zip


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


def max_buffer_bytes() -> int:
    """The per-buffer limit: `VERSA_MAX_BUFFER_BYTES` if set, else 4 GiB."""
    text = os.environ.get(MAX_BUFFER_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_BUFFER_BYTES
    try:
        limit = int(text)
    except ValueError:
        limit = -1
    if limit < 0:
        raise ToolError(f"{MAX_BUFFER_ENV} must be a non-negative number of bytes, got '{text}'")
    return limit


def refuse_over(location, what: str, size: int, limit: int) -> None:
    if size > limit:
        raise error_at(
            location,
            f"{what} needs {size} bytes ({human_bytes(size)}), more than the limit of "
            f"{limit} bytes (set {MAX_BUFFER_ENV} to raise it)",
        )


def read_npz(path: str, names: list[str]) -> list[np.ndarray]:
    """The arrays `names` from the .npz at `path`. np.load is lazy (a member is decompressed
    and checked when read), so the reads are guarded too: any failure is a ToolError."""
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic not in NPZ_MAGIC:
            raise ToolError(f"could not read inputs '{path}': not an .npz file (no zip header)")
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as data:  # closed on bad zips too
            missing = [name for name in names if name not in data]
            if missing:
                raise ToolError(f"'{path}' lacks {', '.join(missing)}")
            for name in names:  # NumPy allocates the declared shape before it reads the data
                refuse_over(None, f"'{path}': {name}", _declared_bytes(data, name), max_buffer_bytes())
            return [np.asarray(data[name]) for name in names]
    except CompileError as err:
        raise ToolError(err.diagnostics[0].message) from None
    except ToolError:
        raise
    except Exception as err:  # BadZipFile, EOFError, zlib.error, ValueError (pickles), MemoryError, ...
        reason = str(err) or type(err).__name__
        raise ToolError(f"could not read inputs '{path}': {reason}") from None


def _declared_bytes(data, name: str) -> int:
    """The size of the array `name` of an open .npz, from its .npy header alone."""
    with data.zip.open(f"{name}.npy") as member:
        version = np.lib.format.read_magic(member)
        read_header = (
            np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        )
        shape, _, dtype = read_header(member)
    return math.prod(shape) * dtype.itemsize


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


def add_dynamic_dims(parser: argparse.ArgumentParser) -> None:
    """`--dim` and `--input-shape`: the sizes of a function's dynamic dims (`dynamic_shapes`)."""
    parser.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="NAME=N",
        help="size of a dynamic dim: its symbol (the argument's versa.dims) or argI.dimD",
    )
    parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="argI=D0,D1,...",
        help="the whole shape of argument I of a function with dynamic dims",
    )


def dynamic_shapes(program: ShapeProgram, dims: list[str], shapes: list[str], location=None) -> tuple:
    """The argument shapes that `--dim NAME=N` and `--input-shape argI=D0,...` flags give a
    function with dynamic dims; ToolError if malformed, a diagnostic at the function's
    `location` if a dynamic dim lacks a size."""
    given = {}
    for name, sizes in input_shapes(shapes).items():
        if not (name.startswith("arg") and name[3:].isdigit()):
            raise ToolError(f"--input-shape {name}=...: name an argument as argI (arg0, arg1, ...)")
        given[int(name[3:])] = tuple(sizes)
    symbols = {}
    for item in dims:
        name, _, size = item.rpartition("=")
        if not name or not size.isdigit():
            raise ToolError(f"--dim {item!r}: expected NAME=N with N a non-negative integer")
        symbols[name] = int(size)
    unknown = [f"--dim {name}" for name in symbols if name not in program.symbols()]
    unknown += [f"--input-shape arg{i}" for i in given if i >= len(program.arguments)]
    if unknown:
        have = ", ".join(program.symbols())
        raise ToolError(
            f"{', '.join(unknown)}: the function has no such dim or argument "
            f"(its dynamic dims: {have}; {len(program.arguments)} argument(s))"
        )
    try:
        return program.argument_shapes(symbols, given)
    except ShapeError as err:
        raise error_at(location, f"{err}: give --dim NAME=N or --input-shape argI=D0,D1,...") from None
