"""versa-run: compile a versa function, JIT-run it, print or save its outputs.

    versa-run model.mlir --random --check --repeat 20
    versa-run model.mlir --inputs in.npz --output out.npz --fuse

`.npz` inputs are named arg0, arg1, ... in argument order; outputs are saved as result0, ...
"""

import argparse
import math
import os
import statistics
import sys

import numpy as np
from versa import compiler, targets, tolerance
from versa.context import make_context
from versa.cpu.runtime import JitFunction, TensorSpec, find_function
from versa.diagnostics import error_at
from versa.mlir import func, ir
from versa.options import CompileOptions
from versa.passes.optimize.fuse import VersaFuse
from versa.reference import interpret
from versa.tools.common import (
    ArgumentParser,
    ToolError,
    add_verbosity,
    configure_logging,
    human_bytes,
    read_input,
    tool_main,
)

MAX_BUFFER_ENV = "VERSA_MAX_BUFFER_BYTES"
DEFAULT_MAX_BUFFER_BYTES = 4 << 30  # 4 GiB per argument or result buffer
NPZ_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip's first member, or an empty zip
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
    if np.issubdtype(spec.dtype, np.integer):
        return rng.integers(-5, 6, spec.shape).astype(spec.dtype)
    return rng.uniform(-1.0, 1.0, spec.shape).astype(spec.dtype)


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


def check_buffer_sizes(function: func.FuncOp, limit: int) -> None:
    """Refuse an argument, result or intermediate tensor too large to allocate, before
    allocating or compiling: JIT code would get NULL from malloc, `--check` a MemoryError."""
    for kind, types in (("arg", function.type.inputs), ("result", function.type.results)):
        for i, t in enumerate(types):
            spec = TensorSpec.of(t)
            _refuse_over(function.location, f"{kind}{i} ({t})", spec.nbytes, limit)
    for op in _ops_in(function.operation):
        for value in op.results:
            if isinstance(value.type, ir.ShapedType) and value.type.has_static_shape:
                what = f"a result of '{op.name}' ({value.type})"
                _refuse_over(op.location, what, _tensor_bytes(value.type), limit)


def _refuse_over(location, what: str, size: int, limit: int) -> None:
    if size > limit:
        raise error_at(
            location,
            f"{what} needs {size} bytes ({human_bytes(size)}), more than the limit of "
            f"{limit} bytes (set {MAX_BUFFER_ENV} to raise it)",
        )


def _ops_in(op: ir.Operation) -> list[ir.Operation]:
    found: list[ir.Operation] = []
    op.walk(lambda o: found.append(o) or ir.WalkResult.ADVANCE)
    return found


def _tensor_bytes(t: ir.ShapedType) -> int:
    width = getattr(t.element_type, "width", 64)  # complex, index, ...: at most 8 bytes each
    return math.prod(t.shape) * max(1, width // 8)


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
                _refuse_over(None, f"'{path}': {name}", _declared_bytes(data, name), max_buffer_bytes())
            return [np.asarray(data[name]) for name in names]
    except compiler.CompileError as err:
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


def load_inputs(args: argparse.Namespace, specs: list[TensorSpec]) -> list[np.ndarray]:
    if args.inputs:
        arrays = read_npz(args.inputs, [f"arg{i}" for i in range(len(specs))])
        for i, (a, s) in enumerate(zip(arrays, specs, strict=True)):
            if a.shape != s.shape:
                raise ToolError(
                    f"'{args.inputs}': arg{i} has shape {list(a.shape)}, the function takes {list(s.shape)}"
                )
            if not np.can_cast(a.dtype, s.dtype, casting="same_kind"):
                raise ToolError(f"'{args.inputs}': arg{i} has dtype {a.dtype}, the function takes {s.dtype}")
        return [a.astype(s.dtype) for a, s in zip(arrays, specs, strict=True)]
    if args.random or not specs:
        rng = np.random.default_rng(args.seed)
        return [random_input(s, rng) for s in specs]
    raise ToolError("the function takes arguments: give --inputs FILE.npz or --random")


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
    inputs = load_inputs(args, specs)
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
