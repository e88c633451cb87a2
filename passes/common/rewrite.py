"""The one module that knows the bindings' pattern-callback convention.

A Versa pattern is `fn(op, rewriter) -> bool` that returns True when it rewrote `op`. The
bindings want the opposite (falsy on success) and need the insertion point and location set;
`patterns()` adapts. Exceptions inside a pattern would otherwise vanish inside C++: they are
stashed and re-raised after the rewrite, so the driver reports them with the op's location.
"""

from collections.abc import Callable, Iterable

from versa.mlir import ir, rewrite

from .base import PassError

Pattern = Callable[[ir.OpView, rewrite.PatternRewriter], bool]


class _Failures:
    def __init__(self) -> None:
        self.first: PassError | None = None


def apply_greedily(module: ir.Operation, table: Iterable[tuple[type | str, Pattern]]) -> None:
    """Apply `table` ((root op class or name, pattern) pairs) to a fixpoint over `module`."""
    failures = _Failures()
    keep = []  # the bindings do not own the callbacks: keep them alive during the rewrite
    patterns = rewrite.RewritePatternSet()
    for root, fn in table:
        callback = _adapt(fn, failures)
        keep.append(callback)
        patterns.add(root, callback)
    rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
    if failures.first is not None:
        raise failures.first


def _adapt(fn: Pattern, failures: _Failures) -> Callable:
    def callback(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
        if failures.first is not None:
            return True
        try:
            with rewriter.ip, op.location:
                return not fn(op, rewriter)
        except PassError as err:
            failures.first = err if err.location else PassError(str(err), op.location)
        except Exception as err:  # a bug in a pattern: report it at the op, never crash
            failures.first = PassError(
                f"pattern {fn.__name__} failed on '{op.operation.name}': {type(err).__name__}: {err}",
                op.location,
            )
        return True

    callback.__name__ = fn.__name__
    return callback
