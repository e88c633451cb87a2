"""versa-int8-kernels: integer contractions with constant weights on the dot-product
instructions the target has (x86, AArch64).

qmatmul and qconv2d lower (versa_to_linalg/lowering/lower_qcontract.py) to plain i8 x i8 → i32
`linalg.matmul {cast_unsigned}` / `linalg.conv_2d_nhwc_hwcf` ops that the f32 strategies tile
(`vpmaddwd` with one operand's i16 halves zero, `vpmulld` for convs: docs/facts.md). Where the
weights are a constant and the target has them, this pass replaces such an op by a call of a
micro-kernel (`kernels/int8_dot.py`) on filters packed at compile time (`kernels/int8_pack.py`):

    avx512vnni (+ 512-bit vectors)  vpdpbusd zmm   64 u8 x s8 MACs per instruction
    avxvnni                         vpdpbusd ymm   32
    avx512bw                        vpmaddwd zmm on i16-widened operands (32 MACs), vpaddd
    avx2                            vpmaddwd ymm (16 MACs), vpaddd
    dotprod (AArch64)               sdot / udot (16 MACs; kernels/int8_dot_aarch64.py)
    anything else (x86-64, v8.0)    nothing: the strategies' portable path

Depthwise NHWC convs (x86) take a kernel of their own (`kernels/int8_depthwise.py`): the same
instructions summing G input rows' bytes of one channel, interleaved at run time. Both kernels
read the input unpadded, its zero-point padding's borders in the kernel (`int8_*borders.py`).

The choice is the target's features (`Target.has`), never the host's. The kernel's result is
the same i32 sum the op computed, so the zero-point terms around it stay as they are. Runs on
tensors before versa-codegen (which then sees only the kernel's elementwise prologue).
"""

import itertools
from dataclasses import dataclass

import numpy as np
from versa import targets
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import func, ir

from ..common import linalg_builders as build
from ..common.base import Pass, collect, target_option
from ..common.kernel_text import define
from .kernels import int8_depthwise as depthwise
from .kernels import int8_epilogue, int8_tiles
from .kernels.int8_blocks import plan, register_tile, unblocked
from .kernels.int8_borders import unpadded
from .kernels.int8_dot import kernel_text
from .kernels.int8_dot_aarch64 import aarch64_isa
from .kernels.int8_dot_borders import placement, sole_padding
from .kernels.int8_isa import ISAS, ConvShape, Isa, define_declaration
from .kernels.int8_pack import pack, round_up
from .kernels.int8_unflip import unflipped
from .strategies.consumers import epilogue_consumer

_OPS = ("linalg.matmul", "linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nhwc_hwc")
_DEPTHWISE = "linalg.depthwise_conv_2d_nhwc_hwc"


def isa_of(target: targets.Target) -> Isa | None:
    """The dot-product instruction for `target`, or None (the portable path)."""
    if target.triple.startswith("aarch64"):
        return aarch64_isa(target)
    if not target.triple.startswith("x86_64"):
        return None
    if target.has("avx512vnni") and target.lanes(32) >= 16:
        return ISAS["vnni512"]
    if target.has("avxvnni") or (target.has("avx512vnni") and target.has("avx512vl")):
        return ISAS["vnni256"]
    if target.has("avx512bw") and target.lanes(32) >= 16:
        return ISAS["pmaddwd512"]
    return ISAS["pmaddwd256"] if target.has("avx2") else None


def _i8(value: ir.Value) -> bool:
    element = ir.RankedTensorType(value.type).element_type
    return isinstance(element, ir.IntegerType) and element.width == 8


def _constant(value: ir.Value) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    return elements_to_numpy(owner.operation.attributes["value"])


def _zero_init(value: ir.Value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "linalg.fill":
        return False
    fill = owner.operation.operands[0].owner
    return (
        not isinstance(fill, ir.Block)
        and fill.operation.name == "arith.constant"
        and ir.IntegerAttr(fill.operation.attributes["value"]).value == 0
    )


def _candidate(op: ir.Operation) -> bool:
    if op.name not in _OPS or len(op.operands) != 3:
        return False
    x, w, init = op.operands
    shaped = [ir.RankedTensorType(v.type) for v in (x, w, init)]
    return (
        all(s.has_static_shape for s in shaped)
        and _i8(x)
        and _i8(w)
        and str(shaped[2].element_type) == "i32"
        and _constant(w) is not None
        and _zero_init(init)
    )


def _takes(op: ir.Operation) -> bool:
    """An i8 x i8 -> i32 op on constant weights into a zero init (shapes aside)."""
    x, w, init = op.operands
    i32 = str(ir.RankedTensorType(init.type).element_type) == "i32"
    return _i8(x) and _i8(w) and i32 and _constant(w) is not None and _zero_init(init)


def _fresh_names(module: ir.Operation):
    """Kernel names no function of `module` has (the pass runs again after static-tiles)."""
    body = module.regions[0].blocks[0]
    taken = {
        ir.StringAttr(o.attributes["sym_name"]).value for o in body.operations if "sym_name" in o.attributes
    }
    return (f"versa_int8_dot_{i}" for i in itertools.count() if f"versa_int8_dot_{i}" not in taken)


def _ints(op: ir.Operation, name: str) -> tuple[int, int]:
    return tuple(ir.DenseIntElementsAttr(op.attributes[name])) if name in op.attributes else (1, 1)


@dataclass(frozen=True)
class VersaInt8Kernels(Pass):
    name = "versa-int8-kernels"
    summary = "i8 matmuls and NHWC convs with constant weights as dot-product micro-kernels (x86, AArch64)"
    threads: int = 1  # row blocks and panels as an scf.forall when above 1
    # Output rows per cache block (int8_blocks.py): 0 sized from the target's L2, -1 the
    # unblocked nest (every row once per panel, as before; kept for A/B timing).
    row_block: int = 0
    target: targets.Target = target_option()

    def run(self, module: ir.Operation) -> None:
        isa = isa_of(self.target)
        if isa is None:
            return
        # dynamic convs: packed filters now, before static-tiles cuts them; their static tiles
        # (a second run after static-tiles) are kernels like any static conv (kernels/int8_tiles.py)
        for op in collect(module, lambda o: int8_tiles.dynamic(o) and _takes(o)):
            weights = _constant(op.operands[1]).astype(np.int8).astype(np.int64)
            nv, _ = register_tile(self.target, isa, weights.shape[3])
            int8_tiles.packed_conv(op, weights, isa, nv * isa.lanes)
        names = _fresh_names(module)
        for op in collect(module, int8_tiles.is_tile):
            define_declaration(module, isa)
            self._tile(module, op, isa, next(names))
        ops = collect(module, _candidate)
        if not _x86(isa):  # depthwise: x86 only
            ops = [op for op in ops if op.name != _DEPTHWISE]
        if not ops:
            return
        define_declaration(module, isa)
        for op in ops:
            replace = self._depthwise if op.name == _DEPTHWISE else self._replace
            replace(module, op, isa, next(names))

    def _tile(self, module: ir.Operation, op: ir.Operation, isa: Isa, name: str) -> None:
        """A static tile of a dynamic conv (`int8_tiles.packed_conv`) as the kernel a static
        conv of its shape gets, on the filters packed before the conv was cut."""
        t = int8_tiles.tile_parts(op, isa)
        x_shape, out = (tuple(ir.RankedTensorType(v.type).shape) for v in (t.x, op.results[0]))
        nv, mr = t.panel // isa.lanes, register_tile(self.target, isa, t.filters)[1]
        epilogue = _epilogue(op, ("%n", "%oh", "PIXEL", "FILTER"), t.filters % t.panel != 0)
        channels, filters = round_up(x_shape[3], isa.group), round_up(t.filters, t.panel)
        shape = ConvShape(x_shape, t.window, out[:3], filters, t.strides, t.dilations, channels, epilogue)
        size, threads = 2 if isa.element == "i16" else 1, 1  # a tile: too small to fork threads for
        blocks = plan(shape, size, filters // t.panel, mr, self.target.l2, threads, self.row_block)
        blocks = unblocked(out[2]) if self.row_block < 0 else blocks
        define(
            module, isa.declaration() + "\n" + kernel_text(name, shape, isa, nv, mr, False, threads, blocks)
        )
        _call(op, epilogue, name, lambda: [t.x, t.packed, t.start], out[:3], (filters, t.filters))

    def _depthwise(self, module: ir.Operation, op: ir.Operation, isa: Isa, name: str) -> None:
        """A depthwise conv as `int8_depthwise`'s kernel, its consumer computed inside."""
        x, w, _ = op.operands
        border = unpadded(x)  # read x unpadded, the borders in the kernel (kernels/int8_borders.py)
        source = unflipped(x if border is None else border.source, op)  # the u8 bytes before the flip
        x = x if border is None else border.source
        x = x if source is None else source
        weights = _constant(w).astype(np.int8).astype(np.int64)
        x_shape, out = (
            tuple(ir.RankedTensorType(x.type).shape),
            tuple(ir.RankedTensorType(op.results[0].type).shape),
        )
        strides, dilations = _ints(op, "strides"), _ints(op, "dilations")
        regs, c = self.target.vector_registers, x_shape[3]
        p = depthwise.plan(isa, weights.shape[:2], strides, dilations, out[1], regs)
        packed, start = depthwise.pack(weights, isa, p, dilations[0], strides[0], source is not None)
        cp = depthwise.channels(c, isa.lanes)  # C, overlapping blocks: no channel-padded copy
        epilogue = _epilogue(op, ("%n", "ROW", "PIXEL", "FILTER"), cp != c)
        epilogue, start = epilogue.absorb(start) if epilogue else (None, start)  # its bias, zero points
        pad = (0, 0) if border is None else (border.top, border.left)
        fill = None if border is None else border.fill ^ (-128 if source is not None else 0)
        shape = depthwise.DepthwiseShape(
            x_shape, weights.shape[:2], out[:3], cp, strides, dilations, epilogue, pad, fill
        )
        mr = depthwise.pixels(p, shape.window, regs, out[2])
        define(
            module,
            isa.declaration()
            + "\n"
            + depthwise.kernel_text(name, shape, isa, p, mr, source is not None, self.threads),
        )
        _call(op, epilogue, name, lambda: [x, build.dense(packed), build.dense(start)], out[:3], (cp, c))

    def _replace(self, module: ir.Operation, op: ir.Operation, isa: Isa, name: str) -> None:
        x, w, _ = op.operands
        matmul = op.name == "linalg.matmul"
        unsigned = matmul and "cast" in op.attributes and "cast_unsigned" in str(op.attributes["cast"])
        values = _constant(w).astype(np.int8)  # a splat comes back as int64: its bytes are no weights
        values = (values.view(np.uint8) if unsigned else values).astype(np.int64)
        out = tuple(ir.RankedTensorType(op.results[0].type).shape)
        if matmul:
            (m, k), n = ir.RankedTensorType(x.type).shape, out[1]
            weights, x_shape, out4 = values.reshape(1, 1, k, n), (1, 1, m, k), (1, 1, m)
            strides = dilations = (1, 1)
        else:
            weights, x_shape, out4 = values, tuple(ir.RankedTensorType(x.type).shape), out[:3]
            strides, dilations = _ints(op, "strides"), _ints(op, "dilations")
        border = None if matmul or not _x86(isa) else sole_padding(x, op)  # borders in the kernel
        x, x_shape = (x, x_shape) if border is None else (border.source, border.shape)
        source = None if matmul or not _x86(isa) else unflipped(x, op)  # no flip twice (int8_unflip)
        x = x if source is None else source
        f = weights.shape[3]
        nv, mr = register_tile(self.target, isa, f)
        panel = nv * isa.lanes
        packed, start = pack(weights, isa, panel, unsigned, source is not None)
        epilogue = _epilogue(
            op, ("PIXEL", "FILTER") if matmul else ("%n", "%oh", "PIXEL", "FILTER"), f % panel != 0
        )
        epilogue, start = epilogue.absorb(start) if epilogue else (None, start)  # its bias, zero points
        shape = ConvShape(
            x_shape,
            weights.shape[:2],
            out4,
            round_up(f, panel),
            strides,
            dilations,
            round_up(x_shape[3], isa.group),
            epilogue,
            source is not None,
            *placement(border, source is not None),
        )
        if self.row_block < 0:
            blocks = unblocked(out4[2])
        else:
            size = 2 if isa.element == "i16" else 1
            blocks = plan(
                shape, size, shape.filters // panel, mr, self.target.l2, self.threads, self.row_block
            )
        text = kernel_text(name, shape, isa, nv, mr, unsigned, self.threads, blocks)
        define(module, isa.declaration() + "\n" + text)
        xs = (lambda: build.expand(x, x_shape, [[0, 1, 2], [3]])) if matmul else (lambda: x)
        fold = (lambda y: build.collapse(y, out, [[0, 1, 2], [3]])) if matmul else (lambda y: y)
        _call(
            op,
            epilogue,
            name,
            lambda: [xs(), build.dense(packed), build.dense(start)],
            out4,
            (shape.filters, f),
            fold,
        )


def _call(op, epilogue, name: str, operands, out3, filters: tuple[int, int], fold=lambda y: y) -> None:
    """Replace `op` (and the `epilogue` the kernel computes) by a call of kernel `name` on
    `operands()` and the epilogue's inputs: its [*out3, Fp] result sliced to F (`filters`:
    (Fp, F)) and `fold`ed back to the op's shape."""
    replaced = epilogue.generic if epilogue else op  # the kernel computes the consumer too
    element = ir.RankedTensorType(replaced.results[0].type).element_type
    result_type = ir.RankedTensorType.get([*out3, filters[0]], element)
    with ir.InsertionPoint(replaced), op.location:
        inputs = [v for _, v in epilogue.inputs] if epilogue else []
        y = func.CallOp([result_type], ir.FlatSymbolRefAttr.get(name), [*operands(), *inputs]).results[0]
        if filters[0] != filters[1]:
            y = build.extract(y, [0, 0, 0, 0], (*out3, filters[1]))
        y = fold(y)
    replaced.results[0].replace_all_uses_with(y)
    if epilogue:
        replaced.erase()
    op.erase()


def _x86(isa: Isa) -> bool:
    """vpdpbusd (u8 x s8) or vpmaddwd, not AArch64's same-sign sdot/udot."""
    return isa.flips or not isa.accumulates


def _epilogue(op: ir.Operation, dims: tuple[str, ...], padded: bool) -> int8_epilogue.Epilogue | None:
    """The elementwise consumer the kernel computes on its accumulators (the epilogue strategies'
    choice, `strategies/consumers.py`), where its body and reads fit (`int8_epilogue.of`)."""
    consumer = epilogue_consumer(op)
    if consumer is None:
        return None
    operand = next(iter(op.results[0].uses)).operand_number
    return int8_epilogue.of(consumer, operand, dims, padded)
