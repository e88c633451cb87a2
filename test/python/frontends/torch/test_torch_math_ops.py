"""Trigonometry, rounding, sign and the rounding divisions from torch (and ONNX) through their
versa rules (`rules/math_ops.py`), against eager.

Tolerances: rounding, sign, floor division and remainder must equal eager exactly (NaN where
eager's is; -0 and 0 compare equal); sin/cos/atan within 1e-6 absolute (both sides are within
1.2e-7 of the true value), tan, log1p and expm1 within 1e-6 relative; f16 within one f16 ulp.
"""

import math

import numpy as np
import pytest
import torch
import versa
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from torch_helpers import Wrap, versa_warnings
from versa.cpu.runtime import JitFunction

EXACT = {"rtol": 0.0, "atol": 0.0, "equal_nan": True}


def _compile_and_compare(fn, inputs, **tolerance):
    model = Wrap(fn).eval()
    got, want = versa.compile(model, inputs)(*inputs), model(*inputs)
    for g, w in zip(got, want, strict=True) if isinstance(want, tuple) else [(got, want)]:
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, **tolerance)


def _paths(fn, inputs) -> dict[str, set[str]]:
    paths: dict[str, set[str]] = {}
    for row in versa.coverage(Wrap(fn), inputs):
        paths.setdefault(row.op, set()).add(row.path)
    return paths


# Models keep these as buffers; inputs here, so that eager and versa multiply the same bits (an
# exp or pow one ulp apart moves an angle of 1e5 by 1e-2 ulp of 1e5: 1e-3 in its sine).
FREQS = torch.exp(-math.log(10000.0) * torch.arange(32, dtype=torch.float32) / 32)
INV_FREQ = 1.0 / (500000.0 ** (torch.arange(0, 64, 2, dtype=torch.float32) / 64))


def _timestep_embedding(t: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """The sinusoidal timestep embedding of diffusion UNets (and Transformer positions)."""
    angles = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(angles), torch.sin(angles)], dim=-1)


def _rotary(x: torch.Tensor, positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Llama's rotary embedding, its cos/sin table computed in forward from the positions."""
    dim = x.shape[-1]
    freqs = positions[:, None].float() * inv_freq[None]
    emb = torch.cat([freqs, freqs], dim=-1)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    return x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()


def test_timestep_and_rotary_embeddings_take_no_fallback() -> None:
    """The ops of these embeddings all convert to versa ops (none goes to torch-mlir's linalg
    lowering, whose sin is a scalar libm call per element); positions up to 131071 (a long
    context) keep full accuracy (the f64 range reduction)."""
    t = torch.tensor([0, 1, 10, 999, 500, 42], dtype=torch.int64)
    x = torch.randn(1, 2048, 64, generator=torch.Generator().manual_seed(0))
    positions = torch.arange(129024, 131072)
    for fn, inputs in ((_timestep_embedding, (t, FREQS)), (_rotary, (x, positions, INV_FREQ))):
        paths = _paths(fn, inputs)
        assert all(p == {"versa"} for p in paths.values()), paths
        _compile_and_compare(fn, inputs, rtol=0.0, atol=1e-6)


def test_sin_fuses_into_one_group() -> None:
    module = versa.import_torch(
        Wrap(lambda x, w: torch.sin(x * 1.7) * w + 1), (torch.randn(64), torch.randn(64))
    )
    text = str(module)
    assert '"versa.sin"' in text and "math.sin" not in text and "linalg.generic" not in text


CASES = {
    "trig": (
        lambda a: (torch.sin(a), torch.cos(a), torch.atan(a), torch.tan(a * 0.4)),
        lambda g: (torch.rand(4, 257, generator=g) * 200 - 100,),
        {"rtol": 1e-6, "atol": 1e-6},
    ),
    "log1p_expm1_tiny": (  # log(1 + x) and exp(x) - 1 would be ~1e-2 off here
        lambda a: (torch.log1p(a), torch.expm1(a), torch.log1p(a * 1e5), torch.expm1(a * 1e6)),
        lambda g: (torch.rand(257, generator=g) * 2e-5 - 1e-5,),
        {"rtol": 1e-6, "atol": 0.0},
    ),
    "rounding": (
        lambda a: (
            torch.floor(a),
            torch.ceil(a),
            torch.round(a),
            torch.trunc(a),
            torch.fix(a),
            torch.frac(a),
            torch.round(a, decimals=1),
            torch.round(a * 100, decimals=-1),
        ),
        lambda g: (torch.randint(-40, 41, (3, 67), generator=g) / 4,),  # quarters: ties included
        EXACT,
    ),
    "sign": (
        lambda a, i: (torch.sign(a), torch.sgn(a), torch.sign(i), torch.floor(i), torch.round(i)),
        lambda g: (torch.randint(-2, 3, (40,), generator=g) / 2, torch.randint(-3, 4, (40,), generator=g)),
        EXACT,
    ),
    "floor_divide_remainder": (
        lambda a, b: (
            a // b,
            a % b,
            torch.remainder(a, -0.7),
            torch.floor_divide(a, 0.3),
            2.5 % b,
            a % 6.2831855,
        ),
        lambda g: (
            torch.rand(3, 129, generator=g) * 2e4 - 1e4,
            (torch.rand(129, generator=g) * 3 + 0.1) * torch.where(torch.rand(129, generator=g) < 0.5, -1, 1),
        ),
        EXACT,
    ),
    "div_rounding_modes": (
        lambda a, b: (
            torch.div(a, b, rounding_mode="floor"),
            torch.div(a, b, rounding_mode="trunc"),
            torch.div(a, 3, rounding_mode="trunc"),
            torch.div(a, b, rounding_mode=None),
        ),
        lambda g: (torch.rand(129, generator=g) * 200 - 100, torch.rand(129, generator=g) * 8 - 4),
        EXACT,
    ),
    "integer_floor_divide": (
        lambda i, j: (i // j, i % j, torch.div(i, j, rounding_mode="trunc"), i // 7, i % -3),
        lambda g: (
            torch.randint(-100, 100, (129,), generator=g),
            torch.randint(1, 9, (129,), generator=g) * torch.where(torch.rand(129, generator=g) < 0.5, -1, 1),
        ),
        EXACT,
    ),
    "half": (
        lambda a, b: (torch.sin(a), torch.floor(a * 3), a // b, a % b, torch.round(a * 8)),
        lambda g: (
            (torch.rand(129, generator=g) * 20 - 10).half(),
            (torch.rand(129, generator=g) * 3 + 0.25).half(),
        ),
        {"rtol": 2**-10, "atol": 1e-3},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_eager(name: str) -> None:
    fn, make, tolerance = CASES[name]
    inputs = make(torch.Generator().manual_seed(0))
    paths = _paths(fn, inputs)
    assert all(p == {"versa"} for op, p in paths.items() if op.startswith("torch.aten.")), paths
    _compile_and_compare(fn, inputs, **tolerance)


def test_special_values_match_eager() -> None:
    """Ties to even, sign of zero and NaN, infinities, and the floor-division cases where
    floor(a / b) alone is wrong (1.0 // 0.1 is 9) or NaN (a finite over an infinity); as torch,
    inf // 2 is NaN, 1 // 0 is inf, -1 % inf is inf."""
    inf, nan = math.inf, math.nan
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, nan, inf, -inf, -3.7, 3.7, -1e-30])
    # ... and quotients past 2^24 (the second exact step), up to 2^48.
    a = [1.0, 1.0, -1.0, 1.0, -1.0, 5.0, -5.0, 5.0, -5.0, 0.0, -0.0, 7.0, 1.0, -1.0, 0.0, inf, -inf]
    b = [0.1, 0.1, 0.1, inf, inf, 3.0, 3.0, -3.0, -3.0, 2.0, 2.0, -inf, 0.0, 0.0, 0.0, 2.0, inf]
    a = torch.tensor(a + [1e10, 1e10, -2e12, 12345.678, 1e30])
    b = torch.tensor(b + [3e-4, -3e-4, 3.3e-2, 0.01, 3.0])

    def rounding(x):
        return (torch.round(x), torch.floor(x), torch.ceil(x), torch.trunc(x), torch.sign(x), torch.sin(x))

    _compile_and_compare(rounding, (x,), **EXACT | {"atol": 1e-7})
    _compile_and_compare(
        lambda a, b: (a // b, a % b, torch.div(a, b, rounding_mode="trunc")), (a, b), **EXACT
    )


def test_onnx_math_ops_import_as_versa_ops() -> None:
    """Sin, Cos, Tan, Atan, Floor, Ceil, Round arrive through torch-mlir's ONNX conversion as the
    same aten ops, so as versa ops (Sign as compares and selects): no linalg fallback; results as
    onnx's reference (Round: ties to even)."""
    ops = ["Sin", "Cos", "Tan", "Atan", "Floor", "Ceil", "Round", "Sign"]
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in ops]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 33])],
        [helper.make_tensor_value_info(op.lower(), TensorProto.FLOAT, [4, 33]) for op in ops],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = versa.import_onnx(model)
    text = str(module)
    assert all(f'"versa.{op.lower()}"' in text for op in ops[:-1]) and "linalg.generic" not in text
    x = (np.random.default_rng(0).integers(-40, 41, (4, 33)) / 4).astype(np.float32)  # ties
    x[0, :3] = [0.7, -0.3, 1.1]
    got = JitFunction(module, pipeline="versa-canonicalize,versa-fuse,lower-to-llvm")(x)
    want = ReferenceEvaluator(model).run(None, {"x": x})
    for op, g, w in zip(ops, got, want, strict=True):
        np.testing.assert_allclose(
            g, w, rtol=1e-6, atol=1e-6 if op in ("Sin", "Cos", "Atan") else 0, err_msg=op
        )


def test_torch_compile_forward_and_backward() -> None:
    """Training graphs: the backward of sin is cos, of cos -sin, of abs sign, of atan, log1p and
    expm1 their derivatives; all versa ops now, forward and backward within 1e-5 of eager."""

    def fn(x):
        return (
            torch.sin(x) * torch.cos(x * 2) + torch.atan(x) + torch.log1p(x.abs()) + torch.expm1(x / 4)
        ).sum(-1) + (torch.remainder(x, 0.7) + torch.floor(x)).abs().sum(-1)

    x = torch.rand(4, 33, generator=torch.Generator().manual_seed(0)) * 6 - 3
    leaf, twin = x.clone().requires_grad_(), x.clone().requires_grad_()
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = torch.compile(Wrap(fn), backend="versa")(leaf)
        got.sum().backward()
    assert messages == []
    want = fn(twin)
    want.sum().backward()
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(leaf.grad, twin.grad, rtol=1e-5, atol=1e-5)
