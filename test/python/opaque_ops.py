"""Ops Versa can never convert, for the tests of what happens around an unsupported op
(partitioning, the one error listing them, coverage): custom ops of a test-only library, with
a fake (shape) implementation for tracing and an autograd formula for training. Real ops served
before, until Versa learned them (scatter, topk, sort, cumprod), and the tests broke."""

import torch


@torch.library.custom_op("versa_test::reverse", mutates_args=())
def reverse(x: torch.Tensor) -> torch.Tensor:
    """2·x reversed along its last dim: self-adjoint, so its backward is itself."""
    return x.flip(-1) * 2


@reverse.register_fake
def _(x):
    return torch.empty_like(x)


reverse.register_autograd(lambda ctx, grad: reverse(grad))


@torch.library.custom_op("versa_test::halves", mutates_args=())
def halves(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The two halves of the last dim, swapped: a two-result op (a getitem follows it)."""
    first, second = x.chunk(2, dim=-1)
    return second.clone(), first.clone()


@halves.register_fake
def _(x):
    shape = (*x.shape[:-1], x.shape[-1] // 2)
    return x.new_empty(shape), x.new_empty(shape)


halves.register_autograd(lambda ctx, a, b: torch.cat([b, a], dim=-1))

REVERSE = "torch.versa_test.reverse"
HALVES = "torch.versa_test.halves"
