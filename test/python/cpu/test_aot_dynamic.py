"""Libraries whose entry takes dynamic dims (`versa-translate`, `versa.cpu.aot`): the sizes cross
in the memref descriptors, and the header states each argument's dims (static, or a symbol),
the symbols' ranges, and `<name>_shapes`, the JIT's per-call checks and the results' sizes as C.

Each program is built by the tool into a shared library + header, then driven from C by one
generated driver that makes several calls in one run (each: `<name>_shapes_packed`, allocate
the results, `<name>_run_packed`) and writes each outcome: the results, or the refusal's
message. Results are compared with NumPy (float32 sums: rtol 1e-5, atol 1e-5).
"""

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
TRANSLATE = Path(sys.executable).parent / "versa-translate"
RTOL = ATOL = 1e-5

# An MLP on a batch of rows: the rows are dynamic (symbol `batch`, 1..64), the weights static.
MLP = """
func.func @mlp(%x: tensor<?x16xf32> {versa.dims = ["batch", 16]}, %w1: tensor<16x32xf32>,
               %b1: tensor<32xf32>, %w2: tensor<32x8xf32>) -> tensor<?x8xf32>
    attributes {versa.dim_ranges = {batch = array<i64: 1, 64>}} {
  %0 = "versa.matmul"(%x, %w1) : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  %1 = "versa.add"(%0, %b1) : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %2 = "versa.relu"(%1) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %3 = "versa.matmul"(%2, %w2) : (tensor<?x32xf32>, tensor<32x8xf32>) -> tensor<?x8xf32>
  return %3 : tensor<?x8xf32>
}
"""
# Two symbols: rows `m` (even, 2..64) and the contraction `k`, shared by both arguments.
MATMUL = """
func.func @mm(%a: tensor<?x?xf32> {versa.dims = ["m", "k"]},
              %b: tensor<?x8xf32> {versa.dims = ["k", 8]}) -> tensor<?x8xf32>
    attributes {versa.dim_ranges = {m = array<i64: 2, 64, 2>}} {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x?xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "versa.tanh"(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""
# A reshape that flattens the dynamic dim (n*32 elements) and a reduction that keeps it.
RESHAPE = """
func.func @flat(%x: tensor<?x4x8xf32> {versa.dims = ["n", 4, 8]}) -> (tensor<?xf32>, tensor<?x8xf32>) {
  %0 = "versa.exp"(%x) : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %1 = "versa.reshape"(%0) : (tensor<?x4x8xf32>) -> tensor<?xf32>
  %2 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<?x4x8xf32>) -> tensor<?x8xf32>
  return %1, %2 : tensor<?xf32>, tensor<?x8xf32>
}
"""
# No versa.dims: each `?` its own symbol (arg0.dim0, arg1.dim0), related only by the add's rule.
ADD = """
func.func @add(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""
# A dynamic result that no shape rule gives.
LINALG = """#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def driver(prefix: str, name: str, n_in: int, n_out: int) -> str:
    """A C driver for one model: reads calls (per input its sizes, then its float32 data) and
    writes per call a status, then the results (sizes, data) or the refusal's message."""

    def table(kind: str, n: int, what: str) -> str:
        return "{" + ", ".join(f"{prefix}_{kind.upper()}{i}_{what}" for i in range(n)) + "}"

    return f"""\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "{name}.h"

static const int in_rank[] = {table("arg", n_in, "RANK")};
static const int out_rank[] = {table("result", n_out, "RANK")};

static int64_t count(const int64_t *sizes, int rank) {{
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= sizes[d];
  return n;
}}

int main(int argc, char **argv) {{
  FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
  int64_t calls;
  if (argc != 3 || !in || !out || fread(&calls, 8, 1, in) != 1) return 2;
  for (int64_t c = 0; c < calls; c++) {{
    int64_t sizes[{n_in}][8], result_sizes[{n_out}][8];
    const int64_t *sizes_p[{n_in}];
    int64_t *result_sizes_p[{n_out}];
    void *buffers[{n_in + n_out}];
    for (int i = 0; i < {n_in}; i++) {{
      if (fread(sizes[i], 8, in_rank[i], in) != (size_t)in_rank[i]) return 3;
      int64_t n = count(sizes[i], in_rank[i]);
      buffers[i] = malloc(4 * n + 1);
      if (fread(buffers[i], 4, n, in) != (size_t)n) return 4;
      sizes_p[i] = sizes[i];
    }}
    for (int o = 0; o < {n_out}; o++) result_sizes_p[o] = result_sizes[o];
    const char *error = {name}_shapes_packed(sizes_p, result_sizes_p);
    int64_t status = error != NULL;
    fwrite(&status, 8, 1, out);
    if (error) {{
      int64_t length = strlen(error);
      fwrite(&length, 8, 1, out);
      fwrite(error, 1, length, out);
    }} else {{
      for (int o = 0; o < {n_out}; o++)
        buffers[{n_in} + o] = malloc(4 * count(result_sizes[o], out_rank[o]) + 1);
      if ({name}_run_packed(buffers, sizes_p) != NULL) return 5;
      for (int o = 0; o < {n_out}; o++) {{
        fwrite(result_sizes[o], 8, out_rank[o], out);
        fwrite(buffers[{n_in} + o], 4, count(result_sizes[o], out_rank[o]), out);
        free(buffers[{n_in} + o]);
      }}
    }}
    for (int i = 0; i < {n_in}; i++) free(buffers[i]);
  }}
  return fclose(out) != 0;
}}
"""


def translate(text: str, tmp: Path, name: str, *extra: str) -> subprocess.CompletedProcess:
    source = tmp / f"{name}.mlir"
    source.write_text(text)
    command = [TRANSLATE, source, "--emit-shared", "-o", tmp / f"lib{name}.so", "--header", tmp / f"{name}.h"]
    return subprocess.run([*map(str, command), *extra], capture_output=True, text=True)


class Library:
    """A program built into lib<name>.so + <name>.h, and its C driver."""

    def __init__(self, text: str, tmp: Path, name: str, n_in: int, n_out: int):
        if shutil.which("cc") is None:
            pytest.skip("needs cc")
        done = translate(text, tmp, name)
        assert done.returncode == 0, done.stderr
        self.header = (tmp / f"{name}.h").read_text()
        (tmp / "driver.c").write_text(driver(name.upper(), name, n_in, n_out))
        self.tmp, self.exe, self.ranks = tmp, tmp / "driver", None
        flags = ["-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{tmp}"]
        link = [str(tmp / f"lib{name}.so"), "-Wl,-rpath,$ORIGIN", "-lm", "-o", str(self.exe)]
        built = subprocess.run(["cc", *flags, str(tmp / "driver.c"), *link], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
        self.n_out = n_out

    def call(self, calls: list[list[np.ndarray]], out_ranks: list[int]) -> list[list[np.ndarray] | str]:
        """Each call's results, or the message of its refusal."""
        data = struct.pack("<q", len(calls))
        for arrays in calls:
            for a in arrays:
                data += struct.pack(f"<{a.ndim}q", *a.shape) + np.ascontiguousarray(a, np.float32).tobytes()
        (self.tmp / "in.bin").write_bytes(data)
        done = subprocess.run([str(self.exe), "in.bin", "out.bin"], cwd=self.tmp, capture_output=True)
        assert done.returncode == 0, done.stderr
        raw, at, outcomes = (self.tmp / "out.bin").read_bytes(), 0, []

        def take(n: int) -> bytes:
            nonlocal at
            at += n
            return raw[at - n : at]

        for _ in calls:
            if struct.unpack("<q", take(8))[0]:
                outcomes.append(take(struct.unpack("<q", take(8))[0]).decode())
                continue
            results = []
            for rank in out_ranks:
                shape = struct.unpack(f"<{rank}q", take(8 * rank))
                results.append(np.frombuffer(take(4 * int(np.prod(shape))), np.float32).reshape(shape))
            outcomes.append(results)
        assert at == len(raw)
        return outcomes


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def test_mlp_with_dynamic_rows(tmp_path: Path) -> None:
    lib = Library(MLP, tmp_path, "mlp", 4, 1)
    w1, b1, w2 = rand(16, 32, seed=1), rand(32, seed=2), rand(32, 8, seed=3)
    sizes = [1, 5, 64]
    calls = [[rand(n, 16, seed=n), w1, b1, w2] for n in sizes]
    calls += [[rand(0, 16), w1, b1, w2], [rand(65, 16), w1, b1, w2], [rand(3, 15), rand(15, 32), b1, w2]]
    outcomes = lib.call(calls, [2])
    for n, call, got in zip(sizes, calls, outcomes, strict=False):
        want = np.maximum(call[0] @ w1 + b1, 0) @ w2
        assert got[0].shape == (n, 8)
        np.testing.assert_allclose(got[0], want, rtol=RTOL, atol=ATOL)
    assert outcomes[3] == "argument 0 dim 0 is below the minimum 1 of 'batch'"
    assert outcomes[4] == "argument 0 dim 0 exceeds the maximum 64 of 'batch'"
    assert outcomes[5] == "argument 0 dim 1: the function takes 16"
    for line in (
        " *   arg0: [batch, 16]",
        " *   result0: [batch, 8]",
        " *   1 <= batch <= 64",
        "#define MLP_DIM_BATCH_MIN 1",
        "#define MLP_DIM_BATCH_MAX 64 /* -1: unbounded */",
        "#define MLP_ARG0_DIMS {-1, 16} /* -1: dynamic */",
        "#define MLP_ARG1_DIMS {16, 32} /* -1: dynamic */",
        "static inline const char *mlp_shapes(",
    ):
        assert line in lib.header.splitlines(), line


def test_matmul_with_two_symbols(tmp_path: Path) -> None:
    lib = Library(MATMUL, tmp_path, "mm", 2, 1)
    sizes = [(2, 1), (6, 33), (64, 100)]
    calls = [[rand(m, k, seed=m), rand(k, 8, seed=k)] for m, k in sizes]
    calls += [[rand(4, 5), rand(6, 8)], [rand(3, 5), rand(5, 8)], [rand(4, 5), rand(5, 9)]]
    outcomes = lib.call(calls, [2])
    for (m, _), call, got in zip(sizes, calls, outcomes, strict=False):
        assert got[0].shape == (m, 8)
        np.testing.assert_allclose(got[0], np.tanh(call[0] @ call[1]), rtol=RTOL, atol=ATOL)
    assert outcomes[3] == "argument 1 dim 0: symbol 'k' differs from argument 0 dim 1"
    assert outcomes[4] == "argument 0 dim 0 is not a multiple of 2 of 'm'"
    assert outcomes[5] == "argument 1 dim 1: the function takes 8"
    for line in (" *   arg1: [k, 8]", " *   2 <= m <= 64, a multiple of 2", " *   0 <= k"):
        assert line in lib.header.splitlines(), line
    assert "#define MM_DIM_M_MULTIPLE_OF 2" in lib.header and "#define MM_DIM_K_MAX -1" in lib.header


def test_reshape_and_reduction_of_a_dynamic_dim(tmp_path: Path) -> None:
    lib = Library(RESHAPE, tmp_path, "flat", 1, 2)
    sizes = [1, 3, 10]
    outcomes = lib.call([[rand(n, 4, 8, seed=n)] for n in sizes], [1, 2])
    for n, (flat, summed) in zip(sizes, outcomes, strict=True):
        x = rand(n, 4, 8, seed=n)
        np.testing.assert_allclose(flat, np.exp(x).reshape(-1), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(summed, x.sum(1), rtol=RTOL, atol=ATOL)
    assert " *   result0: [32 * n]" in lib.header.splitlines()
    assert "  result0_sizes[0] = 32 * dim_n;" in lib.header.splitlines()


def test_unrelated_symbols_are_checked_by_the_ops_rules(tmp_path: Path) -> None:
    """Without versa.dims, the add's rule relates the rows: equal, and never a stretched 1 (the
    compiled code does not broadcast a dynamic dim); the C checks refuse what the JIT refuses."""
    lib = Library(ADD, tmp_path, "add", 2, 1)
    calls = [[rand(n, 4), rand(n, 4, seed=1)] for n in (1, 4, 9)]
    calls += [[rand(4, 4), rand(5, 4)], [rand(4, 4), rand(1, 4)]]
    outcomes = lib.call(calls, [2])
    for call, got in zip(calls, outcomes[:3], strict=False):
        np.testing.assert_allclose(got[0], call[0] + call[1], rtol=RTOL, atol=ATOL)
    assert "not broadcast-compatible" in outcomes[3] and outcomes[3].endswith("add.mlir:3:8")
    assert "operand 1 dim 0 is 1 but the result's is arg0.dim0" in outcomes[4]
    assert " *   0 <= arg0_dim0" in lib.header.splitlines()


def test_a_dynamic_result_without_a_rule_is_refused(tmp_path: Path) -> None:
    done = translate(LINALG, tmp_path, "f")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{tmp_path / 'f.mlir'}:5:8: error: 'tensor.empty' has no shape rule" in done.stderr
    assert not (tmp_path / "libf.so").exists() and not (tmp_path / "f.h").exists()


def test_headers_compile_as_c_and_cpp_together(tmp_path: Path) -> None:
    """Two dynamic headers and a static one in one unit, as C and as C++."""
    if shutil.which("cc") is None:
        pytest.skip("needs cc")
    for text, name in ((MLP, "mlp"), (MATMUL, "mm")):
        assert translate(text, tmp_path, name).returncode == 0
    static = subprocess.run(
        [str(TRANSLATE), str(ROOT / "test/Tools/versa-translate.mlir"), "--emit-obj", "-o", "-"]
        + ["--header", str(tmp_path / "static.h")],
        capture_output=True,
    )
    assert static.returncode == 0, static.stderr
    assert "_shapes" not in (tmp_path / "static.h").read_text()
    (tmp_path / "all.c").write_text(
        '#include "mlp.h"\n#include "mm.h"\n#include "static.h"\n#include "mm.h"\n'
    )
    for compiler_, language in (("cc", "c"), ("c++", "c++")):
        if shutil.which(compiler_):
            command = [compiler_, "-x", language, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "all.c"]
            subprocess.run(command, check=True, cwd=tmp_path)


def test_symbolic_sizes() -> None:
    """The polynomial sizes the rules are evaluated on: exact divisions simplify, others stay
    atoms written with the header's floor-division helpers; a rule needing a number refuses."""
    from versa.cpu.aot_dims import Dim, NotSymbolic, render

    n, k = Dim.symbol("n"), Dim.symbol("k")
    assert str(n * 4 // 2) == "2 * n" and str(n * 32 // 32) == "n" and (n * 6) % 3 == 0
    assert str(n * k - k * n + 3) == "3" and (n + 1 - n) == 1 and None not in (n, k)
    c = render(((n + 1) // 2 - k).key, lambda s: f"dim_{s}", c=True)
    assert c == "versa_floordiv(dim_n + 1, 2) - dim_k"
    with pytest.raises(NotSymbolic):
        range(n)


def test_too_many_cases_are_refused(monkeypatch) -> None:
    from versa import compiler
    from versa.context import make_context
    from versa.cpu import aot_dims
    from versa.diagnostics import CompileError
    from versa.signature import find_function

    module = compiler.parse_module(compiler.Chunk(ADD, 1), make_context())
    function = find_function(module, None)
    assert aot_dims.Dynamic.of(function) is not None
    monkeypatch.setattr(aot_dims, "MAX_LEAVES", 2)
    with pytest.raises(CompileError, match="branch into more than 2 cases") as caught:
        aot_dims.Dynamic.of(function)
    assert caught.value.diagnostics[0].line == 2
