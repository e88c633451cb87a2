"""lower-to-llvm: the CPU pipeline, read top to bottom."""

from collections.abc import Iterator
from dataclasses import dataclass, field

from versa import environment, targets
from versa.cpu import openmp

from ..bufferize.pipeline import buffer_steps
from ..common.base import Pass, PassError, target_option
from ..common.pipeline import Pipeline
from ..optimize.layout import VersaLayout
from ..versa_to_linalg.convert_versa_to_linalg import ConvertVersaToLinalg
from .alloca_scopes import VersaInlineAllocaScopes
from .bf16_bits import VersaBf16Bits
from .buffer_cache import VersaBufferCache
from .byte_bools import VersaByteBools
from .byte_globals import VersaByteGlobals
from .codegen import VersaCodegen
from .collapse_elementwise import VersaCollapseElementwise
from .collapse_epilogues import VersaCollapseEpilogues
from .collapse_reductions import VersaCollapseReductions
from .dynamic_pool_kernels import VersaDynamicPoolKernels
from .fast_math import VersaFastMath
from .flat_globals import VersaFlatGlobals
from .flatten_transfers import VersaFlattenTransfers
from .int8_kernels import VersaInt8Kernels
from .outline_dynamic import VersaOutlineDynamic
from .pack_weights import VersaPackWeights
from .pool_kernels import VersaPoolKernels
from .profile_kernels import VersaProfileKernels
from .row_kernels import VersaRowKernels
from .serial_foralls import VersaSerialForalls
from .share_functions import VersaShareFunctions
from .share_ops import VersaShareOps
from .static_tiles import VersaStaticTiles
from .streaming_stores import VersaStreamingStores
from .target_attributes import VersaTargetAttributes
from .unroll_hints import VersaUnrollHints
from .vectorize import VersaVectorize

# Grouped convs lower at O2+ to one loop over (image, output row, group) around a vectorized
# conv per group (codegen/grouped_conv.py), whose compile time does not grow with the group
# count: no cap (128 groups with 2 filters each, 1x128x28: 3.7x faster than the generic).
SPLIT_GROUPS = 1 << 30


@dataclass(frozen=True)
class LowerToLLVM(Pipeline):
    """versa (or linalg on tensors) → the llvm dialect, for the CPU the code will run on.

    Optimisation levels (`opt-level`):
      0  plain scalar loops for every op (the unoptimised baseline);
      1  + elementwise ops and fused groups tiled and vectorized (`versa-vectorize`);
      2  + convolutions put in the target's layout (`versa-layout`), contractions by their
           codegen strategies: cache and register tiling, vector micro-kernels
           (`versa-codegen`), one thread;
      3  + the outer parallel loops across `threads` cores with OpenMP (0 = VERSA_NUM_THREADS
           or every available core; one thread when no OpenMP runtime is installed).

    `target` (`versa-opt --list-targets`) gives the vector width, registers and caches the tiles
    are sized from. Code for a cross target, or with `standalone` (a library that may link only
    libc and libm), is serial.
    """

    name = "lower-to-llvm"
    summary = "Lower versa or linalg-on-tensors IR to the LLVM dialect for a CPU target"
    target: targets.Target = target_option()
    opt_level: int = 3
    threads: int = 0
    standalone: bool = False  # code for a library that may link only libc/libm (no OpenMP)
    tuning_db: str = field(default_factory=environment.tuning_db)  # measured points (versa-tune)
    profile: bool = False  # time each kernel (versa-profile-kernels): the optimizer's profile
    dynamic_tile: int = 256  # rows per full tile of a dynamic dim (versa-static-tiles)
    dynamic_rows: int = 32  # a contraction's M per tile when N is dynamic too (versa-static-tiles)

    def thread_count(self) -> int:
        """Threads of the emitted code: OpenMP needs the runtime in this process (the JIT);
        code for another machine (cross targets, libraries) is serial and needs only libc/libm."""
        in_process = self.target.is_host and not self.standalone
        if self.opt_level < 3 or openmp.runtime_library() is None or not in_process:
            return 1
        return self.threads or targets.default_threads()

    def steps(self) -> Iterator[str | Pass]:
        target = self.target
        if not 0 <= self.opt_level <= 3:
            raise PassError(f"'lower-to-llvm' opt-level {self.opt_level} is not one of 0, 1, 2, 3")
        threads = self.thread_count()
        # Tensor level: convolutions in the layout the target's codegen is fastest with (a
        # no-op when versa-layout ran before versa-fuse, as versa.compile's pipeline does);
        # softmax and layer_norm become row kernels (one read of each row, not
        # five passes), inlined; the other versa ops become linalg; folding tidies the result.
        if self.opt_level >= 2:
            yield VersaLayout(target=self.target)
        if self.opt_level > 0:
            yield VersaRowKernels(threads=threads, target=self.target)
            yield VersaPoolKernels(threads=threads, target=self.target)
            yield VersaDynamicPoolKernels(threads=threads, target=self.target)  # pools over `?` images
            yield VersaShareFunctions()  # identical kernels (a model's layers): one function, calls kept
            yield "inline"
            yield "symbol-dce"
        codegen = self.opt_level >= 2
        yield ConvertVersaToLinalg(
            split_groups=SPLIT_GROUPS if codegen else 0, pool_views=codegen, pointwise_matmul=codegen
        )
        yield "canonicalize"
        yield "cse"
        # Contractions get their strategies first: tiles (threads, caches, registers), then
        # vector micro-kernels, all on tensors (accumulators can only be hoisted there).
        if self.opt_level >= 2:
            # i8 contractions with constant weights: vpdpbusd / vpmaddwd kernels where the target has them
            yield VersaInt8Kernels(threads=threads, target=self.target)
            # constant weights of matmuls with a dynamic M: packed as their full tile's strategy would
            yield VersaPackWeights(
                threads=threads, target=self.target, tuning_db=self.tuning_db, dynamic_rows=self.dynamic_tile
            )
            # dynamic dims: static tiles for the strategies
            yield VersaStaticTiles(tile=self.dynamic_tile, rows=self.dynamic_rows)
            # the static tiles of dynamic i8 convs, their filters packed by the run above
            yield VersaInt8Kernels(threads=threads, target=self.target)
            yield VersaOutlineDynamic()  # the other dynamic ops: functions that layers share
            yield VersaCollapseEpilogues()  # a linear layer's bias and activation in its matmul's shape
            yield VersaCollapseReductions(rows=max(8, threads))  # one reduced loop; full ones in 2 stages
            # constant f32 matmul weights in the strategy's register panels, packed once here
            yield VersaPackWeights(threads=threads, target=self.target, tuning_db=self.tuning_db)
            yield VersaCodegen(threads=threads, target=self.target, tuning_db=self.tuning_db)
            yield "canonicalize"
        # Elementwise loop nests become vector code while shapes are still static tensors.
        if self.opt_level > 0:
            yield VersaShareOps()  # what no strategy took: one function per structure (layers)
            yield VersaCollapseElementwise()  # long rows: fewer partial vectors
            yield VersaVectorize(width=target.lanes(32), threads=threads)
            yield "func.func(lower-vector-mask)"  # masks become masked transfers before folding
            yield "canonicalize"
        yield from buffer_steps(plan=True)
        yield VersaFlatGlobals()  # constant n-D globals as one flat array: not LLVM's nested rows
        yield VersaSerialForalls()  # loops that a strategy made foralls only to fuse into them
        if self.profile:
            yield VersaProfileKernels()  # a clock mark after each kernel, kernels in final order
        # Threads: the strategies' scf.forall loops become OpenMP parallel loops.
        if threads > 1:
            yield "scf-forall-to-parallel"
            yield f"convert-scf-to-openmp{{num-threads={threads}}}"
            yield VersaInlineAllocaScopes()  # the scope around each loop body, kept by canonicalize
            yield "canonicalize"
        # Loops: what is not vector code yet becomes scf loops, then plain control flow.
        yield "convert-linalg-to-loops"
        if self.opt_level >= 1:
            yield VersaFlattenTransfers(
                target=self.target
            )  # contiguous n-D reads as a few wide ones, not many narrow
        yield "convert-vector-to-scf{full-unroll=true}"
        if self.opt_level >= 1:
            yield VersaStreamingStores(target=self.target)  # outputs past the LLC skip the line read
        yield "expand-strided-metadata"
        yield "lower-affine"
        if self.opt_level >= 1:
            yield VersaUnrollHints()  # LLVM unrolls innermost loops only: code size, JIT time
        yield "convert-scf-to-cf"
        # LLVM: math with LLVM intrinsics first, the rest (erf, tanh) through libm.
        if self.opt_level >= 1:
            yield VersaFastMath()  # f32 exp/log/tanh/erf as vector polynomials, not libm calls
        # bf16: math and arithmetic in f32, rounded after each op (as LLVM would promote them),
        # and the rounding f32 -> bf16 as integer code on every CPU: nearest even, subnormals
        # and NaNs kept, bit for bit PyTorch's. LLVM would call compiler-rt's __truncsfbf2,
        # which nothing provides, where the CPU lacks AVX512-BF16, and AVX512-BF16's
        # vcvtneps2bf16 flushes subnormals to zero, which PyTorch does not.
        yield "func.func(math-extend-to-supported-types{extra-types=f16 target-type=f32})"
        yield "func.func(arith-emulate-unsupported-floats{source-types=bf16 target-type=f32})"
        yield "func.func(arith-expand{include-bf16=true})"
        yield "convert-math-to-llvm"
        yield "convert-math-to-libm"
        yield "convert-vector-to-llvm"
        yield VersaByteBools()  # boolean vectors in memory: a byte per element, as memrefs hold them
        yield "convert-ub-to-llvm"
        # allocs and deallocs as calls of functions the module defines: a cache of large blocks
        yield "finalize-memref-to-llvm{use-generic-functions=true}"
        yield VersaBufferCache()  # dynamic shapes' intermediates: no fresh pages every call
        yield "convert-arith-to-llvm"
        yield "convert-func-to-llvm"
        yield "convert-cf-to-llvm"
        if threads > 1:
            yield "convert-openmp-to-llvm"
        yield "reconcile-unrealized-casts"
        # Each memref a call passes is unpacked from its descriptor: folded, a model's function
        # (a call per kernel and layer) shrinks ~25x (Llama-style 85K -> 3K ops) for the passes
        # below, the runtime's checks and the translation.
        yield "canonicalize"
        yield VersaBf16Bits()  # bf16 is only moved by now: LLVM sees its bits, never a bfloat
        yield VersaByteGlobals()  # weights as byte arrays: LLVM writes those in one go
        yield VersaTargetAttributes(target=self.target)  # the JIT's machine is the host's CPU
