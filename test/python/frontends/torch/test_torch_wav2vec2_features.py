"""A Wav2Vec2-base-like feature extractor and positional conv against eager, compiled whole.

Wav2Vec2-base ran entirely eagerly: its positional conv (768 channels, kernel 128, padding 64,
16 groups, weight-normed) packs its filters (1.2 MB per group, over half of a 2 MB L2,
codegen/conv.py), and at 58 frames its 59 output columns are 7 register tiles of 8 and a piece
of 3 that is a single tile: `hoist_pad ... by 0 loops` then failed the whole module.
18640 samples give those 58 frames (the conv stack's strides: 5, then 2 six times). The conv
stack keeps wav2vec2's shapes but 128 channels instead of 512 (time: the positional conv is the
case). Through versa.compile and torch.compile(backend="versa"), nothing eager.

Tolerance: f32 sums of up to 48 * 128 = 6144 products and GroupNorm/LayerNorm statistics over
thousands of values, summed in another order than eager's: rounding grows about as the square
root of the terms (~1e-6 relative here); rtol 1e-4 and atol 1e-4 of the output's magnitude
leave a wide margin and still catch a wrong tap, group or window (errors of order 1e-2 or more).
"""

import pytest
import torch
import versa
from torch import nn
from torch_helpers import versa_warnings

SAMPLES = 18640  # 58 frames: the positional conv's 59 columns end in a one-tile piece


class FeatureEncoder(nn.Module):
    """Wav2Vec2's conv feature encoder ("group" norm: GroupNorm after the first conv only), the
    feature projection (LayerNorm + Linear) and the positional conv embedding (SamePad: the
    last column dropped) added to it."""

    def __init__(self, channels: int = 128, hidden: int = 768):
        super().__init__()
        kernels, strides = (10, 3, 3, 3, 3, 2, 2), (5, 2, 2, 2, 2, 2, 2)
        ins = (1,) + (channels,) * 6
        self.convs = nn.ModuleList(
            nn.Conv1d(i, channels, k, s, bias=False) for i, k, s in zip(ins, kernels, strides, strict=True)
        )
        self.norm = nn.GroupNorm(channels, channels)
        self.projection = nn.Sequential(nn.LayerNorm(channels), nn.Linear(channels, hidden))
        conv = nn.Conv1d(hidden, hidden, 128, padding=64, groups=16)
        self.positional = nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)

    def forward(self, audio):
        h = nn.functional.gelu(self.norm(self.convs[0](audio[:, None])))
        for conv in self.convs[1:]:
            h = nn.functional.gelu(conv(h))
        h = self.projection(h.transpose(1, 2))
        p = nn.functional.gelu(self.positional(h.transpose(1, 2))[..., :-1])
        return h + p.transpose(1, 2)


@pytest.fixture(scope="module")
def model_and_audio():
    torch.manual_seed(0)
    return FeatureEncoder().eval(), torch.randn(1, SAMPLES)


def _check(got, want):
    scale = want.abs().max().item()
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4 * scale)


def test_the_feature_encoder_compiles_whole_and_matches(model_and_audio):
    model, audio = model_and_audio
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, (audio,))(audio)
        want = model(audio)
    assert messages == []
    assert want.shape == (1, 58, 768)
    _check(got, want)


def test_the_feature_encoder_through_torch_compile(model_and_audio):
    model, audio = model_and_audio
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        got = torch.compile(model, backend="versa")(audio)
        want = model(audio)
    assert messages == []
    _check(got, want)
