"""A writer of transform-dialect sequences: one method per transform op, fresh SSA names.

Strategies describe *what* to do to an op (`tile`, `peel`, `vectorize`, ...) through this
class; it prints the transform IR, which the driver (`apply.py`) parses and interprets once
per module. Text rather than the bindings' transform builders: the result reads exactly like
upstream's `mlir/test/Dialect/Linalg` tests and is what `--debug-codegen` prints.
"""

from collections.abc import Sequence

from versa.mlir import ir
from versa.mlir import transform_interpreter as interpreter

from ...common.base import PassError

ANY = "!transform.any_op"
# The mark of an scf.forall a strategy made only to fuse into it: versa-serial-foralls makes it
# an scf.for nest after bufferization (it runs inside one thread).
SERIAL = "versa.serial"
FOR = '!transform.op<"scf.for">'


def _ints(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


class Script:
    """Transform IR lines inside `@__transform_main(%root)`; handles are SSA names (`%h3`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0
        self._types: dict[str, str] = {"%root": ANY}

    def type(self, handle: str) -> str:
        return self._types.get(handle, ANY)

    def _fresh(self, n: int = 1, type_: str = ANY) -> list[str]:
        names = [f"%h{self._count + i}" for i in range(n)]
        self._count += n
        self._types.update((name, type_) for name in names)
        return names

    def _emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def match_tag(self, attribute: str, value: str, root: str = "%root") -> str:
        (h,) = self._fresh()
        self._emit(
            f'{h} = transform.structured.match attributes{{{attribute} = "{value}"}} in {root} '
            f": ({self.type(root)}) -> {ANY}"
        )
        return h

    def match_ops(self, names: Sequence[str], root: str) -> str:
        (h,) = self._fresh()
        quoted = ", ".join(f'"{n}"' for n in names)
        self._emit(
            f"{h} = transform.structured.match ops{{[{quoted}]}} in {root} : ({self.type(root)}) -> {ANY}"
        )
        return h

    def parent(self, op: str, name: str) -> str:
        """The closest enclosing `name` of each op in `op` (none for ops without one)."""
        (h,) = self._fresh()
        self._emit(
            f'{h} = transform.get_parent_op {op} {{allow_empty_results, deduplicate, op_name = "{name}"}} '
            f": ({ANY}) -> {ANY}"
        )
        return h

    def producer(self, op: str, operand: int) -> str:
        (h,) = self._fresh()
        self._emit(f"{h} = transform.get_producer_of_operand {op}[{operand}] : ({ANY}) -> {ANY}")
        return h

    def consumer(self, op: str) -> str:
        """The users of `op`'s first result."""
        (h,) = self._fresh()
        self._emit(f"{h} = transform.get_consumers_of_result {op}[0] : ({ANY}) -> {ANY}")
        return h

    def fuse_into(self, producer: str, containing: str) -> str:
        """Move (a tile of) `producer` into the loop `containing`, computing what it reads."""
        fused, loop = self._fresh(2)
        self._emit(
            f"{fused}, {loop} = transform.structured.fuse_into_containing_op {producer} into {containing} "
            f": ({ANY}, {self.type(containing)}) -> ({ANY}, {ANY})"
        )
        return fused

    def fuse(self, op: str, sizes: Sequence[int], interchange: Sequence[int]) -> tuple[str, dict[int, str]]:
        """Tile `op` and fuse its producers into the loops: {dim: loop} as in `tile`."""
        order = [d for d in interchange if sizes[d]]
        if not order:
            return op, {}
        (tiled,), handles = self._fresh(), self._fresh(len(order))
        results = ", ".join([ANY] * (1 + len(order)))
        self._emit(
            f"{', '.join([tiled, *handles])} = transform.structured.fuse {op} tile_sizes [{_ints(sizes)}] "
            f"interchange [{_ints(interchange)}] : ({ANY}) -> ({results})"
        )
        return tiled, dict(zip(order, handles, strict=True))

    def tile(
        self, op: str, sizes: Sequence[int], interchange: Sequence[int] = ()
    ) -> tuple[str, dict[int, str]]:
        """`tile_using_for`: the tiled op and its `scf.for` per tiled dim, {dim: loop}.

        A size of 0 leaves the dim untiled (no loop: a one-trip loop would be folded away by
        canonicalization, and its handle with it)."""
        order = [d for d in (interchange or range(len(sizes))) if sizes[d]]
        if not order:
            return op, {}
        loops = len(order)
        (tiled,), handles = self._fresh(), self._fresh(loops, FOR)
        interchanged = f" interchange = [{_ints(interchange)}]" if interchange else ""
        results = ", ".join([ANY] + [FOR] * loops)
        self._emit(
            f"{', '.join([tiled, *handles])} = transform.structured.tile_using_for {op} "
            f"tile_sizes [{_ints(sizes)}]{interchanged} : ({ANY}) -> ({results})"
        )
        return tiled, dict(zip(order, handles, strict=True))

    def tile_forall(self, op: str, sizes: Sequence[int]) -> tuple[str, str]:
        """`tile_using_forall`: the tiled op and the `scf.forall` (one thread per tile)."""
        tiled, loop = self._fresh(2)
        self._emit(
            f"{tiled}, {loop} = transform.structured.tile_using_forall {op} "
            f"tile_sizes [{_ints(sizes)}] : ({ANY}) -> ({ANY}, {ANY})"
        )
        return tiled, loop

    def annotate(self, op: str, name: str) -> None:
        """Put the unit attribute `name` on the ops of `op` (a mark for a later pass)."""
        self._emit(f'transform.annotate {op} "{name}" : {self.type(op)}')

    def forall_to_for(self, loop: str, dims: int) -> list[str]:
        """The bufferized `scf.forall` `loop` of `dims` dims as an `scf.for` nest (handles,
        outermost first)."""
        handles = self._fresh(dims, FOR)
        self._emit(
            f"{', '.join(handles)} = transform.loop.forall_to_for {loop} "
            f": ({self.type(loop)}) -> ({', '.join([FOR] * dims)})"
        )
        return handles

    def tile_reduction(self, op: str, sizes: Sequence[int]) -> tuple[str, str, str, str]:
        """`tile_reduction_using_for`: a loop of partial results `sizes` wide (elementwise, so
        vector code), then one combining reduction: (init fill, partial op, combine, loop)."""
        fill, partial, combine, loop = self._fresh(4)
        self._emit(
            f"{fill}, {partial}, {combine}, {loop} = transform.structured.tile_reduction_using_for {op} "
            f"by tile_sizes = [{_ints(sizes)}] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})"
        )
        return fill, partial, combine, loop

    def peel(self, loop: str) -> tuple[str, str]:
        """Split `loop` into full steps and a remainder; in the main part tiles are static."""
        main, rest = self._fresh(2, FOR)
        self._emit(f"{main}, {rest} = transform.loop.peel {loop} : ({FOR}) -> ({FOR}, {FOR})")
        return main, rest

    def split(self, op: str, dim: int, size: int) -> tuple[str, str]:
        """`structured.split`: `op` cut along loop `dim` into [0, size) and [size, extent)."""
        (both,) = self._fresh()
        lower, upper = self._fresh(2)
        self._emit(f"{both} = transform.structured.split {op} after {size} {{dimension = {dim}}} : {ANY}")
        self._emit(f"{lower}, {upper} = transform.split_handle {both} : ({ANY}) -> ({ANY}, {ANY})")
        return lower, upper

    def generalize(self, op: str) -> str:
        """A named linalg op as the equivalent `linalg.generic`."""
        (h,) = self._fresh()
        self._emit(f"{h} = transform.structured.generalize {op} : ({ANY}) -> {ANY}")
        return h

    def interchange(self, op: str, order: Sequence[int]) -> str:
        """A generic's loops permuted: loop i of the result is loop `order[i]` of `op`."""
        (h,) = self._fresh()
        self._emit(
            f"{h} = transform.structured.interchange {op} iterator_interchange = [{_ints(order)}] "
            f": ({ANY}) -> {ANY}"
        )
        return h

    def decompose(self, op: str) -> str:
        (h,) = self._fresh()
        self._emit(f"{h} = transform.structured.decompose {op} : ({ANY}) -> {ANY}")
        return h

    def licm(self, loop: str) -> None:
        """Hoist the loop-invariant ops of `loop` (and of the loops nested in it) out of it."""
        self._emit(f"transform.apply_licm to {loop} : {self.type(loop)}")

    def pad(self, op: str, dims: Sequence[int], values: Sequence[str], nofold: Sequence[int]) -> str:
        """`structured.pad`: the operands of `op` padded along loop `dims` to the static tile
        bounds with `values` (`0.0 : f32`, one per operand); a `nofold` operand is copied even
        when nothing is padded (a copy that `hoist_pad` can move out of loops). The padded op."""
        padded, pads, copy = self._fresh(3)
        self._emit(
            f"{padded}, {pads}, {copy} = transform.structured.pad {op} "
            f"{{padding_values = [{', '.join(values)}], padding_dimensions = [{_ints(dims)}], "
            f'nofold_flags = [{_ints(nofold)}], copy_back_op = "none"}} '
            f": ({ANY}) -> ({ANY}, {ANY}, {ANY})"
        )
        return padded

    def hoist_pad(self, pad: str, loops: int) -> str:
        """Move the `tensor.pad` `pad` above its `loops` enclosing `scf.for`s: the pads of every
        iteration of the loops that index it are packed into one tensor before them (a packing
        loop nest); the others just do not repeat it. The pad in that nest."""
        (h,) = self._fresh()
        self._emit(f"{h} = transform.structured.hoist_pad {pad} by {loops} loops : ({ANY}) -> {ANY}")
        return h

    def vectorize(self, op: str, sizes: Sequence[int] = ()) -> None:
        """Vectorize; with `sizes`, masked (for tiles whose extent is not static)."""
        masked = f" vector_sizes [{_ints(sizes)}]" if sizes else ""
        self._emit(f"transform.structured.vectorize {op}{masked} : {ANY}")

    def hoist(self, loop: str) -> None:
        """Keep accumulators in registers across `loop` (on tensors, before bufferization)."""
        self._emit(f"transform.loop.hoist_loop_invariant_subsets {loop} : {self.type(loop)}")

    def patterns(self, target: str, names: Sequence[str]) -> None:
        body = "\n".join(f"      transform.apply_patterns.{n}" for n in names)
        self.lines.append(f"    transform.apply_patterns to {target} {{\n{body}\n    }} : {ANY}")

    def text(self) -> str:
        body = "\n".join(self.lines)
        return (
            "module attributes {transform.with_named_sequence} {\n"
            f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
            f"{body}\n    transform.yield\n  }}\n}}\n"
        )


def run_script(module: ir.Operation, text: str, tag: str) -> None:
    """Interpret the transform script `text` on `module` once, then drop the discardable
    attribute `tag` that marked its payload ops."""
    apply_script(module, text)
    untag(module, tag)


def apply_script(payload: ir.Operation, text: str) -> None:
    """Interpret the transform script `text` on `payload` (a module or a function); a script
    that fails to apply raises ValueError and may leave `payload` half transformed."""
    try:
        parsed = ir.Module.parse(text, payload.context)
    except ir.MLIRError as err:
        raise PassError(f"internal error: invalid transform script: {err}") from None
    entry = next(op for op in parsed.body.operations if "sym_name" in op.attributes)
    interpreter.apply_named_sequence(payload, entry, parsed)


def untag(module: ir.Operation, tag: str) -> None:
    """Drop the discardable attribute `tag` from every op in `module`."""

    def drop(op: ir.Operation) -> ir.WalkResult:
        if tag in op.attributes:
            del op.attributes[tag]
        return ir.WalkResult.ADVANCE

    module.walk(drop)
