"""The dynamic dims of a compiled entry, as C: the checks of a call and its results' sizes.

A library's caller allocates the results, so it must know their sizes before the call, and
compiled code with `?` dims trusts its descriptors (a wrong size reads or writes out of
bounds). The JIT answers both per call with `ShapeProgram` (call_shapes.py), Python evaluating
each op's shape rule (`call_shape`) on the call's sizes. A C caller has no Python, so the same
rules are evaluated here once, on *symbolic* sizes (`Dim`: a polynomial in the dims' symbols,
floor division and remainder kept as opaque atoms), and written out as C.

A rule that compares two sizes it cannot decide symbolically (is `k` equal to `k2`? is `batch`
1?) makes the evaluation fork: it runs again with the comparison true, then false, so the
rules' whole behaviour becomes a decision tree whose leaves are result sizes or the rule's
refusal. Comparisons that the symbols' ranges decide (`batch == 0` with minimum 1) or that a
path has already decided do not fork, and a fork whose two sides end alike is dropped. The
tree becomes a C function that refuses exactly the calls the JIT refuses, with its messages.
Where a rule does what a symbolic size cannot (indexes with it, or forks too often), the
entry is refused with a located CompileError rather than written wrong.
"""

import contextvars
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from versa.call_shapes import Range, ShapeError, ShapeProgram, argument_symbols
from versa.diagnostics import error_at

MAX_LEAVES = 64
_STATE: contextvars.ContextVar["_Path"] = contextvars.ContextVar("versa_aot_path")

# A monomial: sorted atoms (with repetition); an atom: ("sym", name) or ("div" | "mod", p, q)
# with p, q polynomial keys. A polynomial key: sorted (monomial, coefficient) pairs.
Key = tuple


class NotSymbolic(TypeError):
    """A rule used a symbolic size where only a number will do."""


class Dim:
    """A size as a polynomial in the dims' symbols (see the module's doc)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[tuple, int]):
        self.terms = {m: c for m, c in terms.items() if c}

    @classmethod
    def symbol(cls, name: str) -> "Dim":
        return cls({(("sym", name),): 1})

    @classmethod
    def lift(cls, x) -> "Dim | None":
        if isinstance(x, Dim):
            return x
        if isinstance(x, int):
            return cls({(): x})
        return None

    @property
    def key(self) -> Key:
        return tuple(sorted(self.terms.items()))

    @property
    def constant(self) -> int | None:
        if not self.terms:
            return 0
        return self.terms[()] if list(self.terms) == [()] else None

    def __hash__(self) -> int:
        return hash(self.key)

    def _combine(self, other, sign: int) -> "Dim":
        o = Dim.lift(other)
        if o is None:
            return NotImplemented
        terms = dict(self.terms)
        for m, c in o.terms.items():
            terms[m] = terms.get(m, 0) + sign * c
        return Dim(terms)

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        return (-self)._combine(other, 1)

    def __neg__(self):
        return Dim({m: -c for m, c in self.terms.items()})

    def __mul__(self, other):
        o = Dim.lift(other)
        if o is None:
            return NotImplemented
        terms: dict[tuple, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Dim(terms)

    __rmul__ = __mul__

    def _divide(self, other, kind: str, swap: bool = False):
        o = Dim.lift(other)
        if o is None:
            return NotImplemented
        p, q = (o, self) if swap else (self, o)
        if p.constant is not None and q.constant not in (None, 0):
            return Dim.lift(p.constant // q.constant if kind == "div" else p.constant % q.constant)
        c = q.constant
        if c and all(v % c == 0 for v in p.terms.values()):  # an exact division
            return Dim({m: v // c for m, v in p.terms.items()}) if kind == "div" else Dim({})
        return Dim({((kind, p.key, q.key),): 1})

    def __floordiv__(self, other):
        return self._divide(other, "div")

    def __rfloordiv__(self, other):
        return self._divide(other, "div", swap=True)

    def __mod__(self, other):
        return self._divide(other, "mod")

    def __rmod__(self, other):
        return self._divide(other, "mod", swap=True)

    def _compare(self, other, kind: str, flip: bool, shift: int = 0):
        o = Dim.lift(other)
        if o is None:
            return NotImplemented if kind == "eq" else _refuse("compare", other)
        diff = (o - self if flip else self - o) - shift
        if diff.constant is not None:
            return diff.constant == 0 if kind == "eq" else diff.constant >= 0
        return Cond(kind, diff)

    def __eq__(self, other):
        return self._compare(other, "eq", False)

    def __ne__(self, other):
        cond = self._compare(other, "eq", False)
        return cond if cond is NotImplemented else not cond if isinstance(cond, bool) else cond.negate()

    def __ge__(self, other):
        return self._compare(other, "ge", False)

    def __gt__(self, other):
        return self._compare(other, "ge", False, 1)

    def __le__(self, other):
        return self._compare(other, "ge", True)

    def __lt__(self, other):
        return self._compare(other, "ge", True, 1)

    def __bool__(self) -> bool:
        return bool(self != 0)

    def __index__(self) -> int:
        if self.constant is None:
            raise NotSymbolic(f"a rule needs the number {self} (used as an index or a count)")
        return self.constant

    __int__ = __index__

    def __str__(self) -> str:
        return render(self.key, lambda s: s)

    __repr__ = __str__


def _refuse(what: str, other) -> None:
    raise NotSymbolic(f"a rule tried to {what} a symbolic size with {other!r}")


@dataclass(frozen=True)
class Cond:
    """`poly == 0` (kind "eq") or `poly >= 0` ("ge"), negated where `negated`."""

    kind: str
    poly: Dim
    negated: bool = False

    def negate(self) -> "Cond":
        return Cond(self.kind, self.poly, not self.negated)

    @property
    def base(self) -> tuple[str, Key]:
        p = self.poly
        if self.kind == "eq" and p.key and p.key[0][1] < 0:  # p == 0 is -p == 0
            p = -p
        return self.kind, p.key

    def __bool__(self) -> bool:
        path = _STATE.get(None)
        if path is None:
            raise NotSymbolic(f"a rule compared symbolic sizes outside an evaluation: {self.poly}")
        return path.decide(self.base) != self.negated

    def __eq__(self, other):  # dataclass equality would compare Dims (a Cond)
        return isinstance(other, Cond) and (self.base, self.negated) == (other.base, other.negated)

    def __hash__(self) -> int:
        return hash((self.base, self.negated))


class _Fork(BaseException):
    """Stops an evaluation at a comparison no earlier decision covers (not an Exception: no
    rule's handler may catch it)."""

    def __init__(self, base: tuple[str, Key]):
        super().__init__()
        self.base = base


class _Path:
    """One evaluation: the decisions to replay, then what it decided, with the symbols' ranges."""

    def __init__(self, prefix: list[bool], ranges: dict[str, Range]):
        self.prefix, self.next, self.ranges = prefix, 0, ranges
        self.facts: dict[tuple[str, Key], bool] = {}

    def decide(self, base: tuple[str, Key]) -> bool:
        if base in self.facts:
            return self.facts[base]
        lo, hi = _bounds(base[1], self.ranges)
        if base[0] == "eq" and (lo > 0 or hi < 0 or lo == hi == 0):
            return lo == hi == 0
        if base[0] == "ge" and (lo >= 0 or hi < 0):
            return lo >= 0
        if self.next == len(self.prefix):
            raise _Fork(base)
        self.facts[base] = self.prefix[self.next]
        self.next += 1
        return self.facts[base]


def _bounds(key: Key, ranges: dict[str, Range]) -> tuple[float, float]:
    """An interval holding the polynomial `key` for every size its symbols' ranges allow."""
    lo = hi = 0.0
    for monomial, c in key:
        mlo, mhi = 1.0, 1.0
        for atom in monomial:
            alo, ahi = _atom_bounds(atom, ranges)
            corners = [_mul(mlo, alo), _mul(mlo, ahi), _mul(mhi, alo), _mul(mhi, ahi)]
            mlo, mhi = min(corners), max(corners)
        tlo, thi = sorted((_mul(c, mlo), _mul(c, mhi)))
        lo, hi = lo + tlo, hi + thi
    return lo, hi


def _mul(a: float, b: float) -> float:
    return 0.0 if a == 0 or b == 0 else a * b


def _atom_bounds(atom: tuple, ranges: dict[str, Range]) -> tuple[float, float]:
    if atom[0] == "sym":
        r = ranges.get(atom[1], Range())
        return r.minimum, math.inf if r.maximum is None else r.maximum
    plo, phi = _bounds(atom[1], ranges)
    qlo, qhi = _bounds(atom[2], ranges)
    if qlo != qhi or qlo <= 0:
        return -math.inf, math.inf
    if atom[0] == "mod":
        return 0, qlo - 1
    return math.floor(plo / qlo) if plo > -math.inf else plo, math.floor(phi / qlo) if phi < math.inf else phi


def render(key: Key, name: Callable[[str], str], c: bool = False) -> str:
    """A polynomial as text (symbols by `name`): C with `c` (floor division and remainder as
    the header's helpers, Python's semantics), else as in a message."""
    parts = []
    for monomial, coefficient in sorted(key, key=lambda term: not term[0]):  # the constant last
        factors = [_atom(a, name, c) for a in monomial]
        if abs(coefficient) != 1 or not factors:
            factors.insert(0, str(abs(coefficient)))
        parts.append(("-" if coefficient < 0 else "+", " * ".join(factors)))
    if not parts:
        return "0"
    text = " ".join(f"{sign} {term}" for sign, term in parts).removeprefix("+ ")
    return "-" + text[2:] if text.startswith("- ") else text


def _atom(atom: tuple, name: Callable[[str], str], c: bool) -> str:
    if atom[0] == "sym":
        return name(atom[1])
    p, q = render(atom[1], name, c), render(atom[2], name, c)
    if c:
        return f"versa_floordiv({p}, {q})" if atom[0] == "div" else f"versa_mod({p}, {q})"
    return f"(({p}) {'//' if atom[0] == 'div' else '%'} ({q}))"


# The decision tree -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A call's outcome: the results' sizes, or the message of the rule that refuses it."""

    results: tuple[tuple[Key, ...], ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class Fork:
    base: tuple[str, Key]  # ("eq", p): p == 0; ("ge", p): p >= 0
    true: "Fork | Leaf"
    false: "Fork | Leaf"


def decision_tree(program: ShapeProgram, function) -> "Fork | Leaf":
    """The results' sizes of `program`'s calls as a decision tree (see the module's doc);
    `function`: the func (for the location of a refusal)."""
    leaves = 0

    def explore(prefix: list[bool]) -> Fork | Leaf:
        nonlocal leaves
        token, fork = _STATE.set(_Path(prefix, program.ranges)), None
        try:
            node: Fork | Leaf = Leaf(results=_evaluate(program, function))
        except _Fork as stop:
            fork = stop.base
        except ShapeError as err:
            node = Leaf(error=str(err))
        finally:
            _STATE.reset(token)
        if fork is not None:
            true, false = explore([*prefix, True]), explore([*prefix, False])
            return true if true == false else Fork(fork, true, false)
        leaves += 1
        if leaves > MAX_LEAVES:
            raise error_at(
                function.location,
                f"the shape rules of '{function.name.value}' branch into more than {MAX_LEAVES} cases "
                "on its dynamic dims: too many for a C header (make some dims static, or relate "
                "them with versa.dims symbols)",
            )
        return node

    return explore([])


def _evaluate(program: ShapeProgram, function) -> tuple[tuple[Key, ...], ...]:
    """The results' sizes as polynomial keys, from symbolic argument sizes (the argument
    checks themselves are the C function's own: static dims, symbols, ranges)."""
    shapes = [tuple(Dim.symbol(e) if isinstance(e, str) else e for e in dims) for dims in program.arguments]
    values = {**{v: tuple(s) for v, s in program.known}, **dict(enumerate(shapes))}
    for step in program.steps:
        try:
            values[step.result] = step.evaluate([tuple(values[v]) for v in step.operands])
        except (NotSymbolic, TypeError, ArithmeticError) as err:
            raise error_at(
                step.location,
                f"'{step.op}': its result's dynamic dims cannot be written as C from the "
                f"arguments' dims for a library's header ({err}); make them static",
            ) from None
    return tuple(tuple(Dim.lift(d).key for d in values[v]) for v in program.returns)


# C -----------------------------------------------------------------------------------------------


def c_names(symbols: list[str]) -> dict[str, str]:
    """A C identifier per symbol (`batch` -> `batch`, `arg0.dim0` -> `arg0_dim0`), distinct
    even once upper-cased (macro names)."""
    names: dict[str, str] = {}
    for s in symbols:
        base = re.sub(r"\W", "_", s, flags=re.ASCII) or "dim"
        name, n = base, 1
        while name.upper() in {v.upper() for v in names.values()}:
            name, n = f"{base}_{n}", n + 1
        names[s] = name
    return names


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def c_condition(base: tuple[str, Key], name: Callable[[str], str]) -> str:
    """`pos == neg` or `pos >= neg` of a fork's `p == 0` / `p >= 0`."""
    pos = tuple((m, c) for m, c in base[1] if c > 0)
    neg = tuple((m, -c) for m, c in base[1] if c < 0)
    op = "==" if base[0] == "eq" else ">="
    return f"{render(pos, name, True)} {op} {render(neg, name, True)}"


def c_tree(node: "Fork | Leaf", name: Callable[[str], str], source: str, indent: str = "  ") -> list[str]:
    """The statements of `node`: nested ifs, results' sizes written, a message or NULL returned
    (its location in `source`, the file the text was read from)."""
    if isinstance(node, Fork):
        lines = [f"{indent}if ({c_condition(node.base, name)}) {{"]
        lines += c_tree(node.true, name, source, indent + "  ")
        lines += [f"{indent}}} else {{", *c_tree(node.false, name, source, indent + "  "), f"{indent}}}"]
        return lines
    if node.error is not None:
        message = re.sub(r" at -:(\d+):(\d+)$", lambda m: f" at {source}:{m[1]}:{m[2]}", node.error)
        return [f"{indent}return {c_string(message)};"]
    lines = [
        f"{indent}result{i}_sizes[{d}] = {render(dim, name, True)};"
        for i, dims in enumerate(node.results)
        for d, dim in enumerate(dims)
    ]
    return [*lines, f"{indent}return NULL;"]


def ok_results(node: "Fork | Leaf") -> set[tuple[tuple[Key, ...], ...]]:
    """The results' sizes of every accepting leaf."""
    if isinstance(node, Fork):
        return ok_results(node.true) | ok_results(node.false)
    return set() if node.error is not None else {node.results}


@dataclass(frozen=True)
class Dynamic:
    """What a C caller must know of an entry's dynamic dims: per argument, per dim a static
    size or a symbol; the symbols' ranges; the decision tree of the results' sizes."""

    arguments: tuple[tuple[int | str, ...], ...]
    ranges: tuple[tuple[str, Range], ...]
    tree: Fork | Leaf

    @classmethod
    def of(cls, function) -> "Dynamic | None":
        """None when `function`'s arguments and results are all static."""
        program = ShapeProgram.of(function)
        if program is None:
            return None
        arguments = tuple(tuple(dims) for dims in program.arguments)
        return cls(arguments, tuple(program.ranges.items()), decision_tree(program, function))

    def symbols(self) -> dict[str, list[tuple[int, int]]]:
        """Each symbol and the (argument, dim)s that have it, in order."""
        return argument_symbols(self.arguments)
