"""The codegen strategies' search spaces: the analytic choice is the default point, every point
is rebuilt or rejected before compiling, valid points compile to the right answer, and a tuning
database's point reaches the strategy in versa-codegen."""

import contextlib
import io

import numpy as np
import pytest
from conftest import reference
from versa import compiler, targets
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.options import CompileOptions
from versa.passes.cpu.codegen import VersaCodegen
from versa.passes.cpu.strategies import search_space, select, strategy_at
from versa.passes.cpu.strategies.signature import Signature
from versa.passes.cpu.strategies.space import InvalidPoint, as_json
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint

TARGETS = ("x86-64-v3", "x86-64-v4", "aarch64-neon")


def matmul(m: int, k: int, n: int, epilogue: bool = False) -> str:
    out = f"tensor<{m}x{n}xf32>"
    tail = (
        f'%r = "versa.relu"(%y) : ({out}) -> {out}\n  return %r : {out}' if epilogue else f"return %y : {out}"
    )
    return f"""func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> {out} {{
  %y = "versa.matmul"(%a, %b) : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> {out}
  {tail}
}}"""


def conv(c: int, f: int, hw: int) -> str:
    x, w, o = (
        f"tensor<1x{c}x{hw}x{hw}xf32>",
        f"tensor<{f}x{c}x3x3xf32>",
        f"tensor<1x{f}x{hw - 2}x{hw - 2}xf32>",
    )
    return f"""func.func @f(%x: {x}, %w: {w}) -> {o} {{
  %y = "versa.conv2d"(%x, %w) {{stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>,
      dilation = array<i64: 1, 1>, groups = 1 : i64}} : ({x}, {w}) -> {o}
  return %y : {o}
}}"""


def reduce_sum(rows: int, row: int) -> str:
    return f"""func.func @f(%a: tensor<{rows}x{row}xf32>) -> tensor<{rows}xf32> {{
  %y = "versa.reduce_sum"(%a) {{axes = array<i64: 1>, keepdims = false}}
      : (tensor<{rows}x{row}xf32>) -> tensor<{rows}xf32>
  return %y : tensor<{rows}xf32>
}}"""


PROGRAMS = [
    matmul(128, 768, 768),
    matmul(197, 768, 2304),
    matmul(1, 768, 3072),
    matmul(33, 17, 65),
    matmul(64, 256, 512, epilogue=True),
    conv(64, 64, 16),
    conv(32, 48, 9),
    reduce_sum(64, 1000),
    reduce_sum(8, 4096),
]


def strategies(text: str, target: targets.Target, threads: int):
    """(op, strategy) of every op a strategy takes, after the steps before versa-codegen."""
    options = CompileOptions.create(target, threads=threads)
    steps = options.passes()
    cut = next(i for i, s in enumerate(steps) if isinstance(s, VersaCodegen))
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, steps[:cut])
    found = []

    def visit(op):
        if op.name.startswith("linalg."):
            strategy = select(op, target, threads)
            if strategy is not None:
                found.append((op, strategy))
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)
    return module, found


@pytest.mark.parametrize("target_name", TARGETS)
@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("text", PROGRAMS)
def test_default_point_is_the_analytic_choice(text, threads, target_name):
    target = targets.resolve(target_name)
    module, found = strategies(text, target, threads)
    with module.context:
        assert found
        for _, strategy in found:
            space = search_space(strategy, target)
            assert strategy_at(strategy, {}, target) == strategy
            assert strategy_at(strategy, space.default(), target) == strategy
            for point in space.neighbours(space.default()):
                try:
                    built = strategy_at(strategy, point, target)
                except InvalidPoint:
                    continue
                assert type(built) is type(strategy)


def test_invalid_points_are_rejected_with_the_constraint():
    target = targets.resolve("x86-64-v3")  # 16 ymm registers, 8 lanes
    module, found = strategies(matmul(128, 768, 768), target, 2)
    with module.context:
        ((_, strategy),) = found
        for point, message in [
            ({"register": (16, 32)}, "does not fit 16 registers"),
            ({"register": (4, 24)}, "power-of-two count"),
            ({"kr": 3}, "k step 3"),
            ({"split": "batch"}, "is not one of"),
            ({"tiles": 4}, "no knob tiles"),
        ]:
            with pytest.raises(InvalidPoint, match=message):
                strategy_at(strategy, point, target)
    module, found = strategies(matmul(33, 17, 65), target, 1)
    with module.context:
        ((_, strategy),) = found
        with pytest.raises(InvalidPoint, match="ragged"):
            strategy_at(strategy, {"pack_b": True}, target)


def test_families_without_knobs_take_only_the_default():
    text = """func.func @f(%a: tensor<64x128xf32>) -> tensor<128x64xf32> {
  %y = "versa.transpose"(%a) {perm = array<i64: 1, 0>} : (tensor<64x128xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}"""
    target = targets.resolve("x86-64-v3")
    module, found = strategies(text, target, 1)
    assert found
    with module.context:
        for _, strategy in found:
            assert not search_space(strategy, target).knobs
            with pytest.raises(InvalidPoint, match="no knob"):
                strategy_at(strategy, {"register": (1, 8)}, target)


def _tuned_compile(text: str, point: dict, tmp_path) -> tuple[JitFunction, str]:
    """`text` compiled for the host with `point` in a database for its one strategy op; the
    codegen's printed notes."""
    target = targets.host()
    module, found = strategies(text, target, 2)
    with module.context:  # the one op with knobs (a conv's layout transposes have none)
        ((op, strategy),) = [(o, s) for o, s in found if search_space(s, target).knobs]
        signature = Signature.of(op, strategy)
    key = (fingerprint(target), 2, signature.key, code_digest())
    database = tmp_path / "db.json"
    TuningDb(database).save([Entry(*key, signature.summary, type(strategy).__name__, point, 0, 0, 1)])
    options = CompileOptions.create("host", threads=2, tuning_db=str(database))
    steps = [
        VersaCodegen(threads=s.threads, target=s.target, tuning_db=s.tuning_db, print_script=True)
        if isinstance(s, VersaCodegen)
        else s
        for s in options.passes()
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jit = JitFunction(compiler.parse_module(compiler.Chunk(text, 1), make_context()), pipeline=steps)
    return jit, out.getvalue()


@pytest.mark.parametrize(
    "text, point",
    [
        (matmul(48, 40, 72), {"register": (2, 16), "split": "none", "kr": 1}),
        (matmul(48, 40, 72), {"register": (3, 8), "mc": 8, "kc": 8}),
        (matmul(128, 256, 256, epilogue=True), {"register": (4, 16), "split": "m", "pack_b": False}),
        (conv(16, 24, 10), {"register": (2, 8), "cr": 2, "split": "none"}),
        (reduce_sum(64, 1000), {"width": 8, "rows": 2}),
    ],
)
def test_a_databases_point_compiles_to_the_right_answer(text, point, tmp_path):
    lanes = targets.host().lanes(32)
    if "register" in point and point["register"][1] % lanes:
        point = {**point, "register": (point["register"][0], lanes)}
    if "width" in point:  # whole vectors of this CPU
        point = {**point, "width": lanes}
    jit, notes = _tuned_compile(text, {k: as_json(v) for k, v in point.items()}, tmp_path)
    assert "tuned" in notes and "not taken" not in notes
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-1, 1, s.shape).astype(np.float32) for s in jit.inputs]
    (got,) = jit(*inputs)
    (want,) = reference(text, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_a_point_the_strategy_rejects_leaves_the_analytic_choice(tmp_path):
    jit, notes = _tuned_compile(matmul(48, 40, 72), {"register": (99, 8)}, tmp_path)
    assert "not taken" in notes
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-1, 1, s.shape).astype(np.float32) for s in jit.inputs]
    np.testing.assert_allclose(jit(*inputs)[0], inputs[0] @ inputs[1], rtol=1e-4, atol=1e-4)
