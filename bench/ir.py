"""A tiny emitter of versa IR in the generic textual form, for the benchmark rows and models.

Why text and not `dialects/builders.py`: the benchmark feeds the same text to Versa and (through
`convert-versa-to-linalg`) to IREE, and a row's program is easiest to read, paste into
`versa-opt` and reproduce as plain text. The emitter tracks result shapes itself (the formulas
of docs/design.md), so a wrong shape here is caught by Versa's verifier when the text is parsed.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Shape = tuple[int, ...]


def tensor_type(shape: Sequence[int]) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _ints(values: Sequence[int]) -> str:
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">"


@dataclass(frozen=True)
class Value:
    name: str
    shape: Shape

    @property
    def type(self) -> str:
        return tensor_type(self.shape)


class Program:
    """One `func.func` built op by op: `p.arg(shape)`, `p.matmul(a, b)`, ..., `p.text(result)`."""

    def __init__(self, name: str = "main"):
        self.name = name
        self.args: list[Value] = []
        self.lines: list[str] = []
        self._count = 0

    def arg(self, shape: Sequence[int]) -> Value:
        value = Value(f"%arg{len(self.args)}", tuple(int(d) for d in shape))
        self.args.append(value)
        return value

    def op(self, name: str, operands: Sequence[Value], shape: Sequence[int], attrs: str = "") -> Value:
        """Append `%N = "versa.<name>"(operands) {attrs} : (types) -> type` and return %N."""
        result = Value(f"%{self._count}", tuple(int(d) for d in shape))
        self._count += 1
        ins = ", ".join(v.name for v in operands)
        types = ", ".join(v.type for v in operands)
        attr_text = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'  {result.name} = "versa.{name}"({ins}){attr_text} : ({types}) -> {result.type}')
        return result

    def text(self, *results: Value) -> str:
        params = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        rtypes = ", ".join(r.type for r in results)
        rtypes = rtypes if len(results) == 1 else f"({rtypes})"
        body = "\n".join(self.lines)
        names = ", ".join(r.name for r in results)
        plain = ", ".join(r.type for r in results)
        return f"func.func @{self.name}({params}) -> {rtypes} {{\n{body}\n  return {names} : {plain}\n}}\n"

    # --- elementwise ---------------------------------------------------------------------

    def binary(self, name: str, a: Value, b: Value) -> Value:
        return self.op(name, [a, b], np.broadcast_shapes(a.shape, b.shape))

    def add(self, a: Value, b: Value) -> Value:
        return self.binary("add", a, b)

    def mul(self, a: Value, b: Value) -> Value:
        return self.binary("mul", a, b)

    def unary(self, name: str, x: Value, attrs: str = "") -> Value:
        return self.op(name, [x], x.shape, attrs)

    def relu(self, x: Value) -> Value:
        return self.unary("relu", x)

    def gelu(self, x: Value) -> Value:
        """Exact (erf) GELU, torch's default."""
        return self.unary("gelu", x, 'approximate = "none"')

    def constant(self, value: float, shape: Sequence[int] = (1,)) -> Value:
        result = Value(f"%{self._count}", tuple(shape))
        self._count += 1
        self.lines.append(
            f'  {result.name} = "versa.constant"() {{value = dense<{float(value):.9e}> : {result.type}}}'
            f" : () -> {result.type}"
        )
        return result

    # --- contractions --------------------------------------------------------------------

    def matmul(self, a: Value, b: Value) -> Value:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return self.op("matmul", [a, b], (*batch, a.shape[-2], b.shape[-1]))

    def conv2d(
        self,
        x: Value,
        w: Value,
        *,
        stride: int = 1,
        pad: int = 0,
        groups: int = 1,
        layout: str = "NCHW",
    ) -> Value:
        """Square stride and symmetric padding; NCHW weight [F,C/g,KH,KW], NHWC weight [KH,KW,C/g,F]."""
        if layout == "NCHW":
            n, _, h, wd = x.shape
            f, _, kh, kw = w.shape
        else:
            n, h, wd, _ = x.shape
            kh, kw, _, f = w.shape
        oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
        shape = (n, f, oh, ow) if layout == "NCHW" else (n, oh, ow, f)
        attrs = [f"strides = {_ints([stride, stride])}", f"padding = {_ints([pad] * 4)}"]
        if groups != 1:
            attrs.append(f"groups = {groups} : i64")
        attrs.append(f'layout = "{layout}"')
        return self.op("conv2d", [x, w], shape, ", ".join(attrs))

    # --- pools, reductions, normalisations -----------------------------------------------

    def max_pool2d(self, x: Value, kernel: int, stride: int) -> Value:
        n, c, h, w = x.shape
        shape = (n, c, (h - kernel) // stride + 1, (w - kernel) // stride + 1)
        attrs = f"kernel = {_ints([kernel, kernel])}, strides = {_ints([stride, stride])}"
        return self.op("max_pool2d", [x], shape, attrs)

    def reduce_sum(self, x: Value, axis: int) -> Value:
        shape = tuple(d for i, d in enumerate(x.shape) if i != axis % len(x.shape))
        return self.op("reduce_sum", [x], shape, f"axes = {_ints([axis])}, keepdims = false")

    def softmax(self, x: Value, axis: int = -1) -> Value:
        return self.unary("softmax", x, f"axis = {axis} : i64")

    def layer_norm(self, x: Value, gamma: Value, beta: Value, eps: float = 1e-5) -> Value:
        """Normalise over the last axis (gamma and beta have the last dim's size)."""
        return self.op("layer_norm", [x, gamma, beta], x.shape, f"axis = -1 : i64, epsilon = {eps:.9e} : f32")

    def batch_norm(self, x: Value, scale: Value, bias: Value, mean: Value, var: Value) -> Value:
        return self.op("batch_norm", [x, scale, bias, mean, var], x.shape, "epsilon = 1.0e-05 : f32")

    # --- data movement -------------------------------------------------------------------

    def transpose(self, x: Value, perm: Sequence[int]) -> Value:
        return self.op("transpose", [x], tuple(x.shape[p] for p in perm), f"perm = {_ints(perm)}")

    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        return self.op("reshape", [x], shape)

    def slice_last(self, x: Value, start: int, stop: int) -> Value:
        """x[..., start:stop]."""
        starts = [0] * (len(x.shape) - 1) + [start]
        limits = [*x.shape[:-1], stop]
        return self.op(
            "slice", [x], (*x.shape[:-1], stop - start), f"starts = {_ints(starts)}, limits = {_ints(limits)}"
        )
