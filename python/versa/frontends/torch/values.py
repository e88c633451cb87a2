"""The Python values of the torch ops that make no tensor (constants, lists, sizes), which the
rules take as arguments. A size only known at run time (a dynamic dim's `x.size(0)`, Dynamo's
SymInt inputs, arithmetic on them) is a `SymbolicInt`: rules that take dynamic dims pass it on
or refuse it; the converter refuses it to the others."""

from versa.mlir import ir

from .types import parse_tensor_type


class SymbolicInt:
    """A size known only at run time (`x.size(0)` of a dynamic dim, or arithmetic on one), as the
    rules see it: something to pass through to a list, never a number to compute with. `text`
    says where it came from, for messages; `dim` and `source` are the dim a plain size reads and
    of which torch value (None when computed), what a view's sizes are checked by; `tensor` is
    that value converted (None when it did not convert), for ops that make a tensor of this
    size (`arange(x.size(1))`: an iota sized by `tensor`'s dim)."""

    def __init__(
        self,
        text: str,
        dim: int | None = None,
        source: ir.Value | None = None,
        tensor: ir.Value | None = None,
        shifted: "tuple[SymbolicInt, int] | None" = None,
    ):
        self.text, self.dim, self.source, self.tensor = text, dim, source, tensor
        self.shifted = shifted  # computed: (a plain size, c) when this is that size + c

    def __repr__(self) -> str:
        return self.text

    def affine(self) -> "tuple[SymbolicInt, int] | None":
        """(a plain size of a converted tensor, c) when this is that size + c, else None."""
        if self.dim is not None and self.tensor is not None:
            return self, 0
        return self.shifted


def _size(op: ir.OpView, env: dict) -> int | SymbolicInt:
    """`torch.aten.size.int`: the dim of the operand's declared type, static or symbolic."""
    dim, shape = env[op.operands[1]], parse_tensor_type(op.operands[0].type, dynamic=True).shape
    dim %= len(shape)
    size = shape[dim]
    if size is not None:
        return size
    converted = env.get(op.operands[0])
    tensor = converted if isinstance(converted, ir.Value) else None
    return SymbolicInt(f"size({op.operands[0].get_name()}, {dim})", dim, op.operands[0], tensor)


def _arithmetic(symbol: str, compute):
    """An int op of torch's: a number when its operands are numbers, else a SymbolicInt (an
    operand from an op that did not convert too: that op's refusal is the error)."""

    def value(op: ir.OpView, env: dict):
        args = [env[v] for v in op.operands]
        if not all(isinstance(a, int) for a in args):  # a size, or a number no op here gave
            text = f"{symbol}{args[0]!r}" if len(args) == 1 else f"{args[0]!r} {symbol} {args[1]!r}"
            return SymbolicInt(f"({text})", shifted=_shifted(symbol, args))
        return compute(*args)

    return value


def _shifted(symbol: str, args: list) -> tuple[SymbolicInt, int] | None:
    """size + c, c + size, size - c (a plain size shifted by a number): (the size, c)."""
    if len(args) != 2 or symbol not in "+-":
        return None
    a, b = args
    if isinstance(a, SymbolicInt) and isinstance(b, int) and (form := a.affine()):
        return form[0], form[1] + (b if symbol == "+" else -b)
    if symbol == "+" and isinstance(b, SymbolicInt) and isinstance(a, int) and (form := b.affine()):
        return form[0], form[1] + a
    return None


_SIZE_OPS = {
    "torch.aten.size.int": _size,
    "torch.aten.mul.int": _arithmetic("*", lambda a, b: a * b),
    "torch.aten.add.int": _arithmetic("+", lambda a, b: a + b),
    "torch.aten.sub.int": _arithmetic("-", lambda a, b: a - b),
    "torch.aten.floordiv.int": _arithmetic("//", lambda a, b: a // b),
    "torch.aten.neg.int": _arithmetic("-", lambda a: -a),
}


# ops whose result is a Python value for the rules: attribute → value, or built from operands
VALUE_OPS = {
    "torch.constant.int": lambda op, env: ir.IntegerAttr(op.attributes["value"]).value,
    "torch.constant.float": lambda op, env: ir.FloatAttr(op.attributes["value"]).value,
    "torch.constant.bool": lambda op, env: ir.BoolAttr(op.attributes["value"]).value,
    "torch.constant.str": lambda op, env: ir.StringAttr(op.attributes["value"]).value,
    "torch.constant.none": lambda op, env: None,
    "torch.constant.device": lambda op, env: None,
    "torch.prim.ListConstruct": lambda op, env: [env[v] for v in op.operands],
    **_SIZE_OPS,
}
