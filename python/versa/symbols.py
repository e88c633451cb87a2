"""What a lowered module may call: the check that runs before the JIT is created.

The ExecutionEngine resolves external functions lazily, from the process. A name nobody
provides (`memrefCopy` from MLIR's C runner library, which the bindings do not ship; a
user's undeclared helper) does not fail compilation: LLVM prints "Symbols not found", the
lookup yields a null address and the first call kills the process. So every external
`llvm.func` of the lowered module is checked here against what the runtime provides: an
allowlist (libc's memory functions, libm, the OpenMP runtime's entry points when it is loaded) that must
also resolve in this process. A miss is a diagnostic at the op that needs the function.
"""

import ctypes
from collections.abc import Callable

from versa.diagnostics import CompileError, Diagnostic, location_line_col
from versa.mlir import ir

LIBC = frozenset(["malloc", "free", "aligned_alloc", "calloc", "realloc", "memcpy", "memmove", "memset"])
_MATH = (
    "exp exp2 expm1 log log2 log10 log1p pow sqrt cbrt sin cos tan asin acos atan atan2 sinh cosh "
    "tanh asinh acosh atanh erf erfc fabs floor ceil round trunc rint fmod copysign fma hypot"
).split()
LIBM = frozenset([*_MATH, *(f"{name}f" for name in _MATH)])

_PROCESS = ctypes.CDLL(None)


def _resolves(name: str) -> bool:
    try:
        getattr(_PROCESS, name)
    except AttributeError:
        return False
    return True


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
    allowed = LIBC | LIBM
    errors = []
    for decl in _external_functions(module):
        name = decl.attributes["sym_name"].value
        if name.startswith("llvm.") or (name in allowed and _resolves(name)):
            continue
        if name.startswith(("__kmpc_", "omp_")) and provided(name):
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
