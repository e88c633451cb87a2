"""Ahead-of-time compilation (`versa.cpu.aot`, `versa-translate`) on the host: objects for every CPU
target, shared libraries + headers called from C, and the tool's error contract.

A program here is a versa function with its inputs and NumPy reference: every example in
`examples/`, and the single-op cases of test_lowering_numerics (all of them compile to objects;
a sample also runs from C). The C side is `examples/c/run_model.c`, which reads the inputs from
one binary file and writes the outputs to another. test_aarch64.py reuses these helpers.
"""

import os
import pty
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import reference
from test_lowering_numerics import (
    DATA_MOVEMENT,
    DTYPES,
    ELEMENTWISE,
    QUANTIZED,
    RNG_SEED,
    STRUCTURED,
    element_name,
    make_input,
    single_op,
)
from test_lowering_numerics import check as check_op
from versa import compiler, targets, translate
from versa.context import make_context
from versa.cpu import aot
from versa.cpu.runtime import TensorSpec, find_function
from versa.dialects.semantics import evaluate

ROOT = Path(__file__).resolve().parents[3]
TRANSLATE = [str(Path(sys.executable).parent / "versa-translate")]
DRIVER = ROOT / "examples/c/run_model.c"
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
CPU_TARGETS = ("x86-64", "aarch64-neon", "aarch64-sve")
OP_CASES = {case.id: case for case in ELEMENTWISE + STRUCTURED + DATA_MOVEMENT + QUANTIZED}
# Run from C on every target (all OP_CASES compile to objects): one or two per op family.
SAMPLE = (
    "add-broadcast add-rank0 div-i32 exp tanh erf gelu-tanh cast-f32_to_f16 add-f16 matmul matmul-batch "
    "conv2d-stride_padding max_pool2d-padding avg_pool2d reduce_sum-to_rank0 reduce_max-i32 softmax "
    "layer_norm batch_norm transpose concat-three_inputs slice-strides pad-i32 log "
    "quantize-per_channel_u8 qmatmul-u8_i8 qconv2d-nhwc_u8 requantize-per_channel_clamp_u8"
).split()


@dataclass
class Program:
    name: str
    text: str
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    op: str = ""  # the single op's name: its tolerances (check_op); "" for an example

    def check(self, got: list[np.ndarray]) -> None:
        assert len(got) == len(self.expected)
        for g, want in zip(got, self.expected, strict=True):
            if self.op:
                check_op(self.op, g, want)
            else:
                np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)


def example(path: Path) -> Program:
    text = path.read_text()
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    rng = np.random.default_rng(0)
    specs = [TensorSpec.of(t) for t in find_function(module, None).type.inputs]
    inputs = [rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in specs]
    return Program(path.stem, text, inputs, reference(text, inputs))


def op_program(case_id: str) -> Program:
    op, shapes, kinds, out, shape, attrs = OP_CASES[case_id].values
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
    out = out or element_name(inputs[0].dtype)
    text, parsed, result_shape = single_op(op, inputs, attrs, out, shape)
    return Program(case_id, text, inputs, [evaluate(op, inputs, parsed, result_shape, DTYPES[out])], op)


def program_params(case_ids) -> list:
    """pytest params of the examples and the op cases `case_ids`."""
    params = [pytest.param(("example", p), id=p.stem) for p in EXAMPLES]
    return params + [pytest.param(("op", case_id), id=case_id) for case_id in case_ids]


def load(param: tuple) -> Program:
    kind, what = param
    return example(what) if kind == "example" else op_program(what)


def compile_program(program: Program, target: str, opt: int = 3) -> tuple[aot.Entry, bytes, str]:
    """The program's entry, object and header for `target` (through the library API)."""
    module = compiler.parse_module(compiler.Chunk(program.text, 1), make_context())
    entry = aot.lower(module, targets.resolve(target), opt)
    obj = translate.emit_object(module.operation, targets.resolve(target), opt)
    return entry, obj, aot.header(entry, targets.resolve(target), f"{program.name}.mlir", opt)


def needs(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (scripts/setup.sh installs the AArch64 cross tools)")


def run_from_c(
    program: Program, target: str, tmp: Path, *, shared: bool, runner: tuple[str, ...] = (), opt: int = 3
) -> list[np.ndarray]:
    """Build `program` for `target`, link examples/c/run_model.c with it (a shared library
    found by rpath, or the object statically), run it (under `runner`) and read the outputs."""
    entry, obj, header = compile_program(program, target, opt)
    (tmp / f"{entry.name}.h").write_text(header)
    t = targets.resolve(target)
    if shared:
        library = tmp / f"lib{entry.name}.so"
        library.write_bytes(aot.link_shared(obj, t, library.name))
        link = [str(library), "-Wl,-rpath,$ORIGIN"]
    else:
        (tmp / "model.o").write_bytes(obj)
        link = [str(tmp / "model.o"), "-static"]
    prefix = entry.name.upper()
    macros = [f'-DVERSA_HEADER="{entry.name}.h"', f"-DVERSA_ENTRY={entry.name}", f"-DVERSA_PREFIX={prefix}"]
    exe = tmp / "run_model"
    build = [aot.linker(t), "-O1", "-Wall", "-Werror", *macros, f"-I{tmp}", str(DRIVER)]
    built = subprocess.run([*build, *link, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (tmp / "in.bin").write_bytes(b"".join(np.ascontiguousarray(a).tobytes() for a in program.inputs))
    done = subprocess.run([*runner, str(exe), "in.bin", "out.bin"], cwd=tmp, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data, got, at = (tmp / "out.bin").read_bytes(), [], 0
    for b in entry.outputs:
        got.append(np.frombuffer(data, b.dtype, b.size, at).reshape(b.shape))
        at += b.size * b.dtype.itemsize
    assert at == len(data)
    return got


# ----------------------------------------------------------------------------- objects


@pytest.mark.parametrize("target", CPU_TARGETS)
@pytest.mark.parametrize("param", program_params(OP_CASES))
def test_object_for_every_cpu_target(param: tuple, target: str) -> None:
    entry, obj, _ = compile_program(load(param), target)
    machine = int.from_bytes(obj[18:20], "little")
    assert obj[:4] == b"\x7fELF" and machine == (62 if target == "x86-64" else 183)  # EM_X86_64, EM_AARCH64
    assert entry.symbol.encode() in obj


# ----------------------------------------------------------------------------- x86-64 from C


@pytest.mark.parametrize("param", program_params(SAMPLE))
def test_shared_library_from_c(param: tuple, tmp_path: Path) -> None:
    needs("cc")
    program = load(param)
    program.check(run_from_c(program, "x86-64", tmp_path, shared=True))


@pytest.mark.parametrize("opt", [0, 1, 2])
def test_lower_opt_levels_from_c(opt: int, tmp_path: Path) -> None:
    needs("cc")
    program = example(ROOT / "examples/mlp.mlir")
    program.check(run_from_c(program, "x86-64", tmp_path, shared=False, opt=opt))


def undefined_and_needed(library: Path) -> tuple[set[str], set[str]]:
    """The strong undefined dynamic symbols (versions stripped) and DT_NEEDED of a library."""
    symbols = subprocess.run(["nm", "-D", "-u", str(library)], capture_output=True, text=True, check=True)
    undefined = {line.split()[-1].split("@")[0] for line in symbols.stdout.splitlines() if " U " in line}
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True)
    needed = {line.split("[")[1].rstrip("]") for line in dynamic.stdout.splitlines() if "(NEEDED)" in line}
    return undefined, needed


def test_shared_library_needs_only_libc_and_libm(tmp_path: Path) -> None:
    needs("cc", "nm", "readelf")
    library = tmp_path / "libmlp.so"
    done = run_tool(
        ROOT / "examples/mlp.mlir", "--emit-shared", "-o", library, "--header", tmp_path / "mlp.h"
    )
    assert done.returncode == 0, done.stderr
    undefined, needed = undefined_and_needed(library)
    assert undefined and undefined <= aot.LIBC | aot.LIBM
    assert needed <= {"libc.so.6", "libm.so.6"}
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True)
    assert [line.split()[-1] for line in exported.stdout.splitlines()] == ["_mlir_ciface_mlp"]


def test_headers_compile_as_c_and_cpp_together(tmp_path: Path) -> None:
    """Two models' headers in one unit (shared descriptor typedefs), as C and as C++."""
    needs("cc")
    for path in (ROOT / "examples/mlp.mlir", ROOT / "test/Tools/versa-translate.mlir"):
        done = run_tool(
            path, "--emit-obj", "-o", tmp_path / f"{path.stem}.o", "--header", tmp_path / f"{path.stem}.h"
        )
        assert done.returncode == 0, done.stderr
    source = tmp_path / "both.c"
    source.write_text('#include "mlp.h"\n#include "versa-translate.h"\n#include "mlp.h"\n')
    for compiler_, language in (("cc", "c"), ("c++", "c++")):
        if shutil.which(compiler_):
            command = [compiler_, "-x", language, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", str(source)]
            subprocess.run(command, check=True, cwd=tmp_path)


# ----------------------------------------------------------------------------- the tool


def run_tool(*args, env: dict | None = None, stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*TRANSLATE, *map(str, args)], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env
    )


def assert_clean_error(done: subprocess.CompletedProcess, *needles: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in done.stderr


def test_tool_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    model = tmp_path / "model.mlir"
    model.write_text((ROOT / "examples/mlp.mlir").read_text())
    assert_clean_error(run_tool(model, "--emit-obj", "-o", model), "refusing to overwrite the input")
    assert_clean_error(run_tool(model, "--emit-obj", "-o", "x.o", "--header", model), "overwrite the input")
    assert model.read_text() == (ROOT / "examples/mlp.mlir").read_text()


def test_tool_refuses_binary_to_a_terminal() -> None:
    controller, terminal = pty.openpty()
    try:
        done = run_tool(ROOT / "examples/mlp.mlir", "--emit-obj", stdout=terminal)
    finally:
        os.close(terminal)
        os.close(controller)
    assert_clean_error(done, "refusing to write binary output to a terminal")


def test_tool_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text('func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = "versa.nope"(%a)\n}\n')
    assert_clean_error(run_tool(bad, "--emit-obj", "-o", tmp_path / "x.o"), f"{bad}:2:")
    assert not (tmp_path / "x.o").exists()
    unranked = (
        tmp_path / "unranked.mlir"
    )  # a dynamic rank: no entry takes it (dynamic dims: test_aot_dynamic)
    unranked.write_text(
        "func.func @f(%a: tensor<*xf32>) -> tensor<*xf32> {\n  return %a : tensor<*xf32>\n}\n"
    )
    assert_clean_error(
        run_tool(unranked, "--emit-obj", "-o", "-"), f"{unranked}:1:1: error: arg0 is tensor<*xf32>"
    )
    model = ROOT / "examples/mlp.mlir"
    assert_clean_error(run_tool(model, "--emit-obj", "--target", "nvptx-sm80"), "GPU")
    assert_clean_error(run_tool(model), "choose what to emit")
    assert_clean_error(run_tool(model, "--mlir-to-llvmir", "--entry", "nope"), "no function 'nope'")


def test_tool_without_a_linker(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    for target, linker in (("x86-64", "'cc'"), ("aarch64-neon", "'aarch64-linux-gnu-gcc'")):
        done = run_tool(
            ROOT / "examples/mlp.mlir", "--target", target, "--emit-shared", "-o", tmp_path / "l.so", env=env
        )
        assert_clean_error(done, f"needs {linker}, not found")


def test_tool_translates_lowered_input(tmp_path: Path) -> None:
    """llvm-dialect input is translated as it is; it has no shapes left for a header."""
    lowered = tmp_path / "lowered.mlir"
    opt = Path(sys.executable).parent / "versa-opt"
    subprocess.run(
        [opt, ROOT / "examples/mlp.mlir", "--lower-to-llvm=standalone=1", "-o", lowered], check=True
    )
    done = run_tool(lowered, "--emit-asm", "--target", "aarch64-neon")
    assert done.returncode == 0 and "mlp:" in done.stdout, done.stderr
    assert_clean_error(
        run_tool(lowered, "--emit-obj", "-o", "-", "--header", tmp_path / "h.h"), "--header needs"
    )


def test_tool_gpu_target_gives_ptx() -> None:
    """nvptx targets: versa IR through lower-to-nvvm and versa.gpu (no GPU needed for PTX)."""
    done = run_tool(ROOT / "examples/mlp.mlir", "--target", "nvptx-sm80", "--emit-asm")
    assert done.returncode == 0, done.stderr
    assert ".target sm_80" in done.stdout and ".entry" in done.stdout
