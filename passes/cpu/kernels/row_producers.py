"""Elementwise producers and consumers folded into a row kernel: softmax(x * scale + mask)
reads x and mask and evaluates `* scale + mask` per vector wherever the kernel reads its
input, so the producers' result is never written (attention scores: one pass over memory
instead of three); relu(layer_norm(x) * s) applies `* s` and relu to each vector the kernel
writes, so the kernel's own result is never written either.

Producers are the ops of a single-use `versa.fused` group of kind "elementwise", or one
single-use pointwise op, whose result is the kernel's input; consumers are such a group or op
that is the only reader of the kernel's result, of the same shape. Each becomes a private
function on vectors, built with the same scalar emitters as every other lowering (so any
pointwise op works), called at each read (write) and inlined by the pipeline:

    func.func private @versa_softmax_0_input(%x: vector<16xf32>, %mask: vector<16xf32>) -> vector<16xf32>
    func.func private @versa_layer_norm_1_output(%y: vector<16xf32>, %s: vector<16xf32>) -> vector<16xf32>

The groups' external inputs become the kernel's parameters. Each must be f32 and read by rows:
its shape, leading 1s dropped, is a suffix of the kernel's shape that holds the whole row (a
full tensor, a mask [S, S] under [B, H, S, S], a bias [N]: row r reads its row r mod rows), or
it has one element (a scale). Anything else leaves the producers to their own loop nest.
"""

import math
from dataclasses import dataclass

from versa.dialects import versa as dialect
from versa.mlir import func, ir

from ...common import linalg_builders as build
from ...common.kernel_text import Finish, Load, RowShape, Text, chain, emit, read
from ...common.row_reshapes import reshapes
from ...common.scalar_emitters import SCALAR


@dataclass(frozen=True)
class Input:
    """An external input of the producers as the kernel reads it: its first `lead` axes make
    `rows` rows of the row length (rows 0: a single element, read as a splat)."""

    shape: tuple[int, ...]
    rows: int
    lead: int = 0


@dataclass
class Chain:
    ops: list[ir.OpView]  # pointwise versa ops, in order
    inputs: list[ir.Value]  # the tensors they read from outside (not the kernel's result), in order
    output: ir.Value  # what they compute: the kernel's input, or what replaces its result
    root: ir.Operation  # the group or the op, erased once the kernel does its work
    kernel_result: ir.Value | None = None  # consumers: the kernel's result they read

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


def _chain(root: ir.OpView, kernel_result: ir.Value | None = None) -> Chain | None:
    """The pointwise f32 ops of `root` (a fused elementwise group or one op) as a chain."""
    if len(root.results) != 1:
        return None
    if root.operation.name == "versa.fused":
        if dialect.OPS["versa.fused"].attrs(root)["kind"] != "elementwise":
            return None
        *ops, terminator = root.regions[0].blocks[0].operations
        output = terminator.operands[0]
    else:
        ops, output = [root], root.results[0]
    if not ops or not all(_pointwise_f32(op) for op in ops):
        return None
    defined = {r for op in ops for r in op.results}
    inputs: list[ir.Value] = []
    for op in ops:
        for operand in op.operands:
            own = kernel_result is not None and operand == kernel_result
            if operand not in defined and not own and operand not in inputs:
                inputs.append(operand)
    return Chain(ops, inputs, output, root.operation, kernel_result)


def producers(value: ir.Value, shape: list[int], lead: int) -> Chain | None:
    """The producers of the kernel input `value` (a `shape` tensor whose first `lead` axes are
    rows) that can be evaluated in the kernel, else None."""
    if not isinstance(value, ir.OpResult) or len(list(value.uses)) != 1:
        return None
    found = _chain(value.owner)
    return found if found and all(found.read_as(shape, lead)) else None


def consumers(result: ir.Value, shape: list[int], lead: int) -> Chain | None:
    """The consumers of the kernel's `result` that can be applied to each vector it writes:
    one group or op reads it (maybe several times), and nothing else."""
    users = [use.owner for use in result.uses]
    if not users:
        return None
    root, parent = users[0], users[0].operation.parent
    if parent is not None and parent.name == "versa.fused":
        root = parent.opview
    inside = (root.operation,) + tuple(op.operation for op in _body(root))
    if any(user.operation not in inside for user in users):
        return None
    found = _chain(root, result)
    if not found or list(ir.RankedTensorType(found.output.type).shape) != shape:
        return None
    return found if all(found.read_as(shape, lead)) else None


def _body(root: ir.OpView) -> list[ir.OpView]:
    if root.operation.name != "versa.fused":
        return []
    return list(root.regions[0].blocks[0].operations)


def define_function(module: ir.Operation, name: str, found: Chain, lanes: int) -> None:
    """`name`: the chain on one vector of each input (the kernel's result first, for consumers),
    as a private function in `module`."""
    vector = ir.VectorType.get([lanes], ir.F32Type.get())
    body = module.regions[0].blocks[0]
    arguments = [found.kernel_result] if found.kernel_result is not None else []
    arguments += found.inputs
    with ir.InsertionPoint.at_block_begin(body), found.root.location:
        function = func.FuncOp(name, ([vector] * len(arguments), [vector]), visibility="private")
        entry = function.add_entry_block()
        with ir.InsertionPoint(entry):
            env = dict(zip(arguments, entry.arguments, strict=True))
            for op in found.ops:
                name_ = op.operation.name.removeprefix("versa.")
                if name_ == "constant":
                    splat = op.attributes["value"].get_splat_value().value
                    env[op.results[0]] = build.scalar(vector, splat)
                    continue
                attrs = dialect.OPS[op.operation.name].attrs(op)
                env[op.results[0]] = SCALAR[name_]([env[v] for v in op.operands], vector, attrs)
            func.ReturnOp([env[found.output]])


def kernel_inputs(t: Text, k: RowShape, inputs: list[Input], stem: str) -> tuple[list[str], list[str]]:
    """The kernel's parameters for `inputs` (named `stem`0, ...) and, per input, what a read
    uses: the input as rows x length, or the splat vector of its one element (made once)."""
    params, sources = [], []
    for n, read_as in enumerate(inputs):
        name, shape = f"%{stem}{n}", list(read_as.shape)
        params.append(f"{name}: {_tensor(shape)}")
        if not read_as.rows:
            zeros = ", ".join(t.c(0) for _ in shape)
            element = t.fresh("e")
            t(f"{element} = tensor.extract {name}[{zeros}] : {_tensor(shape)}")
            sources.append(k.broadcast(t, element))
            continue
        sources.append(chain(t, name, reshapes(shape, read_as.lead, read_as.rows, k.length)[0]))
    return params, sources


def _read_inputs(
    t: Text, k: RowShape, inputs: list[Input], sources: list[str], row: str, column: str, mask: str | None
) -> list[str]:
    """A vector of each input at the whole tensor's row `row` (its own row: `row` mod its rows)."""
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
    return vectors


def _call(t: Text, k: RowShape, function: str, vectors: list[str]) -> str:
    value = t.fresh("p")
    signature = ", ".join([k.vec] * len(vectors))
    t(f"{value} = func.call @{function}({', '.join(vectors)}) : ({signature}) -> {k.vec}")
    return value


def loader(k: RowShape, inputs: list[Input], sources: list[str], row: str, function: str) -> Load:
    """Reads of the kernel's input at the whole tensor's row `row`: the producers applied to
    the inputs' vectors, masked lanes set to the padding."""

    def load(t: Text, column: str, pad: str, mask: str | None) -> str:
        value = _call(t, k, function, _read_inputs(t, k, inputs, sources, row, column, mask))
        if mask:
            padding = k.broadcast(t, pad)
            value = emit(t, k, f"arith.select {mask}, {value}, {padding}", f"vector<{k.lanes}xi1>, {k.vec}")
        return value

    return load


def finisher(k: RowShape, inputs: list[Input], sources: list[str], row: str, function: str) -> Finish:
    """What a vector the kernel writes becomes: the consumers applied to it and their inputs."""

    def finish(t: Text, column: str, value: str, mask: str | None) -> str:
        return _call(t, k, function, [value, *_read_inputs(t, k, inputs, sources, row, column, mask)])

    return finish


def _tensor(shape: list[int]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"
