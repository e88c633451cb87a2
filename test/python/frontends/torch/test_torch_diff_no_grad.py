"""torch.diff (the mask code of GPT-2 and Llama called without an attention mask) and forward
code under `torch.no_grad()` (torch.export's `wrap_with_set_grad_enabled` regions: rotary
embeddings in Llama, Mistral, Marian) compile whole, nothing eager, and match eager.

Tolerances: diff is one subtraction (or xor) per element and step, in eager's order: results
must be equal. The no_grad module's ops are elementwise f32 (a sin): rtol/atol 1e-6.
"""

import pytest
import torch
from torch_helpers import Wrap, compiled_quietly, versa_warnings

G = torch.Generator().manual_seed(0)
X = torch.randn(4, 6, generator=G)
INTS = torch.randint(-9, 9, (7,), generator=G)

CASES = {
    "1d_n1": (lambda x: torch.diff(x), (X[0],)),
    "1d_n2_int": (lambda x: torch.diff(x, n=2), (INTS,)),
    "2d_last": (lambda x: torch.diff(x), (X,)),
    "2d_dim0_n2": (lambda x: torch.diff(x, n=2, dim=0), (X,)),
    "prepend_append": (lambda x, p: torch.diff(x, dim=0, prepend=p, append=x[:2]), (X, X[1:] * 3)),
    "prepend_n2_last": (lambda x: torch.diff(x, n=2, prepend=x[:, -1:]), (X,)),
    "append_int32": (lambda x: torch.diff(x, n=2, append=x), (INTS.int(),)),
    "bool": (lambda x: torch.diff(x > 0, dim=1), (X,)),
    "bool_n2_prepend": (lambda x: torch.diff(x > 0, n=2, dim=1, prepend=x[:, :1] < 0), (X,)),
    "int_positions": (lambda x: torch.diff(x.cumsum(-1), dim=-1), (INTS.view(1, 7),)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_diff_matches_eager(name):
    fn, inputs = CASES[name]
    got, want = compiled_quietly(fn, *inputs), fn(*inputs)
    assert got.dtype == want.dtype and torch.equal(got, want)


def test_diff_through_torch_compile():
    fn = CASES["prepend_append"][0]
    torch._dynamo.reset()
    with versa_warnings() as messages:
        got = torch.compile(Wrap(fn), backend="versa")(X, X[1:])
    assert messages == [] and torch.equal(got, fn(X, X[1:]))


class NoGradInside(torch.nn.Module):
    """Part of forward under no_grad, as a rotary embedding's cos/sin tables are."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(6, 6)

    def forward(self, x):
        with torch.no_grad():
            y = x * 2 + 1
        with torch.set_grad_enabled(False):
            z = torch.sin(y)
        return self.linear(z * x) + y


def test_no_grad_regions_compile_whole():
    torch.manual_seed(0)
    model = NoGradInside().eval()
    program = torch.export.export(model, (X,))
    regions = [n for n in program.graph.nodes if "set_grad" in str(n.target)]
    assert regions  # the case: export keeps them as higher-order ops
    got = compiled_quietly(model, X)  # no op eager: the regions are inlined
    torch.testing.assert_close(got, model(X), rtol=1e-6, atol=1e-6)
