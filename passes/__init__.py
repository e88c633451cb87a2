"""The pass registry: every Versa pass and pipeline, keyed by its CLI flag (`Pass.name`)."""

from .base import Pass
from .canonicalize import VersaCanonicalize
from .convert_versa_to_linalg import ConvertVersaToLinalg
from .distinct_results import VersaDistinctResults
from .fuse import VersaFuse
from .pipelines import LowerToLLVM, Pipeline
from .vectorize import VersaVectorize

PASSES: dict[str, type[Pass]] = {
    p.name: p
    for p in (VersaCanonicalize, VersaFuse, ConvertVersaToLinalg, VersaVectorize, VersaDistinctResults)
}
PIPELINES: dict[str, type[Pipeline]] = {p.name: p for p in (LowerToLLVM,)}
