"""Ops whose result size is a run-time size another tensor has (issue 46, `rules/runtime_sizes.py`):
arange(x.size(1)), a static buffer sliced to the sequence, an expand to a new dynamic dim,
fills of dynamic shape, and the mask ops transformers builds from them (and of bools,
ix_-style indexing, gather by a dynamic index). Each model compiles once, whole (a partition
warns, and warnings are errors here), and matches eager at several shapes."""

import numpy as np
import pytest
import torch
import versa
from module_helpers import One
from torch import nn
from torch.export import Dim
from versa.dialects import semantics
from versa.dialects.versa import OPS

BATCH, SEQ = Dim("batch", min=1, max=4), Dim("seq", min=2, max=32)
SHAPES = ((1, 2), (3, 5), (4, 17), (2, 32))
ATOL, RTOL = 1e-5, 1e-4


class Buffers(nn.Module):
    """Position tables of the longest length (registered buffers), cut to the sequence."""

    def __init__(self):
        super().__init__()
        self.register_buffer("positions", torch.arange(32).float()[None])  # [1, 32]
        self.register_buffer("cos", torch.randn(32, 4))  # [32, 4]: rotary's cos table

    def forward(self, x):  # x: [b, s, 4]
        s = x.shape[1]
        return x * self.cos[:s] + self.positions[:, :s, None]


def _arange(x):  # x: [b, s, 4]
    return (
        x * torch.arange(x.shape[1], dtype=torch.float32)[None, :, None] + torch.arange(x.shape[1])[:, None]
    )


def _expand(x):  # [1, s] grown to [b, s]: b is another tensor's dim
    row = x.sum(dim=(0, 2))[None]
    return torch.cat([x.sum(-1), row.expand(x.shape[0], -1)], dim=1)


def _fills(x):
    b, s, _ = x.shape
    return (
        torch.zeros_like(x)
        + x.new_ones(b, s, 1) * 2
        + torch.full((b, s, 4), 0.5)
        + torch.ones_like(x[..., 0:1])
    )


def _masks(x):
    """transformers' masks: a causal comparison of aranges, `&` with a padding mask read
    `mask[arange(b)[:, None, None, None], arange(s)[None, None, None, :]]`, a scalar `new_ones`."""
    b, s, _ = x.shape
    padding = x[..., 0] > 0  # [b, s]
    q, k = torch.arange(s), torch.arange(s)
    causal = x.new_ones((), dtype=torch.bool) & (k[None, None, None, :] <= q[None, None, :, None])
    read = padding[torch.arange(b)[:, None, None, None], k[None, None, None, :]]  # [b, 1, 1, s]
    mask = (causal & read) | ~(x[:, None, :, None, 1] > 0)  # [b, 1, s, s]
    return torch.where(mask, x.sum(-1)[:, None, :, None], -1.0)


class Gathered(nn.Module):
    """torch.gather by an index with dynamic dims from a static table (BERT's token types)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.randn(4, 32))

    def forward(self, x):  # x: [b, s, 4]
        ids = (x[..., 0].abs() * 7).long().clamp(0, 31)  # [b, s], b <= 4: rows of the table
        front = self.table[:1].expand(1, -1).gather(1, torch.arange(x.shape[1])[None])  # [1, s]
        return self.table.gather(1, ids) + front


CASES = {
    "arange": One(_arange),
    "buffer_slice": Buffers(),
    "expand": One(_expand),
    "fills": One(_fills),
    "masks": One(_masks),
    "gather": Gathered(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_whole_compile_matches_eager_at_every_shape(name: str) -> None:
    torch.manual_seed(0)
    model = CASES[name].eval()
    compiled = versa.compile(model, (torch.randn(3, 5, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))
    with torch.no_grad():
        for batch, seq in SHAPES:
            x = torch.randn(batch, seq, 4)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1  # one compile, whole: a partitioned one would have warned


def test_the_import_has_no_partition_and_sizes_its_iotas_by_the_input() -> None:
    module = versa.import_torch(One(_arange), (torch.randn(3, 5, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))
    text = str(module)
    assert '"versa.iota"(%arg0) {axis = 0 : i64, dims = array<i64: 1>}' in text


def test_iota_semantics_reads_only_its_like_operands_dims() -> None:
    like = np.zeros((3, 7), np.float32)
    attrs = {"axis": 1, "dims": [-1, 1]}
    shape = OPS["versa.iota"].call_shape([like.shape], attrs, (1, None), [(None, None)])
    assert shape == (1, 7)
    got = semantics.evaluate("iota", [like], attrs, shape, np.int64)
    np.testing.assert_array_equal(got, np.arange(7)[None])
