"""Lowering of versa.qmatmul and versa.qconv2d to linalg's quantized named contractions, with
i32 accumulation, for convert-versa-to-linalg:

    qmatmul  2-D, or [..., M, K] x [K, N] rows folded  → linalg.quantized_matmul
             equal batch dims folded into one          → linalg.quantized_batch_matmul
    qconv2d  groups = 1     NCHW / NHWC → linalg.conv_2d_nchw_fchw_q / conv_2d_nhwc_hwcf_q
             groups > 1 (depthwise too) → conv_2d_ngchw_gfchw_q / conv_2d_nhwgc_gfhwc_q on
                                          views with the group as a dim of its own

The named ops subtract scalar i32 zero points and read their operands with `cast_signed`, so a
`ui8` operand is first widened to i16 (`extui`), where the signed reading is its value. The
input is padded with its zero point (a real 0, as torch and ONNX pad), so the padded taps add
nothing. This is the correct form, not yet the fast one: no strategy of `versa-codegen` takes
these ops, which stay plain loops (issue 47 has the rest).
"""

from typing import Any

import numpy as np
from versa.dialects.versa import QConv2dOp, QMatmulOp
from versa.mlir import ir, linalg, tensor

from ...common import linalg_builders as build
from ...common import window_builders as windows
from ...common.matching import result_of, versa_attrs
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


def lower_qmatmul(op: ir.OpView, rewriter: Any) -> bool:
    """qmatmul → linalg.quantized_matmul, or quantized_batch_matmul over folded batch dims."""
    (shape, _), (a, b, za, zb) = result_of(op), _operands(op)
    a_shape, b_shape = build.shape_of(a), build.shape_of(b)
    if len(b_shape) == 2:
        rows = int(np.prod(shape[:-1]))
        flat = build.reshape(a, (rows, a_shape[-1]))
        init = build.filled((rows, shape[-1]), _i32(), 0)
        y = linalg.quantized_matmul(flat, b, za, zb, outs=[init])
    else:
        folded = int(np.prod(shape[:-2]))
        a3 = build.reshape(a, (folded, *a_shape[-2:]))
        b3 = build.reshape(b, (folded, *b_shape[-2:]))
        init = build.filled((folded, *shape[-2:]), _i32(), 0)
        y = linalg.quantized_batch_matmul(a3, b3, za, zb, outs=[init])
    rewriter.replace_op(op, [build.reshape(y, shape)])
    return True


def lower_qconv2d(op: ir.OpView, rewriter: Any) -> bool:
    """qconv2d → pad with the input's zero point, then a quantized named conv (see the module)."""
    attrs, (shape, _) = versa_attrs(op), result_of(op)
    x, w, x_zero, w_zero = op.operands
    x_unsigned, w_unsigned = is_unsigned(x), is_unsigned(w)
    pad_value = tensor.extract(signless(x_zero), [])
    xp = windows.pad_spatial(signless(x), attrs["padding"], attrs["layout"], pad_value)
    window = build.shape_of(w)[2:] if attrs["layout"] == "NCHW" else build.shape_of(w)[:2]
    xp = _readable(windows.crop_spatial(xp, shape, attrs, window), x_unsigned)
    wr = _readable(signless(w), w_unsigned)
    zx, zw = _zero_point(x_zero, x_unsigned), _zero_point(w_zero, w_unsigned)
    conv = _grouped_conv if attrs["groups"] > 1 else _plain_conv
    rewriter.replace_op(op, [conv(xp, wr, zx, zw, shape, attrs)])
    return True


def _plain_conv(x, w, zx, zw, shape, attrs) -> ir.Value:
    named = linalg.conv_2d_nchw_fchw_q if attrs["layout"] == "NCHW" else linalg.conv_2d_nhwc_hwcf_q
    init = build.filled(shape, _i32(), 0)
    return named(x, w, zx, zw, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])


def _grouped_conv(x, w, zx, zw, shape, attrs) -> ir.Value:
    """The group split out of the channel dims: NCHW x [N, G, C/G, H, W] with w [G, F/G, C/G,
    KH, KW]; NHWC x [N, H, W, G, C/G] with w [G, F/G, KH, KW, C/G] (a transposed copy)."""
    g, xs, ws = attrs["groups"], build.shape_of(x), build.shape_of(w)
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
