"""Shared by the PT2E tests (`test_torch_pt2e.py`, `cpu/test_int8_layout.py`): a model quantized
with torchao's X86 Inductor quantizer, and the check that Versa runs it within one quantization
step of torch (the tolerance and its reasons: `test_torch_pt2e.py`'s docstring)."""

import warnings

import torch
import versa
from torch import nn
from torch_helpers import versa_warnings

with warnings.catch_warnings():  # torch._inductor, which the quantizer imports, uses torch.jit
    warnings.simplefilter("ignore", DeprecationWarning)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer,
        get_default_x86_inductor_quantization_config,
    )

QD = torch.ops.quantized_decomposed


def quantized(
    model: nn.Module, shape: tuple, dynamic_shapes=None
) -> tuple[torch.fx.GraphModule, torch.Tensor]:
    """`model` exported (with `dynamic_shapes`: a converted model keeps the export's guards),
    calibrated on four random batches of `shape` and converted; an input."""
    g = torch.Generator().manual_seed(0)
    exported = torch.export.export(model, (torch.randn(shape, generator=g),), dynamic_shapes=dynamic_shapes)
    exported = exported.module()
    quantizer = X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(exported, quantizer)
    for _ in range(4):
        prepared(torch.randn(shape, generator=g))
    return convert_pt2e(prepared), torch.randn(shape, generator=g)


def with_activations(converted: torch.fx.GraphModule) -> tuple[torch.fx.GraphModule, list[float]]:
    """The converted graph returning each dequantized activation too, and their scales."""
    graph, env, taps = torch.fx.Graph(), {}, []
    for node in converted.graph.nodes:
        if node.op == "output":
            outputs = [env[n] for n in node.args[0]]
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
        if node.target == QD.dequantize_per_tensor.default:
            taps.append(node)
    graph.output((*outputs, *(env[n] for n in taps)))
    return torch.fx.GraphModule(converted, graph), [n.args[1] for n in taps]


def assert_within_one_step(
    converted: torch.fx.GraphModule, x: torch.Tensor, head: nn.Linear, dynamic_shapes=None, more=()
) -> None:
    """Compiled whole (nothing eager), once; at `x` and each input of `more` (other sizes of a
    `dynamic_shapes` compile) every quantized activation within one step of torch's, at most 2%
    off; the output, read by `head` from the last tap, within its bound."""
    probed, scales = with_activations(converted)
    with versa_warnings() as messages, torch.no_grad():
        compiled = versa.compile(probed, (x,), dynamic_shapes=dynamic_shapes)
        for given in (x, *more):
            _within_one_step(compiled(given), probed(given), scales, head)
    assert messages == []  # nothing ran eagerly
    assert len(compiled._compiled) == 1


def _within_one_step(got, want, scales: list[float], head: nn.Linear) -> None:
    steps = [((g - w) / s).round() for g, w, s in zip(got[1:], want[1:], scales, strict=True)]
    assert all(d.abs().max() <= 1 for d in steps)
    assert sum(int((d != 0).sum()) for d in steps) <= 0.02 * sum(d.numel() for d in steps)
    l1 = float(head.weight.detach().abs().sum(1).max()) * 1.05  # its quantized values: < 1% off
    assert float((got[0] - want[0]).abs().max()) <= scales[-1] * l1 + 1e-5
