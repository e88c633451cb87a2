"""versa-gpu-conv: convolutions become one implicit-GEMM kernel (16x16 threads, shared-memory
tiles) whose PTX ptxas accepts for sm_80 and sm_90; with a GPU they also match the NumPy
reference (skipped where no CUDA driver exists). Inputs are small integers, so every sum is
exact whatever order the kernel adds in: a wrong index cannot hide in a tolerance."""

import numpy as np
import pytest
from test_gpu import GPUS, assemble_and_maybe_run, compile_program, needs_toolkit
from test_lowering_numerics import DTYPES, RNG_SEED, case, make_input, single_op
from versa import compiler
from versa.context import make_context
from versa.dialects.semantics import evaluate
from versa.passes.gpu.map import VersaGpuMap
from versa.passes.gpu.pipeline import LowerToNVVM

PAD1, PAD3, NHWC = [1, 1, 1, 1], [3, 3, 3, 3], "NHWC"


def conv(x: tuple[int, ...], w: tuple[int, ...], name: str, **attrs):
    return case("conv2d", x, w, kinds="small", id=name, **attrs)


CONV_CASES = [
    conv((2, 16, 14, 14), (32, 16, 3, 3), "3x3_nchw", padding=PAD1),
    conv((2, 14, 14, 16), (3, 3, 16, 32), "3x3_nhwc", padding=PAD1, layout=NHWC),
    conv((2, 3, 30, 30), (64, 3, 7, 7), "stem", strides=[2, 2], padding=PAD3),
    conv((2, 30, 30, 3), (7, 7, 3, 64), "stem_nhwc", strides=[2, 2], padding=PAD3, layout=NHWC),
    conv((2, 40, 9, 9), (24, 40, 1, 1), "1x1"),
    conv((3, 9, 9, 40), (1, 1, 40, 80), "1x1_s2_nhwc", strides=[2, 2], layout=NHWC),
    conv((1, 8, 13, 11), (20, 8, 3, 3), "dilated", dilations=[2, 3], padding=[2, 3, 1, 0]),
    conv((1, 13, 11, 8), (3, 3, 8, 20), "dilated_nhwc", dilations=[3, 2], strides=[1, 2], layout=NHWC,
         padding=[0, 1, 2, 3]),
    conv((3, 5, 11, 13), (70, 5, 3, 2), "ragged", strides=[2, 1], padding=[1, 0, 2, 1]),
    conv((3, 11, 13, 5), (3, 2, 5, 70), "ragged_nhwc", strides=[1, 3], layout=NHWC),
    conv((2, 32, 10, 10), (64, 16, 3, 3), "grouped", padding=PAD1, groups=2),
    conv((2, 9, 10, 24), (3, 3, 6, 80), "grouped_nhwc", strides=[2, 1], padding=PAD1, groups=4, layout=NHWC),
]  # fmt: skip
DEPTHWISE = conv((1, 32, 8, 8), (32, 1, 3, 3), "depthwise", padding=PAD1, groups=32)


def conv_program(shapes, kinds, attrs, target):
    rng = np.random.default_rng(RNG_SEED)
    inputs = [make_input(s, k, rng) for s, k in zip(shapes, kinds, strict=True)]
    text, parsed, result_shape = single_op("conv2d", inputs, attrs, "f32", None)
    want = evaluate("conv2d", inputs, parsed, result_shape, DTYPES["f32"])
    return compile_program(text, target), inputs, want


def tiled_launches(program) -> list:
    return [s for s in program.steps if getattr(s, "block", None) == (16, 16, 1)]


@needs_toolkit
@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
@pytest.mark.parametrize(("op", "shapes", "kinds", "out", "shape", "attrs"), CONV_CASES)
def test_conv_kernels_assemble_and_run(op, shapes, kinds, out, shape, attrs, target) -> None:
    program, inputs, want = conv_program(shapes, kinds, attrs, target)
    assert len(tiled_launches(program)) == 1
    assemble_and_maybe_run(program, target, inputs, [want], op)


@needs_toolkit
def test_depthwise_stays_one_thread_per_output() -> None:
    """A channel per group: 9 taps per output would fill 1 column of a 64-wide tile."""
    op, shapes, kinds, _, _, attrs = DEPTHWISE.values
    program, inputs, want = conv_program(shapes, kinds, attrs, GPUS[1])
    assert not tiled_launches(program)
    assemble_and_maybe_run(program, GPUS[1], inputs, [want], op)


def mapped_to_threads(text: str) -> "compiler.ir.Module":
    """`text` through lower-to-nvvm up to versa-gpu-map (then canonicalized): host loops as
    gpu.launch bodies, before outlining."""
    steps = []
    for step in LowerToNVVM(chip="sm_90").steps():
        steps.append(step)
        if isinstance(step, VersaGpuMap):
            break
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, [*steps, "canonicalize"])
    return module


def walk(op, name: str) -> list:
    found = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                found += [inner] if inner.name == name else []
                found += walk(inner, name)
    return found


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_depthwise_threads_walk_the_output_rows(layout) -> None:
    """Neighbouring threads write neighbouring outputs: linalg.depthwise_conv_2d_nchw_chw loops
    over (n, oh, ow, c), and taken in that order consecutive threads wrote (and read) a channel
    plane apart, uncoalesced (MobileNetV2's block ran 3.5x slower on an H200)."""
    x, w = ((1, 8, 8, 32), (3, 3, 1, 32)) if layout == "NHWC" else ((1, 32, 8, 8), (32, 1, 3, 3))
    inputs = [np.zeros(x, np.float32), np.zeros(w, np.float32)]
    attrs = {"padding": PAD1, "groups": 32} | ({"layout": NHWC} if layout == "NHWC" else {})
    text, _, _ = single_op("conv2d", inputs, attrs, "f32", None)
    module = mapped_to_threads(text)
    (conv,) = [launch for launch in walk(module.operation, "gpu.launch") if walk(launch, "scf.for")]
    (store,) = walk(conv, "memref.store")
    fastest = list(store.operands)[-1].owner  # the output's contiguous dim: thread index % OW (C)
    assert fastest.name == "arith.remui"
    linear = fastest.operands[0].owner
    assert linear.name == "arith.addi" and conv.regions[0].blocks[0].arguments[3] in list(linear.operands)


@pytest.mark.parametrize(
    ("attrs", "grid"),
    [
        # NCHW: channels (64 per block) down y, pixels (128 per block) across x, a group per z.
        ({"padding": PAD1}, (-(-2 * 14 * 14 // 128), 2, 1)),
        ({"padding": PAD1, "groups": 2}, (-(-2 * 14 * 14 // 128), 1, 2)),
        # NHWC: pixels down y, channels across x.
        ({"padding": PAD1, "layout": "NHWC"}, (2, -(-2 * 14 * 14 // 128), 1)),
    ],
    ids=["nchw", "grouped", "nhwc"],
)
def test_grid_covers_pixels_and_channels(attrs, grid) -> None:
    cg = 32 // attrs.get("groups", 1)
    x, w = (
        ((2, 14, 14, 32), (3, 3, cg, 128))
        if attrs.get("layout") == "NHWC"
        else ((2, 32, 14, 14), (128, cg, 3, 3))
    )
    program, _, _ = conv_program((x, w), ("small", "small"), attrs, GPUS[1])
    (launch,) = tiled_launches(program)
    assert launch.grid == grid
