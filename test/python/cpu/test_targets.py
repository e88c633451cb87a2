"""CPU targets as data: the named ISA levels, what reaches LLVM's code generator, and bf16
conversions exact on every CPU.

The checks of generated code name their target, so they hold on any x86 host; the checks that
run code run it for every target this host can execute (AVX2 code runs on AVX-512 CPUs).
"""

import re

import numpy as np
import pytest
import torch
from versa import compiler, targets
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.passes.cpu.target_attributes import function_attributes
from versa.translate import emit_assembly

RUNNABLE = [name for name in ("host", "x86-64-v3", "x86-64-v4") if targets.resolve(name).is_host]

# f32 -> bf16 -> f32 through Versa's casts: one program for every special case of the rounding.
CAST = """
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %h = "versa.cast"(%x) : (tensor<{n}xf32>) -> tensor<{n}xbf16>
  %y = "versa.cast"(%h) : (tensor<{n}xbf16>) -> tensor<{n}xf32>
  return %y : tensor<{n}xf32>
}}
"""


def special_floats() -> np.ndarray:
    """Ties (to even, both ways), values just off a tie, NaNs of both signs, infinities, signed
    zeros, subnormals, the largest finite values (which round to infinity) and random ones."""
    bits = [
        0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00018000,
        0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x3F800000,
    ]  # fmt: skip
    rng = np.random.default_rng(0)
    random = rng.integers(0, 1 << 32, size=110, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([np.array(bits, dtype=np.uint32), random]).view(np.float32)


def compile_for(text: str, target: str, opt_level: int = 3) -> JitFunction:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return JitFunction(module, "main", pipeline=f"lower-to-llvm{{target={target} opt-level={opt_level}}}")


def test_listing_names_the_levels_and_the_host():
    listing = targets.listing()
    assert re.search(r"^x86-64-v3 .* 256-bit vectors, 16 registers", listing, re.M)
    assert re.search(r"^x86-64-v4 .* 512-bit vectors, 32 registers", listing, re.M)
    host = targets.host()
    assert f"host = {host.name}: {host.cpu}, ISA level {host.isa}" in listing


def test_levels_are_fixed_descriptions():
    v3, v4 = targets.resolve("x86-64-v3"), targets.resolve("x86-64-v4")
    assert (v3.cpu, v3.lanes(32), v3.vector_registers, v3.isa) == ("x86-64-v3", 8, 16, "x86-64-v3")
    assert (v4.cpu, v4.lanes(32), v4.vector_registers, v4.isa) == ("x86-64-v4", 16, 32, "x86-64-v4")
    assert v3.caches == v4.caches  # a typical part's, the same on every machine
    assert v3.has("f16c") and not v3.has("avx512f")


def test_functions_name_their_cpu_except_for_the_machine_itself():
    assert function_attributes(targets.resolve("x86-64-v3"))["target_cpu"] == '"x86-64-v3"'
    assert "+avx512f" in function_attributes(targets.resolve("x86-64-v4"))["target_features"]
    detected = targets._detected()
    assert function_attributes(detected) == {}


@pytest.mark.parametrize("target, zmm", [("x86-64-v3", False), ("x86-64-v4", True)])
def test_level_code_uses_only_its_registers(target, zmm):
    """The features reach the code generator through the functions' attributes: compiled by a
    target machine for the *machine's* CPU (as the JIT's is), v3 code has no AVX-512 register
    and v4 code has, whatever CPU this is."""
    text = CAST.format(n=4096).replace("bf16", "f16")
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    compiler.run_passes(module, compiler.parse_pipeline(f"lower-to-llvm{{target={target} opt-level=2}}"))
    assert all(
        'target_cpu = "' + target + '"' in str(op)
        for op in module.body.operations
        if "llvm.func" in str(op)[:9]
    )
    assembly = emit_assembly(module.operation, targets._detected())
    assert ("%zmm" in assembly) == zmm
    assert zmm or "%ymm" in assembly  # vector code, not scalar


def test_host_target_variable_pins_an_isa_level(monkeypatch):
    """VERSA_HOST_TARGET makes `host` a level this CPU runs, with the machine's caches."""
    if not targets.resolve("x86-64-v3").is_host:
        pytest.skip("this CPU cannot run x86-64-v3 code")
    detected = targets._detected()
    try:
        monkeypatch.setenv(targets.HOST_TARGET_VARIABLE, "x86-64-v3")
        targets.host.cache_clear()
        host = targets.host()
        assert (host.name, host.cpu, host.lanes(32), host.caches) == (
            "x86-64",
            "x86-64-v3",
            8,
            detected.caches,
        )
        assert not targets.resolve("x86-64-v4").is_host  # as on an AVX2 machine
        monkeypatch.setenv(targets.HOST_TARGET_VARIABLE, "x86-64-v9")
        targets.host.cache_clear()
        with pytest.raises(targets.TargetError, match="not one of x86-64-v3, x86-64-v4"):
            targets.host()
    finally:
        monkeypatch.delenv(targets.HOST_TARGET_VARIABLE)
        targets.host.cache_clear()
    assert targets.host() == detected


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("target", RUNNABLE)
def test_bf16_rounds_as_pytorch_does(target, opt_level):
    """f32 -> bf16 is round to nearest even with NaNs kept quiet, exactly torch's conversion,
    on every CPU (AVX512-BF16's instruction would flush subnormals: Versa does not use it)."""
    x = special_floats()
    got = compile_for(CAST.format(n=x.size), target, opt_level)(x)[0]
    want = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


def test_versa_compile_for_an_isa_level_this_cpu_runs():
    """versa.compile and the torch.compile backend take a level as a target: the code an AVX2
    CPU runs, here; a level this CPU cannot run is a CompileError, not a crash."""
    import versa
    from versa.diagnostics import CompileError

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(24, 40), torch.nn.GELU(), torch.nn.Linear(40, 8)).eval()
    x = torch.randn(5, 24)
    with torch.no_grad():
        want = model(x)
    for level in ("x86-64-v3", "x86-64-v4"):
        if not targets.resolve(level).is_host:
            with pytest.raises(CompileError, match=f"cannot run {level} code"):
                versa.compile(model, (x,), target=level)
            continue
        torch.testing.assert_close(versa.compile(model, (x,), target=level)(x), want, rtol=1e-5, atol=1e-5)
        compiled = torch.compile(model, backend="versa", options={"target": level})
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(CompileError, match="unknown target 'x86-64-v9'"):
        versa.compile(model, (x,), target="x86-64-v9")
