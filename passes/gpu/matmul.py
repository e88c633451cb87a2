"""versa-gpu-matmul: f32 matmul and batch matmul as a shared-memory tiled GPU kernel.

One thread per output element re-reads A and B from global memory K times each (about 1.5
TFLOP/s on an H200). Here each block computes a BM x BN tile of C: per step of BK along K,
its threads copy an A and a B tile into shared memory (coalesced), synchronise, and each
thread accumulates a TM x TN register tile from the shared copies: (TM + TN) shared loads per
TM * TN fused multiply-adds. Thread (ty, tx) owns rows ty + i*TY and columns tx + j*TX, so
neighbouring threads store neighbouring columns. Ragged edges load zeros and skip stores.

The kernel is an MLIR template (a private function holding one `gpu.launch` with workgroup
buffers), specialised with the op's static shapes and the tile sizes, called in place of the
linalg op and inlined; the launch is then outlined like every other kernel. The template
(`gemm_text`) is shared with versa-gpu-conv, whose A or B operand is an im2col gather.
"""

from dataclasses import dataclass

from versa.mlir import func, ir

from ..common.base import Pass, PassError, collect
from ..common.kernel_text import define
from .kernels.gemm import buffer_shape, kernel_text, plain_f32_matmul, tiles_fit


@dataclass(frozen=True)
class VersaGpuMatmul(Pass):
    name = "versa-gpu-matmul"
    summary = "f32 matmul / batch matmul as a shared-memory tiled GPU kernel (call, to be inlined)"
    tile: int = 128  # outputs per block along M and N (a multiple of 16)
    k_step: int = 8  # K per shared-memory stage

    def run(self, module: ir.Operation) -> None:
        if not tiles_fit(self.tile, self.tile, self.k_step):
            raise PassError(f"'{self.name}' tile {self.tile} / k-step {self.k_step} do not fit 16x16 threads")
        for count, op in enumerate(collect(module, plain_f32_matmul)):
            a, b, c = op.operands
            batch = buffer_shape(a)[0] if op.name == "linalg.batch_matmul" else 0
            m, k = buffer_shape(a)[-2:]
            n = buffer_shape(b)[-1]
            name = f"versa_gpu_matmul_{count}"
            text = kernel_text(name, batch, m, n, k, self.tile, self.k_step)
            define(module, text)
            with ir.InsertionPoint(op), op.location:
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), [a, b, c])
            op.erase()
