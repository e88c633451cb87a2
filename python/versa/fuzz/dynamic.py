"""Dynamic variants of programs (issue 46): the same ops with one size made `?`, to be compiled
once and called with several sizes.

Why one size, tied by one symbol: a program's arguments already share sizes where its ops need
them (a matmul's K, broadcast partners, concat pieces), so making every argument dim equal to
some size v dynamic, all with the symbol `SYMBOL`, keeps those relations true at every call
while each op sees `?` where the generator had v. Sizes other than v then exercise what a
dynamic compile must do: loops over extents known only at run time, and the checks before a
call, which must refuse exactly the sizes the shape rules refuse (a reshape or a slice that
keeps its static declared shape only fits v, a gather has nothing to gather at size 0).

The calls' sizes are v itself, 1 and v + 2 (and now and then 0), written into the program
(`Program.sizes`), so that its text alone replays them.
"""

import random

from .program import Program, Type, retype
from .reduce import verifies

ZERO_CALLS = 0.25  # share of variants that are also called with size 0


def variant(program: Program, seed: int) -> Program | None:
    """A dynamic variant of `program`, or None when no size can be made dynamic (the rules or
    the verifier refuse every choice: a conv's channels must stay static, for one)."""
    rng = random.Random(seed)
    for v in candidate_sizes(program, rng):
        p = program.copy()
        for arg in p.args:
            arg.type = Type(tuple(None if d == v else d for d in arg.type.shape), arg.type.element)
        if retype(p) and verifies(p):
            sizes = [v, 1, v + 2] + ([0] if rng.random() < ZERO_CALLS else [])
            p.sizes = tuple(dict.fromkeys(sizes))
            return p
    return None


def candidate_sizes(program: Program, rng: random.Random) -> list[int]:
    """The sizes of the arguments' dims to try, best first: leading dims (batches, rows: what
    varies in a served model), then the others; sizes of 2 or more before 1, since a dynamic
    dim never stretches in a broadcast, so a `?` where a 1 broadcasts is refused at every call
    but one."""
    leading = {a.type.shape[0] for a in program.args if a.type.shape}
    every = {d for a in program.args for d in a.type.shape}
    tiers = [leading - {0, 1}, every - leading - {0, 1}, every & {1}]
    order = []
    for tier in tiers:
        sizes = sorted(tier)
        rng.shuffle(sizes)
        order += sizes
    return order


def specialized(program: Program, size: int) -> Program | None:
    """`program` with its dynamic argument dims set to `size` and the rest re-derived: the
    static program one call runs (None where the rules refuse `size`)."""
    p = program.copy()
    for arg in p.args:
        arg.type = Type(tuple(size if d is None else d for d in arg.type.shape), arg.type.element)
    p.sizes = ()
    return p if retype(p) and not p.dynamic else None
