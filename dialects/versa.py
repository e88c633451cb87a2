"""The versa tensor dialect, defined in Python on MLIR's IRDL-backed `dialects.ext`.

Each op is one class: its IRDL signature (operands, required attributes, results), the
attributes it accepts (`ATTRS`, with defaults), and its shape rule (`result_shape`). The shared
`VersaOp.verify_invariants` turns those into a located diagnostic naming the op and the rule.
Ops print in MLIR's generic form:

    %y = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>,
         tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>

Builders (snake_case, one per op, in `builders.py`) check and type ops with the same rules.
The dialect object and the base class `VersaOp` live in `core.py`; comparison and logic ops in
`ops_logical.py`, trigonometric and rounding ops in `ops_math.py`, indexing and scan ops in
`ops_indexing.py`. `OPS`, at the end of this module, is the table of every op of all four.
"""

from collections.abc import Sequence
from typing import Any

from versa.mlir import ext, ir

from . import shapes
from .attributes import Bool, Elements, Float, Int, Ints, OneOf, parse_attrs
from .core import (  # noqa: F401
    CONV2D_ATTRS,
    ELEMENT_TYPES,
    FLOAT_TYPES,
    LAYOUTS,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    FloatUnaryOp,
    Tensor,
    Versa,
    VersaOp,
)

# ----------------------------------------------------------------------------- elementwise


class ArithmeticBinaryOp(ElementwiseBinaryOp):
    NUMERIC = True


class AddOp(ArithmeticBinaryOp, name="add", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class SubOp(ArithmeticBinaryOp, name="sub", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class MulOp(ArithmeticBinaryOp, name="mul", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class DivOp(ArithmeticBinaryOp, name="div", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class MaxOp(ArithmeticBinaryOp, name="max", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class MinOp(ArithmeticBinaryOp, name="min", traits=[ext.Pure]):
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class PowOp(ArithmeticBinaryOp, name="pow", traits=[ext.Pure]):
    FLOAT_ONLY = True
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class NegOp(ElementwiseUnaryOp, name="neg", traits=[ext.Pure]):
    NUMERIC = True
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class AbsOp(ElementwiseUnaryOp, name="abs", traits=[ext.Pure]):
    NUMERIC = True
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class ReluOp(ElementwiseUnaryOp, name="relu", traits=[ext.Pure]):
    NUMERIC = True
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class ExpOp(FloatUnaryOp, name="exp", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class LogOp(FloatUnaryOp, name="log", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class SqrtOp(FloatUnaryOp, name="sqrt", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class RsqrtOp(FloatUnaryOp, name="rsqrt", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class TanhOp(FloatUnaryOp, name="tanh", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class SigmoidOp(FloatUnaryOp, name="sigmoid", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class ErfOp(FloatUnaryOp, name="erf", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class GeluOp(FloatUnaryOp, name="gelu", traits=[ext.Pure]):
    ATTRS = {"approximate": OneOf(("none", "tanh"), default="none")}
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class ClampOp(FloatUnaryOp, name="clamp", traits=[ext.Pure]):
    ATTRS = {"min": Float(default=None), "max": Float(default=None)}
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        lo, hi = attrs["min"], attrs["max"]
        shapes.require(lo is None or hi is None or lo <= hi, f"min {lo} is greater than max {hi}")
        return operands[0]


class CastOp(ElementwiseUnaryOp, name="cast", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def check_element_types(cls, operands, results):
        """Any supported element type converts to any other."""


# ----------------------------------------------------------------------------- structured


class ConstantOp(VersaOp, name="constant", traits=[ext.Pure]):
    ATTRS = {"value": Elements()}
    ACCEPTED_TYPES = (*ELEMENT_TYPES, "ui8")  # zero points of the quantized ops
    value: Any
    result: ext.Result[Tensor]

    @classmethod
    def check(cls, op):
        value = op.attributes["value"] if "value" in op.attributes else None
        shapes.require(isinstance(value, ir.DenseElementsAttr), "attribute 'value' must be dense elements")
        shapes.require(
            value.type == op.results[0].type,
            f"value type {value.type} differs from the result type {op.results[0].type}",
        )
        super().check(op)

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return tuple(attrs["value"].type.shape)


class MatmulOp(VersaOp, name="matmul", traits=[ext.Pure]):
    FLOAT_ONLY = True
    BROADCAST_TAIL = 2
    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.matmul(operands[0], operands[1])


class Conv2dOp(VersaOp, name="conv2d", traits=[ext.Pure]):
    FLOAT_ONLY = True
    ATTRS = dict(CONV2D_ATTRS)
    input: ext.Operand[Tensor]
    filter: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.conv2d(
            operands[0],
            operands[1],
            attrs["strides"],
            attrs["padding"],
            attrs["dilations"],
            attrs["groups"],
            attrs["layout"],
        )


class Pool2dOp(VersaOp):
    FLOAT_ONLY = True
    ATTRS = {
        "kernel": Ints(2, minimum=1),
        "strides": Ints(2, default=[1, 1], minimum=1),
        "padding": Ints(4, default=[0, 0, 0, 0], minimum=0),
        "layout": OneOf(LAYOUTS, default="NCHW"),
    }

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.pool2d(
            operands[0], attrs["kernel"], attrs["strides"], attrs["padding"], attrs["layout"]
        )


class MaxPool2dOp(Pool2dOp, name="max_pool2d", traits=[ext.Pure]):
    """Max pooling of floats or 8-bit integers (i8, ui8). A quantized network pools its bytes
    directly: max commutes with a monotone quantize (scale > 0), and every window holds an
    input element (padding < kernel), so the padding value, -inf or the integer minimum, is
    never the result. ui8 compares unsigned (the lowering's `arith.maxui`)."""

    FLOAT_ONLY = False
    ACCEPTED_TYPES = (*ELEMENT_TYPES, "ui8")
    TYPES = (*FLOAT_TYPES, "i8", "ui8")

    @classmethod
    def check_category(cls, element):
        if str(element) not in cls.TYPES:
            raise shapes.RuleError(f"expects a float or 8-bit integer element type, got {element}")

    input: ext.Operand[Tensor]
    kernel: Any
    result: ext.Result[Tensor]


class AvgPool2dOp(Pool2dOp, name="avg_pool2d", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    kernel: Any
    result: ext.Result[Tensor]


class ReduceOp(VersaOp):
    NUMERIC = True
    ATTRS = {"axes": Ints(None), "keepdims": Bool(default=False)}

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.reduce(operands[0], attrs["axes"], attrs["keepdims"])


class ReduceSumOp(ReduceOp, name="reduce_sum", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    axes: Any
    result: ext.Result[Tensor]


class ReduceMaxOp(ReduceOp, name="reduce_max", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    axes: Any
    result: ext.Result[Tensor]


class ReduceMeanOp(ReduceOp, name="reduce_mean", traits=[ext.Pure]):
    FLOAT_ONLY = True
    input: ext.Operand[Tensor]
    axes: Any
    result: ext.Result[Tensor]


class SoftmaxOp(VersaOp, name="softmax", traits=[ext.Pure]):
    FLOAT_ONLY = True
    ATTRS = {"axis": Int()}
    input: ext.Operand[Tensor]
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        shapes.normalize_axis(attrs["axis"], len(operands[0]))
        return operands[0]


class LayerNormOp(VersaOp, name="layer_norm", traits=[ext.Pure]):
    FLOAT_ONLY = True
    ATTRS = {"axis": Int(), "epsilon": Float(positive=True)}
    input: ext.Operand[Tensor]
    gamma: ext.Operand[Tensor]
    beta: ext.Operand[Tensor]
    axis: Any
    epsilon: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        x = operands[0]
        axis = shapes.normalize_axis(attrs["axis"], len(x))
        for name, s in zip(("gamma", "beta"), operands[1:], strict=True):
            shapes.require(
                shapes.same_shape(s, x[axis:]),
                f"{name} shape {shapes.text(s)} must equal the normalised dims {shapes.text(x[axis:])}",
            )
        return x


class BatchNormOp(VersaOp, name="batch_norm", traits=[ext.Pure]):
    FLOAT_ONLY = True
    ATTRS = {"epsilon": Float(positive=True), "layout": OneOf(LAYOUTS, default="NCHW")}
    input: ext.Operand[Tensor]
    scale: ext.Operand[Tensor]
    bias: ext.Operand[Tensor]
    mean: ext.Operand[Tensor]
    variance: ext.Operand[Tensor]
    epsilon: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        x = operands[0]
        shapes.require(len(x) == 4, "input must have rank 4")
        channels = x[shapes.spatial_dims(attrs["layout"])[0]]
        for name, s in zip(("scale", "bias", "mean", "variance"), operands[1:], strict=True):
            shapes.require(
                shapes.same_shape(s, (channels,)),
                f"{name} shape {shapes.text(s)} must be [{channels}] (the channel dim of {attrs['layout']})",
            )
        return x


class TransposeOp(VersaOp, name="transpose", traits=[ext.Pure]):
    ATTRS = {"perm": Ints("rank")}
    input: ext.Operand[Tensor]
    perm: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.transpose(operands[0], attrs["perm"])


class ReshapeOp(VersaOp, name="reshape", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        shapes.require(declared is not None, "the result type must be given")
        return shapes.reshape(operands[0], declared)

    @classmethod
    def declared_at_call(cls, operands, declared, compiled):
        """Dynamic result dims that copy an input dim take its size; a flatten's is solved."""
        y = list(declared)
        for j, i in shapes.reshape_sources(compiled[0], declared).items():
            if i is not None:
                y[j] = operands[0][i]
        return tuple(y)


class BroadcastToOp(VersaOp, name="broadcast_to", traits=[ext.Pure]):
    BROADCAST_TAIL = 0
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        shapes.require(declared is not None, "the result type must be given")
        return shapes.broadcast_to(operands[0], declared)

    @classmethod
    def declared_at_call(cls, operands, declared, compiled):
        """A dynamic result dim is the input's (aligned) dynamic dim."""
        lead = len(declared) - len(operands[0])
        return tuple(operands[0][i - lead] if d is None else d for i, d in enumerate(declared))


class ConcatOp(VersaOp, name="concat", traits=[ext.Pure]):
    """Concatenation along `axis`.

    IRDL gives all values of one variadic operand the same type, so the first input is its own
    operand: two inputs of any sizes are fine; from the third on, inputs after the first must
    share one type (nest concats otherwise).
    """

    ATTRS = {"axis": Int()}
    first: ext.Operand[Tensor]
    rest: Sequence[ext.Operand[Tensor]]
    axis: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.concat(operands, attrs["axis"])


class SliceOp(VersaOp, name="slice", traits=[ext.Pure]):
    """x[starts:limits:strides] per dim. `from_end` (per dim, default 0) counts a bound back
    from the dim's end: 1 the start (size - start), 2 the limit (size - limit), 3 both; so
    `x[:, 1:]` of a dynamic dim is starts [0, 1], limits [0, 0], from_end [0, 2], a result
    dim of size - 1 that the rule computes per call (`shapes.slice_`)."""

    ATTRS = {
        "starts": Ints("rank"),
        "limits": Ints("rank"),
        "strides": Ints("rank", default=lambda rank: [1] * rank),
        "from_end": Ints("rank", default=lambda rank: [0] * rank, minimum=0),
    }
    input: ext.Operand[Tensor]
    starts: Any
    limits: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.slice_(
            operands[0], attrs["starts"], attrs["limits"], attrs["strides"], attrs["from_end"]
        )


class PadOp(VersaOp, name="pad", traits=[ext.Pure]):
    ATTRS = {"low": Ints("rank"), "high": Ints("rank"), "value": Float(default=0.0)}
    input: ext.Operand[Tensor]
    low: Any
    high: Any
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        return shapes.pad(operands[0], attrs["low"], attrs["high"])


# ----------------------------------------------------------------------------- regions


class FusedOp(VersaOp, name="fused", traits=[ext.Pure]):
    """A group made by versa-fuse: one region, lowered as one loop nest.

    The region reads the group's inputs directly from the enclosing block (implicit capture,
    as `scf.execute_region` does) and `versa.yield`s the group's results. Inputs are captured
    rather than passed as operands because IRDL unifies the types of all values of one variadic
    operand: inputs of different shapes could not be operands of one IRDL-defined op.
    """

    KINDS = ("elementwise", "epilogue", "reduction")
    ATTRS = {"kind": OneOf(KINDS)}
    kind: ir.StringAttr
    results_: Sequence[ext.Result[Tensor]]
    body: ext.Region

    @classmethod
    def check(cls, op):
        parse_attrs(cls.ATTRS, op.attributes, 0)
        blocks = list(op.regions[0].blocks)
        shapes.require(len(blocks) == 1, "region must have exactly one block")
        shapes.require(
            len(blocks[0].arguments) == 0,
            "region block must have no arguments (inputs are captured from the enclosing block)",
        )
        ops = list(blocks[0].operations)
        shapes.require(
            bool(ops) and ops[-1].operation.name == "versa.yield", "region must end with 'versa.yield'"
        )
        yielded = [v.type for v in ops[-1].operands]
        shapes.require(
            yielded == [r.type for r in op.results], "'versa.yield' operand types must match the result types"
        )
        kind = op.attributes["kind"].value
        for inner in ops[:-1] if kind == "elementwise" else []:
            shapes.require(
                inner.operation.name in OPS
                and (OPS[inner.operation.name].ELEMENTWISE or OPS[inner.operation.name].POINTWISE)
                or inner.operation.name == "versa.constant",
                f"an elementwise group may hold only elementwise versa ops, found '{inner.operation.name}'",
            )


class YieldOp(VersaOp, name="yield", traits=[ir.IsTerminatorTrait]):
    """Terminator of `versa.fused`: the group's results."""

    values: Sequence[ext.Operand[Tensor]]

    @classmethod
    def check(cls, op):
        parent = op.operation.parent
        shapes.require(parent is not None and parent.name == "versa.fused", "expects parent op 'versa.fused'")


# The op modules beside this one define their ops on `Versa` as they are imported (here, after
# the ops above, so the IRDL lists them last); their classes are re-exported from this module.
from .ops_indexing import (  # noqa: E402, F401
    ConvTranspose2dOp,
    CumsumOp,
    GatherOp,
    IotaOp,
    ReduceArgmaxOp,
    ScatterOp,
)
from .ops_logical import AndOp, CompareOp, NotOp, OrOp, SelectOp  # noqa: E402, F401
from .ops_math import (  # noqa: E402, F401
    AtanOp,
    CeilOp,
    CosOp,
    Expm1Op,
    FloorOp,
    Log1pOp,
    RoundOp,
    SignOp,
    SinOp,
    TanOp,
    TruncOp,
)
from .ops_quant import DequantizeOp, QConv2dOp, QMatmulOp, QuantizeOp, RequantizeOp  # noqa: E402, F401

OPS: dict[str, type[VersaOp]] = {cls.OPERATION_NAME: cls for cls in Versa.operations}


def irdl_text() -> str:
    """The dialect's IRDL module, as `mlir-opt --irdl-file=` loads it."""
    with ir.Context(), ir.Location.unknown():
        module = Versa._emit_module()
        return str(module)
