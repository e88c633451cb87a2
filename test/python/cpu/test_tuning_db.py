"""The tuning database: keys, merging writes from concurrent tuners, refusing what is no database."""

import multiprocessing

import pytest
from versa import compiler, targets
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.options import CompileOptions
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint


def entry(target: str, signature: str, threads: int = 2) -> Entry:
    return Entry(target, threads, signature, code_digest(), "op", "MatmulStrategy", {"kr": 1}, 2e-3, 1e-3, 5)


def test_entries_are_keyed_by_machine_kind_threads_and_code(tmp_path):
    v3, v4 = (targets.resolve(n) for n in ("x86-64-v3", "x86-64-v4"))
    assert fingerprint(v3) != fingerprint(v4)
    db = TuningDb(tmp_path / "db.json")
    db.save([entry(fingerprint(v3), "abc")])
    loaded = TuningDb.load(tmp_path / "db.json")
    assert loaded.lookup(v3, 2, "abc").point == {"kr": 1}
    assert loaded.lookup(v4, 2, "abc") is None  # another ISA
    assert loaded.lookup(v3, 4, "abc") is None  # another thread count
    assert loaded.lookup(v3, 2, "abd") is None


def _write(path: str, name: str) -> None:
    for i in range(20):
        TuningDb(path).save([entry("t", f"{name}{i}")])


def test_concurrent_tuners_keep_each_others_entries(tmp_path):
    path = str(tmp_path / "db.json")
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write, args=(path, name)) for name in "ab"]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
    assert {e.signature for e in TuningDb.load(path).entries.values()} == {
        f"{n}{i}" for n in "ab" for i in range(20)
    }
    assert not list(tmp_path.glob(".db.json.*"))  # no temporary left behind


def test_a_file_that_is_no_database_is_refused(tmp_path):
    path = tmp_path / "db.json"
    path.write_text('{"entries": 3}')
    with pytest.raises(ValueError, match="not a Versa tuning database"):
        TuningDb.load(path)
    options = CompileOptions.create("host", threads=1, tuning_db=str(path))
    text = """func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %x = "versa.matmul"(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}"""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with pytest.raises(CompileError, match="not a Versa tuning database"):
        compiler.run_passes(module, options.passes())
