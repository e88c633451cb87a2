"""Which linalg ops have a reduction loop: one answer for the passes that set those ops apart
from elementwise ones. `versa-codegen` remarks on such an op that no strategy took (an
elementwise op is versa-vectorize's, not a missed strategy); `versa-static-tiles` heads a group
of tiles only with one (elementwise ops join it as its epilogue).

A generic has one where one of its iterators is a reduction; a named op by its family (a prefix
of its name). The two passes differ in the named families: versa-static-tiles takes only those
it tiles (`TILED_FAMILIES`: contractions, convolutions, pools), versa-codegen every family
(`REDUCING_FAMILIES`, adding matvec, vecmat, dot, reduce and contract). Of the families it
leaves out, `tile_slicing` cannot cut matvec, vecmat, dot and reduce anyway (it finds no dims
of theirs to tile), but it can cut `linalg.contract`: the narrower list keeps that pass as it
was.
"""

from versa.mlir import ir

TILED_FAMILIES = ("linalg.matmul", "linalg.batch_matmul", "linalg.conv", "linalg.depthwise", "linalg.pooling")
REDUCING_FAMILIES = (
    *TILED_FAMILIES,
    *("linalg.matvec", "linalg.vecmat", "linalg.dot", "linalg.reduce", "linalg.contract"),
)


def has_reduction_loop(op: ir.Operation, families: tuple[str, ...] = REDUCING_FAMILIES) -> bool:
    """Whether `op` is a linalg generic with a reduction iterator or a named op of one of
    `families` (a contraction, convolution, pooling or reduction)."""
    if op.name == "linalg.generic":
        return "reduction" in str(op.attributes["iterator_types"])
    return op.name.startswith(families)
