"""versa.conv_transpose2d lowered as sub-pixel (per-phase) convolutions, swept over strides,
kernels (also smaller than the stride: phases without taps), padding, output_padding,
dilation, groups (depthwise too), odd sizes and batches, against torch and the reference.

The op is NCHW only (it has no layout attribute); its phase convs are NHWC inside. Inputs are
small integers stored as floats, so every sum is exact in f32 and the results must match to
rounding: rtol 1e-5, atol 1e-5. Cases share a compile (one `@main` holding many ops) to keep
the module fast.
"""

import copy
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import reference
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.passes.versa_to_linalg.lowering.lower_conv_transpose import phases

RTOL = ATOL = 1e-5
ATTRS = ("strides", "padding", "output_padding", "dilations")


def case(x, w, s=(1, 1), pad=(0, 0, 0, 0), extra=(0, 0), d=(1, 1), g=1):
    """x [N, C, H, W], w [C, F/g, KH, KW]; strides s, padding pad, output_padding extra, dilations d."""
    return dict(x=x, w=w, strides=s, padding=pad, output_padding=extra, dilations=d, groups=g)


CASES = [
    case((1, 3, 4, 5), (3, 2, 3, 3)),  # stride 1: one phase
    case((1, 3, 5, 4), (3, 2, 2, 3), pad=(1, 2, 0, 1), d=(2, 1)),  # stride 1, dilated, cropped
    case((1, 4, 5, 6), (4, 3, 2, 2), s=(2, 2)),  # k = s: 1x1 phases
    case((1, 4, 7, 5), (4, 2, 4, 4), s=(2, 2), pad=(1, 1, 1, 1)),  # k4s2p1 (DCGAN)
    case((3, 4, 5, 5), (4, 3, 3, 3), s=(2, 2), pad=(1, 1, 1, 1), extra=(1, 1)),
    case((1, 2, 4, 5), (2, 3, 1, 1), s=(2, 3)),  # kernel < stride: empty phases
    case((1, 2, 3, 4), (2, 2, 2, 1), s=(3, 3), extra=(2, 1)),  # empty phases + extra
    case((1, 3, 5, 6), (3, 2, 5, 4), s=(3, 2), pad=(4, 3, 2, 1), extra=(2, 1)),
    case((2, 3, 5, 4), (3, 2, 3, 5), s=(1, 3), pad=(0, 2, 1, 0), extra=(0, 1)),
    case((1, 2, 6, 5), (2, 2, 3, 3), s=(2, 2), d=(2, 2)),  # gcd 2: half the phases empty
    case((1, 2, 5, 5), (2, 2, 3, 2), s=(2, 3), d=(3, 2), pad=(2, 1, 1, 2)),  # gcd 1
    case((1, 2, 4, 4), (2, 3, 4, 3), s=(3, 2), d=(2, 3), extra=(1, 2)),
    case((1, 4, 5, 6), (4, 3, 3, 2), s=(2, 3), pad=(1, 0, 2, 1), extra=(1, 2), g=2),
    case((2, 6, 5, 5), (6, 1, 3, 3), s=(2, 2), pad=(1, 1, 1, 1), g=6),  # depthwise
    case((1, 4, 4, 5), (4, 2, 4, 3), s=(2, 3), pad=(1, 1, 2, 0), g=4),  # depthwise x2
    case((3, 6, 3, 4), (6, 2, 5, 5), s=(3, 3), pad=(2, 2, 2, 2), extra=(1, 2), g=3),
    case((1, 2, 1, 1), (2, 2, 1, 1), s=(3, 2), extra=(2, 1)),  # 1x1 input, out < s
    case((1, 2, 1, 3), (2, 3, 2, 5), s=(3, 2), pad=(0, 3, 1, 2)),  # pad > span: crops
    case((1, 3, 5, 5), (3, 2, 2, 2), pad=(3, 3, 0, 0), d=(2, 2)),  # crop beyond the span
    case((1, 2, 4, 3), (2, 2, 3, 3), s=(2, 2), pad=(4, 0, 0, 4)),  # one side crops everything
    case((1, 5, 3, 7), (5, 4, 1, 5), s=(1, 2), pad=(0, 2, 0, 2), extra=(0, 1)),
    case((3, 2, 6, 4), (2, 1, 5, 2), s=(3, 1), d=(1, 2), pad=(3, 1, 0, 0), extra=(2, 1)),
]
# Sizes that fill the conv strategies' register tiles (8 pixels x 32 filters) with remainders.
WIDE = [
    case((1, 32, 7, 9), (32, 40, 4, 4), s=(2, 2), pad=(1, 1, 1, 1)),
    case((2, 16, 6, 5), (16, 24, 3, 3), s=(2, 2), pad=(1, 1, 1, 1), extra=(1, 1), g=2),
    case((1, 48, 5, 5), (48, 1, 4, 4), s=(2, 2), pad=(1, 1, 1, 1), g=48),  # depthwise
    case((1, 64, 4, 6), (64, 33, 2, 2), s=(2, 2)),
]
GROUPS = [CASES[i::4] for i in range(4)] + [WIDE]  # five compiles of about 6 ops


def torch_reference(x: np.ndarray, w: np.ndarray, c: dict) -> np.ndarray:
    """torch's conv_transpose2d in float64; asymmetric padding as symmetric plus a crop."""
    top, left, bottom, right = c["padding"]
    y = F.conv_transpose2d(
        torch.from_numpy(x).double(),
        torch.from_numpy(w).double(),
        stride=c["strides"],
        output_padding=c["output_padding"],
        dilation=c["dilations"],
        groups=c["groups"],
    ).numpy()
    return y[..., top : y.shape[2] - bottom, left : y.shape[3] - right]


def tensor_type(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def program(cases: list[dict], outputs: list[tuple], filters: list[np.ndarray] | None = None) -> str:
    """`@main(x0, w0, x1, w1, ...)` returning one conv_transpose2d per case; with `filters`,
    `@main(x0, x1, ...)` and the filters are constants."""
    args, lines, results = [], [], []
    for i, (c, shape) in enumerate(zip(cases, outputs, strict=True)):
        args.append(f"%x{i}: {tensor_type(c['x'])}")
        if filters is None:
            args.append(f"%w{i}: {tensor_type(c['w'])}")
        else:
            value = f'dense<"0x{filters[i].tobytes().hex().upper()}"> : {tensor_type(c["w"])}'
            lines.append(f'  %w{i} = "versa.constant"() {{value = {value}}} : () -> {tensor_type(c["w"])}')
        arrays = (f"{k} = array<i64: {', '.join(map(str, c[k]))}>" for k in ATTRS)
        attrs = ", ".join([*arrays, f"groups = {c['groups']} : i64"])
        types = f"({tensor_type(c['x'])}, {tensor_type(c['w'])}) -> {tensor_type(shape)}"
        lines.append(f'  %y{i} = "versa.conv_transpose2d"(%x{i}, %w{i}) {{{attrs}}} : {types}')
        results.append(shape)
    names = ", ".join(f"%y{i}" for i in range(len(cases)))
    types = ", ".join(tensor_type(s) for s in results)
    return (
        f"func.func @main({', '.join(args)}) -> ({types}) {{\n"
        + "\n".join(lines)
        + f"\n  return {names} : {types}\n}}\n"
    )


@pytest.mark.parametrize(
    ("group", "constant"),
    [*((g, False) for g in range(len(GROUPS))), (0, True), (len(GROUPS) - 1, True)],
    ids=[*(f"group{g}" for g in range(len(GROUPS))), "group0-constant", "wide-constant"],
)
def test_conv_transpose2d_matches_torch_and_reference(group: int, constant: bool) -> None:
    """Filters as arguments (cut into phases by generics) and as constants (cut at compile time)."""
    cases = GROUPS[group]
    rng = np.random.default_rng(group)
    inputs, filters, expected = [], [], []
    for c in cases:
        x = rng.integers(-3, 4, c["x"]).astype(np.float32)
        w = rng.integers(-3, 4, c["w"]).astype(np.float32)
        inputs += [x] if constant else [x, w]
        filters.append(w)
        expected.append(torch_reference(x, w, c))
    text = program(cases, [e.shape for e in expected], filters if constant else None)
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    got = JitFunction(module, "main", pipeline="lower-to-llvm{opt-level=3 threads=2}")(*inputs)
    for c, g, want, ref in zip(cases, got, expected, reference(text, inputs), strict=True):
        np.testing.assert_allclose(ref, want, rtol=RTOL, atol=ATOL, err_msg=f"reference vs torch: {c}")
        np.testing.assert_allclose(g, want, rtol=RTOL, atol=ATOL, err_msg=str(c))


def test_phases_cover_every_output_once_with_the_right_taps() -> None:
    """Per dim, the phases' (output, input row, tap) triples are exactly those of the scatter
    definition: input i with tap k lands on output i * s + k * d - low."""
    sweep = itertools.product(range(1, 5), range(1, 6), range(1, 4), range(1, 4), range(5))
    for size, kernel, stride, dilation, low in sweep:
        out = (size - 1) * stride + dilation * (kernel - 1) + 1 - low
        want = {
            (i * stride + k * dilation - low, i, k)
            for i in range(size)
            for k in range(kernel)
            if 0 <= i * stride + k * dilation - low < out
        }
        got = set()
        for p in phases(size, kernel, stride, dilation, low, out):
            assert len(range(p.offset, out, stride)) == p.count
            for q, (j, k) in itertools.product(range(p.count), enumerate(p.taps)):
                row = q + p.base + j * p.dilation
                if 0 <= row < size:
                    got.add((p.offset + q * stride, row, k))
        assert got == want, (size, kernel, stride, dilation, low)


def test_conv2d_input_gradients_are_conv_transposes() -> None:
    """Training through strided, dilated and grouped conv2ds: each input gradient is a
    conv_transpose2d (output_padding for the rows the forward conv skipped), compiled by the
    versa backend, so the weights end as eager's (ConvTranspose2d's own backward:
    test_torch_conv_transpose_grads.py)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2, padding=1),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 6, 4, stride=(3, 2), padding=(2, 1), dilation=(1, 2), groups=2),
        torch.nn.ReLU(),
        torch.nn.Conv2d(6, 2, 2, stride=2),
    )
    twin, x = copy.deepcopy(model), torch.randn(2, 3, 21, 19)

    def steps(m: torch.nn.Module) -> None:
        optimizer = torch.optim.SGD(m.parameters(), lr=0.05)
        for _ in range(3):
            optimizer.zero_grad()
            m(x).pow(2).mean().backward()
            optimizer.step()

    torch._dynamo.reset()
    steps(model)
    steps(torch.compile(twin, backend="versa"))
    for (key, want), got in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6, msg=f"parameter {key}")
