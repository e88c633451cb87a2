"""Sizes computed from sizes (issue 46, `rules/runtime_sizes.py`, `SymbolicInt.linear`): a slice
with number bounds of a dynamic dim (`x[:, 1:]`, `x[:, :-1]`, `x[:, -4:]`: a `versa.slice`
counting them from the dim's end), a slice from a run-time start (`x[:, s - 4:]`), a static
slice of a dynamic dim (`x[:, :1]`), arange of Σ k·size + c (`arange(s + 1)`, `arange(b + s)`,
`arange(s - 1)`), a concat over two dynamic dims. Each model compiles once, whole (a partition
warns, and warnings are errors here), and matches eager at several shapes."""

import pytest
import torch
import versa
from module_helpers import One
from torch.export import Dim
from versa.diagnostics import CompileError

pytestmark = pytest.mark.filterwarnings("error")

BATCH, SEQ = Dim("batch", min=1, max=4), Dim("seq", min=5, max=64)
SHAPES = ((2, 9), (1, 5), (3, 6), (4, 64), (2, 33))
ATOL, RTOL = 1e-5, 1e-4


CASES = {
    "tail_from_size": lambda x: x[:, x.shape[1] - 4 :] * 2,
    "tail_from_end": lambda x: x[:, -4:] + 1,
    "window_before_end": lambda x: x[:, x.shape[1] - 4 : x.shape[1] - 1].relu(),
    "strided_tail": lambda x: x[:, x.shape[1] - 5 :: 2] * 3,
    "head": lambda x: torch.cat([x, x[:, :1]], 1).sum(-1),
    "arange_plus_one": lambda x: torch.cat([x, x[:, :1]], 1) * torch.arange(x.shape[1] + 1)[None, :, None],
    "arange_plus_three_float": lambda x: torch.arange(x.shape[1] + 3, dtype=torch.float32).sum() + x,
    "arange_shifted": lambda x: x[:, -3:] * torch.arange(x.shape[1] - 3, x.shape[1])[None, :, None],
    "drop_first": lambda x: x[:, 1:] * 2,
    "difference": lambda x: x[:, 1:] - x[:, :-1],
    "inner": lambda x: x[:, 1:-1].relu(),
    "strided_from_one": lambda x: x[:, 1::2] + 1,
    "arange_batch_plus_seq": lambda x: torch.arange(x.shape[0] + x.shape[1]).float().sum() + x,
    "arange_seq_minus_one": lambda x: x[:, 1:] * torch.arange(x.shape[1] - 1)[None, :, None],
    "arange_twice_seq_plus_one": lambda x: torch.arange(2 * x.shape[1] + 1).float().sum() + x,
    "arange_from_two": lambda x: x[:, 2:] * torch.arange(2, x.shape[1])[None, :, None],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_whole_compile_matches_eager_at_every_shape(name: str) -> None:
    torch.manual_seed(0)
    model = One(CASES[name]).eval()
    compiled = versa.compile(model, (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))
    with torch.no_grad():
        for batch, seq in SHAPES:
            x = torch.randn(batch, seq, 4)
            torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


def test_a_slice_from_a_size_reads_it_off_the_tensor() -> None:
    """x[:, s - 4:]: positions 0..3 plus (the iota's max + 1 - 4), gathered along the dim."""
    text = str(
        versa.import_torch(
            One(CASES["tail_from_size"]), (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},)
        )
    )
    assert '"versa.iota"(%arg0) {axis = 0 : i64, dims = array<i64: 1>}' in text
    assert "versa.reduce_max" in text and "versa.gather" in text and "tensor<?x4x4xf32>" in text


class Two(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, a, b):
        return self.fn(a, b)


TWO = {
    "concat": lambda a, b: torch.cat([a, b], 1) * 2,
    "concat_times_arange": lambda a, b: torch.cat([a, b], 1)
    * torch.arange(a.shape[1] + b.shape[1])[None, :, None],
    "concat_without_first": lambda a, b: torch.cat([a, b], 1)[:, 1:].sum(1),
}


@pytest.mark.parametrize("name", sorted(TWO))
def test_sums_of_two_dynamic_dims_compile_once(name: str) -> None:
    """cat over two dynamic dims (s1 + s2 long), and arange(s1 + s2) meeting it."""
    torch.manual_seed(0)
    model, other = Two(TWO[name]).eval(), Dim("other", min=2, max=32)
    compiled = versa.compile(
        model,
        (torch.randn(2, 9, 4), torch.randn(2, 7, 4)),
        dynamic_shapes=({0: BATCH, 1: SEQ}, {0: BATCH, 1: other}),
    )
    with torch.no_grad():
        for (batch, seq), length in zip(SHAPES, (7, 2, 31, 32, 16), strict=True):
            a, b = torch.randn(batch, seq, 4), torch.randn(batch, length, 4)
            torch.testing.assert_close(compiled(a, b), model(a, b), atol=ATOL, rtol=RTOL)
    assert len(compiled._compiled) == 1


def test_a_slice_from_one_counts_its_limit_from_the_end() -> None:
    """x[:, 1:]: one versa.slice whose limit is 0 from the dim's end, a `?` result (s - 1)."""
    text = str(
        versa.import_torch(
            One(CASES["drop_first"]), (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},)
        )
    )
    assert "from_end = array<i64: 2, 2, 0>" in text and "starts = array<i64: 0, 1, 0>" in text
    assert "(tensor<?x?x4xf32>) -> tensor<?x?x4xf32>" in text and "versa.gather" not in text


def test_an_arange_whose_length_may_be_negative_is_refused() -> None:
    """arange(s - b): no sum of sizes, so no concat of iotas sizes it."""
    model = One(lambda x: torch.arange(x.shape[1] - x.shape[0]).float().sum() + x)
    with pytest.raises(CompileError, match=r"arange\(0, .*\) of a run-time length that may be negative"):
        versa.import_torch(model, (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))
