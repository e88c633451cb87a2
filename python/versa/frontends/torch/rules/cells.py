"""Recurrent cells (nn.LSTMCell, nn.GRUCell, nn.RNNCell): one time step as two matmuls and gates.

torch.export keeps a cell whole (`aten.lstm_cell` and kin have no decomposition), so each is
written in versa ops, as PyTorch's reference computes it; weights are [gates · hidden, in]:

    lstm   i, f, g, o = chunk4(x Wᵢᵀ + bᵢ + h Wₕᵀ + bₕ);  c' = σ(f) c + σ(i) tanh(g);  h' = σ(o) tanh(c')
    gru    r, z = σ(xr + hr), σ(xz + hz);  n = tanh(xn + r · hn);  h' = n + z (h - n)
    rnn    h' = tanh or relu(x Wᵢᵀ + bᵢ + h Wₕᵀ + bₕ)

Only batched steps ([batch, features]): the nn modules add the batch dim themselves.
"""

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import rank, shape, transpose


def _affine(x: ir.Value, weight: ir.Value, bias: ir.Value | None) -> ir.Value:
    if rank(x) != 2:
        raise Unsupported(f"a recurrent cell step on a rank-{rank(x)} input (batched steps only)")
    out = vb.matmul(x, transpose(weight, [1, 0]))
    return out if bias is None else vb.add(out, bias)


def _gates(x: ir.Value, n: int) -> list[ir.Value]:
    """x's last dim cut into n equal gates."""
    batch, width = shape(x)
    size = width // n
    return [vb.slice(x, starts=[0, k * size], limits=[batch, (k + 1) * size]) for k in range(n)]


@rule("torch.aten.lstm_cell")
def lstm_cell(node: Node, x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    h, c = hx
    gates = vb.add(_affine(x, w_ih, b_ih), _affine(h, w_hh, b_hh))
    i, f, g, o = _gates(gates, 4)
    c = vb.add(vb.mul(vb.sigmoid(f), c), vb.mul(vb.sigmoid(i), vb.tanh(g)))
    return [vb.mul(vb.sigmoid(o), vb.tanh(c)), c]


@rule("torch.aten.gru_cell")
def gru_cell(node: Node, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    xr, xz, xn = _gates(_affine(x, w_ih, b_ih), 3)
    hr, hz, hn = _gates(_affine(h, w_hh, b_hh), 3)
    r, z = vb.sigmoid(vb.add(xr, hr)), vb.sigmoid(vb.add(xz, hz))
    n = vb.tanh(vb.add(xn, vb.mul(r, hn)))
    return vb.add(n, vb.mul(z, vb.sub(h, n)))


@rule("torch.aten.rnn_tanh_cell")
def rnn_tanh_cell(node: Node, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    return vb.tanh(vb.add(_affine(x, w_ih, b_ih), _affine(h, w_hh, b_hh)))


@rule("torch.aten.rnn_relu_cell")
def rnn_relu_cell(node: Node, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    return vb.relu(vb.add(_affine(x, w_ih, b_ih), _affine(h, w_hh, b_hh)))
