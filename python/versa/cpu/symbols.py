"""What a lowered module may call: the check that runs before the JIT is created.

The ExecutionEngine resolves external functions lazily, from the process. A name nobody
provides (`memrefCopy` from MLIR's C runner library, which the bindings do not ship; a
user's undeclared helper) does not fail compilation: LLVM prints "Symbols not found", the
lookup yields a null address and the first call kills the process. So every external
`llvm.func` of the lowered module is checked here against what the runtime provides: an
allowlist (libc's memory functions, libm, the OpenMP runtime's entry points when it is loaded) that must
also resolve in this process. A miss is a diagnostic at the op that needs the function.

LLVM's code generator adds calls of its own that no MLIR module shows: libcalls for what the
CPU has no instruction for (compiler-rt's `__truncsfbf2` for f32 -> bf16 without AVX512-BF16,
`__divti3` for 128-bit division). Those only appear in the object file, so
`object_undefined_symbols` reads an ELF object's symbol table and `unprovided_object_symbols`
checks it against the same allowlist (the test that compiles every op for every CPU target).
"""

import ctypes
import struct
from collections.abc import Callable, Iterable

import llvmlite.binding as llvm

from versa.diagnostics import CompileError, Diagnostic, location_line_col
from versa.mlir import ir

LIBC = frozenset(
    "malloc free malloc_usable_size aligned_alloc calloc realloc memcpy memmove memset clock_gettime".split()
)
_MATH = (
    "exp exp2 expm1 log log2 log10 log1p pow sqrt cbrt sin cos tan asin acos atan atan2 sinh cosh "
    "tanh asinh acosh atanh erf erfc fabs floor ceil round trunc rint fmod copysign fma hypot"
).split()
LIBM = frozenset([*_MATH, *(f"{name}f" for name in _MATH)])

# Names the static linker itself defines (the GOT's base for PIC code): never a dependency.
LINKER_INTERNAL = frozenset(["_GLOBAL_OFFSET_TABLE_", "_DYNAMIC"])

_PROCESS = ctypes.CDLL(None)


def _resolves(name: str) -> bool:
    try:
        getattr(_PROCESS, name)
    except AttributeError:
        return False
    return True


def is_provided(name: str, provided: Callable[[str], bool] = lambda _: False) -> bool:
    """Whether compiled code may call `name`: the one allowlist of the JIT check and the object
    check. `provided(name)`: whether a shared library handed to the JIT defines `name` (the
    OpenMP runtime's `__kmpc_*` entry points)."""
    if name.startswith("llvm.") or (name in LIBC | LIBM and _resolves(name)):
        return True
    return name.startswith(("__kmpc_", "omp_")) and provided(name)


def _external_functions(module: ir.Module) -> list[ir.Operation]:
    return [
        op.operation
        for op in module.body.operations
        if op.operation.name == "llvm.func" and not op.operation.regions[0].blocks
    ]


def _first_user(module: ir.Module, name: str) -> ir.Operation | None:
    """The first op that calls or takes the address of `name`."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        for attr in ("callee", "global_name"):
            if attr in op.attributes and str(op.attributes[attr]).strip('@"') == name:
                found.append(op)
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0] if found else None


def check_external_symbols(module: ir.Module, provided: Callable[[str], bool] = lambda _: False) -> None:
    """Raise CompileError for every external function the JIT could not resolve.

    `provided(name)`: whether a shared library handed to the JIT defines `name` (the OpenMP
    runtime's `__kmpc_*` entry points).
    """
    errors = []
    for decl in _external_functions(module):
        name = decl.attributes["sym_name"].value
        if is_provided(name, provided):
            continue
        user = _first_user(module, name)
        where = user if user is not None else decl
        line, col = location_line_col(where.location)
        what = f"'{user.name}'" if user is not None else "the module"
        errors.append(
            Diagnostic(
                "error",
                f"function '{name}' is not provided by the Versa runtime (needed by {what}); "
                "it would be an unresolved symbol in the JIT",
                line,
                col,
            )
        )
    if errors:
        raise CompileError(errors)


# ELF64 (every CPU target is a 64-bit little-endian one): Elf64_Sym is st_name (u32), st_info,
# st_other (u8), st_shndx (u16), st_value, st_size (u64); section index 0 is SHN_UNDEF.
_ELF64_SYM = struct.Struct("<IBBHQQ")


def object_undefined_symbols(obj: bytes) -> set[str]:
    """The names an ELF object needs from elsewhere (its undefined symbols).

    Why not `nm`: a host's binutils may not read another architecture's objects (aarch64 on
    x86), and shelling out is not portable. Why not pyelftools: llvmlite, already a dependency,
    parses the object (any architecture LLVM knows) and hands out its sections; what it does not
    expose, the symbol table, is fixed 24-byte records that `struct` reads in a few lines.
    """
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF object")
    sections = {s.name(): s.data() for s in llvm.ObjectFileRef.from_data(obj).sections() if s.name()}
    table, names = sections.get(b".symtab", b""), sections.get(b".strtab", b"")
    undefined = set()
    for name_offset, _, _, shndx, _, _ in _ELF64_SYM.iter_unpack(table):
        if shndx == 0 and name_offset:
            undefined.add(names[name_offset : names.index(b"\0", name_offset)].decode())
    return undefined


def unprovided_object_symbols(
    symbols: Iterable[str], provided: Callable[[str], bool] = lambda _: False
) -> set[str]:
    """The undefined symbols of an object that nothing in Versa's runtime provides (the JIT
    would fail to resolve them; a Versa library would not link with libc and libm alone)."""
    return {name for name in symbols if name not in LINKER_INTERNAL and not is_provided(name, provided)}
