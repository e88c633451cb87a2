"""Complex tensors (Meta-Llama's rotary embedding): compiled as real pairs, not eagerly.

`complex_to_real` rewrites the graphs, called by api.py (`_export`) and dynamo.py (the graph
compilers). Without the rewrite, the partitioner runs only the complex nodes eagerly, and no
complex value ever reaches torch-mlir's linalg lowering (`fallback`).
Tolerance: f32, rtol 1e-5, atol 1e-5.
"""

import warnings

import pytest
import torch
import versa
from torch_helpers import versa_warnings
from versa.frontends.torch import api, complex_to_real, fallback
from versa.frontends.torch.importer import import_program, make_torch_context
from versa.mlir import ir

TOL = {"rtol": 1e-5, "atol": 1e-5}


@pytest.fixture
def as_real():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def freqs(length: int, dim: int) -> torch.Tensor:
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    return torch.polar(torch.ones(length, dim // 2), torch.outer(torch.arange(length).float(), inv))


class Rope(torch.nn.Module):
    """Meta-Llama's apply_rotary_emb after a Linear, freqs_cis a complex64 buffer."""

    def __init__(self, length=8, dim=16):
        super().__init__()
        self.register_buffer("freqs_cis", freqs(length, dim), persistent=False)
        self.lin = torch.nn.Linear(dim, dim)

    def forward(self, x):
        x = self.lin(x)
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.relu(torch.view_as_real(xc * self.freqs_cis).flatten(2))


class ComplexOps(torch.nn.Module):
    """polar in forward, conj, complex · complex and / complex, a real scale, a sum, abs, real/imag."""

    def forward(self, x, angle):
        z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        w = torch.polar(angle.abs() + 0.5, angle)
        y = (z * w.conj() + z / w) * 0.5 - z.transpose(0, 1).transpose(0, 1)
        s = y.sum(dim=-1, keepdim=True)
        return torch.cat([torch.view_as_real(y * s).flatten(-2), y.abs(), y.real - y.imag], -1)


def rope_inputs():
    return (torch.randn(2, 8, 16, generator=torch.Generator().manual_seed(0)),)


def ops_inputs():
    g = torch.Generator().manual_seed(1)
    return torch.randn(3, 4, 8, generator=g), torch.randn(3, 4, 4, generator=g)


@pytest.mark.parametrize("model, inputs", [(Rope(), rope_inputs()), (ComplexOps(), ops_inputs())])
def test_versa_compile_takes_complex_graphs_whole(as_real, model, inputs):
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, inputs)(*inputs)
    assert messages == []
    torch.testing.assert_close(got, model(*inputs), **TOL)


@pytest.mark.parametrize("model, inputs", [(Rope(), rope_inputs()), (ComplexOps(), ops_inputs())])
def test_torch_compile_inference_takes_complex_graphs_whole(as_real, model, inputs):
    with versa_warnings() as messages, torch.no_grad():
        got = torch.compile(model, backend="versa")(*inputs)
    assert messages == []
    torch.testing.assert_close(got, model(*inputs), **TOL)


def test_torch_compile_training_through_the_complex_multiply(as_real):
    """The forward saves the complex buffer for backward: it crosses both graphs' boundaries."""
    model, twin = Rope(), Rope()
    twin.load_state_dict(model.state_dict())
    (x,) = rope_inputs()
    with versa_warnings() as messages:
        torch.compile(model, backend="versa")(x).square().sum().backward()
    twin(x).square().sum().backward()
    assert messages == []
    torch.testing.assert_close(model.lin.weight.grad, twin.lin.weight.grad, **TOL)
    torch.testing.assert_close(model.lin.bias.grad, twin.lin.bias.grad, **TOL)


def test_complex_graph_inputs_and_outputs_cross_as_real_views(as_real):
    def fn(z, x):
        return z * torch.view_as_complex(x), z.conj()

    g = torch.Generator().manual_seed(2)
    z = torch.randn(4, 3, dtype=torch.complex64, generator=g)
    x = torch.randn(4, 3, 2, generator=g)
    with versa_warnings() as messages:
        got = torch.compile(fn, backend="versa")(z, x)
    assert messages == []
    for a, b in zip(got, fn(z, x), strict=True):
        assert a.dtype == torch.complex64
        torch.testing.assert_close(
            torch.view_as_real(a.resolve_conj()), torch.view_as_real(b.resolve_conj()), **TOL
        )


def test_an_uncovered_complex_op_leaves_the_graph_alone():
    def fn(x):
        return torch.view_as_real(torch.view_as_complex(x).sqrt())

    graph = torch.fx.experimental.proxy_tensor.make_fx(fn)(torch.randn(3, 2))
    assert complex_to_real.as_real(graph) is None


def test_without_the_rewrite_only_complex_nodes_run_eagerly(monkeypatch):
    """partition refuses complex values: the Linear and relu around the rotary product compile."""
    monkeypatch.setattr(api, "program_as_real", lambda program: program)
    model, inputs = Rope(), rope_inputs()
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, inputs)(*inputs)
    torch.testing.assert_close(got, model(*inputs), **TOL)
    assert len(messages) == 1
    assert "1x torch.aten.mul.Tensor" in messages[0] and "around 2 compiled partition(s)" in messages[0]


class SpectrumBuffer(torch.nn.Module):
    """A Fourier layer's pattern: a complex zeros tensor made in forward, partly filled, then a
    real view of it (torch-mlir's lowering crashed the process on the complex zeros)."""

    def forward(self, x):
        out = torch.zeros(2, 3, dtype=torch.cfloat)
        out = out + torch.view_as_complex(x) * 2 + torch.zeros_like(out)
        return torch.view_as_real(out) + x


def spectrum_inputs():
    return (torch.randn(2, 3, 2, generator=torch.Generator().manual_seed(3)),)


def test_complex_zeros_made_in_forward_become_real_pairs(as_real):
    """Checked on the export first: before the rewrite took complex zeros, compiling crashed."""
    model, inputs = SpectrumBuffer(), spectrum_inputs()
    with warnings.catch_warnings():  # torch.export's own deprecation warnings
        warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning))
        program = complex_to_real.program_as_real(torch.export.export(model, inputs, strict=False))
    assert not any(complex_to_real.is_complex(n.meta.get("val")) for n in program.graph.nodes)
    with versa_warnings() as messages:
        got = versa.compile(model, inputs)(*inputs)
        with torch.no_grad():
            dynamo = torch.compile(model, backend="versa")(*inputs)
    assert messages == []
    torch.testing.assert_close(got, model(*inputs), **TOL)
    torch.testing.assert_close(dynamo, model(*inputs), **TOL)


def test_a_complex_producer_is_never_copied_into_the_linalg_fallback(monkeypatch):
    """Without the rewrite, view_as_real(complex zeros) is refused (the fallback used to copy the
    complex zeros as if it were a constant: a segfault in torch-mlir) and runs eagerly."""
    model, inputs = SpectrumBuffer(), spectrum_inputs()
    module, _ = import_program(model, inputs, make_torch_context())
    view = next(op for op in module.body.operations[0].regions[0].blocks[0] if "view_as_real" in op.name)
    scratch = ir.Module.create(ir.Location.unknown(module.context))
    with module.context, ir.Location.unknown(), ir.InsertionPoint(scratch.body):
        with pytest.raises(fallback.CannotCopy):
            fallback.Fallback().copy(view, {})
    monkeypatch.setattr(api, "program_as_real", lambda program: program)
    with versa_warnings() as messages:
        got = versa.compile(model, inputs)(*inputs)
    torch.testing.assert_close(got, model(*inputs), **TOL)
    assert len(messages) == 1 and "torch.aten.zeros" in messages[0]
