"""Forms found by the eighth model probe (27 families, 19 edge modules): op spellings without a
rule that ran eagerly (`a ^ b`, shifts by a number, std_mean, roll without dims, copysign,
pairwise_distance with p != 2, max_pool2d of kernel 1 under torch.compile), a uint8 result that
sent a whole graph eagerly, and a training graph with an eager op and a lifted tensor constant
that failed to compile at all."""

import pytest
import torch
from torch_helpers import compiled_quietly, torch_compile_with_gradients

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
