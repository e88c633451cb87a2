"""Ahead-of-time compilation: a versa function as an object or shared library, plus a C header.

Code for a library runs without Versa, on a machine that may not be this one, so it is lowered
with `lower-to-llvm{standalone=1}` (serial, needing only libc and libm) for the chosen target.
The entry keeps MLIR's C interface, `_mlir_ciface_<name>(desc*...)`: inputs, then one
caller-allocated output per result. Every other function becomes internal, so the object
exports that one symbol (a model called `main` cannot clash with the program's `main`). The
header is written from the func's signature *before* lowering, the only place the static
shapes and element types are still known.
"""

import math
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from versa import compiler, translate
from versa.cpu.symbols import LIBC, LIBM
from versa.diagnostics import CompileError, Diagnostic, error_at, location_line_col
from versa.mlir import ir
from versa.options import CompileOptions
from versa.reference import numpy_dtype
from versa.signature import find_function
from versa.targets import Target

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Element type → its C type. f16 crosses as its IEEE bits, i1 as one byte (LLVM stores it so),
# ui8 (quantized data: i8 once lowered) as the unsigned byte it is to the caller.
_C_TYPES = {
    "f32": "float",
    "f64": "double",
    "f16": "uint16_t",
    "i64": "int64_t",
    "i32": "int32_t",
    "i8": "int8_t",
    "ui8": "uint8_t",
    "i1": "uint8_t",
}


@dataclass(frozen=True)
class Buffer:
    """One argument or result of the entry: a C-contiguous array."""

    shape: tuple[int, ...]
    element: str  # the MLIR element type: f32, i8, ...
    dtype: np.dtype

    @property
    def c_type(self) -> str:
        return _C_TYPES[self.element]

    @property
    def struct(self) -> str:
        return f"versa_memref_{len(self.shape)}d_{self.element}"

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(math.prod(self.shape[i + 1 :]) for i in range(len(self.shape)))


@dataclass(frozen=True)
class Entry:
    """The entry point's C interface: its name and buffers (inputs, then results)."""

    name: str
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]

    @property
    def symbol(self) -> str:
        return f"_mlir_ciface_{self.name}"


def is_lowered(module: ir.Module) -> bool:
    """Whether `module` holds only ops LLVM IR translation takes (llvm, nvvm, omp)."""
    return translate.first_untranslatable(module.operation) is None


def _buffer(t: ir.Type, function, what: str) -> Buffer:
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        raise error_at(function.location, f"{what} is {t}: a compiled entry takes static tensor shapes only")
    element = str(t.element_type)
    if element not in _C_TYPES:
        known = ", ".join(_C_TYPES)
        raise error_at(function.location, f"{what} has element type {element}: not one of {known}")
    return Buffer(tuple(t.shape), element, numpy_dtype(t.element_type))


def entry_of(module: ir.Module, name: str | None) -> Entry:
    """The C interface of the entry func (by name, else the last one, like versa-run)."""
    function = find_function(module, name)
    name = function.attributes["sym_name"].value
    if not _C_IDENTIFIER.fullmatch(name):
        raise error_at(function.location, f"entry '{name}' is not a C identifier: rename the func")
    inputs = tuple(_buffer(t, function, f"arg{i}") for i, t in enumerate(function.type.inputs))
    outputs = tuple(_buffer(t, function, f"result{i}") for i, t in enumerate(function.type.results))
    return Entry(name, inputs, outputs)


def lower(module: ir.Module, target: Target, opt: int = 3, entry: str | None = None) -> Entry | None:
    """Lower versa IR in place for `target` as a library; the entry's interface, or None when
    the module was already in the llvm dialect (its shapes are gone then)."""
    if is_lowered(module):
        if entry is not None:
            _ciface(module, f"_mlir_ciface_{entry}")
        return None
    found = entry_of(module, entry)
    function = find_function(module, found.name)
    function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(module.context)
    options = CompileOptions(target, opt_level=opt, threads=1, standalone=True)
    compiler.run_passes(module, options.lowering())
    wrapper = _ciface(module, found.symbol)
    count = len(wrapper.regions[0].blocks[0].arguments)
    if count != len(found.inputs) + len(found.outputs):
        raise CompileError(
            [Diagnostic("error", f"'{found.symbol}' takes {count} arguments, expected inputs + out-params")]
        )
    _internalize(module, keep=found.symbol)
    return found


def _ciface(module: ir.Module, symbol: str) -> ir.Operation:
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and op.attributes["sym_name"].value == symbol:
            return op.operation
    raise CompileError([Diagnostic("error", f"the lowered module has no '{symbol}'")])


def _internalize(module: ir.Module, keep: str) -> None:
    internal = ir.Attribute.parse("#llvm.linkage<internal>", module.context)
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and op.operation.regions[0].blocks:
            if op.attributes["sym_name"].value != keep:
                op.attributes["linkage"] = internal


def check_symbols(module: ir.Module) -> None:
    """A library links only libc and libm: a located error at any other external function."""
    errors = []
    for op in module.body.operations:
        if op.operation.name != "llvm.func" or op.operation.regions[0].blocks:
            continue
        name = op.attributes["sym_name"].value
        if not name.startswith("llvm.") and name not in LIBC | LIBM:
            line, col = location_line_col(op.location)
            errors.append(
                Diagnostic(
                    "error",
                    f"'{name}' is neither in libc nor libm: a Versa library links only those "
                    "(lower with lower-to-llvm{standalone=1}, which needs no OpenMP runtime)",
                    line,
                    col,
                )
            )
    if errors:
        raise CompileError(errors)


def linker(target: Target) -> str:
    """The C compiler driver that links for `target`: `cc` on the host, else the GNU cross gcc."""
    if target.is_host:
        return "cc"
    return f"{target.triple.split('-')[0]}-linux-gnu-gcc"


def link_shared(obj: bytes, target: Target, soname: str) -> bytes:
    """A shared library (`soname`) of one object, linked against libc and libm only."""
    with tempfile.TemporaryDirectory() as tmp:
        source, library = Path(tmp, "model.o"), Path(tmp, soname)
        source.write_bytes(obj)
        link_shared_file(source, library, target, soname)
        return library.read_bytes()


def link_shared_file(
    obj: Path, library: Path, target: Target, soname: str, libraries: Sequence[str] = ()
) -> None:
    """`link_shared` from file to file (a model's library holds its weights: hundreds of MB),
    also against `libraries` (paths: the compile cache's OpenMP runtime) where the code calls
    them, found at run time in their folders (DT_RPATH, which LD_LIBRARY_PATH does not override)."""
    driver = linker(target)
    if shutil.which(driver) is None:
        package = "" if target.is_host else f" (Debian: apt-get install gcc-{driver.removesuffix('-gcc')})"
        raise CompileError(
            [Diagnostic("error", f"linking for target '{target.name}' needs '{driver}', not found{package}")]
        )
    command = [driver, "-shared", "-o", str(library), str(obj), f"-Wl,-soname,{soname}"]
    command += ["-Wl,-z,defs", "-Wl,--as-needed", "-lm"]
    for path in libraries:
        command += [path, f"-Wl,--disable-new-dtags,-rpath,{Path(path).parent}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise CompileError([Diagnostic("error", f"'{driver}' could not link: {done.stderr.strip()}")])


# The C header ------------------------------------------------------------------------------------


def _struct(buffer: Buffer) -> str:
    """The descriptor typedef, guarded so that two models' headers can share one unit."""
    name, t, rank = buffer.struct, buffer.c_type, len(buffer.shape)
    fields = [f"{t} *allocated;", f"{t} *aligned;", "int64_t offset;"]
    fields += [f"int64_t sizes[{rank}];", f"int64_t strides[{rank}];"] if rank else []
    body = "".join(f"  {f}\n" for f in fields)
    guard = name.upper()
    return f"#ifndef {guard}\n#define {guard}\ntypedef struct {name} {{\n{body}}} {name};\n#endif\n"


def _macros(prefix: str, label: str, buffer: Buffer) -> list[str]:
    shape = ", ".join(map(str, buffer.shape))
    lines = [f"#define {prefix}_{label}_RANK {len(buffer.shape)}"]
    lines += [f"#define {prefix}_{label}_SHAPE {{{shape}}}"] if buffer.shape else []
    return [*lines, f"#define {prefix}_{label}_SIZE {buffer.size} /* elements */"]


def _initializer(buffer: Buffer, pointer: str) -> str:
    cast = f"({buffer.c_type} *){pointer}"
    parts = [cast, cast, "0"]
    if buffer.shape:
        parts += [
            "{" + ", ".join(map(str, buffer.shape)) + "}",
            "{" + ", ".join(map(str, buffer.strides)) + "}",
        ]
    return "{" + ", ".join(parts) + "}"


def _wrap(head: str, items: list[str], tail: str = ");", indent: str = "") -> str:
    """`head(items...)tail` on one line when it fits in 100 columns, else one item per line."""
    line = f"{indent}{head}({', '.join(items)}{tail}"
    if len(line) <= 100:
        return line
    return f"{indent}{head}(\n" + ",\n".join(f"{indent}    {item}" for item in items) + tail


SERIAL = "The code is serial and needs only libc and libm (it may malloc temporaries)."


def header(
    entry: Entry,
    target: Target,
    source: str,
    opt: int = 3,
    made_by: str = "versa-translate",
    runtime: str = SERIAL,
) -> str:
    """The C header of a compiled entry: descriptors, the symbol, shapes, two call helpers;
    `runtime` says what the code needs to run (a sentence of the header's comment)."""
    name, prefix, n_in = entry.name, entry.name.upper(), len(entry.inputs)
    buffers = [*entry.inputs, *entry.outputs]
    labels = [f"arg{i}" for i in range(n_in)] + [f"result{i}" for i in range(len(entry.outputs))]
    pairs = list(zip(labels, buffers, strict=True))
    shapes = [f"{label}: {b.element}[{'x'.join(map(str, b.shape))}]" for label, b in pairs]
    macros = [f"#define {prefix}_NUM_INPUTS {n_in}", f"#define {prefix}_NUM_OUTPUTS {len(entry.outputs)}"]
    for label, buffer in pairs:
        macros += _macros(prefix, label.upper(), buffer)
    sizes = ", ".join(str(b.size * b.dtype.itemsize) for b in buffers) or "0"
    macros.append(f"#define {prefix}_BUFFER_BYTES {{{sizes}}} /* inputs, then outputs */")
    params = [f"{b.struct} *{label}" for label, b in pairs] or ["void"]
    plain = [f"{'const ' if i < n_in else ''}{b.c_type} *{label}" for i, (label, b) in enumerate(pairs)]
    descriptors = "".join(f"  {b.struct} d_{label} = {_initializer(b, label)};\n" for label, b in pairs)
    call = _wrap(entry.symbol, [f"&d_{label}" for label in labels], indent="  ")
    packed = _wrap(f"{name}_run", [f"({b.c_type} *)buffers[{i}]" for i, b in enumerate(buffers)], indent="  ")
    guard = f"VERSA_{prefix}_H"
    return f"""\
/* The C interface of '{name}', compiled ahead of time by {made_by} from {source}
 * (target {target.name}, -O{opt}); generated, do not edit.
 *
 * {name}({", ".join(shapes[:n_in])})
 *   -> {", ".join(shapes[n_in:]) or "nothing"}
 * Inputs, then one caller-allocated output per result: C-contiguous buffers of the shapes
 * below. {runtime} */
#ifndef {guard}
#define {guard}

#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

/* MLIR's memref descriptor: the buffer, its offset, sizes and strides (in elements). */
{"".join(dict.fromkeys(_struct(b) for b in buffers))}
{chr(10).join(macros)}

{_wrap(f"void {entry.symbol}", params)}

/* {entry.symbol} on plain C-contiguous arrays. */
{_wrap(f"static inline void {name}_run", plain or ["void"], ") {")}
{descriptors}{call}
}}

/* {name}_run with its buffers in one array (inputs, then outputs), for generic drivers. */
static inline void {name}_run_packed(void *const *buffers) {{
{"  (void)buffers;" + chr(10) if not buffers else ""}{packed}
}}

#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""
