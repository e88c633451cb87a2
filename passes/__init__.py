"""The pass registry: every Versa pass and pipeline, keyed by its CLI flag (`Pass.name`)."""

from .base import Pass
from .bf16_bits import VersaBf16Bits
from .byte_bools import VersaByteBools
from .canonicalize import VersaCanonicalize
from .codegen.apply import VersaCodegen
from .collapse_elementwise import VersaCollapseElementwise
from .collapse_epilogues import VersaCollapseEpilogues
from .collapse_reductions import VersaCollapseReductions
from .convert_versa_to_linalg import ConvertVersaToLinalg
from .distinct_results import VersaDistinctResults
from .fast_math import VersaFastMath
from .flatten_transfers import VersaFlattenTransfers
from .fuse import VersaFuse
from .gpu_conv import VersaGpuConv
from .gpu_map import VersaGpuMap
from .gpu_matmul import VersaGpuMatmul
from .gpu_mma import VersaGpuMma
from .gpu_reduce import VersaGpuReduce
from .gpu_rows import VersaGpuOutlineRows, VersaGpuRows
from .gpu_transpose import VersaGpuTranspose
from .gpu_wgmma import VersaGpuWgmma
from .layout import VersaLayout
from .lower_memref_copy import VersaLowerMemrefCopy
from .pipelines import LowerToLLVM, LowerToNVVM, Pipeline
from .plan_buffers import VersaPlanBuffers
from .pool_kernels import VersaPoolKernels
from .readonly_arguments import VersaReadonlyArguments
from .reshaped_results import VersaReshapedResults
from .row_kernels import VersaRowKernels
from .serial_foralls import VersaSerialForalls
from .streaming_stores import VersaStreamingStores
from .target_attributes import VersaTargetAttributes
from .unroll_hints import VersaUnrollHints
from .unshare_inits import VersaUnshareInits
from .vectorize import VersaVectorize

PASSES: dict[str, type[Pass]] = {
    p.name: p
    for p in (
        VersaCanonicalize,
        VersaFuse,
        VersaLayout,
        VersaRowKernels,
        VersaPoolKernels,
        ConvertVersaToLinalg,
        VersaVectorize,
        VersaCollapseEpilogues,
        VersaCollapseReductions,
        VersaCollapseElementwise,
        VersaCodegen,
        VersaUnshareInits,
        VersaReadonlyArguments,
        VersaDistinctResults,
        VersaReshapedResults,
        VersaLowerMemrefCopy,
        VersaPlanBuffers,
        VersaSerialForalls,
        VersaStreamingStores,
        VersaUnrollHints,
        VersaFlattenTransfers,
        VersaFastMath,
        VersaByteBools,
        VersaBf16Bits,
        VersaTargetAttributes,
        VersaGpuMap,
        VersaGpuMatmul,
        VersaGpuConv,
        VersaGpuMma,
        VersaGpuWgmma,
        VersaGpuTranspose,
        VersaGpuReduce,
        VersaGpuOutlineRows,
        VersaGpuRows,
    )
}
PIPELINES: dict[str, type[Pipeline]] = {p.name: p for p in (LowerToLLVM, LowerToNVVM)}
