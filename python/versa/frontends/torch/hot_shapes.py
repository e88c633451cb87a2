"""Static versions of the shapes a dynamic compile serves most (issue 46, point 5).

A compile with dynamic dims serves every shape in their ranges, but its code is slower than a
static compile's for some shapes (measured, `bench/RESULTS.md`: BERT-base 1.0-1.2x, a Llama-style
decoder up to 1.44x): tiles sized for unknown extents, remainder loops, sizes read at run time.
A server meets a few shapes far more often than the rest (a fixed batch, padded sequence
buckets), and those are worth a static compile of their own.

How it decides. Each call's argument shapes are counted with the time the calls took. A shape
is hot once it has been called `calls` times (default 8) and its calls have taken `seconds` in
all, by default as long as the dynamic compile took: a shape that has cost the machine as much
as a compile is likely to cost it more, and its static compile then costs about what that shape
has already cost, not more. At most `limit` shapes (default VERSA_HOT_SHAPES, else 4) of one
compiled function get one; 0 turns it off.

How it compiles. The versa function, kept from before the dynamic compile's passes (a clone:
its weights are the context's attributes, shared, not copied), is made static for the shape by
`versa-specialize-shapes` and compiled as any static module is: the code a static import of
that shape gets.

The first call of a shape never waits for a compile: the dynamic code serves it, and goes on
serving a hot shape while its static version compiles in a background thread (one at a time,
at the lowest CPU priority the OS gives a thread; the compile holds Python's GIL part of the
time, so calls beside it are slower, not stopped). Calls of that shape then take the static
code, while the executable cache keeps it (`executable_cache`: evicted, the shape goes back to
the dynamic code). A shape whose static compile fails keeps the dynamic code; the log says why.
"""

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from versa import environment, log

_log = log.get("compiler")
Shapes = tuple[tuple[int, ...], ...]  # one call's argument shapes


@dataclass(frozen=True)
class HotShapePolicy:
    """When a dynamic compile's shape gets a static compile (the module docstring says why)."""

    limit: int = 4  # shapes per compiled function; 0: none
    calls: int = 8  # calls of the shape, at least
    seconds: float | None = None  # time spent in them, at least; None: the dynamic compile's

    @classmethod
    def of(cls, value: "HotShapePolicy | int | None") -> "HotShapePolicy":
        """`versa.compile`'s `hot_shapes`: a policy, a limit, or None (VERSA_HOT_SHAPES, else 4)."""
        if isinstance(value, HotShapePolicy):
            return value
        if value is None:
            return cls(limit=environment.hot_shapes(cls.limit))
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"hot_shapes={value!r}: a count of shapes (0: none) or a HotShapePolicy")
        return cls(limit=value)


@dataclass
class HotShape:
    """One shape's counts, and its static compile once it is ready."""

    calls: int = 0
    seconds: float = 0.0  # in its calls, served by the dynamic code
    state: str = "counting"  # counting, compiling, ready, failed
    compiled: Callable | None = None  # what `specialize` returned: ready while it returns one
    compile_seconds: float = 0.0
    why: str = ""  # a failed compile's error
    done: threading.Event = field(default_factory=threading.Event)


class HotShapes:
    """The calls of one dynamic compile by argument shapes, with the static versions of the hot
    ones. `specialize(shapes)` compiles them; it returns a callable that returns the static
    executable while it lives (or None once evicted), or raises."""

    def __init__(
        self, specialize: Callable[[Shapes], Callable], policy: HotShapePolicy, compile_seconds: float
    ):
        self.policy = policy
        self.shapes: dict[Shapes, HotShape] = {}
        self._specialize = specialize
        self._threshold = compile_seconds if policy.seconds is None else policy.seconds
        self._started = 0  # static compiles started (at most `policy.limit`)
        self._lock = threading.Lock()

    def static(self, shapes: Shapes):
        """The static executable of `shapes`, where one is ready."""
        entry = self.shapes.get(shapes)
        if entry is None or entry.state != "ready":
            return None
        found = entry.compiled()
        if found is None:  # evicted from the executable cache: the dynamic code from now on
            entry.state, entry.compiled, entry.why = "failed", None, "evicted from memory"
        return found

    def record(self, shapes: Shapes, seconds: float) -> None:
        """Count a call of `shapes` that the dynamic code served in `seconds`; start its static
        compile once it is hot."""
        if self._started >= self.policy.limit:
            return
        entry = self.shapes.setdefault(shapes, HotShape())
        entry.calls += 1
        entry.seconds += seconds
        hot = entry.calls >= self.policy.calls and entry.seconds >= self._threshold
        if entry.state != "counting" or not hot:
            return
        with self._lock:  # one static compile at a time, `limit` in all
            busy = any(e.state == "compiling" for e in self.shapes.values())
            if busy or self._started >= self.policy.limit:
                return
            self._started += 1
            entry.state = "compiling"
        threading.Thread(target=self._compile, args=(shapes, entry), daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the static compiles started so far; whether they all ended in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for entry in list(self.shapes.values()):
            if entry.state == "compiling":
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not entry.done.wait(left):
                    return False
        return True

    def _compile(self, shapes: Shapes, entry: HotShape) -> None:
        _lowest_priority()
        start = time.perf_counter()
        try:
            entry.compiled = self._specialize(shapes)
            entry.state = "ready"
        except Exception as err:  # the dynamic code serves this shape: keep it, say why
            entry.state, entry.why = "failed", " ".join(str(err).split())[:300]
        entry.compile_seconds = time.perf_counter() - start
        _log.info(
            "hot shape %s after %d calls (%.2f s): static compile %s in %.1f s%s",
            " ".join("x".join(map(str, s)) for s in shapes),
            entry.calls,
            entry.seconds,
            entry.state,
            entry.compile_seconds,
            f" ({entry.why})" if entry.why else "",
        )
        entry.done.set()


def _lowest_priority() -> None:
    """This thread at nice 19 (on Linux a thread's id is a process id to setpriority), so the
    compile takes the cores the served calls leave."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
