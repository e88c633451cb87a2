"""Sizes shifted by a number (issue 46, `rules/runtime_sizes.py`): arange(s + 1), a slice from a
run-time start (`x[:, s - 4:]`, `x[:, -4:]`, `x[:, s - 4:s - 1]`), a static slice of a dynamic
dim (`x[:, :1]`). Each model compiles once, whole (a partition warns, and warnings are errors
here), and matches eager at several shapes."""

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


def test_sizes_of_two_dims_are_refused() -> None:
    """arange(b + s): a sum of two run-time sizes is no dim of one tensor shifted."""
    model = One(lambda x: torch.arange(x.shape[0] + x.shape[1]).float().sum() + x)
    with pytest.raises(
        CompileError, match=r"arange\(0, \(size\(%arg0, 0\) \+ size\(%arg0, 1\)\), 1\) of a run-time length"
    ):
        versa.import_torch(model, (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))


def test_a_slice_to_a_run_time_length_is_refused() -> None:
    """x[:, 1:]: its length s - 1 is no tensor's dim (a versa op's dims come from operands)."""
    model = One(lambda x: x[:, 1:] * 2)
    with pytest.raises(CompileError, match=r"a slice \(1:.*\) of a dynamic dim to a run-time length"):
        versa.import_torch(model, (torch.randn(2, 9, 4),), dynamic_shapes=({0: BATCH, 1: SEQ},))
