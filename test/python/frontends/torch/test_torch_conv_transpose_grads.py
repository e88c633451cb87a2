"""Training through transposed convolutions under torch.compile(backend="versa"): the backward's
`convolution_backward(transposed=True)` compiles (input grad = the forward conv of the output grad,
weight grad = the conv weight gradient with input and output grad swapped), so no op runs eagerly.
Warnings are errors here (a fallback to eager warns). Tolerances: f32, rtol 1e-4, atol 1e-5."""

import copy
import warnings

import pytest
import torch
from torch import nn

# in, out, kernel, stride, padding, output_padding, dilation, groups, bias, spatial size, batch
CASES_2D = [
    (3, 5, 3, 1, 0, 0, 1, 1, True, (5, 6), 2),
    (4, 6, 3, 2, 1, 1, 1, 2, True, (5, 7), 2),
    (2, 3, (2, 3), (3, 2), (1, 0), (2, 1), 1, 1, False, (4, 5), 1),
    (4, 4, 3, 2, 1, 0, 2, 4, True, (5, 5), 2),  # depthwise, dilated
    (3, 2, 3, 1, 1, 1, 2, 1, True, (6, 5), 1),  # output_padding >= stride (below the dilation)
    (6, 4, (3, 2), 3, (2, 1), (1, 2), (1, 2), 2, False, (3, 4), 2),
    (1, 1, 1, 1, 0, 0, 1, 1, True, (3, 3), 1),
]
CASES_1D = [
    (3, 5, 3, 1, 0, 0, 1, 1, True, 7, 2),
    (4, 6, 4, 2, 1, 1, 1, 2, True, 9, 1),
    (4, 4, 3, 3, 2, 2, 2, 4, False, 6, 2),  # depthwise
    (2, 3, 5, 2, 3, 0, 1, 1, True, 5, 2),
]


def _ids(case: tuple) -> str:
    return "-".join(str(v).replace(" ", "") for v in case)


def _gradients_match(layer: nn.Module, x: torch.Tensor, input_grad: bool = True) -> None:
    reference = copy.deepcopy(layer)
    torch._dynamo.reset()
    xs = [x.clone().requires_grad_(input_grad), x.clone().requires_grad_(input_grad)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = torch.compile(layer, backend="versa")(xs[0])
    want = reference(xs[1])
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    upstream = torch.randn_like(want)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (got * upstream).sum().backward()
    (want * upstream).sum().backward()
    if input_grad:
        torch.testing.assert_close(xs[0].grad, xs[1].grad, rtol=1e-4, atol=1e-5, msg="input grad")
    for (key, mine), theirs in zip(layer.named_parameters(), reference.parameters(), strict=True):
        if theirs.requires_grad:
            torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5, msg=f"{key} grad")


@pytest.mark.parametrize("case", CASES_2D, ids=_ids)
def test_conv_transpose2d_gradients_match_eager(case: tuple) -> None:
    c_in, c_out, kernel, stride, padding, output_padding, dilation, groups, bias, size, batch = case
    torch.manual_seed(0)
    layer = nn.ConvTranspose2d(c_in, c_out, kernel, stride, padding, output_padding, groups, bias, dilation)
    _gradients_match(layer, torch.randn(batch, c_in, *size))


@pytest.mark.parametrize("case", CASES_1D, ids=_ids)
def test_conv_transpose1d_gradients_match_eager(case: tuple) -> None:
    c_in, c_out, kernel, stride, padding, output_padding, dilation, groups, bias, size, batch = case
    torch.manual_seed(0)
    layer = nn.ConvTranspose1d(c_in, c_out, kernel, stride, padding, output_padding, groups, bias, dilation)
    _gradients_match(layer, torch.randn(batch, c_in, size))


def test_only_the_requested_gradients() -> None:
    """A frozen weight and an input without grad: only the bias grad is asked for (output_mask)."""
    torch.manual_seed(0)
    layer = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)
    layer.weight.requires_grad_(False)
    _gradients_match(layer, torch.randn(2, 3, 4, 5), input_grad=False)


def _generator() -> nn.Module:
    """A small DCGAN generator: latent [N, 8, 1, 1] -> image [N, 3, 16, 16]."""
    return nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.ConvTranspose2d(8, 3, 4, 2, 1),
        nn.Tanh(),
    )


def _sgd_steps(model: nn.Module, inputs, steps: int = 2) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        model(*inputs).float().pow(2).mean().backward()
        optimizer.step()


def test_dcgan_generator_training_steps_end_with_eagers_weights() -> None:
    torch.manual_seed(0)
    model = _generator().train()
    twin = copy.deepcopy(model)
    inputs = (torch.randn(2, 8, 1, 1),)
    torch._dynamo.reset()
    _sgd_steps(model, inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _sgd_steps(torch.compile(twin, backend="versa"), inputs)
    for (key, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=f"parameter {key}")
    for (key, want), got in zip(model.named_buffers(), twin.buffers(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=f"buffer {key}")
