"""versa-vectorize: tile elementwise linalg ops to the vector width and vectorize them.

Runs the transform dialect (upstream's tiling and masked vectorization): every all-parallel
`linalg.generic` is tiled to `1 x ... x 1 x width` and each tile becomes `vector` ops, masked
so a partial last tile needs no scalar remainder loop. Dynamic dims (`?`) tile alike: the loops
run to the call's extents and the mask covers a dynamic innermost dim; threads split a dynamic
outermost dim at run time (`num_threads`), a static one in chunks fixed here. Other linalg ops
(matmul, convolutions, reductions) stay as they are and lower to loops later, and so do
generics that would vectorize wrongly or not at all: a body with other than arith/math/linalg
ops (a libm call) and indexing maps that are not projected permutations (a flipped filter).
Boolean tensors vectorize too (`versa-byte-bools`), and so do bodies that read other tensors
with `tensor.extract` (gathers: a table row read whole becomes contiguous vector reads).

    linalg.generic {iterator_types = ["parallel", "parallel"]} ... tensor<4x20xf32>
  → scf.for ... { scf.for ... step 8 { vector.transfer_read ... math.exp ... : vector<1x8xf32> } }
"""

import math
from dataclasses import dataclass

from versa import targets
from versa.mlir import ir

from ..common.base import Pass, target_option
from .strategies.script import run_script
from .strategies.strategy import MIN_PARALLEL_ELEMENTS, ONE_THREAD, vector_body

_TAG = "versa.vectorize"

_SCRIPT = """
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
{body}
    transform.yield
  }}
}}
"""

_MATCH = """
    %g{key} = transform.structured.match ops{{["linalg.generic"]}} attributes{{{tag} = "{key}"}} in %root : (!transform.any_op) -> !transform.any_op
"""
_SPLIT = """
    %p{key}, %f{key} = transform.structured.tile_using_forall %g{key} {split} [{sizes}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
"""
_TILE = """
    %t{key}, %l{key}:{rank} = transform.structured.tile_using_for {op} tile_sizes [{sizes}] : (!transform.any_op) -> (!transform.any_op{loops})
"""
_VECTORIZE = """
    transform.structured.vectorize %t{key} vector_sizes [{sizes}]{extract} : !transform.any_op
"""


# Dialects of a body that reads other tensors and still vectorizes: upstream's vectorizer makes
# each `tensor.extract` a contiguous read where the innermost loop walks the last index and the
# others stay put along it (a table row), a broadcast where nothing moves, else a gather.
_GATHER_BODY = ("arith", "math", "linalg", "tensor")


@dataclass(frozen=True)
class _Tiling:
    """How one group of generics is tiled: its rank, innermost tile size, and the extent of
    the outermost dim per thread (0: one thread)."""

    rank: int
    tile: int
    chunk: int = 0
    extracts: bool = False  # the body reads other tensors (a gather): `vectorize_nd_extract`
    threads: int = 0  # > 1: the outermost dim is dynamic, split across this many threads per call

    @property
    def key(self) -> str:
        return f"r{self.rank}t{self.tile}c{self.chunk}n{self.threads}{'x' if self.extracts else ''}"


def _chunk(shape: list[int], tile: int, threads: int) -> int:
    """The outermost dim's extent per thread, or 0 where threads do not pay or do not split it."""
    if ir.ShapedType.is_dynamic_size(shape[0]):
        return 0
    if threads < 2 or math.prod(shape) < MIN_PARALLEL_ELEMENTS or shape[0] < 2:
        return 0
    step = tile if len(shape) == 1 else 1  # a rank-1 chunk stays whole vectors
    chunk = -(-shape[0] // threads)
    chunk = -(-chunk // step) * step
    return chunk if chunk < shape[0] else 0


def _tiling(op: ir.Operation, width: int, threads: int = 1) -> _Tiling | None:
    """The tiling of an all-parallel generic on static tensors, else None."""
    if op.name != "linalg.generic":
        return None
    iterators = [str(a) for a in op.attributes["iterator_types"]]
    if not iterators or any("parallel" not in it for it in iterators):
        return None
    body = [b.operation.name for b in op.regions[0].blocks[0]]
    extracts = "tensor.extract" in body
    if not vector_body(op) and not (extracts and all(n.split(".")[0] in _GATHER_BODY for n in body)):
        return None  # e.g. a func.call in the body (no vector form)
    types = [v.type for v in (*op.operands, *op.results)]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return None
    if not all(_gathers_nothing(ir.AffineMapAttr(m).value) for m in op.attributes["indexing_maps"]):
        return None  # e.g. a flipped or grouped read (kh - 1 - d2): the vectorizer refuses them
    shape = list(op.results[0].type.shape)
    if not shape or 0 in shape:  # an empty iteration space: its loops never run (and the
        return None  # split of a dynamic dim beside a static 0 crashed the transform interpreter)
    dynamic = [ir.ShapedType.is_dynamic_size(d) for d in shape]
    tile = width if dynamic[-1] else min(width, shape[-1])
    split = threads if threads > 1 and dynamic[0] and len(shape) > 1 else 0  # rows split per call
    return _Tiling(len(iterators), tile, _chunk(shape, tile, threads), extracts, split)


def _one_thread(op: ir.Operation) -> bool:
    """In a function `versa-outline-dynamic` marked for calls too small to split."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent is not None and ONE_THREAD in parent.attributes


def _gathers_nothing(m: ir.AffineMap) -> bool:
    """Every result is a loop dim or the constant 0 (a broadcast): a projected permutation."""
    dims = [e.position for e in m.results if isinstance(e, ir.AffineDimExpr)]
    constants = [e.value for e in m.results if isinstance(e, ir.AffineConstantExpr)]
    plain = len(dims) + len(constants) == len(m.results) and len(set(dims)) == len(dims)
    return plain and not any(constants)


@dataclass(frozen=True)
class VersaVectorize(Pass):
    name = "versa-vectorize"
    summary = "Tile elementwise linalg.generic ops to the vector width and vectorize them"
    width: int = 0  # vector lanes; 0 = the target's f32 lanes
    threads: int = 1  # > 1: large loop nests split their outermost dim across threads (scf.forall)
    target: targets.Target = target_option()  # its vector width when `width` is 0

    def run(self, module: ir.Operation) -> None:
        width = self.width or self.target.lanes(32)
        tilings: dict[str, _Tiling] = {}

        def tag(op: ir.Operation) -> ir.WalkResult:
            one = op.name == "linalg.generic" and _one_thread(op)
            tiling = _tiling(op, width, 1 if one else self.threads)
            if tiling:
                op.attributes[_TAG] = ir.StringAttr.get(tiling.key)
                tilings[tiling.key] = tiling
            return ir.WalkResult.ADVANCE

        module.walk(tag)
        if not tilings:
            return
        run_script(module, _script(list(tilings.values())), _TAG)


def _script(tilings: list[_Tiling]) -> str:
    body = ""
    for t in tilings:
        sizes = ", ".join(["1"] * (t.rank - 1) + [str(t.tile)])
        body += _MATCH.format(key=t.key, tag=_TAG)
        op = f"%g{t.key}"
        if t.chunk or t.threads:
            split = ("tile_sizes", t.chunk) if t.chunk else ("num_threads", t.threads)
            sizes_ = ", ".join([str(split[1])] + ["0"] * (t.rank - 1))
            body += _SPLIT.format(key=t.key, split=split[0], sizes=sizes_)
            op = f"%p{t.key}"
        body += _TILE.format(
            key=t.key, op=op, rank=t.rank, sizes=sizes, loops=', !transform.op<"scf.for">' * t.rank
        )
        body += _VECTORIZE.format(
            key=t.key, sizes=sizes, extract=" {vectorize_nd_extract}" if t.extracts else ""
        )
    return _SCRIPT.format(body=body)
