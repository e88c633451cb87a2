"""How convert-versa-to-linalg lowers a `versa.fused` group: as the fewest loop nests its
ops allow, with no tensor of its own for any value that stays inside a nest.

The region is read as runs of *pointwise* ops (elementwise ops, constants, batch_norm, which is
elementwise with per-channel operands) between *anchors* (every other op):

    a run                     one linalg.generic evaluating the run per point of its result
    reduce_* after a run      one reducing generic: the run is evaluated in its body, per input point
    any other anchor          itself, lowered by its own pattern (matmul, conv2d, softmax, ...)

So a group of kind "elementwise" is one generic; "epilogue" is the contraction and one generic
that updates its result in place (versa-codegen's epilogue strategies then compute that generic
on each output tile, and the contraction writes straight into the caller's buffer);
"reduction" is one generic for reduce_* or batch_norm with their producers (and consumers).

quantize, dequantize and requantize are pointwise too (`lower_quant.scalar`; ui8 values read
and written as i8). A qmatmul or qconv2d anchor leaves its zero-point terms to the generic
after it (`lower_qcontract.Parts`): the epilogue subtracts them, then bias, requantize,
residual dequantize, ..., so the integer contraction is followed by one generic, which
versa-int8-kernels and the conv/matmul epilogue strategies compute on each tile.
"""

from typing import Any

from versa.mlir import arith, ir

from ...common import extents
from ...common import linalg_builders as build
from ...common.base import PassError
from ...common.matching import versa_attrs
from ...common.scalar_emitters import SCALAR, batch_norm_scalar
from . import fold_rows
from . import lower_quant as quant
from . import zero_points as zp
from .lower_qcontract import parts

REDUCES = ("versa.reduce_sum", "versa.reduce_max", "versa.reduce_mean")
AFFINE = ("quantize", "dequantize", "requantize")
CONTRACTIONS = ("versa.qmatmul", "versa.qconv2d")


def _name(op: ir.OpView) -> str:
    return op.operation.name.removeprefix("versa.")


def _pointwise(op: ir.OpView) -> bool:
    return _name(op) in SCALAR or _name(op) in ("constant", "batch_norm", *AFFINE)


class _Nest:
    """The inputs of one generic and how its body reads them: every value the run reads from
    outside becomes an input, broadcast NumPy-style (ui8 ones viewed as i8); per-channel
    operands are first reshaped to [C, 1, ...] so that broadcasting puts them on their channel
    dim; a contraction's result brings its zero-point terms (`terms`), subtracted on read."""

    def __init__(self, ops: list[ir.OpView], rename: dict[ir.Value, ir.Value], terms: dict):
        self.ops, self.terms = ops, terms
        self.inputs: list[ir.Value] = []  # generic inputs (after rename / reshape)
        self.keys: list[tuple[ir.Value, int]] = []  # (region value, trailing 1-dims of a channel read)
        defined = {r for op in ops for r in op.results}
        for op in ops:
            if _name(op) == "constant" and not op.attributes["value"].is_splat:
                self._add((op.results[0], 0), arith.constant(op.results[0].type, op.attributes["value"]))
            for index, value in enumerate(op.operands):
                key = (value, _per_channel(op, index))
                if value not in defined and key not in self.keys:
                    outside = quant.signless(rename.get(value, value))
                    if key[1]:  # [C] → [C, 1, ...]; a dynamic C is its `tensor.dim`
                        outside = build.reshape(outside, (*extents.of(outside), *[1] * key[1]))
                    self._add(key, outside)
                    for term, _, _ in terms.get(value, []):
                        self._add((term, 0), term)

    def _add(self, key: tuple[ir.Value, int], value: ir.Value) -> None:
        self.keys.append(key)
        self.inputs.append(value)

    def evaluate(self, scalars: tuple[ir.Value, ...]) -> dict[ir.Value, ir.Value]:
        """Region value → its scalar at the current point, for every value of the run."""
        reads = dict(zip(self.keys, scalars, strict=True))
        env = {value: scalar for (value, channel), scalar in reads.items() if not channel}
        for value, terms in self.terms.items():
            if value in env:
                env[value] = zp.minus(env[value], [reads[(t, 0)] for t, _, _ in terms], terms)
        for op in self.ops:
            if op.results[0] in env:
                continue
            element, name = build.element_of(op.results[0]), _name(op)
            args = [
                reads[(v, c)] if (c := _per_channel(op, i)) else env[v] for i, v in enumerate(op.operands)
            ]
            if name == "constant":
                value = build.scalar(element, op.attributes["value"].get_splat_value().value)
            elif name == "batch_norm":
                value = batch_norm_scalar(args, element, versa_attrs(op)["epsilon"])
            elif name in AFFINE:
                value = quant.scalar(op, *args)
            else:
                value = SCALAR[name](args, element, versa_attrs(op))
            env[op.results[0]] = value
        return env


def _per_channel(op: ir.OpView, index: int) -> int:
    """For a per-channel parameter not on the last dim, the 1-dims that put it on its channel
    dim when broadcast ([C, 1, 1]: a batch_norm's in NCHW, a quantize's along axis 1 of 4);
    else 0."""
    if _name(op) == "batch_norm" and index > 0 and versa_attrs(op)["layout"] == "NCHW":
        return 2
    if _name(op) not in AFFINE or index == 0 or not build.shape_of(op.operands[index]):
        return 0
    rank = len(build.shape_of(op.operands[0]))
    return rank - 1 - versa_attrs(op)["axis"] % rank


def _check(op: ir.OpView, shape: build.Shape) -> None:
    """NumPy broadcasting of `op`'s result to `shape`; a dynamic dim fits any (it never
    stretches: the runtime checks that it equals its partner)."""
    own = build.shape_of(op.results[0])
    aligned = zip(own, shape[len(shape) - len(own) :], strict=True)
    if len(own) > len(shape) or not all(d == s or d == 1 or extents.DYNAMIC in (d, s) for d, s in aligned):
        raise PassError(
            f"'{op.operation.name}' result shape {list(own)} does not broadcast to the "
            f"fused result shape {list(shape)}",
            op.location,
        )


def _run_generic(
    ops: list[ir.OpView],
    outputs: list[ir.Value],
    rename: dict[ir.Value, ir.Value],
    terms: dict,
    into: ir.Value | None = None,
    rows: tuple | None = None,
) -> None:
    """One generic for `ops`, yielding `outputs` (all of one shape); records them in `rename`.
    With `into` (an anchor's lowered result the run reads, of the output's type), the generic
    updates it in place: the epilogue of a contraction rewrites the contraction's output.
    `rows`: that anchor's folded [rows, N] (a qmatmul on [..., M, K]), where the generic runs
    if its inputs fold (`fold_rows`)."""
    full = shape = build.shape_of(outputs[0])
    for op in ops:
        _check(op, shape)
    nest = _Nest(ops, rename, terms)
    values = nest.inputs
    folded = fold_rows.fold(values, full, rows) if rows and into in values else None
    if folded:  # the full extents, to expand the result back (a dynamic dim needs its size)
        full = extents.broadcast(values, full)
        into, values, shape = folded[values.index(into)], folded, rows
    i8 = ir.IntegerType.get_signless(8)
    elements = [i8 if quant.is_unsigned(v) else build.element_of(v) for v in outputs]
    own = ir.RankedTensorType.get(shape, build.element_of(outputs[0])) if folded else outputs[0].type
    if into is None or len(outputs) != 1 or into.type != own or into not in values:
        sizes = extents.broadcast(values, shape)
        init = [build.empty(sizes, e) for e in elements]
        inputs, slot = values, None
    else:
        slot = values.index(into)
        init, inputs = [into], values[:slot] + values[slot + 1 :]

    def body(*scalars: ir.Value) -> list[ir.Value]:
        reads = list(scalars[: len(inputs)])
        if slot is not None:
            reads.insert(slot, scalars[len(inputs)])
        env = nest.evaluate(tuple(reads))
        return [env[v] for v in outputs]

    maps = [build.broadcast_map(build.shape_of(v), shape) for v in inputs]
    maps += [ir.AffineMap.get_identity(len(shape))] * len(init)
    results = build.generic(inputs, init, maps, [build.PARALLEL] * len(shape), body)
    if folded:
        results = [fold_rows.unfold(r, full) for r in results]
    rename.update((v, quant.resigned(r, v.type)) for v, r in zip(outputs, results, strict=True))


def reduce_generic(
    ops: list[ir.OpView], reduce: ir.OpView, rename: dict[ir.Value, ir.Value], terms: dict | None = None
) -> None:
    """reduce_*(run) as one reducing generic that evaluates `ops` (maybe none) per input point;
    a mean divides the sums in place (no second buffer)."""
    attrs, x = versa_attrs(reduce), reduce.operands[0]
    source, element = build.shape_of(x), build.element_of(reduce.results[0])
    for op in ops:
        _check(op, source)
    axes = sorted(a % len(source) for a in attrs["axes"])
    terms = {} if terms is None else terms
    nest = _Nest(ops, rename, terms) if ops else None
    inputs = nest.inputs if nest else [_settled(x, rename, terms)]
    sizes = extents.broadcast(inputs, source)
    kept = tuple(d for i, d in enumerate(sizes) if i not in axes)
    is_max = reduce.operation.name == "versa.reduce_max"
    # f16/bf16 sums accumulate in f32 and round once, as PyTorch does (a 4096-term f16 sum of
    # values near 1 stops growing at 2048 in f16: 1 + 2048 rounds back to 2048).
    wide = not is_max and build.is_float(element) and ir.FloatType(element).width < 32
    acc = ir.F32Type.get() if wide else element
    init = build.filled(kept, acc, build.lowest(acc) if is_max else build.scalar(acc, 0))
    combine = SCALAR["max" if is_max else "add"]

    def body(*scalars: ir.Value) -> list[ir.Value]:
        value = nest.evaluate(scalars[:-1])[x] if nest else scalars[0]
        return [combine([build.convert(value, acc), scalars[-1]], acc, {})]

    maps = [build.broadcast_map(build.shape_of(v), source) for v in inputs]
    maps.append(build.dims_map(len(source), [d for d in range(len(source)) if d not in axes]))
    iterators = [build.REDUCTION if d in axes else build.PARALLEL for d in range(len(source))]
    y = build.generic(inputs, [init], maps, iterators, body)[0]
    if reduce.operation.name == "versa.reduce_mean":
        count = _count(extents.product([sizes[a] for a in axes]), acc)
        maps, iterators = [ir.AffineMap.get_identity(len(kept))], [build.PARALLEL] * len(kept)
        y = build.generic([], [y], maps, iterators, lambda v: [arith.divf(v, count)])[0]
    if wide:
        y = build.elementwise([y], kept, [element], lambda v: [build.convert(v, element)])[0]
    if attrs["keepdims"]:
        ones = [1 if d in axes else size for d, size in enumerate(sizes)]
        y = build.expand(y, ones, build.keepdims_groups(len(source), axes))
    rename[reduce.results[0]] = y


def _count(n: extents.Extent, element: ir.Type) -> ir.Value:
    """The number of reduced elements as an `element` scalar (a mean's divisor)."""
    if isinstance(n, int):
        return build.scalar(element, float(n))
    return arith.sitofp(element, arith.index_cast(ir.IntegerType.get_signless(64), n))


def _clone(op: ir.OpView, rename: dict[ir.Value, ir.Value], terms: dict) -> tuple | None:
    """An anchor, out of the region, reading the lowered values; its own pattern lowers it. A
    qmatmul or qconv2d is lowered here, its zero-point terms left in `terms` for the run after
    it to subtract; returns the contraction's folded [rows, N] where it folds rows."""
    clone = op.operation.clone().operation
    for old in op.operands:
        if old in rename or old in terms:
            clone.replace_uses_of_with(old, _settled(old, rename, terms))
    if op.operation.name in CONTRACTIONS:
        lowered = parts(clone.opview)
        core, pending = lowered.unfolded()
        clone.erase()
        rename[op.results[0]] = core
        if pending:
            terms[op.results[0]] = pending
        return fold_rows.rows_of(lowered.out, lowered.shape)
    rename.update(zip(op.results, clone.results, strict=True))
    return None


def _settled(value: ir.Value, rename: dict[ir.Value, ir.Value], terms: dict) -> ir.Value:
    """`value` lowered, a contraction's zero-point terms subtracted where they are pending (a
    value read other than by a run's generic)."""
    if value in terms:
        rename[value] = zp.subtract(rename[value], terms.pop(value), build.shape_of(value))
    return rename.get(value, value)


def lower_fused(op: ir.OpView, rewriter: Any) -> bool:
    """`versa.fused` → its runs as generics and its anchors as themselves (module docstring)."""
    *body, terminator = op.regions[0].blocks[0].operations
    if versa_attrs(op)["kind"] == "elementwise":
        for inner in body:
            if not _pointwise(inner) or _name(inner) == "batch_norm":
                message = f"'versa.fused' of kind \"elementwise\" cannot hold '{inner.name}'"
                raise PassError(message, inner.location)
    rename: dict[ir.Value, ir.Value] = {}
    terms: dict[ir.Value, list] = {}  # a contraction's zero-point terms, pending (`_clone`)
    run: list[ir.OpView] = []
    anchor: ir.Value | None = None  # the last anchor's lowered result, for an epilogue in place
    rows: tuple | None = None  # its folded [rows, N] (`fold_rows`)
    for i, inner in enumerate([*body, None]):
        if inner is not None and _pointwise(inner):
            run.append(inner)
            continue
        later = [*body[i:], terminator]
        escaping = [r for o in run for r in o.results if any(r in u.operands for u in later)]
        if inner is not None and inner.operation.name in REDUCES and escaping == [inner.operands[0]]:
            reduce_generic(run, inner, rename, terms)
        else:
            if run:
                into = anchor if versa_attrs(op)["kind"] == "epilogue" else None
                _flush(run, escaping, rename, terms, into, rows)
            if inner is not None:
                rows = _clone(inner, rename, terms)
                anchor = rename[inner.results[0]] if len(inner.results) == 1 else None
        run = []
    rewriter.replace_op(op, [_settled(v, rename, terms) for v in terminator.operands])
    return True


def _flush(
    run: list[ir.OpView],
    escaping: list[ir.Value],
    rename: dict[ir.Value, ir.Value],
    terms: dict,
    into: ir.Value | None,
    rows: tuple | None,
) -> None:
    """A run's generic; constants read by an anchor are simply moved out."""
    constants = [v for v in escaping if v.owner.operation.name == "versa.constant"]
    for value in constants:
        _clone(value.owner, rename, terms)
    outputs = [v for v in escaping if v not in constants]
    if len({build.shape_of(v) for v in outputs}) > 1:
        message = "values leaving one run of elementwise ops must have one shape"
        raise PassError(message, outputs[0].owner.location)
    if outputs:
        _run_generic([o for o in run if o.results[0] not in constants], outputs, rename, terms, into, rows)
