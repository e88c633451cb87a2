"""The PyTorch frontend end to end: each bundled model through versa.compile and through
torch.compile(backend="versa"), checked against eager, with median times (a smoke report,
not the benchmark: bench/ has the careful one).

    .venv/bin/python examples/torch/run_models.py [model ...]
"""

import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402
import versa  # noqa: E402


def median_ms(fn, inputs, repeat: int = 20) -> float:
    fn(*inputs)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*inputs)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main(names: list[str]) -> int:
    print(f"{'model':<20} {'compile s':>9} {'versa ms':>9} {'eager ms':>9} {'max |diff|':>11} torch.compile")
    failures = 0
    for name in names:
        model, inputs = models.build(name, batch=4)
        with torch.no_grad():
            start = time.perf_counter()
            compiled = versa.compile(model, inputs, opt_level=3)
            seconds = time.perf_counter() - start
            want = model(*inputs)
            diff = (compiled(*inputs) - want).abs().max().item()
            torch._dynamo.reset()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                dynamo_diff = (torch.compile(model, backend="versa")(*inputs) - want).abs().max().item()
            fell_back = any("versa" in str(w.message) for w in caught)
            ok = diff <= 1e-4 * max(1.0, want.abs().max().item()) and dynamo_diff <= 1e-4 * max(
                1.0, want.abs().max().item()
            )
            failures += not ok or fell_back
            verdict = "eager fallback" if fell_back else "OK" if ok else "MISMATCH"
            times = f"{median_ms(compiled, inputs):>9.3f} {median_ms(model, inputs):>9.3f}"
            print(f"{name:<20} {seconds:>9.2f} {times} {diff:>11.2e} {verdict}")
    print(
        f"batch 4, median of 20 calls; {len(names) - failures} of {len(names)} models match eager both ways"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(models.NAMES)))
