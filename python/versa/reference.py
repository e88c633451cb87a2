"""Run versa IR on the NumPy reference semantics: the oracle `--check` and the tests compare with."""

from collections.abc import Sequence

import numpy as np

from versa.diagnostics import error_at
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.core import dims_of
from versa.dialects.semantics import evaluate
from versa.dialects.shapes import RuleError, is_static
from versa.dialects.versa import OPS
from versa.mlir import func, ir

_DTYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i32": np.int32,
    "i8": np.int8,
    "ui8": np.uint8,  # the quantized ops' unsigned bytes
    "i64": np.int64,
    "i1": np.bool_,
}


def numpy_dtype(element_type: ir.Type) -> np.dtype:
    name = str(element_type)
    if name not in _DTYPES:
        raise error_at(
            None,
            f"element type {name} has no NumPy equivalent: it cannot cross "
            "the NumPy boundary (inputs, outputs, the reference)",
        )
    return np.dtype(_DTYPES[name])


def interpret(function: func.FuncOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate `function`'s body op by op with the NumPy semantics."""
    block = function.regions[0].blocks[0]
    return _run_block(block, dict(zip(block.arguments, inputs, strict=True)))


def _run_block(block: ir.Block, env: dict[ir.Value, np.ndarray]) -> list[np.ndarray]:
    """Run `block`; `env` holds every value visible in it (regions capture from above)."""
    for op in block.operations:
        name = op.operation.name
        if name in ("func.return", "versa.yield"):
            return [env[v] for v in op.operands]
        args = [env[v] for v in op.operands]
        if name == "versa.fused":
            outs = _run_block(op.regions[0].blocks[0], env)
        elif name in OPS:
            outs = [interpret_op(op, args)]
        else:
            raise error_at(op.location, f"the reference interpreter cannot run '{name}'")
        env.update(zip(op.results, outs, strict=True))
    raise error_at(block.owner.location, "block has no terminator")


def interpret_op(op: ir.OpView, args: list[np.ndarray]) -> np.ndarray:
    """Evaluate one (non-region) versa op on NumPy arrays."""
    attrs = OPS[op.operation.name].attrs(op)
    if "value" in attrs and isinstance(attrs["value"], ir.DenseElementsAttr):
        attrs["value"] = elements_to_numpy(attrs["value"])
    result = op.results[0].type
    shape = dims_of(result)
    compiled = [dims_of(v.type) for v in op.operands]
    if not all(map(is_static, [shape, *compiled])):  # the call's sizes, checked by the op's rules
        try:
            shape = OPS[op.operation.name].call_shape([a.shape for a in args], attrs, shape, compiled)
        except RuleError as err:
            raise error_at(op.location, f"'{op.operation.name}' op {err}") from None
    return evaluate(
        op.operation.name.removeprefix("versa."), args, attrs, shape, numpy_dtype(result.element_type)
    )
