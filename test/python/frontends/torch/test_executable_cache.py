"""The executables a process keeps (`executable_cache`): bounded by their estimated bytes
(VERSA_MEMORY_CACHE_SIZE), the least recently used out first, the newest always kept; what is
evicted is freed (nothing but its users holds it), a `CompiledModule` keeps its example inputs'
and compiles an evicted signature again; code loaded from the compile cache is unloaded with its
executable. Numerics: |out - ref| <= 1e-5 + 1e-4 |ref| against eager (f32, two layers)."""

import gc
import weakref
from pathlib import Path

import pytest
import torch
import versa
from torch import nn
from versa.diagnostics import CompileError
from versa.frontends.torch import executable, executable_cache
from versa.frontends.torch.executable_cache import ENGINE_BYTES, ENGINE_COPIES, budget, constant_bytes

MAPS = Path("/proc/self/maps")


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch) -> executable_cache.ExecutableCache:
    """A fresh executable cache, as `executable.executable` uses."""
    fresh = executable_cache.ExecutableCache()
    monkeypatch.setattr(executable, "_EXECUTABLES", fresh)
    return fresh


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref]:
    """Every executable compiled (not found in the cache), in order, referenced weakly."""
    made: list[weakref.ref] = []
    real = executable.Executable.__init__

    def record(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(weakref.ref(self))

    monkeypatch.setattr(executable.Executable, "__init__", record)
    return made


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)).eval()


def _weight_bytes(model: nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def _check(compiled, model: nn.Module, batch: int) -> None:
    x = torch.linspace(-2, 2, batch * 64).reshape(batch, 64)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


def test_the_estimate_counts_an_engine_its_constants_and_pools(cache, compiles) -> None:
    model = _model()
    _check(versa.compile(model, (torch.zeros(4, 64),)), model, 4)
    compiled = compiles[0]()
    function = compiled._function
    constants = constant_bytes(function.module)
    assert constants >= _weight_bytes(model)  # every weight is a global of the code (no splat here)
    pools = 2 * 4 * 64 * 4  # OutputPool.KEEP (2) arrays of the f32 [4, 64] result
    assert compiled.nbytes == ENGINE_COPIES * constants + ENGINE_BYTES + function.memory.arena + pools
    assert len(cache) == 1 and cache.bytes == compiled.nbytes


def test_the_least_recently_used_go_first_down_to_the_budget(cache, compiles, monkeypatch) -> None:
    model = _model()
    versa.compile(model, (torch.zeros(1, 64),))
    limit = int(2.5 * compiles[0]().nbytes)  # two entries of about that size
    monkeypatch.setenv("VERSA_MEMORY_CACHE_SIZE", str(limit))
    for batch in (2, 3, 4, 5):
        _check(versa.compile(model, (torch.zeros(batch, 64),)), model, batch)  # then dropped
        if batch == 3:  # batch 2 used again: batch 1 is the least recently used now
            versa.compile(model, (torch.zeros(2, 64),))
        assert len(cache) <= 2 and cache.bytes <= limit
    assert len(compiles) == 5  # batch 2 came from the cache
    assert cache.bytes == sum(e.nbytes for e in cache._entries.values())
    # evicted means freed, without a collection: nothing but the cache held them
    assert [ref() is not None for ref in compiles] == [False, False, False, True, True]


def test_the_newest_is_kept_whatever_its_size(cache, compiles, monkeypatch) -> None:
    monkeypatch.setenv("VERSA_MEMORY_CACHE_SIZE", "1")
    model = _model()
    first = versa.compile(model, (torch.zeros(1, 64),))
    versa.compile(model, (torch.zeros(2, 64),))
    assert len(cache) == 1 and cache.bytes == compiles[-1]().nbytes > 1
    _check(first, model, 1)  # its CompiledModule holds its executable: evicted, not freed
    assert len(compiles) == 2


def test_a_compiled_module_compiles_an_evicted_signature_again(cache, compiles, monkeypatch) -> None:
    monkeypatch.setenv("VERSA_MEMORY_CACHE_SIZE", "1")  # one executable kept
    model = _model()
    compiled = versa.compile(model, (torch.zeros(1, 64),))
    for batch in (2, 3):
        _check(compiled, model, batch)
    assert len(compiles) == 3
    example, second, third = compiles
    compiles.clear()
    assert example() is not None and second() is None and third() is not None  # 2 evicted: freed
    _check(compiled, model, 1)  # the example inputs' is the module's own: no compile
    assert compiles == []
    _check(compiled, model, 2)
    assert len(compiles) == 1 and third() is None


def test_the_budget_reads_versa_memory_cache_size(monkeypatch) -> None:
    monkeypatch.delenv("VERSA_MEMORY_CACHE_SIZE", raising=False)
    assert 0 < budget() <= executable_cache._memory() // 4
    monkeypatch.setenv("VERSA_MEMORY_CACHE_SIZE", "3G")
    assert budget() == 3 << 30
    monkeypatch.setenv("VERSA_MEMORY_CACHE_SIZE", "lots")
    with pytest.raises(CompileError, match="VERSA_MEMORY_CACHE_SIZE='lots' is not a size"):
        budget()


def _mapped_copies(folder: Path) -> int:
    """How many loaded copies of compile-cache entries under `folder` this process maps."""
    paths = {line.split(maxsplit=5)[-1] for line in MAPS.read_text().splitlines() if str(folder) in line}
    return sum(".tmp-load-" in path for path in paths)


@pytest.mark.skipif(not MAPS.exists(), reason="reads /proc/self/maps")
def test_code_from_the_compile_cache_is_unloaded_with_its_executable(
    cache, compiles, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("VERSA_CACHE_DIR", str(tmp_path))
    model = _model()
    versa.compile(model, (torch.zeros(4, 64),))  # compiles, writes the entry
    compiles.clear()
    cache._entries.clear()
    compiled = versa.compile(model, (torch.zeros(4, 64),))
    loaded = compiles[0]()
    library = loaded._function.library
    pools = 2 * 4 * 64 * 4  # as above
    assert library is not None and loaded.nbytes == library.nbytes + loaded._function.memory.arena + pools
    assert library.nbytes > _weight_bytes(model)  # the constants and the code
    _check(compiled, model, 4)
    assert _mapped_copies(tmp_path) == 1
    del compiled, loaded, library
    compiles.clear()
    cache._entries.clear()
    gc.collect()
    assert _mapped_copies(tmp_path) == 0
