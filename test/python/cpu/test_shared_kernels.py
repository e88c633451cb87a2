"""Kernels shared between identical layers (passes/cpu/strategies/sharing.py, versa-share-functions,
versa-share-ops): a model of three identical layers, each with weights of its own as constants
(as versa.compile imports a torch model), compiles to one function per kernel structure that
every layer calls, and computes what NumPy does: through the JIT at one and two threads (OpenMP
inside the shared functions), and as a library called from C (the AOT path exports only the
entry). The ops no strategy takes (an elementwise scale by a weight of the layer's own, a
transpose) are shared too.

Tolerance: f32 sums of 64 products of values in [-1, 1] and a layer_norm after each layer,
compared with float64 NumPy: atol 1e-4, rtol 1e-4.
"""

from pathlib import Path

import numpy as np
from conftest import Compiled
from test_aot import Program, needs, run_from_c
from versa.cpu.runtime import JitFunction

ROWS, WIDTH, LAYERS, EPS = 32, 64, 3, 1e-5


def _dense(array: np.ndarray) -> str:
    shape = "x".join(map(str, array.shape))
    return f'dense<"0x{array.astype("<f4").tobytes().hex().upper()}"> : tensor<{shape}xf32>'


def _weights(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (
            rng.uniform(-1, 1, (WIDTH, WIDTH)).astype(np.float32) / 4,
            rng.uniform(-1, 1, WIDTH).astype(np.float32),
            rng.uniform(0.5, 1.5, WIDTH).astype(np.float32),
            rng.uniform(-1, 1, WIDTH).astype(np.float32),
        )
        for _ in range(LAYERS)
    ]


def _model(weights) -> str:
    """LAYERS times: h = layer_norm(relu(h @ w + b) + h) * gamma + beta; then a softmax."""
    t, v = f"tensor<{ROWS}x{WIDTH}xf32>", f"tensor<{WIDTH}xf32>"
    lines = [f"func.func @layers(%x: {t}) -> {t} {{"]
    h = "%x"
    for i, (w, b, gamma, beta) in enumerate(weights):
        lines += [
            f'  %w{i} = "versa.constant"() {{value = {_dense(w)}}} : () -> tensor<{WIDTH}x{WIDTH}xf32>',
            f'  %b{i} = "versa.constant"() {{value = {_dense(b)}}} : () -> {v}',
            f'  %g{i} = "versa.constant"() {{value = {_dense(gamma)}}} : () -> {v}',
            f'  %e{i} = "versa.constant"() {{value = {_dense(beta)}}} : () -> {v}',
            f'  %m{i} = "versa.matmul"({h}, %w{i}) : ({t}, tensor<{WIDTH}x{WIDTH}xf32>) -> {t}',
            f'  %bb{i} = "versa.broadcast_to"(%b{i}) : ({v}) -> {t}',
            f'  %s{i} = "versa.add"(%m{i}, %bb{i}) : ({t}, {t}) -> {t}',
            f'  %r{i} = "versa.relu"(%s{i}) : ({t}) -> {t}',
            f'  %a{i} = "versa.add"(%r{i}, {h}) : ({t}, {t}) -> {t}',
            f'  %n{i} = "versa.layer_norm"(%a{i}, %g{i}, %e{i}) {{axis = 1 : i64, epsilon = {EPS:.1e} : f32}}'
            f" : ({t}, {v}, {v}) -> {t}",
        ]
        h = f"%n{i}"
    lines += [f'  %y = "versa.softmax"({h}) {{axis = -1 : i64}} : ({t}) -> {t}', f"  return %y : {t}", "}"]
    return "\n".join(lines) + "\n"


def _expected(x: np.ndarray, weights) -> np.ndarray:
    h = x.astype(np.float64)
    for w, b, gamma, beta in weights:
        a = np.maximum(h @ w + b, 0) + h
        mean, var = a.mean(-1, keepdims=True), a.var(-1, keepdims=True)
        h = (a - mean) / np.sqrt(var + EPS) * gamma + beta
    e = np.exp(h - h.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _functions(jit: JitFunction) -> dict[str, int]:
    """The lowered module's llvm.funcs with a body and how many llvm.calls each receives."""
    body = jit.module.body.operations
    names = [
        op.attributes["sym_name"].value
        for op in body
        if op.operation.name == "llvm.func" and op.regions[0].blocks
    ]
    text = jit.module.operation.get_asm(large_elements_limit=16)
    return {name: text.count(f"llvm.call @{name}(") for name in names}


def test_identical_layers_share_kernels_and_match_numpy():
    weights = _weights()
    text = _model(weights)
    x = np.random.default_rng(1).uniform(-1, 1, (ROWS, WIDTH)).astype(np.float32)
    expected = _expected(x, weights)
    for pipeline in ("lower-to-llvm", "lower-to-llvm{threads=2}"):
        jit = Compiled(text, pipeline).jit
        (y,) = jit(x)
        np.testing.assert_allclose(y, expected, atol=1e-4, rtol=1e-4)
        calls = _functions(jit)
        shared = {
            name: n for name, n in calls.items() if name.startswith(("__versa_kernel", "versa_layer_norm"))
        }
        # one matmul kernel and one layer_norm, each called by every layer; nothing else kept
        assert sorted(shared.values()) == [LAYERS, LAYERS], calls
        # the buffers passed to the calls are in the arena: no more mallocs than one layer has
        assert (
            jit.memory.heap_allocations == Compiled(_model(weights[:1]), pipeline).jit.memory.heap_allocations
        )


def _scaled_model(scales: list[np.ndarray]) -> str:
    """LAYERS times: h = transpose(tanh(h) * scale); each layer's scale a constant of its own."""
    t, v = f"tensor<{ROWS}x{ROWS}xf32>", f"tensor<{ROWS}xf32>"
    lines = [f"func.func @layers(%x: {t}) -> {t} {{"]
    h = "%x"
    for i, scale in enumerate(scales):
        lines += [
            f'  %s{i} = "versa.constant"() {{value = {_dense(scale)}}} : () -> {v}',
            f'  %t{i} = "versa.tanh"({h}) : ({t}) -> {t}',
            f'  %m{i} = "versa.mul"(%t{i}, %s{i}) : ({t}, {v}) -> {t}',
            f'  %h{i} = "versa.transpose"(%m{i}) {{perm = array<i64: 1, 0>}} : ({t}) -> {t}',
        ]
        h = f"%h{i}"
    return "\n".join([*lines, f"  return {h} : {t}", "}"]) + "\n"


def test_ops_without_a_strategy_are_shared_and_match_numpy():
    scales = [np.random.default_rng(4 + i).uniform(0.5, 1.5, ROWS).astype(np.float32) for i in range(LAYERS)]
    x = np.random.default_rng(5).uniform(-1, 1, (ROWS, ROWS)).astype(np.float32)
    expected = x.astype(np.float64)
    for scale in scales:
        expected = (np.tanh(expected) * scale).T
    for pipeline in ("lower-to-llvm", "lower-to-llvm{threads=2}"):
        jit = Compiled(_scaled_model(scales), pipeline).jit
        (y,) = jit(x)
        # f32 tanh (a polynomial, versa-fast-math) against float64: ~1e-6 relative
        np.testing.assert_allclose(y, expected, atol=1e-5, rtol=1e-5)
        calls = _functions(jit)
        shared = [n for name, n in calls.items() if name.startswith("__versa_op")]
        # the scale (tanh fused in): one function every layer calls, its weight an argument
        assert LAYERS in shared, calls


def test_shared_kernels_from_c(tmp_path: Path):
    needs("cc")
    weights = _weights(2)
    x = np.random.default_rng(3).uniform(-1, 1, (ROWS, WIDTH)).astype(np.float32)
    program = Program("layers", _model(weights), [x], [_expected(x, weights).astype(np.float32)])
    (y,) = run_from_c(program, "x86-64", tmp_path, shared=True)
    np.testing.assert_allclose(y, program.expected[0], atol=1e-4, rtol=1e-4)
