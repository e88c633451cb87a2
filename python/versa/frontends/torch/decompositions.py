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
    ]
)


# Inference graphs (no grad) keep eval-mode batch norm whole: `versa.batch_norm` folds into the
# conv before it (fold-batch-norm), its decomposed arithmetic does not.
INFERENCE_DECOMPOSITIONS = {
    op: fn for op, fn in DECOMPOSITIONS.items() if op is not aten._native_batch_norm_legit_no_training.default
}

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
