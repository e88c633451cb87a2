"""Quantized programs (issue 47): quantize → qmatmul / qconv2d → requantize → dequantize chains,
as PT2E and ONNX models compute them, judged like every other program. Their integer results
(the quantized activations, the i32 accumulators, the requantized bytes) are compared bit for
bit: `tolerance.for_function` makes integer results exact, and the NumPy reference
(`dialects/semantics_quant.py`) does each float step as the one IEEE f32 operation compiled
code must do.

Why a builder of its own rather than ops in `generate.py`: the generator bounds every value
within ±1e3 and draws integers in [-5, 5], while a contraction's accumulators reach K·255² and
its hard cases are the byte range's corners (255 against -128, zero points 128 and -128), the
weights a constant (what versa-int8-kernels packs) or an argument (the strategies' path), u8
and i8 on either side, per-tensor and per-channel parameters, K, N and C off the kernels' groups
of 4 and their panels, grouped and depthwise convs. 8-bit arguments that these ops read take
their whole range (`inputs.py`). A quantize of an f32 argument (drawn in [-1, 1]) has a scale of
at least 1/64, so the oracle's 1e-4 nudge moves x / s by at most 0.0064 steps and few programs
are skipped as ill conditioned.
"""

import math
import random

import numpy as np

from versa.dialects import shapes

from .program import Arg, Op, Program, Type, Value

SHARE = 0.05  # of a campaign's cases (campaign.Source)
ELEMENTS = ("ui8", "i8")
_RANGES = {"ui8": (0, 255), "i8": (-128, 127)}
_NUMPY = {"ui8": np.uint8, "i8": np.int8, "f32": np.float32}


class Builder:
    """`Builder(seed).program()`: one quantized chain; the same seed, the same program."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.data = np.random.default_rng(self.rng.randrange(1 << 31))
        self.program = Program()

    def arg(self, t: Type) -> Arg:
        value = Arg(t)
        self.program.args.append(value)
        return value

    def op(self, name: str, operands: list[Value], attrs: dict, t: Type) -> Op:
        op = Op(name, operands, attrs, t)
        self.program.ops.append(op)
        return op

    def constant(self, value: np.ndarray, element: str) -> Op:
        value = np.asarray(value).astype(_NUMPY[element])
        return self.op("constant", [], {"value": value}, Type(value.shape, element))

    def bytes(self, shape: tuple[int, ...], element: str) -> np.ndarray:
        low, high = _RANGES[element]
        return self.data.integers(low, high + 1, shape)

    def zero_point(self, element: str, count: int | None = None) -> np.ndarray:
        """0-d, or [count] per channel: 0, the range's middle or a corner, or any value."""
        low, high = _RANGES[element]
        picks = [0, (low + high + 1) // 2, low, high]
        values = [
            self.rng.choice(picks) if self.rng.random() < 0.5 else self.rng.randint(low, high)
            for _ in range(count or 1)
        ]
        return np.array(values[0] if count is None else values)

    def scale(self, count: int | None, low: float, high: float) -> Op:
        """Scales spread evenly in log2 between `low` and `high` (0-d, or [count])."""
        values = [2.0 ** self.rng.uniform(math.log2(low), math.log2(high)) for _ in range(count or 1)]
        return self.constant(np.array(values[0] if count is None else values), "f32")

    def affine(self, name: str, x: Value, element: str, axis: int | None, scales: tuple[float, float]) -> Op:
        """quantize, dequantize or requantize of `x`, per tensor (axis None) or along `axis`."""
        count = None if axis is None else x.type.shape[axis]
        s = self.scale(count, *scales)
        z = self.constant(self.zero_point(element, count), element)
        attrs = {} if axis is None or axis == 1 else {"axis": axis}
        result = "f32" if name == "dequantize" else element
        return self.op(name, [x, s, z], attrs, Type(x.type.shape, result))

    def axis(self, rank: int) -> int | None:
        return None if self.rng.random() < 0.5 or rank == 0 else self.rng.randrange(rank)

    # --- the chain -----------------------------------------------------------------------

    def activation(self, shape: tuple[int, ...], element: str) -> tuple[Value, Value]:
        """(bytes, their 0-d zero point for the contraction): an argument, or a quantize of an
        f32 argument (its own zero point, when per tensor)."""
        if self.rng.random() < 0.4:
            x = self.arg(Type(shape, element))
        else:
            x = self.affine(
                "quantize", self.arg(Type(shape, "f32")), element, self.axis(len(shape)), (1 / 64, 1.0)
            )
            if not x.operands[2].type.shape:
                return x, x.operands[2]
        if self.rng.random() < 0.15:  # a computed zero point
            return x, self.arg(Type((), element))
        return x, self.constant(self.zero_point(element), element)

    def weights(self, shape: tuple[int, ...]) -> tuple[Value, Value]:
        element = self.rng.choice(["i8", "i8", "ui8"])
        if self.rng.random() < 0.8:
            w = self.constant(self.bytes(shape, element), element)
        else:
            w = self.arg(Type(shape, element))
        zero = np.array(0) if self.rng.random() < 0.6 else self.zero_point(element)
        return w, self.constant(zero, element)

    def qmatmul(self, element: str) -> tuple[Op, int]:
        m, n = self.rng.randint(1, 9), self.rng.randint(1, 20)
        k = self.rng.choice([self.rng.randint(1, 9), self.rng.randint(10, 40)])
        batch = (self.rng.randint(1, 3),) if self.rng.random() < 0.3 else ()
        x, zx = self.activation((*batch, m, k), element)
        w, zw = self.weights((*(batch if batch and self.rng.random() < 0.5 else ()), k, n))
        shape = shapes.matmul(x.type.shape, w.type.shape)
        return self.op("qmatmul", [x, w, zx, zw], {}, Type(shape, "i32")), len(shape) - 1

    def qconv2d(self, element: str) -> tuple[Op, int]:
        layout = self.rng.choice(["NCHW", "NHWC"])
        c = self.rng.randint(1, 9)
        kind = self.rng.choices(["plain", "depthwise", "grouped"], weights=[6, 2, 1])[0]
        groups = {"plain": 1, "depthwise": c}.get(kind) or self.rng.choice(
            [g for g in range(1, c + 1) if c % g == 0]
        )
        f = groups * self.rng.randint(1, 12 if groups == 1 else 2)
        kh, kw = self.rng.randint(1, 3), self.rng.randint(1, 3)
        n, h, w_ = self.rng.randint(1, 2), self.rng.randint(5, 9), self.rng.randint(5, 9)
        attrs = {
            "strides": [self.rng.randint(1, 2), self.rng.randint(1, 2)],
            "padding": [self.rng.randint(0, 1) for _ in range(4)],
            "dilations": [self.rng.randint(1, 2), self.rng.randint(1, 2)],
            "layout": layout,
        } | ({"groups": groups} if groups > 1 else {})
        image = (n, c, h, w_) if layout == "NCHW" else (n, h, w_, c)
        filters = (f, c // groups, kh, kw) if layout == "NCHW" else (kh, kw, c // groups, f)
        x, zx = self.activation(image, element)
        w, zw = self.weights(filters)
        full = [attrs["strides"], attrs["padding"], attrs["dilations"], groups, layout]
        shape = shapes.conv2d(image, filters, *full)
        return self.op("qconv2d", [x, w, zx, zw], attrs, Type(shape, "i32")), 1 if layout == "NCHW" else 3

    def epilogue(self, acc: Op, channel: int) -> list[Value]:
        """The results: requantized bytes (per tensor or per output channel, a ReLU's clamp
        now and then), perhaps dequantized and quantized again; or the accumulators."""
        if self.rng.random() < 0.15:
            return [acc]
        element = self.rng.choice(ELEMENTS)
        axis = channel if self.rng.random() < 0.5 else None
        y = self.affine("requantize", acc, element, axis, (2.0**-14, 2.0**-4))
        if axis is None and self.rng.random() < 0.3:  # a fused ReLU: clamp at the zero point
            y.attrs["min"] = int(y.operands[2].attrs["value"])
        results: list[Value] = [y]
        if self.rng.random() < 0.4:
            d = self.affine("dequantize", y, element, self.axis(len(y.type.shape)), (1 / 64, 1.0))
            results = [d] if self.rng.random() < 0.5 else [d, y]
            if self.rng.random() < 0.5:
                results = [self.affine("quantize", d, self.rng.choice(ELEMENTS), None, (1 / 64, 1.0))]
        if self.rng.random() < 0.2:
            results.append(acc)
        return results

    def build(self) -> Program:
        element = self.rng.choice(ELEMENTS)
        acc, channel = self.qmatmul(element) if self.rng.random() < 0.5 else self.qconv2d(element)
        self.program.results = self.epilogue(acc, channel)
        if self.rng.random() < 0.2 and acc.operands[0] not in self.program.args:
            self.program.results.append(acc.operands[0])  # the quantized activations themselves
        self.program.remove_dead()
        return self.program


def generate(seed: int) -> Program:
    """The quantized program of `seed` (the same on every machine and run)."""
    return Builder(seed).build()
