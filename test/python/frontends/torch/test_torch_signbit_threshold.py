"""torch.signbit and torch.copysign read the sign bit as eager does (-0.0 and NaNs with the sign
bit set are negative, +NaN is not), and the activation gradients (threshold_backward,
leaky_relu_backward, hardtanh_backward) take eager's result dtype and values with operands of
two dtypes, through versa.compile and torch.compile, nothing eager.

Tolerances: signbit, copysign and the selects of the gradients move or negate values and never
round, so the results must be bit-identical (torch.equal; NaNs compared by their bits). The
leaky_relu gradient multiplies once by the slope, as eager does in the same dtype: equal too.
"""

import pytest
import torch
from torch_helpers import Wrap, compiled_quietly, versa_warnings

A = torch.ops.aten

# -0.0, +0.0, -NaN (quiet, and all bits set), +NaN (quiet, and the largest payload), -inf, +inf,
# the smallest denormals of each sign, +-1, the largest finite values
F32_BITS = [
    0x80000000, 0x00000000, 0xFFC00000, 0xFFFFFFFF, 0x7FC00000, 0x7FFFFFFF, 0xFF800000,
    0x7F800000, 0x00000001, 0x80000001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF,
]  # fmt: skip
F16_BITS = [0x8000, 0x0000, 0xFE00, 0xFFFF, 0x7E00, 0x7FFF, 0xFC00, 0x7C00, 0x0001, 0x8001, 0x3C00, 0xBC00]


def special(dtype: torch.dtype) -> torch.Tensor:
    """The values of F32_BITS / F16_BITS, made from their bits (torch.tensor(nan) is +NaN)."""
    if dtype == torch.float32:
        return torch.tensor(F32_BITS, dtype=torch.int64).to(torch.int32).view(torch.float32)
    bits = torch.tensor(F16_BITS, dtype=torch.int32).to(torch.int16)
    return bits.view(torch.float16).to(dtype) if dtype == torch.float16 else bits.view(torch.float16)


def bits(x: torch.Tensor) -> torch.Tensor:
    return x.view({4: torch.int32, 2: torch.int16}[x.element_size()])


def test_the_special_values_are_what_they_claim():
    x = special(torch.float32)
    assert torch.signbit(x).tolist()[:6] == [True, False, True, True, False, False]
    assert x[2:6].isnan().all() and x[8] > 0 and x[9] < 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_signbit_reads_the_sign_bit(dtype):
    x = special(dtype)
    assert torch.equal(compiled_quietly(torch.signbit, x), torch.signbit(x))


def test_signbit_of_a_2d_tensor_and_of_integers():
    x = torch.randn(5, 7)
    x[0, :3] = torch.tensor([-0.0, 0.0, float("nan")])
    x[1, 0] = -x[0, 2]  # -NaN
    assert torch.equal(compiled_quietly(torch.signbit, x), torch.signbit(x))
    i = torch.randint(-3, 3, (4, 5))
    assert torch.equal(compiled_quietly(torch.signbit, i), torch.signbit(i))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_copysign_takes_the_sign_bit(dtype):
    sign = special(dtype)
    size = torch.linspace(-3, 3, len(sign)).to(dtype)
    size[0] = float("nan")
    got, want = compiled_quietly(torch.copysign, size, sign), torch.copysign(size, sign)
    assert torch.equal(bits(got), bits(want))
    got = compiled_quietly(lambda a: torch.copysign(a, -0.0), size)
    assert torch.equal(bits(got), bits(torch.copysign(size, -0.0)))


def test_signbit_and_copysign_through_torch_compile():
    x = special(torch.float32)
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = torch.compile(
            Wrap(lambda a: (torch.signbit(a), torch.copysign(torch.ones_like(a), a))), backend="versa"
        )(x)
    assert messages == []
    assert torch.equal(got[0], torch.signbit(x))
    assert torch.equal(got[1], torch.copysign(torch.ones_like(x), x))


GRADIENTS = {
    "threshold": lambda g, x: A.threshold_backward(g, x, 0.5),
    "threshold_negative": lambda g, x: A.threshold_backward(g, x, -0.5),
    "leaky_relu": lambda g, x: A.leaky_relu_backward(g, x, 0.1, False),
    "hardtanh": lambda g, x: A.hardtanh_backward(g, x, -0.5, 0.5),
}


def operands(kind: str):
    floats = torch.rand(8, 16, generator=torch.Generator().manual_seed(0)) * 4 - 2
    floats[0, :4] = torch.tensor([0.5, -0.5, 0.0, float("nan")])
    ints = torch.randint(-10, 10, (8, 16), generator=torch.Generator().manual_seed(1))
    return {
        "i64_f32": (ints, floats),
        "f32_i64": (floats, ints),
        "i32_f32": (ints.int(), floats),
        "f16_f32": (floats.half(), floats),
        "f32_f32": (floats.flip(0), floats),
        "i64_i64": (ints, ints.flip(1)),
    }[kind]


@pytest.mark.parametrize("kind", ["i64_f32", "f32_i64", "i32_f32", "f16_f32", "f32_f32", "i64_i64"])
@pytest.mark.parametrize("name", list(GRADIENTS))
def test_activation_gradients_match_eager(name, kind):
    fn, (g, x) = GRADIENTS[name], operands(kind)
    try:
        want = fn(g, x)
    except RuntimeError:  # eager has no such kernel (leaky_relu of integers)
        pytest.skip("eager refuses it")
    got = compiled_quietly(fn, g, x)
    assert got.dtype == want.dtype
    assert (
        torch.equal(got, want)
        or torch.equal(got.isnan(), want.isnan())
        and torch.equal(got.nan_to_num(), want.nan_to_num())
    )


@pytest.mark.parametrize("kind", ["i64_f32", "f32_i64", "f32_f32"])
def test_threshold_backward_through_torch_compile(kind):
    g, x = operands(kind)
    fn = GRADIENTS["threshold"]
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = torch.compile(Wrap(fn), backend="versa")(g, x)
    assert messages == []
    want = fn(g, x)
    assert got.dtype == want.dtype and torch.equal(got, want)
