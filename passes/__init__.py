"""The pass registry: every Versa pass and pipeline, keyed by its CLI flag (`Pass.name`).

The folders are the phases and targets, in pipeline order:

    common/           what every phase shares (Pass, Pipeline, matching, builders): no pass
    optimize/         versa-level rewrites for every target; `versa-optimize` runs them
    versa_to_linalg/  versa → linalg on tensors
    bufferize/        tensors → buffers, for every target
    cpu/              lower-to-llvm and its passes; codegen strategies in cpu/strategies/
    gpu/              lower-to-nvvm and its passes; kernel templates in gpu/kernels/

The rule (test/python/tools/test_layout.py holds it): a module at a folder's top level is a
pass or that folder's pipeline (`pipeline.py`); everything else is in a subfolder or `common/`.
A pass module is imported only by pipelines and this registry. No module imports from a
sibling target (gpu ↛ cpu), from a later phase, or from a folder above its own.
"""

from .bufferize.distinct_results import VersaDistinctResults
from .bufferize.lower_memref_copy import VersaLowerMemrefCopy
from .bufferize.plan_buffers import VersaPlanBuffers
from .bufferize.readonly_arguments import VersaReadonlyArguments
from .bufferize.reshaped_results import VersaReshapedResults
from .bufferize.result_copies import VersaResultCopies
from .bufferize.returned_arguments import VersaReturnedArguments
from .bufferize.returned_buffers import VersaDropReturnedBuffers
from .bufferize.unshare_inits import VersaUnshareInits
from .common.base import Pass
from .common.pipeline import Pipeline
from .cpu.alloca_scopes import VersaInlineAllocaScopes
from .cpu.bf16_bits import VersaBf16Bits
from .cpu.buffer_cache import VersaBufferCache
from .cpu.byte_bools import VersaByteBools
from .cpu.byte_globals import VersaByteGlobals
from .cpu.codegen import VersaCodegen
from .cpu.collapse_elementwise import VersaCollapseElementwise
from .cpu.collapse_epilogues import VersaCollapseEpilogues
from .cpu.collapse_reductions import VersaCollapseReductions
from .cpu.dynamic_pool_kernels import VersaDynamicPoolKernels
from .cpu.fast_math import VersaFastMath
from .cpu.flat_globals import VersaFlatGlobals
from .cpu.flatten_transfers import VersaFlattenTransfers
from .cpu.int8_kernels import VersaInt8Kernels
from .cpu.outline_dynamic import VersaOutlineDynamic
from .cpu.pack_weights import VersaPackWeights
from .cpu.pipeline import LowerToLLVM
from .cpu.pool_kernels import VersaPoolKernels
from .cpu.profile_kernels import VersaProfileKernels
from .cpu.row_kernels import VersaRowKernels
from .cpu.serial_foralls import VersaSerialForalls
from .cpu.share_functions import VersaShareFunctions
from .cpu.share_ops import VersaShareOps
from .cpu.static_tiles import VersaStaticTiles
from .cpu.streaming_stores import VersaStreamingStores
from .cpu.target_attributes import VersaTargetAttributes
from .cpu.unroll_hints import VersaUnrollHints
from .cpu.vectorize import VersaVectorize
from .gpu.conv import VersaGpuConv
from .gpu.map import VersaGpuMap
from .gpu.matmul import VersaGpuMatmul
from .gpu.mma import VersaGpuMma
from .gpu.pipeline import LowerToNVVM
from .gpu.reduce import VersaGpuReduce
from .gpu.rows import VersaGpuOutlineRows, VersaGpuRows
from .gpu.transpose import VersaGpuTranspose
from .gpu.wgmma import VersaGpuWgmma
from .optimize.canonicalize import VersaCanonicalize
from .optimize.fuse import VersaFuse
from .optimize.layout import VersaLayout
from .optimize.pipeline import VersaOptimize
from .optimize.specialize_shapes import VersaSpecializeShapes
from .versa_to_linalg.convert_versa_to_linalg import ConvertVersaToLinalg

PASSES: dict[str, type[Pass]] = {
    p.name: p
    for p in (
        VersaCanonicalize,
        VersaFuse,
        VersaLayout,
        VersaSpecializeShapes,
        VersaRowKernels,
        VersaPoolKernels,
        VersaDynamicPoolKernels,
        VersaShareFunctions,
        ConvertVersaToLinalg,
        VersaInt8Kernels,
        VersaPackWeights,
        VersaFlatGlobals,
        VersaStaticTiles,
        VersaOutlineDynamic,
        VersaVectorize,
        VersaCollapseEpilogues,
        VersaCollapseReductions,
        VersaShareOps,
        VersaCollapseElementwise,
        VersaCodegen,
        VersaUnshareInits,
        VersaReadonlyArguments,
        VersaDistinctResults,
        VersaReshapedResults,
        VersaResultCopies,
        VersaReturnedArguments,
        VersaDropReturnedBuffers,
        VersaLowerMemrefCopy,
        VersaPlanBuffers,
        VersaSerialForalls,
        VersaInlineAllocaScopes,
        VersaProfileKernels,
        VersaStreamingStores,
        VersaBufferCache,
        VersaUnrollHints,
        VersaFlattenTransfers,
        VersaFastMath,
        VersaByteBools,
        VersaBf16Bits,
        VersaByteGlobals,
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
PIPELINES: dict[str, type[Pipeline]] = {p.name: p for p in (VersaOptimize, LowerToLLVM, LowerToNVVM)}
