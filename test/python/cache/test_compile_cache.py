"""The compile cache in one process: what the key covers, corrupt entries (a flipped byte, a
truncated file) found and compiled again, never loaded, and eviction of the least recently used.
The cache is on in a folder of each test's own (the suite's conftest turns it off)."""

import logging
import os

import numpy as np
import pytest
from cache_helpers import PIPELINE, PROGRAM, entries
from versa import compiler, environment
from versa.cache.keys import compile_key
from versa.cache.store import Store, decode, encode
from versa.context import make_context
from versa.cpu.runtime import JitFunction


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(environment.CACHE_DIR, str(tmp_path))
    return tmp_path


def parse(text: str = PROGRAM):
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def run(jit: JitFunction) -> np.ndarray:
    rng = np.random.default_rng(0)
    (out,) = jit(*[rng.uniform(-1, 1, s.shape).astype(s.dtype) for s in jit.inputs])
    return out.copy()


def key(text: str = PROGRAM, pipeline: str = PIPELINE, llvm_opt_level: int = 3, libraries=()) -> str:
    return compile_key(parse(text), compiler.parse_pipeline(pipeline), llvm_opt_level, libraries)


def test_the_key_follows_what_decides_the_code(tmp_path):
    base = key()
    assert key() == base  # deterministic
    assert key("\n\n" + PROGRAM.replace("  ", "    ")) == base  # the module, not its spelling or lines
    different = [
        key(PROGRAM.replace("versa.add", "versa.sub")),
        key(pipeline="lower-to-llvm{threads=1}"),
        key(pipeline="lower-to-llvm{threads=2 opt-level=1}"),
        key(pipeline=f"versa-canonicalize,{PIPELINE}"),
        key(pipeline="lower-to-llvm{threads=2 target=x86-64-v3}"),
        key(llvm_opt_level=2),
        key(libraries=["/lib/libiomp5.so"]),
    ]
    assert len({base, *different}) == 1 + len(different)
    # The key is over the expanded pipeline: options that build the same steps are one compile
    # (threads are an -O3 matter; at -O2 the code is serial whatever `threads` says).
    assert key(pipeline="lower-to-llvm{threads=2 opt-level=2}") == key(
        pipeline="lower-to-llvm{threads=1 opt-level=2}"
    )


def test_the_key_reads_the_tuning_database(tmp_path):
    database = tmp_path / "db.json"
    pipeline = f"lower-to-llvm{{threads=2 tuning-db={database}}}"
    absent = key(pipeline=pipeline)
    database.write_text('{"schema": 1, "entries": []}\n')
    empty = key(pipeline=pipeline)
    database.write_text('{"schema": 1, "entries": []} \n')
    assert len({absent, empty, key(pipeline=pipeline)}) == 3


def test_a_hit_gives_the_same_results_without_a_lowered_module(cache):
    first = JitFunction(parse(), pipeline=PIPELINE)
    assert not first.from_cache and first.module is not None
    second = JitFunction(parse(), pipeline=PIPELINE)
    assert second.from_cache and second.module is None and second.engine is None
    assert second.memory == first.memory
    np.testing.assert_array_equal(run(second), run(first))
    third = JitFunction(parse(), pipeline=PIPELINE)  # a library of its own (its own arena)
    assert third.library is not second.library and third.library._handle != second.library._handle
    np.testing.assert_array_equal(run(third), run(first))


def test_cache_false_and_an_off_cache_always_compile(cache, monkeypatch):
    JitFunction(parse(), pipeline=PIPELINE)
    assert not JitFunction(parse(), pipeline=PIPELINE, cache=False).from_cache
    monkeypatch.setenv(environment.CACHE_DIR, "off")
    assert not JitFunction(parse(), pipeline=PIPELINE).from_cache


def _flip(data: bytes, offset: int) -> bytes:
    return data[:offset] + bytes([data[offset] ^ 0x01]) + data[offset + 1 :]


DAMAGE = {
    "code": lambda data: _flip(data, len(data) - 1000),
    "metadata": lambda data: _flip(data, data.index(b'"entry":"main"') + 10),  # its name
    "truncated": lambda data: data[: len(data) // 2],
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_corrupt_entry_is_compiled_again_never_loaded(cache, caplog, damage):
    expected = run(JitFunction(parse(), pipeline=PIPELINE))
    (entry,) = entries(cache)
    entry.write_bytes(DAMAGE[damage](entry.read_bytes()))
    with caplog.at_level(logging.WARNING, logger="versa.cache"):
        again = JitFunction(parse(), pipeline=PIPELINE)
    assert not again.from_cache
    assert any("corrupt cache entry" in r.getMessage() for r in caplog.records)
    np.testing.assert_array_equal(run(again), expected)
    decode(entry.parent.name + entry.stem, entry.read_bytes())  # written again, whole
    assert JitFunction(parse(), pipeline=PIPELINE).from_cache


def test_every_byte_of_an_entry_is_checked():
    key = "ab" * 32
    data = encode(key, {"entry": "main"}, bytes(range(256)) * 4)
    assert decode(key, data).payload == bytes(range(256)) * 4
    for offset in range(0, len(data), 7):
        flipped = bytearray(data)
        flipped[offset] ^= 0x10
        with pytest.raises(ValueError):
            decode(key, bytes(flipped))
    with pytest.raises(ValueError):
        decode("cd" * 32, data)  # an entry filed under another key


def test_eviction_removes_the_least_recently_used(tmp_path):
    store = Store(tmp_path / "cache", limit=2500)
    keys = [f"{i:02x}" * 32 for i in range(3)]
    payload = tmp_path / "payload"
    payload.write_bytes(bytes(900))
    for i, k in enumerate(keys[:2]):
        path = store.put(k, {}, payload)
        os.utime(path, (100 + i, 100 + i))  # a used long ago, b later
    assert store.get(keys[0]) is not None  # a used now
    store.put(keys[2], {}, payload)  # over the limit: b goes
    assert store.get(keys[1]) is None
    assert store.get(keys[0]) is not None and store.get(keys[2]) is not None
    assert store.info().entries == 2 and store.info().total_bytes <= 2500
    Store(tmp_path / "cache", limit=10).evict()  # a limit below one entry empties the cache
    assert Store(tmp_path / "cache", limit=10).info().entries == 0


def test_the_size_limit_applies_to_compiles(cache, monkeypatch):
    monkeypatch.setenv(environment.CACHE_SIZE, "1K")  # smaller than any library
    JitFunction(parse(), pipeline=PIPELINE)
    assert entries(cache) == []
    monkeypatch.setenv(environment.CACHE_SIZE, "lots")
    with pytest.raises(compiler.CompileError, match="VERSA_CACHE_SIZE='lots' is not a size"):
        JitFunction(parse(), pipeline=PIPELINE)


def test_code_is_loaded_only_from_private_folders(cache, caplog):
    expected = run(JitFunction(parse(), pipeline=PIPELINE))
    (entry,) = entries(cache)
    assert entry.stat().st_mode & 0o777 == 0o600 and entry.parent.stat().st_mode & 0o777 == 0o700
    entry.parent.chmod(0o770)  # a group may write the shard
    with caplog.at_level(logging.WARNING, logger="versa.cache"):
        again = JitFunction(parse(), pipeline=PIPELINE)
    assert not again.from_cache and "writable by others" in caplog.text
    np.testing.assert_array_equal(run(again), expected)
    entry.parent.chmod(0o700)
    assert JitFunction(parse(), pipeline=PIPELINE).from_cache
