"""versa-translate: compile a versa function ahead of time (mlir-translate for Versa).

    versa-translate model.mlir --emit-shared -o libmodel.so --header model.h
    versa-translate model.mlir --target aarch64-sve --emit-obj -o model.o
    versa-translate model.mlir --mlir-to-llvmir | less

Versa IR is lowered with `lower-to-llvm{target=T opt-level=N standalone=1}` (serial code that
needs only libc and libm); input already in the llvm dialect is translated as it is. An entry
with dynamic dims takes its sizes in the descriptors; its header checks a call's sizes and gives
its results' (`<name>_shapes`, see versa.cpu.aot), and nothing is written when they cannot be.
"""

import argparse
import importlib
import math
import os
import sys

from versa import compiler, targets, translate
from versa.context import make_context
from versa.cpu import aot
from versa.diagnostics import CompileError, Diagnostic, error_at
from versa.mlir import ir
from versa.tools.common import (
    ArgumentParser,
    ToolError,
    human_bytes,
    read_input,
    tool_main,
    write_binary,
    write_output,
)
from versa.tools.versa_run import MAX_BUFFER_ENV, max_buffer_bytes

MODES = {
    "--mlir-to-llvmir": "LLVM IR text",
    "--emit-asm": "assembly (PTX for nvptx targets)",
    "--emit-obj": "an ELF object (position-independent)",
    "--emit-shared": "a shared library that needs only libc and libm",
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-translate", description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", default="-")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-': stdout, the default)")
    mode = parser.add_mutually_exclusive_group()
    for flag, what in MODES.items():
        mode.add_argument(flag, dest="mode", action="store_const", const=flag, help=what)
    parser.add_argument("--header", help="also write the entry's C header to this file")
    parser.add_argument("--target", default="x86-64", help="see --list-targets (default: x86-64)")
    parser.add_argument(
        "-O", "--opt-level", dest="opt_level", type=int, default=3, choices=range(4), help="0-3 (default 3)"
    )
    parser.add_argument("--entry", help="the entry func (default: the last one)")
    parser.add_argument("--list-targets", action="store_true")
    args = parser.parse_args(argv)
    if not args.list_targets and args.mode is None:
        parser.error(f"choose what to emit: one of {', '.join(MODES)}")
    return args


def target_named(name: str) -> targets.Target:
    try:
        return targets.resolve(name)
    except targets.UnknownTarget:
        known = ", ".join(n for n in targets.NAMES if n != "host")
        raise ToolError(f"unknown target '{name}' (known: {known}; see --list-targets)") from None
    except targets.TargetError as err:
        raise ToolError(str(err)) from None


def check_paths(args: argparse.Namespace) -> None:
    """No output may overwrite the input or the other output."""
    outputs = [p for p in (args.output, args.header) if p not in (None, "-")]
    if len(outputs) == 2 and _same(*outputs):
        raise ToolError(f"-o and --header name the same file '{args.output}'")
    for path in outputs:
        if args.input != "-" and _same(path, args.input):
            raise ToolError(f"refusing to overwrite the input file '{args.input}' with the output")


def _same(a: str, b: str) -> bool:
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.list_targets:
        sys.stdout.write(targets.listing() + "\n")
        return 0
    target = target_named(args.target)
    check_paths(args)
    filename, data = read_input(args.input)
    try:
        module = compiler.parse_module(compiler.Chunk(compiler.decode(data), 1), make_context())
        check_constant_sizes(module, max_buffer_bytes())
        if target.kind == "gpu":
            emit_gpu(module, target, args)
        else:
            emit_cpu(module, target, args, os.path.basename(filename))
    except CompileError as err:
        sys.stderr.write(err.format(filename) + "\n")
        return 1
    return 0


def check_constant_sizes(module: ir.Module, limit: int) -> None:
    """Refuse a constant over the buffer limit: it would be embedded in the code, and LLVM
    aborts the process on one of 2^32 elements or more."""

    def visit(op: ir.Operation) -> ir.WalkResult:
        for name in op.attributes:
            attr = op.attributes[name]
            if isinstance(attr, ir.DenseElementsAttr) and attr.type.has_static_shape:
                width = getattr(attr.type.element_type, "width", 64)
                sizes.append((math.prod(attr.type.shape) * max(1, width // 8), op.location))
        return ir.WalkResult.ADVANCE

    sizes: list[tuple[int, ir.Location]] = []
    module.operation.walk(visit)
    for size, location in sizes:
        if size > limit:
            raise error_at(
                location,
                f"a constant of {size} bytes ({human_bytes(size)}) is over the limit of {limit} bytes "
                f"for code (set {MAX_BUFFER_ENV} to raise it)",
            )


def emit_cpu(module: ir.Module, target: targets.Target, args: argparse.Namespace, source: str) -> None:
    """Lower (unless already lowered), then write the chosen output and the header."""
    entry = aot.lower(module, target, args.opt_level, args.entry)
    if args.header and entry is None:
        raise CompileError(
            [Diagnostic("error", "--header needs versa IR input: the shapes are gone from lowered IR")]
        )
    if args.mode == "--mlir-to-llvmir":
        result: str | bytes = translate.to_llvm_ir(module.operation)
    elif args.mode == "--emit-asm":
        result = translate.emit_assembly(module.operation, target, args.opt_level)
    else:
        result = translate.emit_object(module.operation, target, args.opt_level)
        if args.mode == "--emit-shared":
            aot.check_symbols(module)
            default = f"lib{entry.name if entry else 'model'}.so"
            soname = os.path.basename(args.output) if args.output != "-" else default
            result = aot.link_shared(result, target, soname)
    # Everything compiled: only now are files written (no half-written outputs on errors).
    if isinstance(result, bytes):
        write_binary(args.output, result)
    else:
        write_output(args.output, result)
    if args.header:
        write_output(args.header, aot.header(entry, target, source, args.opt_level))


def emit_gpu(module: ir.Module, target: targets.Target, args: argparse.Namespace) -> None:
    """GPU targets give PTX: versa IR is lowered with `lower-to-nvvm` and its kernels compiled by
    `versa.gpu.compile_ptx`; a module already in the llvm/nvvm dialects is translated as it is."""
    if args.mode not in ("--emit-asm", "--mlir-to-llvmir") or args.header:
        raise ToolError(f"target '{target.name}' is a GPU: only --emit-asm (PTX) and --mlir-to-llvmir apply")
    if aot.is_lowered(module):
        if args.mode == "--emit-asm":
            write_output(args.output, translate.emit_assembly(module.operation, target, args.opt_level))
        else:
            write_output(args.output, translate.to_llvm_ir(module.operation))
        return
    compile_ptx = getattr(_gpu_module(), "compile_ptx", None)
    if compile_ptx is None or args.mode != "--emit-asm":
        what = "--emit-asm gives its PTX" if compile_ptx else "lower it with lower-to-nvvm first"
        raise CompileError([Diagnostic("error", f"GPU targets: --mlir-to-llvmir takes llvm/nvvm IR; {what}")])
    if not any(op.operation.name == "gpu.module" for op in module.body.operations):
        compiler.run_passes(module, compiler.parse_pipeline(f"lower-to-nvvm{{chip={target.chip}}}"))
    write_output(args.output, compile_ptx(module, target))


def _gpu_module():
    try:
        return importlib.import_module("versa.gpu")
    except ImportError:
        return None


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
