"""The software-pipelined softmax row kernel (passes/row_pipelined.py), forced on whatever the
gate says for this host, against NumPy in float64: chunks of rows with their prologue and
epilogue, chunks of one row (1 row; 2 rows on 2 threads; 3 rows on 2 threads; 7 rows on 3),
masked tails (rows of 1000, 37, 17 and 5: the last shorter than a vector), rows a block of
four vectors divides and ones with full vectors left over, 3-D inputs, a fused producer and
consumer, and -inf / large logits, where a NaN row (all -inf) must not spill into the rows
pipelined with it. Tolerance: 2e-6 relative + 1e-7 absolute (the polynomial exp is within 2
ulp of expf; sums of up to 1000 terms in four accumulators), as test_row_kernels.py."""

import numpy as np
import pytest
import versa.passes.cpu.row_kernels as row_kernels
from conftest import Compiled
from row_programs import LEVELS, fused_softmax_case, fused_softmax_text, softmax_f64, softmax_text
from versa import compiler
from versa.passes.cpu.kernels.row_pipelined import pipelines

SHAPES = [
    (6, 1000),
    (1, 1000),
    (2, 17),
    (3, 37),
    (7, 5),
    (9, 17),
    (5, 64),
    (4, 80),
    (1, 5),
    (4, 3, 37),
    (2, 2, 1000),
]


@pytest.fixture
def pipelined(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every softmax kernel compiled while this is active is pipelined; the gate's arguments
    are recorded (the compiler imports the passes as `versa.passes`)."""
    calls: list[tuple] = []

    def always(*args: object) -> bool:
        calls.append(args)
        return True

    monkeypatch.setattr(row_kernels, "pipelines", always)
    return calls


def _run(text: str, pipeline: str, inputs: list[np.ndarray]) -> np.ndarray:
    (got,) = Compiled(text, pipeline).jit(*inputs)
    return got


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_softmax_pipelined(shape: tuple[int, ...], pipeline: str, pipelined: list[tuple]) -> None:
    x = (3 * np.random.default_rng(0).standard_normal(shape)).astype(np.float32)
    got = _run(softmax_text(shape), pipeline, [x])
    assert pipelined, "the row kernel did not ask the gate"
    np.testing.assert_allclose(got, softmax_f64(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("length", [1000, 37, 5])
def test_infinities_and_large_logits(length: int, pipeline: str, pipelined: list[tuple]) -> None:
    """Masked entries (-inf) are exactly 0; a row of -inf is NaN (as NumPy, PyTorch) and only
    that row, though its exp and sum share a pass with its neighbours' max and scaling; large
    logits do not overflow."""
    x = np.random.default_rng(1).standard_normal((7, length)).astype(np.float32)
    x[0, ::3] = -np.inf
    x[2, :] = -np.inf  # a NaN row in the middle of a chunk: rows 1 and 3 run in its passes
    x[3, length - 1] = -np.inf  # in the masked tail
    x[4, ::2], x[4, 1::2] = 1000.0, -1000.0
    x[5, :] = 3e38
    x[6, 0] = 88.0  # exp(x - max) of the others underflows to 0 or subnormals
    got = _run(softmax_text(x.shape), pipeline, [x])
    want = softmax_f64(x)
    assert np.isnan(got[2]).all() and np.isnan(want[2]).all()
    keep = [0, 1, 3, 4, 5, 6]
    np.testing.assert_allclose(got[keep], want[keep], rtol=2e-6, atol=1e-7)
    assert (got[0, ::3] == 0).all() and got[3, length - 1] == 0


@pytest.mark.parametrize("fuse", ["versa-fuse,", ""], ids=["group", "ops"])
@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", [(3, 5, 37), (2, 4, 64), (3, 3, 7), (1, 3, 1000)], ids=str)
def test_fused_producer_and_consumer(
    shape: tuple[int, ...], pipeline: str, fuse: str, pipelined: list[tuple]
) -> None:
    inputs, want = fused_softmax_case(shape)
    kernels = str(compiler.compile_text(fused_softmax_text(shape), fuse + "versa-row-kernels"))
    assert "func.func private @versa_softmax_0_input" in kernels  # evaluated in the kernel
    assert "func.func private @versa_softmax_0_output" in kernels
    (got,) = Compiled(fused_softmax_text(shape), fuse + pipeline).jit(*inputs)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    assert pipelined


def test_the_gate() -> None:
    """Pipelined where it was measured to win on x86-64 (L1 48 KB, LLC 32 MB): rows whose five
    copies fit L1 at any size; longer rows while x and the output fit half the LLC; not for a
    thread with one row. The host target's caches are this machine's (a 300 MB LLC on some CI
    machines): the gate is checked on the measured machine's."""
    import dataclasses

    from versa import targets

    measured = dataclasses.replace(targets.resolve("x86-64"), caches=(48 << 10, 1 << 20, 32 << 20))
    assert pipelines([4096, 1024], 1, 2, measured)
    assert pipelines([16384, 1024], 1, 2, measured)  # 64 MB: still streams fine
    assert pipelines([8, 128, 128], 2, 2, measured)
    assert pipelines([512, 4096], 1, 2, measured)  # 16 MB of x and output
    assert pipelines([16, 30522], 1, 2, measured)
    assert not pipelines([1024, 4096], 1, 2, measured)  # 32 MB, rows spill L1
    assert not pipelines([2048, 30522], 1, 2, measured)
    assert not pipelines([2, 30522], 1, 2, measured)  # a row per thread
    assert pipelines([2, 30522], 1, 1, measured)
