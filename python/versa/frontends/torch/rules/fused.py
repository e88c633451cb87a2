"""PyTorch's fused fast-path kernels, spelt out in versa ops.

In eval mode without autograd, `nn.TransformerEncoderLayer` calls one fused kernel,
`aten._transformer_encoder_layer_fwd`; torch.compile graphs then carry that op instead of its
parts. Its math is the layer's: self-attention and a two-layer feed-forward, each with a
residual and layer norm (before the block when `norm_first`, after it otherwise).
"""

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from . import nn
from .common import shape, transpose


def _self_attention(node: Node, x, heads: int, qkv_weight, qkv_bias, proj_weight, proj_bias):
    b, length, dim = shape(x)
    qkv = nn.linear(node, x, qkv_weight, qkv_bias)
    q, k, v = (
        transpose(
            vb.reshape(
                vb.slice(qkv, starts=[0, 0, i * dim], limits=[b, length, (i + 1) * dim]),
                [b, length, heads, dim // heads],
            ),
            [0, 2, 1, 3],
        )
        for i in range(3)
    )
    attended = transpose(nn.attention(node, q, k, v), [0, 2, 1, 3])
    return nn.linear(node, vb.reshape(attended, [b, length, dim]), proj_weight, proj_bias)


@rule("torch.aten._transformer_encoder_layer_fwd")
def transformer_encoder_layer(
    node: Node,
    src,
    dim,
    heads,
    qkv_weight,
    qkv_bias,
    proj_weight,
    proj_bias,
    use_gelu,
    norm_first,
    eps,
    norm_weight_1,
    norm_bias_1,
    norm_weight_2,
    norm_bias_2,
    ffn_weight_1,
    ffn_bias_1,
    ffn_weight_2,
    ffn_bias_2,
    mask=None,
    mask_type=None,
):
    if mask is not None:
        raise Unsupported("the fused encoder layer with an attention mask")
    if len(shape(src)) != 3:
        raise Unsupported("the fused encoder layer on unbatched input")

    def norm(x, weight, bias):
        return vb.layer_norm(x, weight, bias, axis=2, epsilon=eps)

    def attention(x):
        return _self_attention(node, x, heads, qkv_weight, qkv_bias, proj_weight, proj_bias)

    def feed_forward(x):
        hidden = nn.linear(node, x, ffn_weight_1, ffn_bias_1)
        hidden = vb.gelu(hidden) if use_gelu else vb.relu(hidden)
        return nn.linear(node, hidden, ffn_weight_2, ffn_bias_2)

    if norm_first:
        x = vb.add(src, attention(norm(src, norm_weight_1, norm_bias_1)))
        return vb.add(x, feed_forward(norm(x, norm_weight_2, norm_bias_2)))
    x = norm(vb.add(src, attention(src)), norm_weight_1, norm_bias_1)
    return norm(vb.add(x, feed_forward(x)), norm_weight_2, norm_bias_2)
