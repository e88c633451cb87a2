"""Forms found by the eighth model probe (27 families, 19 edge modules): op spellings without a
rule that ran eagerly (`a ^ b`, shifts by a number, std_mean, roll without dims, copysign,
pairwise_distance with p != 2, max_pool2d of kernel 1 under torch.compile), a uint8 result that
sent a whole graph eagerly, and a training graph with an eager op and a lifted tensor constant
that failed to compile at all."""

import pytest
import torch
import torch.nn.functional as F
import versa
from torch_helpers import Wrap, compiled_quietly, torch_compile_with_gradients, versa_warnings

TOL = {"rtol": 1e-5, "atol": 1e-6}

# ----------------------------------------------------------------------------- bitwise ops

BINARY = {
    "xor": lambda a, b: a ^ b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "bitwise_xor": torch.bitwise_xor,
    "logical_xor": torch.logical_xor,
    "xor_scalar": lambda a, b: a ^ 5 if a.dtype != torch.bool else a ^ True,
    "or_scalar": lambda a, b: a | 6 if a.dtype != torch.bool else a | False,
    "and_scalar": lambda a, b: torch.bitwise_and(a, 3) if a.dtype != torch.bool else a & True,
    "bitwise_xor_scalar": lambda a, b: torch.bitwise_xor(a, -7) if a.dtype != torch.bool else a ^ False,
}


def _ints(dtype):
    torch.manual_seed(0)
    if dtype == torch.bool:
        return torch.rand(3, 7) > 0.5, torch.rand(3, 7) > 0.5
    big = 2**40 if dtype == torch.int64 else 100
    return torch.randint(-big, big, (3, 7), dtype=dtype), torch.randint(-big, big, (3, 7), dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
@pytest.mark.parametrize("name", list(BINARY))
def test_bitwise_operators_convert(name, dtype):
    """`^` was aten.__xor__.Tensor, with no rule (bitwise_xor went through torch-mlir)."""
    a, b = _ints(dtype)
    fn = BINARY[name]
    assert torch.equal(compiled_quietly(fn, a, b), fn(a, b))


AMOUNTS = [0, 1, 5, 31, 62, 63, 64, 70, -1]


def test_shifts_by_a_number_match_torch_at_every_amount():
    """Out of [0, bits): every bit shifted out, as torch (0, or the sign for >>)."""
    a = torch.tensor([[-(2**62) - 3, -1000, -1, 0, 1, 7, 2**62 + 5, -(2**63)]])

    def fn(a):
        outs = []
        for k in AMOUNTS:
            outs += [torch.bitwise_right_shift(a, k), torch.bitwise_left_shift(a, k), a >> k, a << k]
        return torch.stack(outs)

    assert torch.equal(compiled_quietly(fn, a), fn(a))


@pytest.mark.parametrize("k", [0, 3, 7, 8, -2])
def test_int8_shifts_by_a_number(k):
    a = torch.arange(-128, 128, dtype=torch.int8).reshape(8, 32)
    fn = lambda a: torch.stack([torch.bitwise_right_shift(a, k), torch.bitwise_left_shift(a, k)])  # noqa: E731
    assert torch.equal(compiled_quietly(fn, a), fn(a))


def test_shifts_by_a_tensor_convert():
    """`a << b` is aten.__lshift__.Tensor: torch-mlir lowers it as bitwise_left_shift.Tensor."""
    torch.manual_seed(1)
    a, b = torch.randint(-1000, 1000, (3, 5)), torch.randint(0, 40, (3, 5))

    def fn(a, b):
        return torch.stack(
            [a << b, a >> b, torch.bitwise_left_shift(3, b), torch.bitwise_right_shift(-(2**50), b)]
        )

    assert torch.equal(compiled_quietly(fn, a, b), fn(a, b))


def test_right_shift_by_a_number_under_torch_compile():
    a = torch.randint(-1000, 1000, (2, 6))
    fn = lambda a: torch.bitwise_right_shift(a, 2) + 1  # noqa: E731
    got, want, _ = torch_compile_with_gradients(fn, [a], grad=False)
    assert torch.equal(got, want)


# ----------------------------------------------------------------------------- reductions, layout


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.std_mean(x, 1, correction=1),
        lambda x: torch.std_mean(x, [0, 2], correction=0, keepdim=True),
        lambda x: torch.std_mean(x, 1, unbiased=False),
        lambda x: torch.std_mean(x),
        lambda x: torch.var_mean(x, 2, unbiased=True, keepdim=True),
    ],
    ids=["correction", "dims-keepdim", "unbiased", "all", "var_mean-unbiased"],
)
def test_std_mean_converts(fn):
    x = torch.randn(3, 8, 5) + 4.0
    for got, want in zip(compiled_quietly(fn, x), fn(x), strict=True):
        torch.testing.assert_close(got, want, **TOL)


def test_std_mean_trains_with_nothing_eager():
    def fn(x):
        s, m = torch.std_mean(x, 1, correction=1)
        return s * 2 + m

    got, want, grads = torch_compile_with_gradients(fn, [torch.randn(4, 8)])
    torch.testing.assert_close(got, want, **TOL)
    torch.testing.assert_close(*grads[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.roll(x, 5),
        lambda x: torch.roll(x, -7),
        lambda x: torch.roll(x, 25),
        lambda x: torch.roll(x, 1, 1),
        lambda x: torch.roll(x, (2, -1), (2, 0)),
    ],
    ids=["flat", "flat-negative", "flat-wraps", "dim", "two-dims"],
)
def test_roll_converts(fn):
    x = torch.randn(2, 3, 4)
    assert torch.equal(compiled_quietly(fn, x), fn(x))


def test_roll_without_dims_trains_with_nothing_eager():
    got, want, grads = torch_compile_with_gradients(lambda x: torch.roll(x, 5) * 2, [torch.randn(2, 3, 4)])
    assert torch.equal(got, want)
    assert torch.equal(*grads[0])


# ----------------------------------------------------------------------------- copysign, distances

SIGNED = torch.tensor([1.5, -2.0, 0.0, -0.0, 3.0, -4.0, float("inf"), -float("inf"), 7.0, -0.0])
SIGNS = torch.tensor([-0.0, 0.0, -1.0, 2.0, float("-inf"), float("inf"), -3.0, 0.0, float("nan"), -5.0])


def _same_bits(got, want):
    """Equal values and equal sign bits (-0.0 is not 0.0 here)."""
    assert torch.equal(got, want) and torch.equal(torch.signbit(got), torch.signbit(want))


def test_copysign_takes_the_sign_bit_of_zeros_and_infinities():
    """|a| with b's sign bit: b = -0.0 gives a negative result. A NaN b counts as positive
    (versa cannot read a NaN's sign bit): here a positive NaN, as float("nan") is."""
    fn = lambda a, b: torch.copysign(a, b)  # noqa: E731
    _same_bits(compiled_quietly(fn, SIGNED, SIGNS), fn(SIGNED, SIGNS))
    _same_bits(compiled_quietly(torch.signbit, SIGNS[:8]), torch.signbit(SIGNS[:8]))


@pytest.mark.parametrize("b", [-0.0, 0.0, -2.5, 3.0])
def test_copysign_by_a_number(b):
    a = torch.cat([SIGNED, torch.arange(-3, 4).float()])
    fn = lambda a: torch.copysign(a, b)  # noqa: E731
    _same_bits(compiled_quietly(fn, a), fn(a))


def test_copysign_of_integers_is_float():
    a, b = torch.randint(-9, 9, (3, 4)), torch.randint(-9, 9, (3, 4))
    _same_bits(compiled_quietly(torch.copysign, a, b), torch.copysign(a, b))


def test_copysign_under_torch_compile_with_gradients():
    torch.manual_seed(3)
    got, want, grads = torch_compile_with_gradients(
        lambda a, b: torch.copysign(a, b) + 1, [torch.randn(2, 8), torch.randn(2, 8)]
    )
    assert torch.equal(got, want)
    for grad, eager in grads:
        torch.testing.assert_close(grad, eager, **TOL)


@pytest.mark.parametrize("p", [1.0, 3.0, 0.5, float("inf"), float("-inf"), 0.0, 2.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_of_any_order(p, keepdim):
    torch.manual_seed(4)
    a, b = torch.randn(5, 8), torch.randn(5, 8)
    b[0, :3] = a[0, :3]  # zero differences (p = 0 counts them out: eps moves them off 0)
    fn = lambda a, b: torch.nn.functional.pairwise_distance(a, b, p=p, keepdim=keepdim)  # noqa: E731
    torch.testing.assert_close(compiled_quietly(fn, a, b), fn(a, b), rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------- pooling


@pytest.mark.parametrize("grad", [False, True])
def test_max_pool_of_kernel_1_compiles_under_torch_compile(grad):
    """Under torch.compile kernel 1 is max_pool2d_with_indices: its one window's positions were
    [OH, OW], never broadcast to [N, C, OH, OW] (an internal error sent the op eagerly)."""
    x = torch.randn(2, 3, 5, 4)
    got, want, grads = torch_compile_with_gradients(lambda x: F.max_pool2d(x * 2, 1), [x], grad=grad)
    assert torch.equal(got, want)
    for g, eager in grads:
        assert torch.equal(g, eager)


def test_max_pool_of_kernel_1_returns_indices():
    x = torch.randn(2, 3, 5, 4)
    fn = lambda x: F.max_pool2d(x, 1, stride=2, return_indices=True)  # noqa: E731
    for got, want in zip(compiled_quietly(fn, x), fn(x), strict=True):
        assert torch.equal(got, want)


# ----------------------------------------------------------------------------- partitions in training


class _NanAndEagerOp(torch.nn.Module):
    """A tensor constant Dynamo lifts (`bad[:, 0] = nan`) and an op Versa leaves to PyTorch."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8))

    def forward(self, x, lo):
        bad = x.clone()
        bad[:, 0] = float("nan")
        return torch.nan_to_num(bad), torch.cummax(x * lo, 1).values, x * self.w


def test_training_partitions_take_lifted_constants_outside_fake_mode():
    """The partitioner moved the constant into its partition with `.detach()` inside
    AOTAutograd's FakeTensorMode, which refuses real tensors (BackendCompilerFailed)."""
    torch.manual_seed(5)
    model = _NanAndEagerOp()
    twin = _NanAndEagerOp()
    twin.load_state_dict(model.state_dict())
    x, lo = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)
    x2 = x.detach().clone().requires_grad_()
    torch._dynamo.reset()
    with versa_warnings() as messages:
        out = torch.compile(model, backend="versa")(x, lo)
        sum((o**2).mean() for o in out).backward()
    want = twin(x2, lo)
    sum((o**2).mean() for o in want).backward()
    assert messages and all(m.startswith("versa: 1 op(s) ran eagerly") and "cummax" in m for m in messages)
    for got, eager in zip(out, want, strict=True):
        torch.testing.assert_close(got, eager, **TOL)
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(model.w.grad, twin.w.grad, rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------- uint8 at the boundary


def _to_bytes(x):
    y = torch.tanh(x @ x.T) * 3 + 1
    return y, (x * 50).clamp(0, 255).to(torch.uint8)


def _from_bytes(image):
    return torch.tanh(image.float() / 255.0 - 0.5) * 2


def _eager_ops(messages):
    """The ops the versa warnings name as run eagerly."""
    named = [m.split(": ", 1)[1].split(";")[0] for m in messages if "ran eagerly" in m]
    return sorted({part.split("x ", 1)[1] for line in named for part in line.split(", ") if "x " in part})


@pytest.mark.parametrize("how", ["versa.compile", "torch.compile"])
@pytest.mark.parametrize("fn", [_to_bytes, _from_bytes], ids=["uint8-result", "uint8-input"])
def test_uint8_at_the_boundary_leaves_only_the_cast_eager(fn, how):
    """Versa has no ui8 type: a uint8 result failed the whole function ("function signature"),
    and every op ran eagerly. The refusal now names the op at the boundary (the cast), so only
    it runs eagerly (a view to uint8 is no compute: 0 ops are named then)."""
    torch.manual_seed(6)
    x = torch.randn(2, 8) if fn is _to_bytes else torch.randint(0, 256, (2, 3, 4, 4), dtype=torch.uint8)
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        if how == "versa.compile":
            got = versa.compile(Wrap(fn), (x,))(x)
        else:
            got = torch.compile(Wrap(fn), backend="versa")(x)
    want = fn(x)
    assert messages and all("1 compiled partition(s)" in m for m in messages)
    casts = {"torch.aten._to_copy", "torch.aten.to.dtype", "torch.aten._assert_tensor_metadata"}
    assert set(_eager_ops(messages)) <= casts  # the export's dtype check reads the uint8 input
    pairs = zip(
        got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,), strict=True
    )
    for g, w in pairs:
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, **TOL)
