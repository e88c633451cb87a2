"""versa-returned-arguments: a function that returns its argument collapsed and expanded back
returns the argument itself.

A row kernel over dynamic dims fills the buffer its caller passes (`row_kernels.py`): it
collapses that buffer to rows x length, writes the rows and returns them expanded back. After
bufferization the function returns `memref.expand_shape (memref.collapse_shape %arg)`, the
same buffer, which canonicalization does not fold when sizes are dynamic: then
`drop-equivalent-buffer-results` keeps the result, and `buffer-results-to-out-params` refuses
a dynamic result of a private function ("cannot create out param for dynamically shaped
result"). Here that round trip (the same reassociation both ways, back to the argument's
type) becomes the argument, so the result is dropped as every filled argument's is.
"""

from dataclasses import dataclass

from versa.mlir import ir

from ..common.base import Pass, collect
from ..common.matching import producer


def _round_trip(value: ir.Value) -> ir.Value | None:
    """The argument `value` is expand_shape(collapse_shape(argument)) of, if it is."""
    expand = producer(value, "memref.expand_shape")
    collapse = producer(expand.operands[0], "memref.collapse_shape") if expand else None
    if collapse is None or not isinstance(collapse.operands[0], ir.BlockArgument):
        return None
    same = expand.attributes["reassociation"] == collapse.attributes["reassociation"]
    source = collapse.operands[0]
    return source if same and source.type == value.type else None


@dataclass(frozen=True)
class VersaReturnedArguments(Pass):
    name = "versa-returned-arguments"
    summary = "Return an argument instead of its collapse_shape expanded back (then dropped as equivalent)"

    def run(self, module: ir.Operation) -> None:
        for ret in collect(module, lambda op: op.name == "func.return"):
            for index, operand in enumerate(list(ret.operands)):
                source = _round_trip(operand)
                if source is not None:
                    ret.operands[index] = source
