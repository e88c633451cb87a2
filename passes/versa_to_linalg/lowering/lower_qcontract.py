"""Lowering of versa.qmatmul and versa.qconv2d, for convert-versa-to-linalg: a plain i8 x i8 →
i32 contraction that versa-codegen's matmul and conv strategies tile and vectorize as they do
f32 (the register tile counts i32 accumulators, as many lanes as f32), with the zero points
subtracted after it (`zero_points.py`):

    qmatmul  2-D, or [..., M, K] x [K, N] rows folded  → linalg.matmul {cast_unsigned}
             equal batch dims folded into one          → linalg.batch_matmul {cast_unsigned}
    qconv2d  groups = 1     NCHW / NHWC → linalg.conv_2d_nchw_fchw / conv_2d_nhwc_hwcf
             depthwise                  → linalg.depthwise_conv_2d_nchw_chw / _nhwc_hwc

Why qmatmul reads both operands unsigned (an i8 operand's top bit flipped, its zero point +
128): LLVM turns `mul(zext u8, ext 8-bit)` in i32 lanes into `vpmaddwd` (one operand known
zero in its upper 17 bits), `vpdpwssd` with AVX512-VNNI, but `mul(sext, sext)` into
`vpmulld`, twice the uops (docs/facts.md). The named convs have no `cast` and vectorize with
`extsi`, so qconv2d reads both operands signed (`vpmulld`). Neither forms `vpdpbusd`: LLVM
makes it only from dot-product reductions, not from the outer-product micro-kernel. On x86
with constant weights, `versa-int8-kernels` (cpu/int8_kernels.py) replaces these matmuls and
NHWC convs by `vpdpbusd` / `vpmaddwd` kernels on packed weights; the forms here are its input
and the portable path. The input is padded with its zero point (a real 0, as torch and ONNX
pad), so the padded taps add nothing.

A qconv2d with a dynamic batch, H or W takes the same path, its result sized from the input
(`windows.output_extents`): versa-static-tiles then cuts the named conv into static tiles as it
does a float conv's; so does a qmatmul with dynamic batch dims or M (a served model's rows),
its result sized from its operands (`extents`), its row sums over the call's rows. The
fallback, for grouped convs (not depthwise) and qmatmuls with a dynamic K or N (the weights'
dims: the column term's count and a folded constant need them static), is linalg's quantized
named ops (`quantized_matmul`, `conv_2d_*_q`, `conv_2d_ngchw_gfchw_q` / `nhwgc_gfhwc_q` with
the group as a dim of its own), which subtract scalar i32 zero points and read their operands
with `cast_signed`, so a `ui8` operand is first widened to i16 (`extui`); no strategy takes
them: plain loops.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from versa.dialects.versa import QConv2dOp, QMatmulOp
from versa.mlir import arith, ir, linalg, tensor

from ...common import extents
from ...common import linalg_builders as build
from ...common import window_builders as windows
from ...common.matching import result_of, versa_attrs
from . import fold_rows
from . import zero_points as zp
from .lower_quant import is_unsigned, signless, widen


def _i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def _zero_point(zero: ir.Value, unsigned: bool) -> ir.Value:
    """The 0-d zero point tensor as an i32 scalar."""
    return widen(tensor.extract(signless(zero), []), unsigned, _i32())


def _readable(x: ir.Value, unsigned: bool) -> ir.Value:
    """An operand the named ops may read signed: i8 as is, ui8 widened to i16."""
    if not unsigned:
        return x
    i16 = ir.IntegerType.get_signless(16)
    shape = build.shape_of(x)
    return build.elementwise([x], shape, [i16], lambda v: [widen(v, True, i16)])[0]


def _operands(op: ir.OpView) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value]:
    """lhs, rhs (signless) and their zero points (i32 scalars); unsigned ones widened."""
    lhs, rhs, lhs_zero, rhs_zero = op.operands
    signs = (is_unsigned(lhs), is_unsigned(rhs))
    a, b = (_readable(signless(v), s) for v, s in ((lhs, signs[0]), (rhs, signs[1])))
    return a, b, _zero_point(lhs_zero, signs[0]), _zero_point(rhs_zero, signs[1])


@dataclass(frozen=True)
class Parts:
    """A lowered contraction before its zero points are subtracted: `core` (i32, of shape
    `out`: a qmatmul's rows or batch dims folded) and the terms (`zero_points.subtract`'s) to
    take off it, each broadcasting against `out`; `shape` is the op's result shape (extents:
    index values for dynamic dims; `out` is `shape` itself where nothing was folded). A fused
    epilogue subtracts them in its own body (`lower_fused.py`: static shapes only)."""

    core: ir.Value
    terms: list
    out: tuple
    shape: tuple

    def value(self) -> ir.Value:
        y = zp.subtract(self.core, self.terms, self.out)
        return y if self.out is self.shape else build.reshape(y, self.shape)

    def unfolded(self) -> tuple[ir.Value, list]:
        """The core and terms reshaped to broadcast against the result shape (folded rows
        expanded in one step, which a collapse back to them cancels: `fold_rows`)."""
        reshape = fold_rows.unfold if fold_rows.rows_of(self.out, self.shape) else build.reshape
        terms = [(_unfolded(t, len(self.out), self.shape, reshape), f, o) for t, f, o in self.terms]
        return reshape(self.core, self.shape), terms


def parts(op: ir.OpView) -> Parts:
    """qmatmul or qconv2d lowered to its contraction and zero-point terms."""
    return (qconv2d_parts if op.operation.name == "versa.qconv2d" else qmatmul_parts)(op)


def lower_qmatmul(op: ir.OpView, rewriter: Any) -> bool:
    rewriter.replace_op(op, [qmatmul_parts(op).value()])
    return True


def lower_qconv2d(op: ir.OpView, rewriter: Any) -> bool:
    rewriter.replace_op(op, [qconv2d_parts(op).value()])
    return True


def qmatmul_parts(op: ir.OpView) -> Parts:
    """qmatmul → linalg.matmul (batch_matmul over folded batch dims) of i8 operands into i32,
    the zero points subtracted after (`zero_points`). Dynamic batch or M dims take this path
    too, sized from the lhs (`extents`); a dynamic K or N → the quantized named ops."""
    lhs, rhs, lhs_zero, rhs_zero = op.operands
    b_shape = build.shape_of(rhs)
    if not extents.is_static(b_shape[-2:]):
        return _fallback(op)
    shape = tuple(_result_extents(op))
    a, b = zp.read(lhs, lhs_zero, True), zp.read(rhs, rhs_zero, True)
    k, n = b_shape[-2], shape[-1]
    if len(b_shape) == 2:
        out = shape if len(shape) == 2 else (extents.product(shape[:-1]), n)
        flat = a.value if len(shape) == 2 else build.reshape(a.value, (out[0], k))
        core = linalg.matmul(flat, b.value, outs=[build.filled(out, zp.i32(), 0)], cast=_UNSIGNED)
        col = zp.column_term(a, b, [0], (n,), True)
    else:
        folded = extents.product(shape[:-2])
        flat = build.reshape(a.value, (folded, *extents.of(a.value)[-2:]))
        b_folded = extents.product(extents.of(b.value)[:-2])  # b's own: static where b is
        b3 = zp.Operand(build.reshape(b.value, (b_folded, k, n)), b.zero, _folded(b.array, b_folded))
        out = (folded, *shape[-2:])
        core = linalg.batch_matmul(flat, b3.value, outs=[build.filled(out, zp.i32(), 0)], cast=_UNSIGNED)
        col = zp.column_term(a, b3, [1], (folded, 1, n), True)
    terms = [*zp.row_term(b, lambda: zp.sums(flat, [len(out) - 1], True)), *([col] if col else [])]
    return Parts(core, terms, out, shape)


def _result_extents(op: ir.OpView) -> list:
    """qmatmul's result extents: M from the lhs, N from the rhs, batch dims from either."""
    (types, _), (lhs, rhs) = result_of(op), op.operands[:2]
    rows_and_columns = {len(types) - 2: extents.dim(lhs, -2), len(types) - 1: extents.dim(rhs, -1)}
    return extents.broadcast([lhs, rhs], types, rows_and_columns)


def _unfolded(term: ir.Value, rank: int, shape, reshape) -> ir.Value:
    """A term of the folded contraction (its first dim the folded rows or batch, when it has
    the contraction's rank) reshaped to broadcast against the result `shape`."""
    dims = build.shape_of(term)
    if len(dims) < rank:
        return term
    lead = shape[: len(shape) - rank + 1] if dims[0] != 1 else [1] * (len(shape) - rank + 1)
    return reshape(term, (*lead, *dims[1:]))


def qconv2d_parts(op: ir.OpView) -> Parts:
    """qconv2d → pad with the input's zero point, then linalg.conv_2d_nhwc_hwcf / nchw_fchw or
    a depthwise conv of i8 operands into i32, the zero points subtracted after (`zero_points`:
    the padded taps read the zero point, so they add nothing); other grouped convs → the
    quantized named ops. Dynamic dims (batch, H, W) are sized from the input."""
    attrs, (shape, _) = versa_attrs(op), result_of(op)
    x, w, x_zero, w_zero = op.operands
    nchw, w_shape = attrs["layout"] == "NCHW", build.shape_of(w)
    window = w_shape[2:] if nchw else w_shape[:2]
    sizes = windows.output_extents(x, shape, attrs, window)  # index values for dynamic dims
    depthwise = windows.is_depthwise(build.shape_of(x), shape, attrs)
    if attrs["groups"] > 1 and not depthwise:
        return Parts(_quantized_conv(op, attrs, sizes), [], tuple(shape), tuple(shape))
    a, b = zp.read(x, x_zero, False), zp.read(w, w_zero, False)
    pad = a.zero if isinstance(a.zero, int) else arith.trunci(ir.IntegerType.get_signless(8), a.zero)
    pad = build.scalar(ir.IntegerType.get_signless(8), pad) if isinstance(pad, int) else pad
    xp = windows.pad_spatial(a.value, attrs["padding"], attrs["layout"], pad)
    xp = windows.crop_spatial(xp, shape, attrs, window)
    init = build.filled(sizes, zp.i32(), 0)
    conv = dict(strides=attrs["strides"], dilations=attrs["dilations"])
    if depthwise:
        kernel = (w_shape[0], *w_shape[2:]) if nchw else (*w_shape[:2], w_shape[3])
        groups = [[0, 1], [2], [3]] if nchw else [[0], [1], [2, 3]]
        named = linalg.depthwise_conv_2d_nchw_chw if nchw else linalg.depthwise_conv_2d_nhwc_hwc
        core = named(xp, build.collapse(b.value, kernel, groups), outs=[init], **conv)
    else:
        named = linalg.conv_2d_nchw_fchw if nchw else linalg.conv_2d_nhwc_hwcf
        core = named(xp, b.value, outs=[init], **conv)
    f = shape[1] if nchw else shape[3]
    col = zp.column_term(a, b, (1, 2, 3) if nchw else (0, 1, 2), (f, 1, 1) if nchw else (f,), False)
    terms = zp.row_term(b, lambda: _window_sums(xp, sizes, window, attrs, depthwise))
    return Parts(core, [*terms, *([col] if col else [])], tuple(shape), tuple(shape))


def _window_sums(xp: ir.Value, shape, window, attrs: dict, depthwise: bool) -> ir.Value:
    """Σ of the padded input under each output's window, in i32: over the window per channel
    (depthwise), else over the window and every channel (one value per output pixel). `shape`:
    the result's extents."""
    channel = 1 if attrs["layout"] == "NCHW" else 3
    out = list(shape)
    if not depthwise:
        xp, out[channel] = zp.sums(xp, [channel], False), 1
    named = getattr(linalg, f"pooling_{attrs['layout'].lower()}_sum")
    taps = build.empty(tuple(window), build.element_of(xp))
    init = build.filled(tuple(out), zp.i32(), 0)
    return named(xp, taps, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])


_UNSIGNED = linalg.TypeFn.cast_unsigned


def _folded(array: np.ndarray | None, batch: int) -> np.ndarray | None:
    return None if array is None else array.reshape(batch, *array.shape[-2:])


# ----------------------------------------------------------------------------- fallback


def _fallback(op: ir.OpView) -> Parts:
    """A qmatmul with a dynamic K or N: linalg.quantized_matmul, or quantized_batch_matmul
    over folded batch dims, its zero points subtracted inside (no terms)."""
    shape = tuple(_result_extents(op))
    a, b, za, zb = _operands(op)
    if len(build.shape_of(b)) == 2:
        rows = extents.product(shape[:-1])
        flat = a if len(shape) == 2 else build.reshape(a, (rows, extents.dim(a, -1)))
        init = build.filled((rows, shape[-1]), _i32(), 0)
        y = linalg.quantized_matmul(flat, b, za, zb, outs=[init])
    else:
        folded = extents.product(shape[:-2])
        a3 = build.reshape(a, (folded, *extents.of(a)[-2:]))
        b3 = build.reshape(b, (extents.product(extents.of(b)[:-2]), *extents.of(b)[-2:]))
        init = build.filled((folded, *shape[-2:]), _i32(), 0)
        y = linalg.quantized_batch_matmul(a3, b3, za, zb, outs=[init])
    y = y if len(shape) == len(build.shape_of(y)) else build.reshape(y, shape)
    return Parts(y, [], shape, shape)


def _quantized_conv(op: ir.OpView, attrs: dict, shape) -> ir.Value:
    """Pad with the input's zero point, then a quantized named conv (`shape`: the result's
    extents)."""
    x, w, x_zero, w_zero = op.operands
    x_unsigned, w_unsigned = is_unsigned(x), is_unsigned(w)
    pad_value = tensor.extract(signless(x_zero), [])
    xp = windows.pad_spatial(signless(x), attrs["padding"], attrs["layout"], pad_value)
    window = build.shape_of(w)[2:] if attrs["layout"] == "NCHW" else build.shape_of(w)[:2]
    xp = _readable(windows.crop_spatial(xp, extents.type_shape(shape), attrs, window), x_unsigned)
    wr = _readable(signless(w), w_unsigned)
    zx, zw = _zero_point(x_zero, x_unsigned), _zero_point(w_zero, w_unsigned)
    conv = _grouped_conv if attrs["groups"] > 1 else _plain_conv
    return conv(xp, wr, zx, zw, shape, attrs)


def _plain_conv(x, w, zx, zw, shape, attrs) -> ir.Value:
    named = linalg.conv_2d_nchw_fchw_q if attrs["layout"] == "NCHW" else linalg.conv_2d_nhwc_hwcf_q
    init = build.filled(shape, _i32(), 0)
    return named(x, w, zx, zw, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])


def _grouped_conv(x, w, zx, zw, shape, attrs) -> ir.Value:
    """The group split out of the channel dims: NCHW x [N, G, C/G, H, W] with w [G, F/G, C/G,
    KH, KW]; NHWC x [N, H, W, G, C/G] with w [G, F/G, KH, KW, C/G] (a transposed copy)."""
    g, xs, ws = attrs["groups"], extents.of(x), build.shape_of(w)  # x's dynamic dims: values
    n = xs[0]
    if attrs["layout"] == "NCHW":
        f, cg, kh, kw = ws
        xg = build.expand(x, (n, g, xs[1] // g, *xs[2:]), [[0], [1, 2], [3], [4]])
        wg = build.expand(w, (g, f // g, cg, kh, kw), [[0, 1], [2], [3], [4]])
        out = (n, g, f // g, *shape[2:])
        named, groups = linalg.conv_2d_ngchw_gfchw_q, [[0], [1, 2], [3], [4]]
    else:
        kh, kw, cg, f = ws
        xg = build.expand(x, (*xs[:3], g, xs[3] // g), [[0], [1], [2], [3, 4]])
        w5 = build.expand(w, (kh, kw, cg, g, f // g), [[0], [1], [2], [3, 4]])
        wg = linalg.transpose(
            w5, outs=[build.empty((g, f // g, kh, kw, cg), build.element_of(w))], permutation=[3, 4, 0, 1, 2]
        )
        out = (*shape[:3], g, f // g)
        named, groups = linalg.conv_2d_nhwgc_gfhwc_q, [[0], [1], [2], [3, 4]]
    init = build.filled(out, _i32(), 0)
    y = named(xg, wg, zx, zw, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])
    return build.collapse(y, shape, groups)


PATTERNS = [(QMatmulOp, lower_qmatmul), (QConv2dOp, lower_qconv2d)]
