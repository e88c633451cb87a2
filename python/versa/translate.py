"""The MLIR → LLVM IR → machine code boundary, in one place.

MLIR's bindings translate the llvm dialect to LLVM IR *text* (their LLVM is 24); llvmlite
(LLVM 22, with the X86, AArch64 and NVPTX backends the bindings lack) parses that text and
emits objects, assembly and PTX. Three things make the boundary delicate, and all live here:
the translation segfaults when an op of another dialect is left (so the ops are checked first,
with a located diagnostic); LLVM 22 cannot parse LLVM 24's float constants (`f0x3F4C422A`,
inexact decimals, `inf`), which `for_llvmlite` rewrites to the hex doubles every LLVM reads;
and NVPTX code calls libdevice's `__nv_*` math, which is linked from the CUDA wheel.
"""

import re
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np

from versa.diagnostics import CompileError, Diagnostic, error_at
from versa.mlir import ir, llvm_dialect
from versa.targets import Target

# Ops the translation understands: llvm, NVVM intrinsics, OpenMP and the module structure.
_TRANSLATABLE = ("llvm.", "nvvm.", "omp.", "builtin.module")


@cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def first_untranslatable(module: ir.Operation) -> ir.Operation | None:
    """The first op that LLVM IR translation would crash on, if any (None: fully lowered)."""
    bad: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if not op.name.startswith(_TRANSLATABLE):
            bad.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return bad[0] if bad else None


def check_translatable(module: ir.Operation) -> None:
    """A located error at the first op that LLVM IR translation would crash on."""
    bad = first_untranslatable(module)
    if bad is not None:
        raise error_at(
            bad.location,
            f"'{bad.name}' cannot be translated to LLVM IR: lower the module to the llvm dialect "
            "first (lower-to-llvm or lower-to-nvvm)",
        )


def to_llvm_ir(module: ir.Operation) -> str:
    """LLVM IR text (LLVM 24's dialect) of a module that holds only llvm/nvvm ops."""
    check_translatable(module)
    return llvm_dialect.translate_module_to_llvmir(module)


_FLOAT_TYPES = {"half": np.float16, "bfloat": None, "float": np.float32, "double": np.float64}
# A float constant, with its type when written (`float f0x3F800000`) or bare, where the type
# is the instruction's (`fdiv float %x, f0x3FB504F3`, `fmul float %x, 4.471500e-02`): no integer
# has an `f0x` prefix, a decimal point or an exponent, and `inf`/`nan` are only floats.
_CONSTANT = re.compile(
    r"(?:\b(half|bfloat|float|double) |(?<=[\s(,]))"
    r"(f0x[0-9A-Fa-f]+|[-+]?(?:inf|q?nan)|[-+]?\d+\.\d*(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+)"
    r"(?=[\s,)\]>}]|$)"
)
_TYPE = re.compile(r"\b(half|bfloat|float|double)\b")


def bfloat_bits(value: float) -> int:
    bits = int(np.float32(value).view(np.uint32))
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even


def _hex(kind: str, token: str) -> str:
    """`token` (a constant of type `kind`) in LLVM's hex syntax, which every version reads."""
    if token.startswith("f0x"):
        bits = int(token[3:], 16)
        if kind == "double":
            return f"0x{bits:016X}"
        if kind == "bfloat":
            return f"0xR{bits:04X}"
        value = np.array([bits], {"half": np.uint16, "float": np.uint32}[kind]).view(_FLOAT_TYPES[kind])[0]
    else:
        value = float(token.replace("qnan", "nan"))
    if kind == "double":
        return f"0x{int(np.float64(value).view(np.uint64)):016X}"
    if kind == "half":
        return f"0xH{int(np.float16(value).view(np.uint16)):04X}"
    if kind == "bfloat":
        return f"0xR{bfloat_bits(value):04X}"
    # A float constant is written as the double of the same value (LLVM's rule for floats).
    return f"0x{int(np.float64(np.float32(value)).view(np.uint64)):016X}"


def _rewrite_line(line: str) -> str:
    if "f0x" not in line and not _TYPE.search(line):
        return line
    first = _TYPE.search(line)
    default = first.group(1) if first else None

    def rewrite(match: re.Match) -> str:
        kind, token = match.group(1), match.group(2)
        if kind is None and default is None:
            return match.group(0)  # no float type on the line: not a float constant
        hexed = _hex(kind or default, token)
        return f"{kind} {hexed}" if kind else hexed

    return _CONSTANT.sub(rewrite, line)


def for_llvmlite(text: str) -> str:
    """LLVM 24's IR text in the syntax LLVM 22 parses: every float constant as hex."""
    return "\n".join(_rewrite_line(line) for line in text.split("\n"))


def parse(text: str, target: Target) -> llvm.ModuleRef:
    """LLVM 24 IR text as a verified llvmlite module for `target`."""
    _initialize()
    try:
        module = llvm.parse_assembly(for_llvmlite(text))
        module.verify()
    except RuntimeError as err:
        raise CompileError(
            [Diagnostic("error", f"LLVM could not read the translated module: {err}")]
        ) from None
    module.triple = target.triple
    module.data_layout = str(target_machine(target).target_data)
    return module


def target_machine(target: Target, *, opt: int = 3) -> llvm.TargetMachine:
    """LLVM's code generator for `target` (position-independent code, for shared libraries)."""
    _initialize()
    return llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=target.cpu, features=target.llvm_features, opt=opt, reloc="pic", codemodel="default"
    )


def optimize(module: llvm.ModuleRef, target: Target, level: int = 3) -> None:
    """LLVM's own O`level` pipeline, tuned for `target`."""
    machine = target_machine(target, opt=level)
    options = llvm.create_pipeline_tuning_options(speed_level=level)
    builder = llvm.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)


def compile_module(module: ir.Operation, target: Target, opt: int = 3) -> llvm.ModuleRef:
    """Translate, parse and optimise a lowered module for `target`."""
    if target.kind != "cpu":
        raise CompileError([Diagnostic("error", f"target '{target.name}' is not a CPU target")])
    machine_module = parse(to_llvm_ir(module), target)
    optimize(machine_module, target, opt)
    return machine_module


def emit_object(module: ir.Operation, target: Target, opt: int = 3) -> bytes:
    """An ELF object for `target` (a CPU) from a module lowered to the llvm dialect."""
    return target_machine(target, opt=opt).emit_object(compile_module(module, target, opt))


def emit_assembly(module: ir.Operation, target: Target, opt: int = 3) -> str:
    """The assembly text `emit_object` would assemble (PTX for GPU targets)."""
    if target.kind == "gpu":
        return emit_ptx(to_llvm_ir(module), target)
    return target_machine(target, opt=opt).emit_assembly(compile_module(module, target, opt))


# NVPTX -----------------------------------------------------------------------------------------


def cuda_toolkit() -> Path | None:
    """The `nvidia-cuda-nvcc-cu12` wheel's root (ptxas, libdevice), if installed."""
    try:
        import nvidia.cuda_nvcc  # noqa: PLC0415  (an optional wheel)
    except ImportError:
        return None
    root = Path(next(iter(nvidia.cuda_nvcc.__path__)))
    return root if (root / "nvvm/libdevice/libdevice.10.bc").exists() else None


def _link_libdevice(module: llvm.ModuleRef) -> None:
    """Link libdevice when the kernels call `__nv_*` math, and make its functions internal so
    that the optimiser drops every one that is not called."""
    if not any(f.is_declaration and f.name.startswith("__nv_") for f in module.functions):
        return
    toolkit = cuda_toolkit()
    if toolkit is None:
        raise CompileError(
            [Diagnostic("error", "GPU math needs libdevice: install the 'nvidia-cuda-nvcc-cu12' wheel")]
        )
    libdevice = llvm.parse_bitcode((toolkit / "nvvm/libdevice/libdevice.10.bc").read_bytes())
    libdevice.triple = module.triple
    libdevice.data_layout = module.data_layout
    module.link_in(libdevice)
    for function in module.functions:
        if function.name.startswith("__nv") and not function.is_declaration:
            function.linkage = "internal"


def emit_ptx(kernels: str | llvm.ModuleRef, target: Target, opt: int = 3) -> str:
    """PTX for kernels: the LLVM IR text of a translated `gpu.module`, or a parsed module."""
    if target.kind != "gpu":
        raise CompileError([Diagnostic("error", f"target '{target.name}' is not a GPU target")])
    module = parse(kernels, target) if isinstance(kernels, str) else kernels
    _link_libdevice(module)
    optimize(module, target, opt)
    return target_machine(target, opt=opt).emit_assembly(module)


def assemble_ptx(ptx: str, target: Target) -> bytes:
    """A cubin from PTX for the architecture it targets (`target.cpu`: sm_90a, whose wgmma plain
    sm_90 lacks), by the CUDA wheel's `ptxas` (no GPU needed)."""
    toolkit = cuda_toolkit()
    if toolkit is None:
        raise CompileError([Diagnostic("error", "assembling PTX needs the 'nvidia-cuda-nvcc-cu12' wheel")])
    with tempfile.TemporaryDirectory() as tmp:
        source, cubin = Path(tmp, "kernels.ptx"), Path(tmp, "kernels.cubin")
        source.write_text(ptx)
        done = subprocess.run(
            [str(toolkit / "bin/ptxas"), f"-arch={target.cpu}", str(source), "-o", str(cubin)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise CompileError([Diagnostic("error", f"ptxas rejected the PTX: {done.stderr.strip()}")])
        return cubin.read_bytes()
