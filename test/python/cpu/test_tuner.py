"""The tuner: its search on a known cost surface, and real tuning runs through the local pool and
Ray, whose databases later compiles read."""

import json
import time

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.options import CompileOptions
from versa.passes.cpu.strategies import strategy_at
from versa.passes.cpu.strategies.space import from_json
from versa.tuning import tuner
from versa.tuning.db import TuningDb, fingerprint
from versa.tuning.extract import distinct_kernels

WEIGHT = np.random.default_rng(44).uniform(-1, 1, (96, 80)).astype(np.float32)  # the 2nd matmul's B
PROGRAM = f"""func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x80xf32> {{
  %c = "versa.constant"() {{value = dense<"0x{WEIGHT.tobytes().hex().upper()}"> : tensor<96x80xf32>}}
    : () -> tensor<96x80xf32>
  %x = "versa.matmul"(%a, %b) : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  %y = "versa.relu"(%x) : (tensor<64x96xf32>) -> tensor<64x96xf32>
  %z = "versa.matmul"(%y, %c) : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>
  return %z : tensor<64x80xf32>
}}"""


class CostPool:
    """A pool whose candidates 'run' in a time given by a formula of their point: the search
    is checked against a known optimum, with no noise."""

    size = 2

    def __init__(self, cost):
        self.cost, self.points, self.compiles = cost, {}, 0

    def map(self, jobs):
        return [("ok", self.call(w, m, *args)) for w, m, args in jobs]

    def call(self, worker, method, *args):
        if method == "compile":
            self.points[args[0]] = from_json(args[4])
            self.compiles += 1
            return repr(args[4])  # the code's digest: each point its own code
        if method == "outputs":
            return [np.zeros(3, np.float32)]
        if method == "time":
            return self.cost(self.points[args[0]])
        return None


def test_coordinate_descent_finds_the_optimum_of_a_separable_cost():
    options = CompileOptions.create("x86-64-v3", threads=2)
    (kernel,) = distinct_kernels(PROGRAM.replace("64x", "128x").replace("<64", "<128"), options)[:1]

    def cost(point):
        mr, nr = point["register"]
        return 1e-3 * (1 + 0.1 * abs(mr - 2) + 0.1 * abs(nr - 16) / 8 + (0.05 if point["kr"] != 1 else 0))

    pool = CostPool(cost)
    report = tuner.tune_kernel(pool, kernel, options, time.monotonic() + 60)
    assert report.point["register"] == [2, 16] and report.point["kr"] == 1
    assert report.best_s < report.default_s
    assert pool.compiles < kernel.space.size() / 10  # a search, not the whole space


def test_a_flat_cost_keeps_the_default_point():
    options = CompileOptions.create("x86-64-v3", threads=2)
    kernel = distinct_kernels(PROGRAM, options)[0]
    report = tuner.tune_kernel(CostPool(lambda point: 1e-3), kernel, options, time.monotonic() + 60)
    assert from_json(report.point) == kernel.space.default()


def _check_database(path, options, kernels):
    entries = json.loads(path.read_text())["entries"]
    assert {e["signature"] for e in entries} == {k.signature.key for k in kernels}
    for entry in entries:
        assert entry["target"] == fingerprint(options.target) and entry["best_s"] <= entry["default_s"]
        kernel = next(k for k in kernels if k.signature.key == entry["signature"])
        strategy_at(kernel.strategy_object, from_json(entry["point"]), options.target)  # valid
    (weighted,) = (e for e in entries if "96x80" in e["op"])  # B constant: pre-packing measured
    assert isinstance(weighted["point"]["prepack"], bool)
    return entries


def _run_tuned(database) -> None:
    options = CompileOptions.create("host", threads=2, tuning_db=str(database))
    module = compiler.parse_module(compiler.Chunk(PROGRAM, 1), make_context())
    jit = JitFunction(module, pipeline=options.passes())
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-1, 1, s.shape).astype(np.float32) for s in jit.inputs)
    np.testing.assert_allclose(jit(a, b)[0], np.maximum(a @ b, 0) @ WEIGHT, rtol=1e-4, atol=1e-4)


def test_tuning_through_local_workers_fills_a_database_that_compiles_read(tmp_path):
    options = CompileOptions.create("host", threads=2)
    database = tmp_path / "tuned.json"
    reports = tuner.tune(PROGRAM, options, str(database), budget_s=6, jobs=2, progress=False)
    kernels = distinct_kernels(PROGRAM, options)
    assert len(reports) == len(kernels) == 2 and all(not r.failed for r in reports)
    assert sum(r.measured for r in reports) > 0  # (a kernel whose share ran out keeps its default)
    _check_database(database, options, kernels)
    _run_tuned(database)
    again = tuner.tune(PROGRAM, options, str(database), budget_s=6, jobs=2, progress=False)
    assert all(r.cached and r.measured == 0 for r in again)  # tuning twice reuses the database
    assert TuningDb.load(database).lookup(options.target, 2, kernels[0].signature.key) is not None


def test_tuning_through_ray_gives_the_same_database(tmp_path):
    pytest.importorskip("ray")
    from versa.tuning.ray_pool import RayPool

    options = CompileOptions.create("host", threads=2)
    pool = RayPool("local", options.lowering(), fingerprint(options.target), size=1, lowering=2)
    try:
        database = tmp_path / "ray.json"
        reports = tuner.tune(PROGRAM, options, str(database), budget_s=6, pool=pool, progress=False)
    finally:
        pool.close()
    assert all(not r.failed for r in reports) and sum(r.measured for r in reports) > 0
    _check_database(database, options, distinct_kernels(PROGRAM, options))
    _run_tuned(database)
