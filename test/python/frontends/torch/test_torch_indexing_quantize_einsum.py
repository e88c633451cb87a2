"""Ops the fifth model probe found running eagerly, now compiled (rules/indexing.py, quantize.py,
einsum.py; matrix norms in reduce.py): each compiles with nothing eager through versa.compile
(forward) and torch.compile (forward, and backward where the op is differentiable) and matches
eager PyTorch.

Tolerances: index results (searchsorted, take, index_fill, masked_scatter) and fake quantization
exactly (values are moved or rounded, never summed); norms and einsum as f32 allclose
(|got - want| <= 1e-5 + 1e-4 · |want|). Gradients are of the weighted sum in test_torch_window_and_scan_ops.
"""

import pytest
import torch
import versa
from test_torch_window_and_scan_ops import TOL, r
from torch_helpers import Wrap, compiled_quietly, torch_compile_with_gradients, versa_warnings

EXACT = {"rtol": 0.0, "atol": 0.0}

SEQ = torch.sort(r(11, seed=1))[0]
ROWS = torch.sort(r(3, 11, seed=2), dim=1)[0]
# random values, every boundary itself (ties: left and right differ), below and above all
VALUES = torch.cat([r(2, 11, seed=3) * 1.5, SEQ[None], torch.tensor([[-9.0] * 5 + [9.0] * 6])])
FLAT = torch.tensor([[0, -1, 7, 7], [13, 2, -15, 0]])  # take: negative and repeated indices
FILL = torch.tensor([3, 0, -1, 3])  # index_fill: negative and repeated
SCALES = torch.tensor([0.0625, 0.03125, 0.125])  # powers of 2: the halfway inputs are exact ties
ZEROS = torch.tensor([3, -2, 0], dtype=torch.int32)


def ties(*shape, scale: float, seed: int = 0):
    """Values around the quantization grid: half the elements exactly halfway between two steps
    (round half to even decides), a spread wide enough that some clamp."""
    x = r(*shape, seed=seed, scale=60 * scale)
    halves = (torch.randint(-300, 300, shape, generator=torch.Generator().manual_seed(seed)) + 0.5) * scale
    return torch.where(torch.arange(x.numel()).reshape(shape) % 2 == 0, halves, x)


B, C, L, H, N, P = 2, 2, 4, 3, 5, 6  # Mamba2's SSD: batch, chunks, chunk length, heads, state, head dim
SSD = [r(B, C, L, H, N), r(B, C, L, H, N, seed=1), r(B, H, C, L, L, seed=2), r(B, C, L, H, P, seed=3)]

CASES = {
    # searchsorted / bucketize (integer results)
    "searchsorted": (lambda v: torch.searchsorted(SEQ, v), [VALUES]),
    "searchsorted_right_int32": (lambda v: torch.searchsorted(SEQ, v, right=True, out_int32=True), [VALUES]),
    "searchsorted_side_right": (lambda v: torch.searchsorted(SEQ, v, side="right"), [VALUES]),
    "searchsorted_rows": (lambda s, v: torch.searchsorted(s, v), [ROWS, VALUES[:3]]),
    "searchsorted_scalar": (lambda s: torch.searchsorted(s, 0.25), [SEQ]),
    "bucketize_right": (lambda v: torch.bucketize(v, SEQ, right=True), [VALUES]),
    # gathers and masks
    "take": (lambda x: torch.take(x, FLAT), [r(3, 5)]),
    "index_fill": (lambda x: x.index_fill(1, FILL, -1.5), [r(3, 5)]),
    "index_fill_dim0_3d": (lambda x: x.index_fill(0, FILL[1:3], 2.0), [r(4, 3, 2)]),
    "index_fill_tensor_value": (lambda x, v: x.index_fill(2, FILL[:2], v), [r(2, 3, 4), torch.tensor(0.75)]),
    "masked_scatter": (lambda x, s: x.masked_scatter(x > 0, s), [r(3, 5), r(4, 5, seed=1)]),
    "masked_scatter_broadcast_mask": (
        lambda x, m, s: x.masked_scatter(m > 0, s),
        [r(3, 5), r(5, seed=1), r(16, seed=2)],
    ),
    # norms
    "linalg_norm_dims": (lambda x: torch.linalg.norm(x, dim=(1, 2)), [r(2, 3, 4)]),
    "linalg_norm_fro_keepdim": (
        lambda x: torch.linalg.norm(x, "fro", dim=(0, 2), keepdim=True),
        [r(2, 3, 4)],
    ),
    "linalg_norm_matrix_inf": (lambda x: torch.linalg.norm(x, float("inf")), [r(3, 4)]),
    "linalg_norm_vector": (lambda x: torch.linalg.norm(x, dim=1), [r(3, 4)]),
    "matrix_norm": (torch.linalg.matrix_norm, [r(2, 3, 4)]),
    "matrix_norm_1": (lambda x: torch.linalg.matrix_norm(x, 1), [r(2, 3, 4)]),
    "matrix_norm_neg_inf_dims": (
        lambda x: torch.linalg.matrix_norm(x, -float("inf"), dim=(0, 2)),
        [r(2, 3, 4)],
    ),
    # fake quantization (exact: the rounding ties are in the inputs)
    "fake_quant_tensor_ties": (
        lambda x: torch.fake_quantize_per_tensor_affine(x, 0.0625, -4, -128, 127),
        [ties(3, 8, scale=0.0625)],
    ),
    "fake_quant_tensor": (
        lambda x: torch.fake_quantize_per_tensor_affine(x, 0.04, 3, -128, 127),
        [ties(3, 8, scale=0.04)],
    ),
    "fake_quant_tensor_qparams": (
        lambda x: torch.fake_quantize_per_tensor_affine(x, SCALES[:1], ZEROS[:1], 0, 255),
        [ties(3, 8, scale=0.0625)],
    ),
    "fake_quant_channel": (
        lambda x: torch.fake_quantize_per_channel_affine(x, SCALES, ZEROS, 0, -128, 127),
        [ties(3, 8, scale=0.0625) * torch.tensor([[1.0], [0.5], [2.0]])],
    ),
    "fake_quant_channel_axis1_float_zero": (
        lambda x: torch.fake_quantize_per_channel_affine(x, SCALES, ZEROS.float() + 0.5, 1, 0, 15),
        [ties(2, 3, 4, scale=0.0625) * torch.tensor([[1.0], [0.5], [2.0]])],
    ),
    # einsum
    "einsum_ssd_four": (
        lambda *t: torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", *t),
        SSD,
    ),
    "einsum_three": (
        lambda *t: torch.einsum("bclhn,bhcl,bclhp->bchpn", *t),
        [SSD[0], SSD[2][..., 0], SSD[3]],
    ),
    "einsum_chain_implicit": (
        lambda *t: torch.einsum("ij,jk,kl", *t),
        [r(2, 3), r(3, 4, seed=1), r(4, 5, seed=2)],
    ),
    "einsum_ellipsis_broadcast": (
        lambda a, b: torch.einsum("...ij,...jk->...ik", a, b),
        [r(2, 1, 3, 4), r(5, 4, 2, seed=1)],
    ),
    "einsum_dot_and_sum": (
        lambda a, b: torch.einsum("i,i->", a, b) + torch.einsum("bij->j", a[None, None]).sum(),
        [r(5), r(5, seed=1)],
    ),
}
INTEGER = {name for name in CASES if name.startswith(("searchsorted", "bucketize"))}
EXACT_CASES = INTEGER | {name for name in CASES if name.startswith(("take", "index_fill", "masked", "fake"))}


def _tolerance(name):
    return EXACT if name in EXACT_CASES else TOL


@pytest.mark.parametrize("name", CASES)
def test_versa_compile(name):
    fn, inputs = CASES[name]
    torch.testing.assert_close(compiled_quietly(fn, *inputs), fn(*inputs), **_tolerance(name))


@pytest.mark.parametrize("name", CASES)
def test_torch_compile_forward_and_backward(name):
    fn, inputs = CASES[name]
    got, want, grads = torch_compile_with_gradients(fn, inputs, grad=name not in INTEGER)
    torch.testing.assert_close(got, want, **_tolerance(name))
    for a, b in grads:
        torch.testing.assert_close(a, b, **TOL)


def test_searchsorted_puts_nan_past_the_end():
    """torch's binary search never finds a NaN value's place: it lands after every boundary."""
    values = torch.tensor([[float("nan"), 0.0, float("inf"), float("-inf")]])
    for right in (False, True):
        with versa_warnings() as messages, torch.no_grad():
            got = versa.compile(
                Wrap(lambda v, right=right: torch.searchsorted(SEQ, v, right=right)), [values]
            )(values)
        assert messages == []
        assert torch.equal(got, torch.searchsorted(SEQ, values, right=right))


def test_fake_quantize_training_forms_are_straight_through():
    """The _cachemask forms torch.compile's training graph holds: the gradient is 1 where the
    value was inside [qmin, qmax] after rounding, 0 where it was clamped."""
    x = ties(4, 8, scale=0.0625)
    fn = Wrap(lambda t: torch.fake_quantize_per_tensor_affine(t, 0.0625, 0, -20, 20).sum())
    torch._dynamo.reset()
    leaf = x.clone().requires_grad_()
    with versa_warnings() as messages:
        torch.compile(fn, backend="versa")(leaf).backward()
    twin = x.clone().requires_grad_()
    fn(twin).backward()
    assert messages == []
    assert 0 < int(twin.grad.sum()) < x.numel()  # some clamped, some not
    assert torch.equal(leaf.grad, twin.grad)
