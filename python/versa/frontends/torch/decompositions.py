"""The ATen decompositions applied before a torch.compile graph reaches Versa.

AOTAutograd traces below autograd, so composite ops arrive as their ATen parts (linear as
t + addmm). Ops whose ATen form returns extra statistics for backward (native_layer_norm,
native_batch_norm) or calls a fused kernel (flash attention) are decomposed by PyTorch's own
table into ops the conversion rules cover.
"""

import math

import torch
from torch._decomp import get_decompositions

aten = torch.ops.aten


def attention_math(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """scaled_dot_product_attention in plain ops, which autograd then differentiates: PyTorch's CPU
    flash kernel saves statistics for its own backward that no compiled forward reproduces."""
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        repeat = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(repeat, dim=-3), v.repeat_interleave(repeat, dim=-3)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if is_causal:
        keep = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        scores = (
            scores.masked_fill(~attn_mask, float("-inf"))
            if attn_mask.dtype == torch.bool
            else scores + attn_mask
        )
    weights = torch.softmax(scores, dim=-1)
    if dropout_p:
        weights = torch.nn.functional.dropout(weights, dropout_p)
    return torch.matmul(weights, v)


DECOMPOSITIONS = get_decompositions(
    [
        aten.native_layer_norm,
        aten.native_layer_norm_backward,
        aten.native_group_norm_backward,
        aten.native_batch_norm,
        aten.native_batch_norm_backward,
        aten._native_batch_norm_legit,
        aten._native_batch_norm_legit_no_training,
        aten._native_batch_norm_legit_functional,
        aten._scaled_dot_product_flash_attention_for_cpu,
        aten._softmax_backward_data,
        aten._log_softmax_backward_data,
        aten.gelu_backward,
        aten.sigmoid_backward,
        aten.tanh_backward,
        aten.threshold_backward,
        aten.native_dropout,
        aten.native_dropout_backward,
        aten.hardtanh_backward,
        aten.silu_backward,
        aten.hardswish_backward,
        # torch-mlir's linalg lowering of leaky_relu_backward is wrong (grad + slope·x where x < 0)
        # and hardsigmoid_backward has none: both are a where() in PyTorch's table
        aten.leaky_relu_backward,
        aten.hardsigmoid_backward,
        aten.glu_backward,
        aten.binary_cross_entropy,
        aten.binary_cross_entropy_backward,
        aten.avg_pool2d_backward,
        aten.addmm,
        aten.t,
        aten.transpose.int,
        aten.squeeze,
        aten.unsqueeze,
        aten.expand,
        aten.select_backward,
        aten.slice_backward,
        aten.mse_loss,
        aten.mse_loss_backward,
        # activations and losses AOTAutograd keeps whole: their PyTorch decompositions are
        # elementwise ops the rules cover (rrelu_with_noise_backward in eval is leaky_relu's,
        # which torch-mlir's lowering gets wrong, see above)
        aten.mish_backward,
        aten.log_sigmoid_forward,
        aten.log_sigmoid_backward,
        aten._prelu_kernel,
        aten._prelu_kernel_backward,
        aten.rrelu_with_noise_backward,
        aten.logit_backward,
        aten.smooth_l1_loss,
        aten.smooth_l1_loss_backward,
        aten.huber_loss,
        aten.huber_loss_backward,
        aten.soft_margin_loss,
        aten.soft_margin_loss_backward,
        aten.xlogy.Tensor,
        # torch-mlir's importer rewrites _unsafe_index_put (bilinear / nearest upsampling's
        # backward) into its hacked twin, which takes no None indices; decomposed, it is an
        # index_put, which rules/scatter.py takes
        aten._unsafe_index_put,
        # cdist's matmul form (more than 25 points a side): a concat, a matmul, clamp and sqrt
        aten._euclidean_dist,
        # nn.utils.(parametrizations.)weight_norm under torch.compile: v · g / ‖v‖ (wav2vec2's
        # positional conv); versa.compile sees aten._weight_norm, which rules/nn.py takes
        aten._weight_norm_interface,
    ]
)


def transformer_encoder_layer(
    src, dim, heads, qkv_weight, qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
    norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
    ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None,
):  # fmt: skip
    """PyTorch's fused encoder-layer kernel (nn.TransformerEncoderLayer in eval without grad) with
    a mask, in plain ops; without one the `fused` rule takes it whole. As the kernel does, a
    float mask masks where it is nonzero; mask_type 1 is a [batch, key] padding mask."""
    if mask is None or src.dim() != 3 or src.is_nested:
        return NotImplemented
    F = torch.nn.functional
    masked = mask if mask.dtype == torch.bool else mask != 0
    if mask_type == 1:
        masked = masked.view(src.shape[0], 1, 1, src.shape[1])

    def attention(x):
        b, length, _ = x.shape
        q, k, v = (
            t.reshape(b, length, heads, dim // heads).transpose(1, 2)
            for t in F.linear(x, qkv_weight, qkv_bias).chunk(3, dim=-1)
        )
        out = attention_math(q, k, v, ~masked).transpose(1, 2).reshape(b, length, dim)
        return F.linear(out, proj_weight, proj_bias)

    def feed_forward(x):
        hidden = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(hidden) if use_gelu else F.relu(hidden), ffn_weight_2, ffn_bias_2)

    def norm(x, weight, bias):
        return F.layer_norm(x, (dim,), weight, bias, eps)

    if norm_first:
        x = src + attention(norm(src, norm_weight_1, norm_bias_1))
        return x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    x = norm(src + attention(src), norm_weight_1, norm_bias_1)
    return norm(x + feed_forward(x), norm_weight_2, norm_bias_2)


DECOMPOSITIONS[aten._transformer_encoder_layer_fwd.default] = transformer_encoder_layer


def threshold_backward(grad, x, threshold):
    """where(x <= threshold, 0, grad) in the type eager computes in: PyTorch's own decomposition
    keeps grad's dtype, eager promotes (an int64 grad of a float input is a float gradient);
    an integer x compares with the threshold truncated, as torch's kernel."""
    dtype = torch.result_type(grad, x)
    limit = threshold if dtype.is_floating_point else int(threshold)
    return torch.where(x.to(dtype) <= limit, 0, grad.to(dtype))


def threshold_backward_mixed(grad, x, threshold):
    """For torch.export's graphs (importer.RETRACED): the promotion as casts before the op, only
    where grad and x differ in dtype (their declared result type is grad's, eager's is not)."""
    dtype = torch.result_type(grad, x)
    if grad.dtype == dtype and x.dtype == dtype:
        return NotImplemented
    return aten.threshold_backward.default(grad.to(dtype), x.to(dtype), threshold)


DECOMPOSITIONS[aten.threshold_backward.default] = threshold_backward


def mixed_dtypes(node: torch.fx.Node) -> bool:
    """An FX node whose first two operands differ in dtype (torch.export declares a mixed
    threshold_backward's result in grad's dtype)."""
    dtypes = {a.meta["val"].dtype for a in node.args[:2] if isinstance(a, torch.fx.Node) and "val" in a.meta}
    return len(dtypes) > 1


def meshgrid(tensors, indexing: str = "ij"):
    """torch.meshgrid as reshapes and expands (PyTorch's own decomposition uses a prim that
    torch.export cannot functionalize); "xy" is "ij" with the first two inputs and grids swapped."""
    if indexing == "xy" and len(tensors) >= 2:
        first, second, *grids = meshgrid([tensors[1], tensors[0], *tensors[2:]])
        return [second, first, *grids]
    sizes = [t.numel() for t in tensors]
    return [
        t.reshape([-1 if axis == i else 1 for axis in range(len(tensors))]).expand(sizes)
        for i, t in enumerate(tensors)
    ]


# Inference graphs (no grad) keep eval-mode batch norm whole: `versa.batch_norm` folds into the
# conv before it (fold-batch-norm), its decomposed arithmetic does not.
INFERENCE_DECOMPOSITIONS = {
    op: fn for op, fn in DECOMPOSITIONS.items() if op is not aten._native_batch_norm_legit_no_training.default
}


def updates_running_stats(args) -> bool:
    """Whether an aten.instance_norm call (its arguments) writes its running statistics: eager
    does when it normalises with the input's statistics and has running ones to update."""
    return len(args) > 5 and bool(args[5]) and args[3] is not None and args[4] is not None


def instance_norm_running_stats(
    x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn
):
    """InstanceNorm(track_running_stats=True) in training: eager normalises with the input's
    statistics and moves the running ones towards the batch mean of each instance's mean and
    unbiased variance, in place, a write torch.export hides inside the op (the compiled module
    left the buffers as they were). Spelt out, the writes are buffer mutations (state.py) and the
    normalisation stays one instance_norm without running statistics (rules/norm.py)."""
    if not updates_running_stats((x, weight, bias, running_mean, running_var, use_input_stats)):
        return NotImplemented
    out = aten.instance_norm.default(x, weight, bias, None, None, True, momentum, eps, cudnn)
    dims = list(range(2, x.dim()))
    with torch.no_grad():
        mean, var = x.mean(dims).mean(0), x.var(dims).mean(0)
        running_mean.copy_(running_mean * (1 - momentum) + mean * momentum)
        running_var.copy_(running_var * (1 - momentum) + var * momentum)
    return out


# Recurrent layers arrive as one op over a list of weights, which the FX importer cannot take (it
# wants a list of tensors, not parameters); PyTorch's own decompositions unroll them into matmuls
# and pointwise gates per time step.
RECURRENT = get_decompositions([aten.lstm.input, aten.gru.input, aten.rnn_tanh.input, aten.rnn_relu.input])


def unroll_recurrent(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """`program` with its LSTM/GRU/RNN layers unrolled, if it has any. Decomposing re-traces the
    whole program to ATen's inference form (batch_norm becomes _native_batch_norm_legit_...), so
    the table also holds those that torch.compile's graphs get (DECOMPOSITIONS)."""
    if not any(node.target in RECURRENT for node in program.graph.nodes):
        return program
    return program.run_decompositions({**DECOMPOSITIONS, **RECURRENT})
