"""versa-dynamic-pool-kernels: f32 max and average pools over dynamic images as vector kernels.

A pool whose H, W or batch is `?` lowered to one named pooling op over a padded copy of its
input, which versa-static-tiles cut into tiles of 8x32 outputs, each a named pooling op given
the pool strategy (strided scalar loops): 5-30x the static compile's time. A static pool runs
`versa-pool-kernels` (NCHW) or `pool_regions`' views (NHWC), neither of which takes a dynamic
size. Here each such pool becomes a call of a kernel whose loops run to the call's sizes and
whose bodies are static vector code (`kernels/dynamic_pools*.py`):

    NCHW  planes x output rows x tiles of T outputs along a row: the K input rows folded, then
          the strided taps shuffled out of the fold (versa-pool-kernels' body)
    NHWC  output rows x output columns x channel vectors: the K x K taps folded

Interior rows and columns read the image directly; the few outputs whose windows meet the
padding read their taps clamped into the image, taking the fold's identity for the taps
outside it (and masked reads at the right edge of an NCHW row), so nothing is padded in
memory. An average divides by the taps inside the image (count_include_pad=False, as the
linalg lowering does; torch's default pads first). Other element types, channels that are
`?`, windows over 16 or strides over 8 keep the linalg lowering. The kernels are inlined by
the pipeline's `inline` step.
"""

from dataclasses import dataclass

from versa import targets
from versa.dialects import versa as dialect
from versa.mlir import func, ir

from ..common.base import Pass, collect, target_option
from ..common.kernel_text import define
from .kernels.dynamic_pools import MAX_STRIDE, MAX_WINDOW, DynamicPool
from .kernels.dynamic_pools_nchw import nchw
from .kernels.dynamic_pools_nhwc import nhwc


def pool_of(op: ir.Operation, lanes: int) -> DynamicPool | None:
    """The pool `op` computes, when a kernel can: f32, a dynamic H, W or batch, static channels,
    each side's padding under its kernel (every window meets the image, whatever the size)."""
    x, y = op.operands[0].type, op.results[0].type
    if not isinstance(x, ir.RankedTensorType) or x.has_static_shape or x.rank != 4:
        return None
    if not isinstance(x.element_type, ir.F32Type):
        return None
    attrs = dialect.OPS[op.name].attrs(op)
    layout, kernel, strides, padding = attrs["layout"], attrs["kernel"], attrs["strides"], attrs["padding"]
    dims = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in x.shape)
    channels = {"NCHW": 1, "NHWC": 3}.get(layout)
    if channels is None or dims[channels] is None or 0 in x.shape:
        return None
    if max(kernel) > MAX_WINDOW or max(strides) > MAX_STRIDE or min(kernel) < 1 or min(strides) < 1:
        return None
    if any(padding[i] >= kernel[i % 2] for i in range(4)):
        return None
    if layout == "NCHW" and padding[1] > lanes * strides[1]:
        return None  # the left padding reaches past the first tile
    pool = DynamicPool(
        "max" if op.name == "versa.max_pool2d" else "sum",
        layout,
        dims,
        (kernel[0], kernel[1]),
        (strides[0], strides[1]),
        (padding[0], padding[1], padding[2], padding[3]),
    )
    out = list(dims)
    for d in pool.spatial:
        out[d] = None
    return pool if str(y) == pool.type_(tuple(out)) else None  # a size the sizes give statically


@dataclass(frozen=True)
class VersaDynamicPoolKernels(Pass):
    name = "versa-dynamic-pool-kernels"
    summary = "f32 max and average pools over dynamic images (H, W, batch) as vector kernels"
    threads: int = 1  # chunks of planes (NCHW) or rows (NHWC) as an scf.forall where a call is large
    target: targets.Target = target_option()  # its f32 lanes are the vector width

    def run(self, module: ir.Operation) -> None:
        lanes = self.target.lanes(32)
        ops = collect(module, lambda op: op.name in ("versa.max_pool2d", "versa.avg_pool2d"))
        pools = [(op, pool) for op in ops if (pool := pool_of(op, lanes)) is not None]
        for count, (op, pool) in enumerate(pools):
            name = f"versa_dynamic_pool_{count}"
            build = nchw if pool.layout == "NCHW" else nhwc
            define(module, build(pool, lanes, max(1, self.threads), name))
            with ir.InsertionPoint(op), op.location:
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), [op.operands[0]])
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
