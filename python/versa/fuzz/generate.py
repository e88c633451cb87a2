"""Random, well-typed versa programs, deterministic for a seed.

Why ranges: a random program is only a useful test when its reference is well conditioned, so
every value carries an interval bounding its elements (inputs are in [-1, 1], see `inputs.py`).
An op is only emitted where its inputs are in a safe domain (log and log1p of >= 0.1, exp and
expm1 of <= 4, tan within +-1.2, divisors away from zero, results within +-1e3); otherwise the
operand is first conditioned in IR (`abs(x) + c`, `clamp`), so the programs stay self-contained
and any input in range works. floor, ceil, round, trunc and sign read arguments only: a
compiled input one ulp off the reference's can cross an integer, a step no tolerance covers.

Shapes are small (dims 1-5, a few hundred elements at most, rank 0 to 4 with size-1 dims) so a
campaign runs many programs; now and then a dim is 0 (arguments, slices, concat pieces, matmul
N, batches), as empty tensors verify and are easy to mishandle (divisions by a size, tiles).
Values are reused (multi-use), several are returned, and views (slices, transposes, reshapes,
arguments) may be results. Structured ops get fresh arguments of fitting shapes with
attributes drawn across their valid ranges (`shapes_ops.py`), casts `casts.py`.
"""

import math
import random
from collections.abc import Callable

import numpy as np

from . import shapes_ops
from .program import DTYPES, Arg, Op, Program, Type, Value

LIMIT = 1e3
ZERO_SIZE = 0.03  # chance of an empty dim where one is drawn
Range = tuple[float, float]
UNARY_RANGES: dict[str, Callable[[Range], Range]] = {
    "neg": lambda r: (-r[1], -r[0]),
    "abs": lambda r: (0.0 if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1])), max(abs(r[0]), abs(r[1]))),
    "relu": lambda r: (max(r[0], 0.0), max(r[1], 0.0)),
    "exp": lambda r: (math.exp(r[0]), math.exp(r[1])),
    "log": lambda r: (math.log(r[0]), math.log(r[1])),
    "sqrt": lambda r: (math.sqrt(r[0]), math.sqrt(r[1])),
    "rsqrt": lambda r: (1 / math.sqrt(r[1]), 1 / math.sqrt(r[0])),
    "tanh": lambda r: (math.tanh(r[0]), math.tanh(r[1])),
    "sigmoid": lambda r: (0.0, 1.0),
    "erf": lambda r: (math.erf(r[0]), math.erf(r[1])),
    "gelu": lambda r: (-0.2, max(r[1], 0.0)),
}
# dialects/ops_math.py's ops, drawn a third of the time (the mix of the ops above stays as it was)
MATH_RANGES: dict[str, Callable[[Range], Range]] = {
    "sin": lambda r: (-1.0, 1.0),
    "cos": lambda r: (-1.0, 1.0),
    "tan": lambda r: (math.tan(r[0]), math.tan(r[1])),
    "atan": lambda r: (math.atan(r[0]), math.atan(r[1])),
    "log1p": lambda r: (math.log1p(r[0]), math.log1p(r[1])),
    "expm1": lambda r: (math.expm1(r[0]), math.expm1(r[1])),
    "floor": lambda r: (math.floor(r[0]), math.floor(r[1])),
    "ceil": lambda r: (math.ceil(r[0]), math.ceil(r[1])),
    "round": lambda r: (round(r[0]), round(r[1])),  # ties to even, as versa.round
    "trunc": lambda r: (math.trunc(r[0]), math.trunc(r[1])),
    "sign": lambda r: (float(np.sign(r[0])), float(np.sign(r[1]))),
}
NEEDS = {"log": (0.1, LIMIT), "sqrt": (0.1, LIMIT), "rsqrt": (0.1, LIMIT), "exp": (-LIMIT, 4.0)}
NEEDS |= {"log1p": (0.1, LIMIT), "expm1": (-LIMIT, 4.0), "tan": (-1.2, 1.2)}
FLOAT_ONLY = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "gelu"}
FLOAT_ONLY |= {"sin", "cos", "tan", "atan", "log1p", "expm1", "floor", "ceil", "round", "trunc"}
# Steps: an input error that crosses an integer (or zero) becomes a whole step in the result,
# which no tolerance covers, so these read arguments only (exact values; a fresh one if needed).
STEPS = {"floor", "ceil", "round", "trunc", "sign"}
BINARY = ("add", "sub", "mul", "div", "max", "min", "pow")


class Generator:
    """`Generator(seed).program()`: one random program; the same seed, the same program."""

    def __init__(self, seed: int, max_ops: int = 8):
        self.rng = random.Random(seed)
        self.max_ops = max_ops
        self.program = Program()
        self.ranges: dict[int, Range] = {}

    # --- values ------------------------------------------------------------------------------

    def empty(self) -> bool:
        return self.rng.random() < ZERO_SIZE

    def size(self, low: int, high: int) -> int:
        """A dim in [low, high], or rarely 0."""
        return 0 if self.empty() else self.rng.randint(low, high)

    def shape(self, rank: int | None = None, max_elements: int = 64) -> tuple[int, ...]:
        rank = self.rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if rank is None else rank
        dims = [self.rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(rank)]
        while math.prod(dims) > max_elements:
            dims[dims.index(max(dims))] //= 2
        if dims and self.empty():
            dims[self.rng.randrange(rank)] = 0
        return tuple(dims)

    def arg(self, t: Type) -> Arg:
        """A new argument; its range is that of the inputs `inputs.py` draws."""
        value = Arg(t)
        self.program.args.append(value)
        self.ranges[id(value)] = (
            (-1.0, 1.0) if t.is_float else (0.0, 1.0) if t.element == "i1" else (-5.0, 5.0)
        )
        return value

    def add(self, name: str, operands: list[Value], attrs: dict, t: Type, rng: Range) -> Op | None:
        """Append an op unless its range leaves [-LIMIT, LIMIT] (returns None then)."""
        if not -LIMIT <= rng[0] <= rng[1] <= LIMIT:
            return None
        op = Op(name, operands, attrs, t)
        self.program.ops.append(op)
        self.ranges[id(op)] = rng
        return op

    def constant(self, t: Type, low: float, high: float) -> Op:
        if t.element == "i1":
            value = np.array([self.rng.random() < 0.5 for _ in range(math.prod(t.shape))]).reshape(t.shape)
        elif t.is_float:
            value = np.array([self.rng.uniform(low, high) for _ in range(math.prod(t.shape))])
        else:
            value = np.array([self.rng.randint(int(low), int(high)) for _ in range(math.prod(t.shape))])
        array = value.reshape(t.shape).astype(DTYPES[t.element])
        op = Op("constant", [], {"value": array}, t)
        self.program.ops.append(op)
        self.ranges[id(op)] = (float(array.min()), float(array.max())) if array.size else (0.0, 0.0)
        return op

    def range(self, value: Value) -> Range:
        return self.ranges[id(value)]

    def pick(self, predicate: Callable[[Value], bool] = lambda v: True) -> Value | None:
        """A random existing value (recent ones favoured), or None."""
        choices = [v for v in self.program.values() if predicate(v)]
        if not choices:
            return None
        return choices[-1] if self.rng.random() < 0.4 else self.rng.choice(choices)

    def positive(self, value: Value, low: float = 0.1) -> Value | None:
        """`value`, or abs(value) + c when its range reaches below `low`."""
        lo, hi = self.range(value)
        if lo >= low:
            return value
        t = Type((), value.type.element)
        bound = max(abs(lo), abs(hi))
        magnitude = self.add("abs", [value], {}, value.type, (0.0, bound))
        if magnitude is None:
            return None
        c = self.constant(t, max(low, 0.5), 1.0) if value.type.is_float else self.constant(t, 1, 2)
        lo_c, hi_c = self.range(c)
        return self.add("add", [magnitude, c], {}, value.type, (lo_c, bound + hi_c))

    def clamped(self, value: Value | None, low: float, high: float) -> Value | None:
        if value is None:
            return None
        lo, hi = self.range(value)
        if low <= lo and hi <= high:
            return value
        rng = (min(max(lo, low), high), max(min(hi, high), low))
        return self.add("clamp", [value], {"min": low, "max": high}, value.type, rng)

    def broadcast_partner(self, value: Value) -> Value:
        """An existing value that broadcasts with `value`, or a new argument/constant that does."""
        t = value.type

        def fits(v: Value) -> bool:
            if v.type.element != t.element or v is value and self.rng.random() < 0.5:
                return False
            a, b = v.type.shape[::-1], t.shape[::-1]
            return all(x == y or 1 in (x, y) for x, y in zip(a, b, strict=False))

        found = self.pick(fits) if self.rng.random() < 0.6 else None
        if found is not None and math.prod(np.broadcast_shapes(found.type.shape, t.shape)) <= 256:
            return found
        rank = self.rng.randint(0, len(t.shape))
        shape = tuple(d if self.rng.random() < 0.7 else 1 for d in t.shape[len(t.shape) - rank :])
        if self.rng.random() < 0.3:
            return self.constant(Type(shape, t.element), -1, 1)
        return self.arg(Type(shape, t.element))

    # --- ops ---------------------------------------------------------------------------------

    def unary(self, x: Value) -> Op | None:
        if x.type.element == "i1":
            return self.add("not", [x], {}, x.type, (0.0, 1.0))
        ranges = MATH_RANGES if self.rng.random() < 1 / 3 else UNARY_RANGES
        names = [n for n in ranges if x.type.is_float or n not in FLOAT_ONLY]
        name = self.rng.choice(names)
        if name in ("log", "sqrt", "rsqrt", "log1p"):
            x = self.positive(x)
        if name in ("exp", "expm1"):
            x = self.clamped(x, -3.0, 3.0)
        if name == "tan":
            x = self.clamped(x, -1.2, 1.2)
        if name in STEPS and not isinstance(x, Arg):
            x = self.arg(x.type)
        if x is None:
            return None
        attrs = {"approximate": self.rng.choice(["none", "tanh"])} if name == "gelu" else {}
        return self.add(name, [x], attrs, x.type, ranges[name](self.range(x)))

    def binary(self, a: Value) -> Op | None:
        name = self.rng.choice([n for n in BINARY if a.type.is_float or n != "pow"])
        b = self.broadcast_partner(a)
        if a.type.element == "i1":
            name = self.rng.choice(["and", "or"])
            shape = tuple(np.broadcast_shapes(a.type.shape, b.type.shape))
            return self.add(name, [a, b], {}, Type(shape, "i1"), (0.0, 1.0))
        if name == "div":
            b = self.positive(b, 0.5 if a.type.is_float else 1)
        if name == "pow":
            a, b = self.positive(a, 0.5), self.clamped(b, -2.0, 2.0)
        if a is None or b is None:
            return None
        shape = tuple(np.broadcast_shapes(a.type.shape, b.type.shape))
        return self.add(name, [a, b], {}, Type(shape, a.type.element), self.binary_range(name, a, b))

    def binary_range(self, name: str, a: Value, b: Value) -> Range:
        (a0, a1), (b0, b1) = self.range(a), self.range(b)
        if name in ("add", "sub"):
            return (a0 + b0, a1 + b1) if name == "add" else (a0 - b1, a1 - b0)
        if name in ("max", "min"):
            return (max(a0, b0), max(a1, b1)) if name == "max" else (min(a0, b0), min(a1, b1))
        if name == "pow":
            corners = [x**y for x in (a0, a1) for y in (b0, b1)]
        elif name == "div":
            corners = [x / y for x in (a0, a1) for y in (b0, b1)]
            corners += [0.0] if a.type.is_float else [abs(a0) + abs(a1), -abs(a0) - abs(a1)]
        else:
            corners = [x * y for x in (a0, a1) for y in (b0, b1)]
        return (min(corners), max(corners))

    def step(self) -> None:
        x = self.pick()
        if x is None:
            return
        kind = self.rng.choices(["unary", "binary", "shapes"], weights=[3, 4, 5])[0]
        if kind == "unary":
            self.unary(x)
        elif kind == "binary":
            self.binary(x)
        else:
            shapes_ops.random_op(self, x)

    def build(self) -> Program:
        element = self.rng.choices(["f32", "f16", "i32", "i64", "i8"], weights=[14, 1, 2, 1, 1])[0]
        for _ in range(self.rng.randint(1, 2)):
            self.arg(Type(self.shape(), element))
        for _ in range(self.rng.randint(1, self.max_ops)):
            self.step()
        return self.finish()

    def finish(self) -> Program:
        candidates = list(self.program.values())
        count = min(len(candidates), self.rng.choice([1, 1, 1, 2, 3]))
        results = [candidates[-1], *self.rng.sample(candidates, count - 1)]
        self.program.results = results
        self.program.remove_dead()
        return self.program


def generate(seed: int, max_ops: int = 8) -> Program:
    """The program of `seed` (the same on every machine and run)."""
    return Generator(seed, max_ops).build()
