"""The hot-shape column of the dynamic-shapes benchmark (bench/dynamic_systems.py).

Versa's dynamic compile gives a shape a static version of its own once it is hot
(`versa.frontends.torch.hot_shapes`). The benchmark's policy makes a shape hot right after the
shape's timed rounds (calls = R + 3: the check and the R rounds stay below it), so the dynamic
column measures the dynamic code alone. Then, per shape: the dynamic code is called until the
background compile starts, and on while it runs, at half load (each call followed by a pause
as long: the compile runs at nice 19, in idle time only, and a loop of back-to-back calls would
starve it as a server at full load does; each call's latency kept: calls are slowed by it,
never stopped), and once its static version is ready, that is checked against the reference
and timed interleaved with Versa's own static compile of the shape, R rounds, medians.
"""

import statistics
import time

from bench.driver import check

STEPS = 10  # calls to make a shape hot, at most (the policy needs 2 beyond the timed rounds)


def policy(repeat: int):
    from versa.frontends.torch.hot_shapes import HotShapePolicy

    return HotShapePolicy(limit=64, calls=repeat + 3, seconds=0)


def measure(compiled, static, ids, mask, expected, reduction, repeat: int, dynamic_s: float) -> dict:
    """`Versa hot` (ms of the static version), `hot / static` (against `static`, interleaved),
    and `stall` (the slowest call while it compiled, over the dynamic median `dynamic_s`)."""
    hot = compiled._held.hot_shapes  # the dynamic executable's
    if hot is None:
        return {"Versa hot": "n/a (no hot shapes)"}

    def entry():
        return next((e for s, e in hot.shapes.items() if s and s[0] == tuple(ids.shape)), None)

    for _ in range(STEPS):
        if entry() is not None and entry().state != "counting":
            break
        compiled(ids, mask)
    latencies = []
    while entry() is not None and entry().state == "compiling":
        start = time.perf_counter()
        compiled(ids, mask)
        latencies.append(time.perf_counter() - start)
        time.sleep(latencies[-1])  # half load: the compile, at nice 19, runs in idle time only
    hot.wait()
    found = entry()
    if found is None or found.state != "ready":
        return {"Versa hot": f"n/a ({found.why if found else 'not hot'})"}
    problem = check([compiled(ids, mask).detach().numpy()], [expected], reduction)
    if problem:
        return {"Versa hot": f"wrong ({problem})"}
    samples = {"hot": [], "static": []}
    for _ in range(repeat):
        for name, call in (("static", static), ("hot", compiled)):
            start = time.perf_counter()
            call(ids, mask)
            samples[name].append(time.perf_counter() - start)
    hot_s, static_s = statistics.median(samples["hot"]), statistics.median(samples["static"])
    return {
        "Versa hot": hot_s,
        "hot / static": hot_s / static_s,
        "stall": max(latencies) / dynamic_s if latencies else 0.0,
        "compile": found.compile_seconds,
    }
