"""An op's signature for the tuning database: what its strategy's best point depends on.

Two ops with equal signatures get the same strategy and the same search space on the same
target, so one measurement serves both (BERT's twelve layers tune once). The signature is the
strategy family and the op in MLIR's generic form with its SSA names erased, so it holds the
shapes, element types, indexing maps, iterator types, attributes (strides, dilations) and the
body of a generic; where the strategy fuses the elementwise consumer (an epilogue), that
consumer's generic form too. Operand values (weights) are not part of it, but whether a
matmul's B is a constant is: its space has `prepack` then, and a point of one does not fit the
other (a same-shaped matmul of two activations would otherwise find a point it must reject).
"""

import hashlib
import re
from dataclasses import dataclass

from versa.mlir import ir

from .consumers import epilogue_consumer
from .conv_epilogue import ConvEpilogueStrategy
from .epilogue import EpilogueStrategy
from .strategy import Strategy

_VALUE = re.compile(r"%[\w#$.-]+")
_WITH_EPILOGUE = (EpilogueStrategy, ConvEpilogueStrategy)


@dataclass(frozen=True)
class Signature:
    key: str  # a digest of `text`
    text: str  # the family and the op(s), generic form, names erased
    summary: str  # in words: `linalg.matmul 128x768 * 768x3072 f32 + epilogue`

    @staticmethod
    def of(op: ir.Operation, strategy: Strategy, tag: str = "") -> "Signature":
        """The signature of `op`, whose strategy is `strategy`; `tag`, an attribute to leave
        out (the codegen's own mark)."""
        ops = [op]
        consumer = epilogue_consumer(op) if isinstance(strategy, _WITH_EPILOGUE) else None
        if consumer is not None:
            ops.append(consumer)
        parts = [type(strategy).__name__, *(_generic(o, tag) for o in ops)]
        if getattr(strategy, "constant_b", False):
            parts.append("constant B")
        text = "\n".join(parts)
        digest = hashlib.sha256(text.encode()).hexdigest()[:20]
        return Signature(digest, text, _summary(op, consumer is not None))


def _generic(op: ir.Operation, tag: str) -> str:
    text = op.get_asm(large_elements_limit=16)
    if tag:
        text = re.sub(rf',?\s*"?{re.escape(tag)}"?\s*=\s*"[^"]*"', "", text)
    return _VALUE.sub("%", text)


def _summary(op: ir.Operation, epilogue: bool) -> str:
    types = []
    for value in op.operands:
        if isinstance(value.type, ir.RankedTensorType):
            types.append("x".join(map(str, value.type.shape)) or "scalar")
    element = ir.ShapedType(op.results[0].type).element_type
    inputs = " * ".join(types[: len(types) - len(op.results)])
    return f"{op.name} {inputs} -> {'x'.join(map(str, op.results[0].type.shape))} {element}" + (
        " + epilogue" if epilogue else ""
    )
