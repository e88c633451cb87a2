"""Ahead-of-time compilation: a versa function as an object or shared library, plus a C header.

Code for a library runs without Versa, on a machine that may not be this one, so it is lowered
with `lower-to-llvm{standalone=1}` (serial, needing only libc and libm) for the chosen target.
The entry keeps MLIR's C interface, `_mlir_ciface_<name>(desc*...)`: inputs, then one
caller-allocated output per result. Every other function becomes internal, so the object
exports that one symbol (a model called `main` cannot clash with the program's `main`). The
header (aot_header.py) is written from the func's signature *before* lowering, the only place
the shapes, element types and dim symbols are still known.

Dynamic dims (`tensor<?x64xf32>`, symbols and ranges in `versa.dims`/`versa.dim_ranges` as for
the JIT) cross in the descriptors' sizes and strides: the code reads them, as the JIT's does.
The caller allocates the results, so it needs their sizes before the call, and the code trusts
the sizes it is given; the header therefore carries the JIT's per-call checks and the results'
sizes as C (`<name>_shapes`), derived from the same shape rules evaluated symbolically
(aot_dims.py). Callee-allocated results (MLIR's returned memrefs) would need a free function
and a runtime allocator contract, and still no check of the inputs; a result size no rule gives
(an op without a shape rule, a rule that needs the number) is refused with a located error.
"""

import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from versa import compiler, translate
from versa.cpu.aot_dims import Dynamic
from versa.cpu.aot_header import C_TYPES, SERIAL, Buffer, Entry, header  # noqa: F401 (aot.header, ...)
from versa.cpu.symbols import LIBC, LIBM
from versa.diagnostics import CompileError, Diagnostic, error_at, location_line_col
from versa.mlir import ir
from versa.options import CompileOptions
from versa.reference import numpy_dtype
from versa.signature import find_function
from versa.targets import Target

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_lowered(module: ir.Module) -> bool:
    """Whether `module` holds only ops LLVM IR translation takes (llvm, nvvm, omp)."""
    return translate.first_untranslatable(module.operation) is None


def _buffer(t: ir.Type, function, what: str) -> Buffer:
    if not isinstance(t, ir.RankedTensorType):
        raise error_at(function.location, f"{what} is {t}: a compiled entry takes ranked tensors only")
    element = str(t.element_type)
    if element not in C_TYPES:
        known = ", ".join(C_TYPES)
        raise error_at(function.location, f"{what} has element type {element}: not one of {known}")
    shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape)
    return Buffer(shape, element, numpy_dtype(t.element_type))


def entry_of(module: ir.Module, name: str | None) -> Entry:
    """The C interface of the entry func (by name, else the last one, like versa-run)."""
    function = find_function(module, name)
    name = function.attributes["sym_name"].value
    if not _C_IDENTIFIER.fullmatch(name):
        raise error_at(function.location, f"entry '{name}' is not a C identifier: rename the func")
    inputs = tuple(_buffer(t, function, f"arg{i}") for i, t in enumerate(function.type.inputs))
    outputs = tuple(_buffer(t, function, f"result{i}") for i, t in enumerate(function.type.results))
    return Entry(name, inputs, outputs, Dynamic.of(function))


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
    default = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, module.context), 0)
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and op.operation.regions[0].blocks:
            if op.attributes["sym_name"].value != keep:
                op.attributes["linkage"] = internal
                # local linkage must have default visibility (versa-buffer-cache's are hidden)
                op.attributes["visibility_"] = default


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
