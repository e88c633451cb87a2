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
    ):
        self.text, self.dim, self.source, self.tensor = text, dim, source, tensor
        self.form: Linear | None = None  # computed: Σ k·size + c over plain sizes, when it is one

    def __repr__(self) -> str:
        return self.text

    def linear(self) -> "Linear | None":
        """(((plain size, k), ...), c) when this is Σ k·size + c over plain sizes of converted
        tensors (a plain size is itself, k = 1), else None."""
        if self.dim is not None and self.tensor is not None:
            return ((self, 1),), 0
        return self.form

    def affine(self) -> "tuple[SymbolicInt, int] | None":
        """(a plain size of a converted tensor, c) when this is that size + c, else None."""
        form = self.linear()
        if form is None or len(form[0]) != 1 or form[0][0][1] != 1:
            return None
        return form[0][0][0], form[1]


Linear = tuple[tuple[tuple[SymbolicInt, int], ...], int]


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
            result = SymbolicInt(f"({text})")
            result.form = _combined(symbol, args)
            return result
        return compute(*args)

    return value


def _form(value) -> Linear | None:
    if isinstance(value, int):
        return (), value
    return value.linear() if isinstance(value, SymbolicInt) else None


def _combined(symbol: str, args: list) -> Linear | None:
    """The linear form of size + size, size - c, k * size, -size, ... (None for the rest: a
    floor division, a product of two sizes, a value no op here gave)."""
    forms = [_form(a) for a in args]
    if None in forms:
        return None
    if len(forms) == 1:
        return scaled(forms[0], -1) if symbol == "-" else None
    a, b = forms
    if symbol == "+":
        return linear_sum(a, b)
    if symbol == "-":
        return linear_sum(a, scaled(b, -1))
    if symbol == "*" and (not a[0] or not b[0]):  # a number times a form
        return scaled(b, a[1]) if not a[0] else scaled(a, b[1])
    return None


def scaled(form: Linear, k: int) -> Linear:
    """k · form."""
    return tuple((size, n * k) for size, n in form[0]), form[1] * k


def linear_sum(a: Linear, b: Linear) -> Linear:
    """a + b, a size's terms merged (one key per tensor dim) and zero terms dropped."""
    terms: dict[tuple, list] = {}
    for size, k in (*a[0], *b[0]):
        entry = terms.setdefault((size.source, size.dim), [size, 0])
        entry[1] += k
    return tuple((size, k) for size, k in terms.values() if k), a[1] + b[1]


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
