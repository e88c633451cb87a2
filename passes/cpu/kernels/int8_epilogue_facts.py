"""What an INT8 kernel's epilogue (`int8_epilogue.py`) may tell LLVM about its float values.

A requantize or quantize body clamps `roundeven(f32(acc) · s)` into its range with
`arith.maximumf` / `minimumf` and then maps NaN to the zero point (`cmpf uno` + `select`,
lower_quant._saturated). Read literally, LLVM keeps IEEE maximum's NaN and signed-zero rules:
~4 instructions per clamp on x86 (vmaxps, compares, a blend) and the NaN test, per output
vector; on a 1x1 conv of 16 input channels (4 vpdpbusd a vector) that was most of its time.
Where the facts below hold, the kernel writes the clamps with `fastmath<nnan>` (and `nsz`) and
the NaN test as a constant, so each clamp is one vmaxps / vminps. Exact:

- a bound on |value| (float64, rounding allowed for): a float constant's (scalar, or a tensor
  input such as per-channel scales) largest magnitude, 2^31 for `sitofp` of an i32 (2^32
  `uitofp`), products and sums of bounds, a bound over a constant divisor's smallest magnitude
  (a quantize's x / s), +1 for a rounding, the larger of max/min/select's. A value whose bound
  is below f32's largest is finite. Not NaN: a finite value, a product or sum of finite ones, a
  finite one over a finite non-zero constant (±inf at most), a rounding of a non-NaN one, a
  max/min/select of non-NaN ones. Anything else (a float tensor computed at run time, a division
  by one) is unbounded. An `arith.maximumf`/`minimumf` of non-NaN operands takes `nnan`;
  `cmpf uno` / `ord` of non-NaN operands is false / true.
- zero sign ignored: a value whose every use is an `fptosi`/`fptoui` (±0 → 0) or `cmpf` (±0 are
  equal), or an op that passes a flipped zero sign on as at most a flipped zero sign of its own
  result (the roundings, max/min, add/sub/mul, negf, absf, extf, select's values) whose result
  is ignored so. Such a max/min also takes `nsz` (IEEE orders -0 < +0; vmaxps does not).
"""

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir

_F32_MAX = float(np.finfo(np.float32).max) * (1 - 1e-6)  # room for the roundings of a bound
_ROUNDINGS = ("math.roundeven", "math.round", "math.floor", "math.ceil", "math.trunc")
_KEEPS = ("arith.negf", "math.absf", "arith.extf")
_CLAMPS = ("arith.maximumf", "arith.minimumf")
_SUMS = ("arith.addf", "arith.subf")
_SIGN_PASSING = (*_ROUNDINGS, *_KEEPS, *_CLAMPS, *_SUMS, "arith.mulf", "arith.select")
_TO_INTEGER = ("arith.fptosi", "arith.fptoui", "arith.cmpf")
_UNBOUNDED = float("inf")


def _constant_range(value: ir.Value) -> tuple[float, float]:
    """(smallest, largest) magnitude of a float constant (scalar or tensor); (0, inf) if it is
    none, or holds a NaN or an infinity."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return 0.0, _UNBOUNDED
    attr = owner.operation.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        array = np.asarray(attr.value)
    else:
        try:
            array = elements_to_numpy(attr)
        except Exception:  # noqa: BLE001  (an attribute NumPy cannot hold: nothing is known)
            return 0.0, _UNBOUNDED
    if array.dtype.kind != "f" or not array.size or not np.all(np.isfinite(array)):
        return 0.0, _UNBOUNDED
    magnitude = np.abs(array)
    return float(magnitude.min()), float(magnitude.max())


def _constant_bound(value: ir.Value) -> float:
    return _constant_range(value)[1]


def _bounds(generic: ir.Operation, ops: list[ir.Operation]) -> tuple[dict, set]:
    """(bound on |v| per float value, the values known not NaN) of the body (module doc)."""
    block = generic.regions[0].blocks[0]
    inputs = dict(zip(block.arguments, generic.operands, strict=False))  # the constants read
    bound = {a: _constant_bound(v) for a, v in inputs.items()}

    def of(value: ir.Value) -> float:  # a scalar constant captured from outside the body too
        return bound[value] if value in bound else _constant_bound(value)

    def smallest(value: ir.Value) -> float:
        return _constant_range(inputs.get(value, value))[0]

    not_nan = set()
    for op in ops:
        name, ins, out = op.name, list(op.operands), op.results[0]
        if name == "arith.constant":
            b = _constant_bound(out)
        elif name in ("arith.sitofp", "arith.uitofp") and isinstance(ins[0].type, ir.IntegerType):
            b = 2.0 ** (ir.IntegerType(ins[0].type).width - (name == "arith.sitofp"))
        elif name in _KEEPS or name in _ROUNDINGS:
            b = of(ins[0]) + (name in _ROUNDINGS)
            not_nan.update([out] if ins[0] in not_nan else [])
        elif name in _SUMS or name == "arith.mulf":
            b = of(ins[0]) + of(ins[1]) if name in _SUMS else of(ins[0]) * of(ins[1])
            not_nan.update([out] if max(of(ins[0]), of(ins[1])) < _F32_MAX else [])
        elif name == "arith.divf" and smallest(ins[1]) > 0:  # x / s, s a constant
            b = of(ins[0]) / smallest(ins[1])
            not_nan.update([out] if max(of(ins[0]), of(ins[1])) < _F32_MAX else [])
        elif name in _CLAMPS or name == "arith.select":
            b = max(of(v) for v in ins[-2:])
            not_nan.update([out] if all(v in not_nan or of(v) < _F32_MAX for v in ins[-2:]) else [])
        else:
            b = _UNBOUNDED
        bound[out] = _UNBOUNDED if np.isnan(b) else b  # inf · 0 of two bounds
    finite = {v for v, b in bound.items() if b < _F32_MAX}
    return bound, not_nan | finite


def facts(generic: ir.Operation) -> dict[int, str]:
    """Per body op (its position in the block): the flags its vector form takes
    ('fastmath<nnan>', 'fastmath<nnan,nsz>') or, for a decided compare, 'true' / 'false'."""
    block = generic.regions[0].blocks[0]
    ops = [op.operation for op in block.operations][:-1]
    _, not_nan = _bounds(generic, ops)
    ignored = _zero_sign_ignored(ops, block)
    found: dict[int, str] = {}
    for index, op in enumerate(ops):
        floats = [v for v in op.operands if isinstance(v.type, ir.FloatType)]
        if not floats or not all(v in not_nan or _constant_bound(v) < _F32_MAX for v in floats):
            continue
        if op.name in _CLAMPS:
            found[index] = "fastmath<nnan,nsz>" if op.results[0] in ignored else "fastmath<nnan>"
        elif op.name == "arith.cmpf":
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            if predicate in (7, 14):  # arith.CmpFPredicate: ORD = 7, UNO = 14
                found[index] = "true" if predicate == 7 else "false"
    return found


def _zero_sign_ignored(ops: list[ir.Operation], block: ir.Block) -> set:
    """The float results whose zero sign nothing downstream can tell (module doc)."""
    ignored: set = set()
    users: dict = {}
    for op in [*ops, block.operations[len(ops)].operation]:
        for v in op.operands:
            users.setdefault(v, []).append(op)
    for op in reversed(ops):
        result = op.results[0]
        uses = users.get(result, [])
        if uses and all(
            u.name in _TO_INTEGER or (u.name in _SIGN_PASSING and u.results[0] in ignored) for u in uses
        ):
            ignored.add(result)
    return ignored
