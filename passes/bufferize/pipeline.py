"""Tensors → buffers: the bufferization steps both target pipelines share (`buffer_steps`)."""

from collections.abc import Iterator

from ..common.base import Pass
from .distinct_results import VersaDistinctResults
from .lower_memref_copy import VersaLowerMemrefCopy
from .plan_buffers import VersaPlanBuffers
from .readonly_arguments import VersaReadonlyArguments
from .reshaped_results import VersaReshapedResults
from .result_copies import VersaResultCopies
from .returned_arguments import VersaReturnedArguments
from .returned_buffers import VersaDropReturnedBuffers
from .unshare_inits import VersaUnshareInits


def buffer_steps(plan: bool = False, kernels: tuple[Pass, ...] = ()) -> Iterator[str | Pass]:
    """Tensors → buffers, for every target: one allocation per tensor, results written into
    caller-provided buffers (out-params), so the entry point takes only memrefs and returns
    nothing. Inits that cse merged are split again first: shared, bufferization would copy
    them. Inputs are the caller's: bufferization copies an argument rather than write into it.
    With `plan` (CPU), intermediates live in one static arena instead of per-call mallocs.
    `kernels` (GPU) run on the buffers before results become out-params, so the buffers they
    allocate for results are the caller's; the GPU host frees nothing (its plan owns every
    buffer), and the deallocation pipeline refuses the kernels' launches, so it is left out."""
    yield VersaUnshareInits()
    yield VersaReadonlyArguments()
    yield VersaDistinctResults()
    yield (
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}"
    )
    # Bufferized tiled loops copy each tile onto itself (two equal subviews): cse makes them
    # one value and canonicalize drops the self-copy.
    yield "cse"
    yield "canonicalize"
    # A private function that returns the buffer it was given (versa-static-tiles' groups,
    # which fill their caller's result in place) returns nothing: its callers use the argument.
    yield VersaReturnedArguments()  # a kernel's filled argument, reshaped and back
    yield VersaDropReturnedBuffers()  # drop-equivalent-buffer-results, through nested calls
    yield from kernels
    yield VersaReshapedResults()  # a returned reshape of a buffer: the buffer takes its shape
    yield "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}"
    yield VersaResultCopies()  # a dynamic result's buffer is the caller's too
    if not kernels:
        yield "buffer-deallocation-pipeline"
    # No memref.copy may reach finalize-memref-to-llvm unless it is a plain memcpy: the strided
    # ones would call the C runner library's memrefCopy, which does not ship.
    yield VersaLowerMemrefCopy()
    if plan:
        yield VersaPlanBuffers()
