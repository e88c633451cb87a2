"""Elementwise producers folded into a row kernel: softmax(x * scale + mask) reads x and mask
and evaluates `* scale + mask` per vector wherever the kernel reads its input, so the
producers' result is never written (attention scores: one pass over memory instead of three).

The producers are the ops of a single-use `versa.fused` group of kind "elementwise", or one
single-use pointwise op, whose result is the kernel's input. They become a private function on
vectors, built with the same scalar emitters as every other lowering (so any pointwise op
works), called at each read and inlined by the pipeline:

    func.func private @versa_softmax_0_input(%x: vector<16xf32>, %mask: vector<16xf32>) -> vector<16xf32>

The group's external inputs become the kernel's parameters. Each must be f32 and read by rows:
its shape, leading 1s dropped, is a suffix of the kernel's shape that holds the whole row (a
full tensor, a mask [S, S] under [B, H, S, S], a bias [N]: row r reads its row r mod rows), or
it has one element (a scale). Anything else leaves the producers to their own loop nest.
"""

import math
from dataclasses import dataclass

from versa.dialects import versa as dialect
from versa.mlir import func, ir

from . import linalg_builders as build
from .kernel_text import Load, RowShape, Text, chain, emit, read, reshapes
from .scalar_emitters import SCALAR


@dataclass(frozen=True)
class Input:
    """An external input of the producers as the kernel reads it: its first `lead` axes make
    `rows` rows of the row length (rows 0: a single element, read as a splat)."""

    shape: tuple[int, ...]
    rows: int
    lead: int = 0


@dataclass
class Producers:
    ops: list[ir.OpView]  # pointwise versa ops, in order
    inputs: list[ir.Value]  # the tensors they read from outside, in order
    output: ir.Value  # the value the kernel used to read
    root: ir.Operation  # what to erase once the kernel reads the inputs (the group or the op)

    def read_as(self, shape: list[int], lead: int) -> list[Input]:
        return [_input(v, shape, lead) for v in self.inputs]


def _f32(value: ir.Value) -> bool:
    t = value.type
    static = isinstance(t, ir.RankedTensorType) and t.has_static_shape
    return static and isinstance(t.element_type, ir.F32Type)


def _input(value: ir.Value, shape: list[int], lead: int) -> Input | None:
    full = list(ir.RankedTensorType(value.type).shape)
    if math.prod(full) == 1:
        return Input(tuple(full), 0)
    own = full[next(i for i, d in enumerate(full) if d != 1) :]  # leading 1s dropped
    row_dims = len(shape) - lead
    if len(own) < row_dims or own != shape[len(shape) - len(own) :]:
        return None
    return Input(tuple(full), math.prod(own[: len(own) - row_dims]), len(full) - row_dims)


def _pointwise_f32(op: ir.OpView) -> bool:
    name = op.operation.name.removeprefix("versa.")
    if name == "constant":
        return op.attributes["value"].is_splat and _f32(op.results[0])
    return name in SCALAR and all(_f32(v) for v in (*op.operands, *op.results))


def producers(value: ir.Value, shape: list[int], lead: int) -> Producers | None:
    """The producers of the kernel input `value` (a `shape` tensor whose first `lead` axes are
    rows) that can be evaluated in the kernel, else None."""
    if not isinstance(value, ir.OpResult) or len(list(value.uses)) != 1:
        return None
    owner = value.owner
    if owner.operation.name == "versa.fused":
        if dialect.OPS["versa.fused"].attrs(owner)["kind"] != "elementwise" or len(owner.results) != 1:
            return None
        *ops, terminator = owner.regions[0].blocks[0].operations
        output = terminator.operands[0]
    else:
        ops, output = [owner], value
    if not ops or not all(_pointwise_f32(op) for op in ops):
        return None
    defined = {r for op in ops for r in op.results}
    inputs: list[ir.Value] = []
    for op in ops:
        for operand in op.operands:
            if operand not in defined and operand not in inputs:
                inputs.append(operand)
    found = Producers(ops, inputs, output, owner.operation)
    return found if all(found.read_as(shape, lead)) else None


def define_function(module: ir.Operation, name: str, found: Producers, lanes: int) -> None:
    """`name`: the producers on one vector of each input, as a private function in `module`."""
    vector = ir.VectorType.get([lanes], ir.F32Type.get())
    body = module.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(body), found.root.location:
        function = func.FuncOp(name, ([vector] * len(found.inputs), [vector]), visibility="private")
        entry = function.add_entry_block()
        with ir.InsertionPoint(entry):
            env = dict(zip(found.inputs, entry.arguments, strict=True))
            for op in found.ops:
                name_ = op.operation.name.removeprefix("versa.")
                if name_ == "constant":
                    splat = op.attributes["value"].get_splat_value().value
                    env[op.results[0]] = build.scalar(vector, splat)
                    continue
                attrs = dialect.OPS[op.operation.name].attrs(op)
                env[op.results[0]] = SCALAR[name_]([env[v] for v in op.operands], vector, attrs)
            func.ReturnOp([env[found.output]])


def kernel_inputs(t: Text, k: RowShape, inputs: list[Input]) -> tuple[list[str], list[str]]:
    """The kernel's parameters for `inputs` and, per input, what a read uses: the input as
    rows x length, or the splat vector of a single element (made once, at the entry)."""
    params, sources = [], []
    for n, read_as in enumerate(inputs):
        name, shape = f"%in{n}", list(read_as.shape)
        params.append(f"{name}: {_tensor(shape)}")
        if not read_as.rows:
            zeros = ", ".join(t.c(0) for _ in shape)
            element = t.fresh("e")
            t(f"{element} = tensor.extract {name}[{zeros}] : {_tensor(shape)}")
            sources.append(k.broadcast(t, element))
            continue
        sources.append(chain(t, name, reshapes(shape, read_as.lead, read_as.rows, k.length)[0]))
    return params, sources


def loader(k: RowShape, inputs: list[Input], sources: list[str], row: str, function: str) -> Load:
    """Reads of the kernel's input at the whole tensor's row `row`: every input read at its own
    row (`row` mod its rows), the producers applied, masked lanes set to the padding."""

    def load(t: Text, column: str, pad: str, mask: str | None) -> str:
        vectors = []
        for read_as, source in zip(inputs, sources, strict=True):
            if not read_as.rows:
                vectors.append(source)
                continue
            at = row
            if read_as.rows == 1:
                at = t.c(0)
            elif read_as.rows != k.rows:
                at = t.fresh("row")
                t(f"{at} = arith.remui {row}, {t.c(read_as.rows)} : index")
            rows_type = f"tensor<{read_as.rows}x{k.length}xf32>"
            vectors.append(read(t, k, source, f"{at}, {column}", "%zero", mask, rows_type))
        value = t.fresh("p")
        signature = ", ".join([k.vec] * len(vectors))
        t(f"{value} = func.call @{function}({', '.join(vectors)}) : ({signature}) -> {k.vec}")
        if mask:
            padding = k.broadcast(t, pad)
            value = emit(t, k, f"arith.select {mask}, {value}, {padding}", f"vector<{k.lanes}xi1>, {k.vec}")
        return value

    return load


def _tensor(shape: list[int]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"
