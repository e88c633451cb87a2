"""NLL and cross-entropy (batched, segmentation-shaped and unbatched) pick each target's
log-probability with a gather (rules/loss.py), not a one-hot product over the classes: masked
logits (-inf) of other classes must not make the loss NaN, ignored targets count nothing, and
class weights and every reduction match eager. Tolerance: f32, rtol 1e-5, atol 1e-6 (the
loss), rtol 1e-4, atol 1e-5 (gradients)."""

import pytest
import torch
import versa
from torch.nn import functional as F
from torch_helpers import compiled_quietly, torch_compile_with_gradients

TOL = {"rtol": 1e-5, "atol": 1e-6}


def logits_and_targets(*dims, classes=7, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(dims[0], classes, *dims[1:], generator=g)
    t = torch.randint(0, classes, dims, generator=g)
    t.view(-1)[::5] = -100  # every fifth target ignored
    return x, t


CASES = {
    "mean": lambda x, t: F.cross_entropy(x, t),
    "sum": lambda x, t: F.cross_entropy(x, t, reduction="sum"),
    "none": lambda x, t: F.cross_entropy(x, t, reduction="none"),
    "weights": lambda x, t: F.cross_entropy(x, t, weight=torch.linspace(0.5, 2.0, 7)),
    "ignore_index_3": lambda x, t: F.cross_entropy(x, t.clamp(min=0), ignore_index=3),
    "smoothing": lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
    "nll_of_log_softmax": lambda x, t: F.nll_loss(F.log_softmax(x, 1), t, weight=torch.linspace(2.0, 0.5, 7)),
}


@pytest.mark.parametrize("dims", [(9,), (2, 3, 4)], ids=["rows", "segmentation"])
@pytest.mark.parametrize("name", CASES)
def test_losses_match_eager(name, dims):
    x, t = logits_and_targets(*dims)
    fn = CASES[name]
    torch.testing.assert_close(compiled_quietly(fn, x, t), fn(x, t), **TOL)


def test_masked_logits_give_a_finite_loss():
    """Logits of disallowed classes set to -inf (constrained decoding, padding classes): eager's
    loss is finite; a one-hot product computed -inf · 0 = NaN."""
    x, t = logits_and_targets(9)
    t = t.clamp(min=0)
    masked = x.masked_fill(torch.arange(7) != t[:, None], float("-inf"))  # only the target left
    for fn in (lambda x, t: F.cross_entropy(x, t), lambda x, t: F.nll_loss(F.log_softmax(x, 1), t)):
        got, want = compiled_quietly(fn, masked, t), fn(masked, t)
        assert torch.isfinite(want) and torch.isfinite(got)
        torch.testing.assert_close(got, want, **TOL)


def test_the_class_axis_is_never_multiplied_out():
    """One gather of the targets; the only C-wide ops are the row max and Σ exp."""
    x, t = logits_and_targets(9)
    module = versa.import_torch(versa_module(lambda x, t: F.cross_entropy(x, t)), (x, t))
    text = str(module)
    assert text.count('"versa.gather"') == 1 and '"versa.compare"(%' in text
    assert "tensor<9x7xi1>" not in text  # no one-hot mask


def versa_module(fn):
    class Module(torch.nn.Module):
        def forward(self, *args):
            return fn(*args)

    return Module()


@pytest.mark.parametrize("dims", [(6,), (6, 5)], ids=["rows", "segmentation"])
@pytest.mark.parametrize("name", ["mean", "sum", "none", "weights", "smoothing", "nll_of_log_softmax"])
def test_training_gradients_match_eager(name, dims):
    """The 2-d targets' backward (nll_loss2d_backward) has a rule; it ran eagerly."""
    x, t = logits_and_targets(*dims)
    fn = CASES[name]
    got, want, grads = torch_compile_with_gradients(lambda x: fn(x, t), [x])
    torch.testing.assert_close(got, want, **TOL)
    for grad, eager in grads:
        torch.testing.assert_close(grad, eager, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_unbatched_sample(reduction):
    """logp of shape [C] and a 0-d target (an IndexError escaped the rule before)."""
    x, t = torch.randn(7, generator=torch.Generator().manual_seed(4)), torch.tensor(3)
    for fn in (
        lambda x, t: F.nll_loss(F.log_softmax(x, 0), t, reduction=reduction),
        lambda x, t: F.cross_entropy(x, t, reduction=reduction),
        lambda x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.2),
        lambda x, t: F.cross_entropy(x, x.flip(0).softmax(0), reduction=reduction, weight=torch.ones(7) * 2),
    ):
        torch.testing.assert_close(compiled_quietly(fn, x, t), fn(x, t), **TOL)
    got, want, grads = torch_compile_with_gradients(lambda x: F.nll_loss(F.log_softmax(x, 0), t), [x])
    torch.testing.assert_close(got, want, **TOL)
    for grad, eager in grads:
        torch.testing.assert_close(grad, eager, rtol=1e-4, atol=1e-5)
