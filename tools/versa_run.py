"""versa-run: compile a versa function, JIT-run it, print or save its outputs.

    versa-run model.mlir --random --check --repeat 20
    versa-run model.mlir --inputs in.npz --output out.npz --fuse

`.npz` inputs are named arg0, arg1, ... in argument order; outputs are saved as result0, ...
A function with dynamic dims (`tensor<?x64xf32>`) runs at the sizes `--dim` and `--input-shape`
give its random inputs (or at those of the `.npz` arrays):

    versa-run model.mlir --random --dim batch=4 --input-shape arg1=4,128
"""

import argparse
import math
import statistics
import sys

import numpy as np
from versa import compiler, targets, tolerance
from versa.call_shapes import ShapeError, ShapeProgram
from versa.context import make_context
from versa.cpu.runtime import JitFunction, TensorSpec, find_function
from versa.diagnostics import error_at
from versa.mlir import func, ir
from versa.options import CompileOptions
from versa.passes.optimize.fuse import VersaFuse
from versa.reference import interpret
from versa.tools.common import (
    DEFAULT_MAX_BUFFER_BYTES,
    MAX_BUFFER_ENV,
    ArgumentParser,
    ToolError,
    add_dynamic_dims,
    add_verbosity,
    configure_logging,
    dynamic_shapes,
    max_buffer_bytes,
    read_input,
    read_npz,
    refuse_over,
    tool_main,
)

EPILOG = (
    f"Each argument and result buffer may hold at most {DEFAULT_MAX_BUFFER_BYTES} bytes (4 GiB); "
    f"a function with a larger one is refused before anything is allocated or compiled. "
    f"Set {MAX_BUFFER_ENV}=N (bytes) to change the limit."
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-run", description=__doc__.splitlines()[0], epilog=EPILOG)
    parser.add_argument("input")
    parser.add_argument("--entry", default=None, help="function to run (default: the last one)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", help=".npz file with arg0, arg1, ...")
    source.add_argument("--random", action="store_true", help="seeded random inputs")
    parser.add_argument("--seed", type=int, default=0)
    add_dynamic_dims(parser)
    parser.add_argument("--output", help="save results to this .npz (result0, result1, ...)")
    parser.add_argument(
        "--target",
        default="host",
        help="host (the JIT), an ISA level this CPU runs (x86-64-v3, x86-64-v4) or a GPU: "
        "nvptx-sm80, nvptx-sm90 (versa-opt --list-targets)",
    )
    parser.add_argument(
        "-O",
        "--O",
        "--opt-level",
        dest="opt_level",
        type=int,
        default=3,
        choices=range(4),
        help="0 plain loops, 1 vectorized elementwise, 2 + contraction kernels, 3 + threads (default)",
    )
    parser.add_argument(
        "--threads", type=int, default=0, help="threads at -O3 (default: VERSA_NUM_THREADS or all cores)"
    )
    parser.add_argument("--fuse", action="store_true", help="run versa-fuse before lowering")
    parser.add_argument("--check", action="store_true", help="compare with the NumPy reference")
    parser.add_argument("--repeat", type=int, default=0, help="time N calls, print the median")
    parser.add_argument(
        "--memory", action="store_true", help="print the peak bytes of the compiled function (CPU)"
    )
    add_verbosity(parser)
    return parser.parse_args(argv)


def random_input(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    """Seeded values of `spec` (whose shape is static: a dynamic one's sizes given first)."""
    if np.issubdtype(spec.dtype, np.integer):
        return rng.integers(-5, 6, spec.shape).astype(spec.dtype)
    return rng.uniform(-1.0, 1.0, spec.shape).astype(spec.dtype)


def check_buffer_sizes(function: func.FuncOp, limit: int) -> None:
    """Refuse an argument, result or intermediate tensor too large to allocate, before
    allocating or compiling: JIT code would get NULL from malloc, `--check` a MemoryError."""
    for kind, types in (("arg", function.type.inputs), ("result", function.type.results)):
        for i, t in enumerate(types):
            spec = TensorSpec.of(t)
            if spec.is_static:  # a dynamic one is checked at its call's size (`call_shapes`)
                refuse_over(function.location, f"{kind}{i} ({t})", spec.nbytes, limit)
    for op in _ops_in(function.operation):
        for value in op.results:
            if isinstance(value.type, ir.ShapedType) and value.type.has_static_shape:
                what = f"a result of '{op.name}' ({value.type})"
                refuse_over(op.location, what, _tensor_bytes(value.type), limit)


def _ops_in(op: ir.Operation) -> list[ir.Operation]:
    found: list[ir.Operation] = []
    op.walk(lambda o: found.append(o) or ir.WalkResult.ADVANCE)
    return found


def _tensor_bytes(t: ir.ShapedType) -> int:
    width = getattr(t.element_type, "width", 64)  # complex, index, ...: at most 8 bytes each
    return math.prod(t.shape) * max(1, width // 8)


def load_inputs(args: argparse.Namespace, specs: list[TensorSpec], function: func.FuncOp) -> list[np.ndarray]:
    program = ShapeProgram.of(function)
    if program is None and (args.dim or args.input_shape):
        raise ToolError("--dim and --input-shape size dynamic dims: this function has none")
    if args.inputs and (args.dim or args.input_shape):
        raise ToolError("--dim and --input-shape size random inputs: --inputs brings its own shapes")
    if args.inputs:
        arrays = read_npz(args.inputs, [f"arg{i}" for i in range(len(specs))])
        if program is not None:
            check_call(program, tuple(a.shape for a in arrays), function, f"'{args.inputs}': ")
        for i, (a, s) in enumerate(zip(arrays, specs, strict=True)):
            if s.is_static and a.shape != s.shape:
                raise ToolError(
                    f"'{args.inputs}': arg{i} has shape {list(a.shape)}, the function takes {list(s.shape)}"
                )
            if not np.can_cast(a.dtype, s.dtype, casting="same_kind"):
                raise ToolError(f"'{args.inputs}': arg{i} has dtype {a.dtype}, the function takes {s.dtype}")
        return [a.astype(s.dtype) for a, s in zip(arrays, specs, strict=True)]
    if args.random or not specs:
        if program is not None:
            shapes = dynamic_shapes(program, args.dim, args.input_shape, function.location)
            check_call(program, shapes, function)
            specs = [s.at(shape) for s, shape in zip(specs, shapes, strict=True)]
            for i, s in enumerate(specs):  # a static signature's were checked before
                refuse_over(None, f"arg{i} {list(s.shape)}", s.nbytes, max_buffer_bytes())
        rng = np.random.default_rng(args.seed)
        return [random_input(s, rng) for s in specs]
    raise ToolError("the function takes arguments: give --inputs FILE.npz or --random")


def check_call(program: ShapeProgram, shapes: tuple, function: func.FuncOp, where: str = "") -> None:
    """Refuse shapes the function does not take, or results over the limit, before compiling
    (the arguments' bytes are checked where they are made or read)."""
    try:
        results = program.resolve(shapes)
    except ShapeError as err:
        # located at the op whose rule refused the sizes, else at the function
        raise error_at(err.location or function.location, f"{where}{err.reason}") from None
    for i, (shape, t) in enumerate(zip(results, function.type.results, strict=True)):
        size = TensorSpec.of(t).at(shape).nbytes
        refuse_over(None, f"{where}result{i} {list(shape)}", size, max_buffer_bytes())


def pipeline_text(args: argparse.Namespace) -> str:
    """What `load` runs, as versa-opt's --pass-pipeline takes it: for the reproduce line."""
    options = f"target={args.target} opt-level={args.opt_level} threads={args.threads}"
    return f"{'versa-fuse,' if args.fuse else ''}lower-to-llvm{{{options}}}"


def load(args: argparse.Namespace, module):
    """The compiled function: JIT code in this process, or kernels on this machine's GPU.

    `--fuse` runs versa-fuse alone, not versa-optimize (layout, canonicalize, fuse): versa-run
    checks a pass's numerics against the reference, and fusion is the one lit tests isolate."""
    try:
        options = CompileOptions.create(args.target, opt_level=args.opt_level, threads=args.threads)
    except targets.TargetError as err:
        raise ToolError(f"{err} (versa-opt --list-targets lists them)") from None
    target = options.target
    first = [VersaFuse()] if args.fuse else []
    if target.kind == "gpu":
        from versa.gpu import compile_gpu, driver  # noqa: PLC0415  (CUDA only when asked for)

        program = compile_gpu(module, target, args.entry, first)
        try:
            return driver.GpuFunction(program)
        except driver.GpuUnavailable as err:
            raise ToolError(f"cannot run on target '{args.target}': {err}") from None
    if not target.is_host:
        raise ToolError(
            f"code for target '{args.target}' cannot run in this process: "
            "build it with versa-translate --emit-shared --target " + args.target
        )
    # LLVM's -O follows the tier: -O0 code is the unoptimised baseline in LLVM too
    return JitFunction(module, args.entry, pipeline=first + options.lowering(), llvm_opt_level=args.opt_level)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    configure_logging(args.verbose)
    filename, data = read_input(args.input)
    try:
        return execute(args, compiler.decode(data))
    except compiler.CompileError as err:
        sys.stderr.write(err.format(filename) + "\n")
        if getattr(err, "during_pipeline", False):
            sys.stderr.write(
                f"reproduce: versa-opt {filename} --pass-pipeline='builtin.module({pipeline_text(args)})'\n"
            )
        return 1


def execute(args: argparse.Namespace, text: str) -> int:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    function = find_function(module, args.entry)
    if not function.regions[0].blocks:
        raise error_at(function.location, f"'{function.name.value}' is a declaration: it has no body to run")
    specs = [TensorSpec.of(t) for t in function.type.inputs]
    check_buffer_sizes(function, max_buffer_bytes())
    inputs = load_inputs(args, specs, function)
    expected = interpret(function, inputs) if args.check else None
    tolerances = tolerance.for_function(function) if args.check else []  # before lowering
    try:
        jit = load(args, module)
    except compiler.CompileError as err:
        err.during_pipeline = True
        raise
    results = jit(*inputs)
    report(args, results)
    if args.memory and hasattr(jit, "memory"):
        print(jit.memory.summary())
    status = 0
    if expected is not None:
        status = check(results, expected, tolerances)
    if args.repeat > 0:
        times = jit.time(inputs, args.repeat)
        print(f"median time over {args.repeat} runs: {statistics.median(times) * 1e3:.4f} ms")
    return status


def report(args: argparse.Namespace, results: list[np.ndarray]) -> None:
    if args.output:
        np.savez(args.output, **{f"result{i}": r for i, r in enumerate(results)})
        print(f"saved {len(results)} result(s) to {args.output}")
        return
    for i, r in enumerate(results):
        print(f"result{i}: {r.dtype}{list(r.shape)}")
        print(np.array2string(r, threshold=64, precision=6))


def check(
    results: list[np.ndarray], expected: list[np.ndarray], tolerances: list[tolerance.Tolerance]
) -> int:
    """Compare with the reference under the one tolerance policy (`versa.tolerance`)."""
    status = 0
    for i, (got, want, tol) in enumerate(zip(results, expected, tolerances, strict=True)):
        ok = tolerance.check(got, want, tol) is None
        worst = tolerance.max_abs_error(got, want)
        print(
            f"check result{i}: {'OK' if ok else 'MISMATCH'} (max abs error {worst:.3g}, "
            f"rtol {tol.rtol:.3g}, atol {tol.atol:.3g})"
        )
        status |= 0 if ok else 1
    return status


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
