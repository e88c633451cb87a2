"""versa-row-kernels: softmax and layer_norm over trailing axes as one loop nest per row.

convert-versa-to-linalg decomposes both into reductions and broadcasting elementwise ops (five
linalg ops, three full-size intermediates: five passes over memory). Here each becomes a call
to a kernel template on tensors that reads a row from memory once, keeps it in cache for the
passes that follow, and writes the result once:

    softmax:    M = max(x); y = exp(x - M), S = sum(y); y = y * (1 / S)   (V lanes per step)
    layer_norm: mean = x0 + mean(x - x0); var = mean((x - mean)^2); y = (x - mean) * rstd * gamma + beta

Only the first pass over a row reads memory; the others hit L1/L2 (a row of 30522 f32 is 120
KB). Softmax computes each exp once: the second pass writes exp(x - max) to the output and
sums it, the third scales the output in cache (the online softmax of Milakov and Gimelshein,
one more exp per step, measured slower: 35 vs 30 ms for 2048x30522). The passes of both kernels
align their full vectors on vector boundaries (`row_aligned.py`: softmax 2048x30522 0.81x,
layer_norm 2048x8191 0.83x). Where rows fit L1, or
x and the output fit in the LLC, softmax rows are software-pipelined instead
(`row_pipelined.py`: row i's exp, row i+1's max and row i-1's output in one pass; 4096x1024
0.73x). Reductions keep four accumulators. Rows are split across threads by `scf.forall` (a
chunk per thread); a row's tail shorter than V is a masked vector step. No upstream pass
writes these loops (linalg.softmax decomposes into the same four generics), hence the
template, inlined by the pipeline's `inline` step. A single-use elementwise producer of the
input (attention's scale and mask) is evaluated where the kernel reads its input, and an
elementwise consumer that alone reads the result is applied to each vector before it is
written (`row_producers.py`): neither is ever written. f16 and bf16 tensors are read as half
vectors, extended and computed on in f32, and rounded once on store (`kernel_text.read`,
`write_vector`), as PyTorch's half softmax and layer_norm do; their softmax is pipelined from
two rows a thread (`row_pipelined.pipelines`); producers and consumers fold into f32 kernels only.
Dynamic rows and a softmax's dynamic row take the same kernels (`kernel_loops.py`); such a
kernel fills a buffer its caller passes (`bufferization.writable`, as `group_functions.py`'s
functions do): the kernels of a model's layers are one shared function (versa-share-functions),
and a shared function that returned a dynamic allocation would malloc it per call.

    %y = "versa.softmax"(%x) {axis = -1} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  → %y = call @versa_softmax_0(%x) : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
"""

import functools
import math
from dataclasses import dataclass

from versa import targets
from versa.mlir import func, ir

from ..common import extents
from ..common.base import Pass, collect, target_option
from ..common.group_functions import WRITABLE
from ..common.kernel_loops import over_rows
from ..common.kernel_text import (
    Finish,
    Load,
    RowShape,
    Size,
    Text,
    chain,
    define,
    f32_literal,
    read,
)
from ..common.linalg_builders import empty
from ..common.row_reshapes import reshapes
from ..common.rows import row_axes, static_rows
from .kernels.row_aligned import along_for
from .kernels.row_bodies import layer_norm, softmax
from .kernels.row_pipelined import pipelines, softmax_rows
from .kernels.row_producers import (
    Input,
    consumers,
    define_function,
    finisher,
    kernel_inputs,
    loader,
    producers,
)

_NEG_INF = "0xFF800000"


def _extent(t: Text, shape: list[int | None], dims: dict[int, str], offset: int) -> Size:
    """The product of `shape` (axes from `offset` of the kernel's tensor): static, or computed
    from the dynamic dims' SSA names `dims`."""
    static = math.prod(d for d in shape if d is not None)
    names = [dims[offset + i] for i, d in enumerate(shape) if d is None]
    if not names:
        return static
    value = names[0]
    for other in names[1:] + ([t.c(static)] if static != 1 else []):
        product = t.fresh("x")
        t(f"{product} = arith.muli {value}, {other} : index")
        value = product
    return value


def kernel_text(
    name: str,
    kind: str,
    shape: list[int | None],
    lead: int,
    lanes: int,
    threads: int,
    eps: float = 0.0,
    inputs: list[Input] | None = None,
    outputs: list[Input] | None = None,
    pipelined: bool = False,
    storage: str = "f32",
) -> str:
    """The kernel function `name` for `kind` ("softmax" or "layer_norm") of a `shape` tensor whose
    first `lead` axes are rows, `lanes` f32 per vector, rows split over `threads`. With `inputs`,
    it reads them instead of its input and applies the producers `@{name}_input` to them.
    `pipelined`: softmax rows software-pipelined (`row_pipelined.py`). `storage`: the element
    type of the tensors (f32, f16 or bf16; computed in f32). Dynamic dims (None in `shape`):
    the kernel reads their extents from its input (no producers or consumers)."""
    t = Text()
    full = f"tensor<{'x'.join('?' if d is None else str(d) for d in shape)}x{storage}>"
    dims = {i: f"%d{i}" for i, d in enumerate(shape) if d is None}
    for i, size in dims.items():
        t(f"{size} = tensor.dim %x0, {t.c(i)} : {full}")
    rows, length = _extent(t, shape[:lead], dims, 0), _extent(t, shape[lead:], dims, lead)
    k = RowShape(rows, length, lanes, threads, storage)
    t(f"%ninf = arith.constant {_NEG_INF} : f32")
    t("%zero = arith.constant 0.0 : f32")
    t("%one = arith.constant 1.0 : f32")
    to_rows, from_rows = reshapes(shape, lead, rows, length, storage, dims)
    if inputs is None:
        params, x = [f"%x0: {full}"], chain(t, "%x0", to_rows)
    else:
        (params, sources), x = kernel_inputs(t, k, inputs, "in"), None
    body = functools.partial(softmax, k)
    if kind == "layer_norm":
        params_shape = f"tensor<{'x'.join(map(str, shape[lead:]))}x{storage}>"
        params += [f"%gamma0: {params_shape}", f"%beta0: {params_shape}"]
        trailing = len(shape) - lead
        flat = (
            []
            if trailing == 1
            else [
                f"tensor.collapse_shape {{}} [{list(range(trailing))}] "
                f": {params_shape} into tensor<{length}x{storage}>"
            ]
        )
        gamma, beta = chain(t, "%gamma0", flat), chain(t, "%beta0", flat)
        t(f"%inv_n = arith.constant {f32_literal(1.0 / length)} : f32")
        t(f"%eps = arith.constant {f32_literal(eps)} : f32")
        body = functools.partial(layer_norm, k, gamma, beta)

    if outputs is not None:
        consumer_params, consumer_sources = kernel_inputs(t, k, outputs, "out")
        params += consumer_params

    def load_at(xs: str, r: str, whole_row: str, type_: str) -> Load:
        if inputs is None:
            return lambda t, j, pad, mask: read(t, k, xs, f"{r}, {j}", pad, mask, type_)
        return loader(k, inputs, sources, whole_row, f"{name}_input")

    def finish_at(whole_row: str) -> Finish:
        if outputs is None:
            return lambda t, j, value, mask: value
        return finisher(k, outputs, consumer_sources, whole_row, f"{name}_output")

    def row_body(t: Text, xs: str, acc: str, r: str, whole_row: str, type_: str) -> str:
        along = along_for(t, k, whole_row)
        return body(t, load_at(xs, r, whole_row, type_), finish_at(whole_row), acc, r, type_, along)

    init = "%init"
    if dims:  # the caller's buffer: a shared kernel must not return a dynamic alloc (module doc)
        params.insert(0, f"%out0: {full} {{{WRITABLE} = true}}")
        init = chain(t, "%out0", to_rows)
    else:
        t(f"%init = tensor.empty() : {k.tensor(rows)}")
    if pipelined and kind == "softmax":
        y = softmax_rows(t, k, x, init, load_at, finish_at)
    else:
        y = over_rows(t, k, x, init, row_body)
    t(f"return {chain(t, y, from_rows)} : {full}")
    # Declarations of the producer and consumer functions (`define_function` defines them).
    lines = [t.function(f"func.func private @{name}({', '.join(params)}) -> {full} {{")]
    if inputs is not None:
        lines.insert(0, f"func.func private @{name}_input({', '.join([k.vec] * len(inputs))}) -> {k.vec}")
    if outputs is not None:
        lines.insert(
            0, f"func.func private @{name}_output({', '.join([k.vec] * (1 + len(outputs)))}) -> {k.vec}"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class VersaRowKernels(Pass):
    name = "versa-row-kernels"
    summary = "softmax and layer_norm over trailing axes as one vector loop nest per row (f32, f16, bf16)"
    threads: int = 1  # chunks of rows run as an scf.forall (the pipeline maps it to OpenMP)
    target: targets.Target = target_option()  # its f32 lanes are the vector width

    def run(self, module: ir.Operation) -> None:
        lanes = self.target.lanes(32)
        ops = collect(
            module,
            lambda op: op.name in ("versa.softmax", "versa.layer_norm")
            and row_axes(op, True, dynamic=True) is not None,
        )
        for count, op in enumerate(ops):
            (shape, storage) = static_rows(op.operands[0], True, dynamic=True)
            lead = row_axes(op, True, dynamic=True)
            kind = op.name.split(".")[1]
            eps = ir.FloatAttr(op.attributes["epsilon"]).value if kind == "layer_norm" else 0.0
            name = f"versa_{kind}_{count}"
            # producers and consumers are f32 chains of static shapes (row_producers)
            f32 = storage == "f32" and None not in shape
            before = producers(op.operands[0], shape, lead) if f32 else None
            after = consumers(op.results[0], shape, lead) if f32 else None
            inputs = before.read_as(shape, lead) if before else None
            outputs = after.read_as(shape, lead) if after else None
            threads = max(1, self.threads)
            pipelined = kind == "softmax" and pipelines(shape, lead, threads, self.target, storage)
            text = kernel_text(
                name, kind, shape, lead, lanes, threads, eps, inputs, outputs, pipelined, storage
            )
            define(module, text)
            operands = list(op.operands)
            if None in shape:
                with ir.InsertionPoint(op), op.location:  # the kernel's result buffer
                    x = op.operands[0]
                    operands.insert(0, empty(extents.of(x), ir.RankedTensorType(x.type).element_type))
            if before:
                define_function(module, f"{name}_input", before, lanes)
                operands = [*before.inputs, *operands[1:]]
            if after:
                define_function(module, f"{name}_output", after, lanes)
                operands += after.inputs
            with ir.InsertionPoint(after.root if after else op), op.location:
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), operands)
            if after:
                after.root.results[0].replace_all_uses_with(call.results[0])
                after.root.erase()
            else:
                op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
            if before:
                before.root.erase()
