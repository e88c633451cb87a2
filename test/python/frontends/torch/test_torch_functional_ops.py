"""torch.nn.functional activations and losses, bicubic resampling, embedding_bag and the fused
encoder layer with a padding mask: each compiles with nothing eager, through versa.compile and
torch.compile (forward and, where PyTorch differentiates it, backward), and matches eager.

Tolerance: f32, |got - want| <= 1e-5 + 1e-4 · |want| (allclose).
"""

import pytest
import torch
import versa
from torch.nn import functional as F
from torch_helpers import Wrap, versa_warnings

TOL = {"rtol": 1e-4, "atol": 1e-5}


def r(*shape, low=-2.0, high=2.0, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed)) * (high - low) + low


def p(*shape, seed=1):
    return r(*shape, low=0.01, high=0.99, seed=seed)


SIGNS = torch.tensor([1, -1, 1, -1])
CLASS_WEIGHTS = p(8, seed=3)
CASES = {
    "softplus_threshold": (lambda a: F.softplus(a, beta=2.0, threshold=3.0), [r(4, 8)]),
    "softshrink": (lambda a: F.softshrink(a, 0.5), [r(4, 8)]),
    "mish": (F.mish, [r(4, 8)]),
    "logsigmoid": (F.logsigmoid, [r(4, 8)]),
    "prelu": (F.prelu, [r(2, 3, 4), r(3, seed=2)]),
    "rrelu_eval": (lambda a: F.rrelu(a, training=False), [r(4, 8)]),
    "logit": (lambda a: torch.logit(a.sigmoid()), [r(4, 8)]),
    "celu_selu_softsign": (lambda a: F.celu(a, 0.7) + F.selu(a) + F.softsign(a), [r(4, 8)]),
    "hardshrink_tanhshrink": (lambda a: F.hardshrink(a, 0.5) + F.tanhshrink(a), [r(4, 8)]),
    "threshold": (lambda a: F.threshold(a, 0.3, -1.0), [r(4, 8)]),
    "fmod": (
        lambda a, b: torch.fmod(a * 3, b) + torch.fmod(a * 3, 1.3),
        [r(4, 8), r(8, low=0.5, high=2, seed=2)],
    ),
    "remainder": (
        lambda a, b: torch.remainder(a * 3, b) + torch.remainder(a, -0.7),
        [r(4, 8), r(8, low=0.5, seed=2)],
    ),
    "hypot": (torch.hypot, [r(4, 8), r(4, 8, seed=2)]),
    "xlogy": (lambda a, b: torch.xlogy(a.relu(), b.abs() + 0.1), [r(4, 8), r(4, 8, seed=2)]),
    "smooth_l1": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), [r(4, 8), r(4, 8, seed=2)]),
    "huber": (lambda a, b: F.huber_loss(a, b, delta=0.7, reduction="sum"), [r(4, 8), r(4, 8, seed=2)]),
    "soft_margin": (lambda a: F.soft_margin_loss(a, SIGNS.float().repeat(2, 1).T), [r(4, 2)]),
    "kl_div": (
        lambda a, b: F.kl_div(F.log_softmax(a, -1), F.softmax(b, -1), reduction="batchmean"),
        [r(4, 8), r(4, 8, seed=2)],
    ),
    "bce": (lambda a, t: F.binary_cross_entropy(a.sigmoid(), t), [r(4, 8), p(4, 8)]),
    "bce_logits": (
        lambda a, t: F.binary_cross_entropy_with_logits(
            a, t, CLASS_WEIGHTS, pos_weight=torch.full((8,), 2.0)
        ),
        [r(4, 8), p(4, 8)],
    ),
    "cosine_embedding": (
        lambda a, b: F.cosine_embedding_loss(a, b, SIGNS, margin=0.1),
        [r(4, 8), r(4, 8, seed=2)],
    ),
    "margin_ranking": (
        lambda a, b: F.margin_ranking_loss(a, b, SIGNS.float(), margin=0.2),
        [r(4), r(4, seed=2)],
    ),
    "triplet_margin": (F.triplet_margin_loss, [r(4, 8), r(4, 8, seed=2), r(4, 8, seed=3)]),
    "hinge_embedding": (lambda a: F.hinge_embedding_loss(a, SIGNS.repeat(2, 1).T), [r(4, 2)]),
    "poisson_nll_full": (
        lambda a, t: F.poisson_nll_loss(a.abs() + 0.1, t * 5, log_input=False, full=True),
        [r(4, 8), p(4, 8)],
    ),
    "multilabel_soft_margin": (F.multilabel_soft_margin_loss, [r(4, 8), (p(4, 8) > 0.5).float()]),
    "nll": (lambda a: F.nll_loss(F.log_softmax(a, 1), torch.tensor([1, 0, 7, 3])), [r(4, 8)]),
    "cross_entropy_probs": (
        lambda a, t: F.cross_entropy(a, F.softmax(t, 1), label_smoothing=0.1),
        [r(4, 8), r(4, 8, seed=2)],
    ),
    "cosine_pairwise_normalize": (
        lambda a, b: F.cosine_similarity(a, b) + F.pairwise_distance(a, b) + F.normalize(a).sum(-1),
        [r(4, 8), r(4, 8, seed=2)],
    ),
    "norms": (
        lambda a: F.group_norm(a, 3) + F.instance_norm(a) + F.local_response_norm(a, 3) * 0,
        [r(2, 6, 5, 5)],
    ),
    "shuffles": (
        lambda a: F.pixel_unshuffle(F.pixel_shuffle(a, 2), 2) + F.channel_shuffle(a, 2),
        [r(2, 8, 3, 3)],
    ),
}
BACKWARD_EAGER = {"norms"}  # local_response_norm's avg_pool3d_backward


@pytest.mark.parametrize("name", CASES)
def test_versa_compile(name):
    fn, inputs = CASES[name]
    model = Wrap(fn)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, inputs)(*inputs)
    assert messages == []
    torch.testing.assert_close(got, fn(*inputs), **TOL)


@pytest.mark.parametrize("name", CASES)
def test_torch_compile_forward_and_backward(name):
    fn, inputs = CASES[name]
    torch._dynamo.reset()
    leaves = [x.clone().requires_grad_() for x in inputs]
    twins = [x.clone().requires_grad_() for x in inputs]
    with versa_warnings() as messages:
        got = torch.compile(Wrap(fn), backend="versa")(*leaves)
        got.sum().backward()
    want = fn(*twins)
    want.sum().backward()
    assert messages == [] or name in BACKWARD_EAGER and "backward" in messages[0]
    torch.testing.assert_close(got, want, **TOL)
    for a, b in zip(leaves, twins, strict=True):
        torch.testing.assert_close(a.grad, b.grad, **TOL)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_reductions_weights_and_saturated_probabilities(reduction):
    def fn(q, t, w):
        q = torch.cat(
            [q.sigmoid(), torch.tensor([[0.0, 1.0]]).expand(q.shape[0], 2)], 1
        )  # logs clamp at -100
        return F.binary_cross_entropy(q, t, w, reduction=reduction)

    inputs = [r(3, 6), p(3, 8), p(8, seed=4)]
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(Wrap(fn), inputs)(*inputs)
    assert messages == []
    torch.testing.assert_close(got, fn(*inputs), **TOL)


BICUBIC = [
    {"scale_factor": 2},
    {"scale_factor": 0.5},
    {"scale_factor": (1.7, 0.6)},
    {"size": (14, 5)},
    {"size": (3, 20)},
    {"size": (7, 9)},
]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("resize", BICUBIC, ids=str)
def test_bicubic_interpolation(resize, align_corners):
    model = Wrap(lambda x: F.interpolate(x, mode="bicubic", align_corners=align_corners, **resize))
    x = r(2, 3, 7, 9, low=-3, high=3)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, (x,))(x)
    assert messages == []
    torch.testing.assert_close(got, model(x), **TOL)


INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
OFFSETS = torch.tensor([0, 3, 3, 5])  # the second bag is empty
BAGS = {
    "sum": (lambda w, i, o, s: F.embedding_bag(i, w, o, mode="sum"), [INDICES, OFFSETS]),
    "sum_weighted": (
        lambda w, i, o, s: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s),
        [INDICES, OFFSETS],
    ),
    "mean_padding": (
        lambda w, i, o, s: F.embedding_bag(i, w, o, mode="mean", padding_idx=4),
        [INDICES, OFFSETS],
    ),
    "max": (lambda w, i, o, s: F.embedding_bag(i, w, o, mode="max"), [INDICES, OFFSETS]),
    "mean_last_offset": (
        lambda w, i, o, s: F.embedding_bag(i, w, o, mode="mean", include_last_offset=True),
        [INDICES, torch.tensor([0, 3, 3, 5, 8])],
    ),
    "max_2d": (lambda w, i, o, s: F.embedding_bag(i.view(2, 4), w, mode="max"), [INDICES, OFFSETS]),
}


@pytest.mark.parametrize("path", ["versa.compile", "torch.compile"])
@pytest.mark.parametrize("name", BAGS)
def test_embedding_bag(name, path):
    fn, (indices, offsets) = BAGS[name]
    inputs = (r(10, 4), indices, offsets, p(8))
    model = Wrap(fn)
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        compiled = (
            versa.compile(model, inputs) if path == "versa.compile" else torch.compile(model, backend="versa")
        )
        got = compiled(*inputs)
    assert messages == []
    torch.testing.assert_close(got, fn(*inputs), **TOL)


@pytest.mark.parametrize("norm_first, activation", [(False, "relu"), (True, "gelu")])
@pytest.mark.parametrize("attn_mask", [False, True])
def test_fused_encoder_layer_with_a_padding_mask_under_torch_compile(norm_first, activation, attn_mask):
    """Eval without grad: Dynamo traces PyTorch's fused fast path (_transformer_encoder_layer_fwd)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first, activation=activation
    ).eval()
    x = torch.randn(2, 10, 32)
    padding = torch.zeros(2, 10, dtype=torch.bool)
    padding[1, 7:] = True
    mask = torch.nn.Transformer.generate_square_subsequent_mask(10) if attn_mask else None
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        got = torch.compile(layer, backend="versa")(x, src_mask=mask, src_key_padding_mask=padding)
        want = layer(x, src_mask=mask, src_key_padding_mask=padding)
    assert messages == []
    torch.testing.assert_close(got, want, **TOL)
