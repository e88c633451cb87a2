"""The epilogue of an integer dot-product kernel (`int8_dot.py`): the contraction's elementwise
consumer (zero points, bias, requantize, a residual's dequantize and add, ReLU, quantize: the
one generic `lower_fused.py` makes of a fused INT8 group) computed on each accumulator vector
before it is stored, so the kernel writes the consumer's result (u8, f32) and no i32 tensor
of the layer exists.

The consumer's body is written again on vectors of the kernel's L lanes, in MLIR's generic op
form (each arith/math op as it is, its types made vectors; a scalar constant, inside the body
or captured from outside it, broadcast). Each other input of the consumer is an argument of the
kernel, read where the accumulator lies: its indexing map names which of the kernel's indices
it follows (n, oh, the pixel, the filter). An input that follows the filter dim, as its last,
is a vector read at the accumulator's L filters (per-channel scales and biases, a residual);
one that does not is one element, broadcast (per-tensor parameters, a zero point's row sums).
"""

from dataclasses import dataclass, replace

import numpy as np
from versa.mlir import ir

from ...common.kernel_text import Text
from .int8_epilogue_facts import facts
from .int8_epilogue_offsets import offsets


@dataclass(frozen=True)
class Epilogue:
    """`generic` (one result, all parallel, identity read of the contraction at `operand`) as
    the kernel's epilogue; `dims`: the kernel's index of each of its loop dims, `PIXEL` and
    `FILTER` standing for the accumulator's own (conv: n, oh, PIXEL, FILTER; matmul: PIXEL,
    FILTER). `padded`: the kernel computes more filters than the inputs hold (reads masked)."""

    generic: ir.Operation
    operand: int
    dims: tuple[str, ...]
    padded: bool
    # (body op position, its vector form's fast-math flags or a decided compare's value): what
    # int8_epilogue_facts proves of the body's float values
    flags: tuple[tuple[int, str], ...] = ()
    # body op positions the kernel's start values hold (`absorb`): not computed, their constant
    # inputs no kernel arguments
    absorbed: tuple[int, ...] = ()

    @property
    def inputs(self) -> list[tuple[int, ir.Value]]:
        """(position among the generic's operands, value) of each input it reads besides the
        contraction (its init, when not the contraction, is an empty tensor it never reads) and
        besides the absorbed ops."""
        block = self.generic.regions[0].blocks[0]
        body = list(block.operations)
        read = {v for k, op in enumerate(body) if k not in self.absorbed for v in op.operands}
        ins = list(self.generic.operands)[:-1]
        return [(i, v) for i, v in enumerate(ins) if i != self.operand and block.arguments[i] in read]

    def absorb(self, start: np.ndarray) -> tuple["Epilogue", np.ndarray]:
        """This epilogue without the integer terms it adds to the accumulator first, and the
        kernel's start values [Fp] (i32) with them (int8_epilogue_offsets.py)."""
        positions, total = offsets(self.generic, self.operand, self.dims, start.size)
        if not positions:
            return self, start
        wrapped = (start.astype(np.int64) + total + 2**31) % 2**32 - 2**31
        return replace(self, absorbed=positions), wrapped.astype(np.int32)

    @property
    def element(self) -> str:
        return str(ir.RankedTensorType(self.generic.results[0].type).element_type)

    def arguments(self) -> str:
        return "".join(f", %e{i}: {v.type}" for i, v in self.inputs)

    def store(
        self, t: Text, acc: str, pixel: str, column: str, lanes: int, reads: dict, row: str = ""
    ) -> str:
        """The epilogue's vector at `acc` (vector<L x i32>), for the pixel and the first filter
        index given (SSA names of index values; `row` for a `ROW` dim: the depthwise kernel's
        output rows); its name. `reads`: the inputs read so far in this block, by their indices
        (a channel's scale is read once for all pixels)."""
        block = self.generic.regions[0].blocks[0]
        names: dict[ir.Value, str] = {block.arguments[self.operand]: acc}
        maps = self.generic.attributes["indexing_maps"]
        for i, value in self.inputs:
            m = ir.AffineMapAttr(maps[i]).value
            indices = self._indices(t, m, pixel, column, row)
            if (i, indices) not in reads:
                reads[i, indices] = self._read(t, i, value, m, indices, lanes)
            names[block.arguments[i]] = reads[i, indices]
        *body, terminator = block.operations
        flags = dict(self.flags)
        for index, op in enumerate(body):
            if index in self.absorbed:  # in the start values: the accumulator is its result
                names[op.results[0]] = acc
                continue
            names[op.results[0]] = _vector_op(t, op.operation, names, lanes, flags.get(index))
        return names[terminator.operands[0]]

    def _indices(self, t: Text, m: ir.AffineMap, pixel: str, column: str, row: str) -> tuple[str, ...]:
        own = {"PIXEL": pixel, "FILTER": column, "ROW": row}
        dims = [own.get(d, d) for d in self.dims]
        return tuple(dims[e.position] if isinstance(e, ir.AffineDimExpr) else t.c(0) for e in m.results)

    def _read(self, t: Text, i: int, value: ir.Value, m: ir.AffineMap, indices, lanes: int) -> str:
        element = ir.RankedTensorType(value.type).element_type
        vec = f"vector<{lanes}x{element}>"
        name = t.fresh("ep")
        along = [e.position for e in m.results if isinstance(e, ir.AffineDimExpr)]
        if along and self.dims[along[-1]] == "FILTER" and isinstance(m.results[-1], ir.AffineDimExpr):
            pad = t.fresh("pad")
            t(f'{pad} = "arith.constant"() <{{value = {_zero(element)}}}> : () -> {element}')
            bounds, at = "false" if self.padded else "true", ", ".join(indices)
            read = f"vector.transfer_read %e{i}[{at}], {pad} {{in_bounds = [{bounds}]}}"
            t(f"{name} = {read} : {value.type}, {vec}")
            return name
        scalar = t.fresh("es")
        t(f"{scalar} = tensor.extract %e{i}[{', '.join(indices)}] : {value.type}")
        t(f"{name} = vector.broadcast {scalar} : {element} to {vec}")
        return name


def of(generic: ir.Operation, operand: int, dims: tuple[str, ...], padded: bool) -> Epilogue | None:
    """`generic` as an epilogue where the kernel can compute it, else None: every body op an
    arith/math op of one result reading the block or constants, every input map a projected
    permutation whose filter dim, where read, is its last."""
    block = generic.regions[0].blocks[0]
    inside = {r for op in block.operations for r in op.results} | set(block.arguments)
    for op in list(block.operations)[:-1]:
        op = op.operation
        if op.name.split(".")[0] not in ("arith", "math") or len(op.results) != 1 or op.regions:
            return None
        if not all(v in inside or _constant(v) for v in op.operands):
            return None
    for i, attr in enumerate(generic.attributes["indexing_maps"]):
        m = ir.AffineMapAttr(attr).value
        if i == operand:
            continue
        if not all(
            isinstance(e, ir.AffineDimExpr) or (isinstance(e, ir.AffineConstantExpr) and e.value == 0)
            for e in m.results
        ):
            return None
        along = [e.position for e in m.results if isinstance(e, ir.AffineDimExpr)]
        if "FILTER" in [dims[d] for d in along[:-1]] or len(set(along)) != len(along):
            return None
    return Epilogue(generic, operand, dims, padded, tuple(facts(generic).items()))


def _constant(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant"


def _zero(element: ir.Type) -> str:
    return f"0.0 : {element}" if isinstance(element, ir.FloatType) else f"0 : {element}"


def _vector_op(
    t: Text, op: ir.Operation, names: dict[ir.Value, str], lanes: int, flag: str | None = None
) -> str:
    """`op` on vectors of `lanes`: its generic form with vector types; constants broadcast. (Its
    attributes are written one by one: printing an op nested in a module prints the module.)
    `flag` (int8_epilogue_facts): its fast-math flags, or a compare's known value."""
    if flag in ("true", "false"):
        name = t.fresh("v")
        t(f"{name} = arith.constant dense<{flag}> : vector<{lanes}xi1>")
        return name
    attributes = {k: str(op.attributes[k]) for k in op.attributes}
    if flag is not None:
        attributes["fastmath"] = f"#arith.{flag}"
    attrs = ", ".join(f"{k} = {v}" for k, v in attributes.items())
    attrs = f" <{{{attrs}}}>" if attrs else ""
    for v in op.operands:
        if v not in names:  # a scalar constant captured from outside the body
            names[v] = _vector_op(t, v.owner.operation, names, lanes)
    result = op.results[0].type
    name = t.fresh("v")
    if op.name == "arith.constant":
        scalar = t.fresh("k")
        t(f'{scalar} = "arith.constant"(){attrs} : () -> {result}')
        t(f"{name} = vector.broadcast {scalar} : {result} to vector<{lanes}x{result}>")
        return name
    operands = ", ".join(names[v] for v in op.operands)
    types = ", ".join(f"vector<{lanes}x{v.type}>" for v in op.operands)
    t(f'{name} = "{op.name}"({operands}){attrs} : ({types}) -> vector<{lanes}x{result}>')
    return name
