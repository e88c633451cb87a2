"""versa-gpu-outline-rows, versa-gpu-rows: softmax and layer_norm as one GPU kernel, a thread
block per row.

Lowered like the CPU does without row kernels, softmax is a max reduction, an exp-sum
reduction and a division: three launches and two intermediates through global memory (0.44x
torch on an H200). Here a block of B threads owns a row: each thread takes V-wide vectors at
columns V*(t + i*B) (neighbouring threads, neighbouring 16-byte loads), folds them into its own
partial result, and `gpu.all_reduce` combines the block's partials (warp shuffles and shared
memory, lowered by `convert-gpu-to-nvvm`):

    softmax:    M = max(x); S = sum(exp(x - M)); y = exp(x - M) / S
    layer_norm: mean; var = mean((x - mean)^2); y = (x - mean) * rstd * gamma + beta

Only the first pass over a row reads DRAM; a thread re-reads the same addresses, which the
first pass left in L1/L2. The kernel is written on memrefs, but `gpu.launch` must not exist
before bufferization (the deallocation pipeline refuses ops with unknown memory effects). So
the work is in two steps: `versa-gpu-outline-rows` (versa level) moves each op into a private
function marked `versa.gpu_rows`, which bufferizes like any function (results become out
parameters); `versa-gpu-rows` (after bufferization) replaces such a function's body by the
kernel, and the pipeline inlines the calls.
"""

import math
from dataclasses import dataclass

from versa.mlir import func, ir, memref

from ..common.base import Pass, collect
from ..common.kernel_text import Text, define, f32_literal
from ..common.memrefs import identity_layout
from ..common.rows import row_axes

MARK = "versa.gpu_rows"


@dataclass(frozen=True)
class VersaGpuOutlineRows(Pass):
    name = "versa-gpu-outline-rows"
    summary = "Move softmax / layer_norm over trailing axes into private functions for versa-gpu-rows"

    def run(self, module: ir.Operation) -> None:
        ops = collect(
            module, lambda op: op.name in ("versa.softmax", "versa.layer_norm") and row_axes(op) is not None
        )
        for count, op in enumerate(ops):
            kind = op.name.split(".")[1]
            name = f"versa_gpu_{kind}_{count}"
            inputs = [v.type for v in op.operands]
            with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), op.location:
                outlined = func.FuncOp(name, (inputs, [op.results[0].type]), visibility="private")
                eps = op.attributes["epsilon"] if kind == "layer_norm" else ir.FloatAttr.get_f32(0.0)
                outlined.attributes[MARK] = ir.DictAttr.get(
                    {
                        "kind": ir.StringAttr.get(kind),
                        "lead": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), row_axes(op)),
                        "epsilon": eps,
                    }
                )
                entry = outlined.add_entry_block()
            with ir.InsertionPoint(entry), op.location:
                clone = op.clone()
                for i, argument in enumerate(entry.arguments):
                    clone.operands[i] = argument
                func.ReturnOp([clone.results[0]])
            with ir.InsertionPoint(op), op.location:
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), list(op.operands))
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()


def _lanes(length: int) -> int:
    """The widest vector (16 bytes at most) that tiles a row exactly: rows stay aligned."""
    return next(v for v in (4, 2, 1) if length % v == 0)


def _threads(length: int, lanes: int, limit: int) -> int:
    """A power of two from a warp up to `limit`: enough threads to cover a row in one step."""
    threads = 32
    while threads < limit and threads * lanes < length:
        threads *= 2
    return threads


class _Row:
    """Writes the body of one row's block: vector passes along the row and block reductions."""

    def __init__(self, t: Text, length: int, lanes: int, threads: int):
        self.t, self.length, self.lanes, self.threads = t, length, lanes, threads
        self.vec = f"vector<{lanes}xf32>"

    def along(self, inits: list[str], step) -> list[str]:
        """One pass over the thread's vectors of the row; `step(column, carried)` returns the
        carried values' new values (none: a pass that only stores)."""
        t, j = self.t, self.t.fresh("j")
        bounds = f"{j} = %start to {t.c(self.length)} step {t.c(self.lanes * self.threads)}"
        if not inits:
            t(f"scf.for {bounds} {{")
            step(j, [])
            t("}")
            return []
        loop, carried = t.fresh("p"), [t.fresh("a") for _ in inits]
        args = ", ".join(f"{c} = {v}" for c, v in zip(carried, inits, strict=True))
        types = ", ".join([self.vec] * len(inits))
        t(f"{loop}:{len(inits)} = scf.for {bounds} iter_args({args}) -> ({types}) {{")
        t(f"  scf.yield {', '.join(step(j, carried))} : {types}")
        t("}")
        return [f"{loop}#{i}" for i in range(len(inits))]

    def load(self, memref: str, type_: str, column: str, row_base: bool = True) -> str:
        t = self.t
        where = column
        if row_base:
            where = t.fresh("i")
            t(f"{where} = arith.addi %base, {column} : index")
        v = t.fresh("v")
        t(f"{v} = vector.load {memref}[{where}] {{alignment = {4 * self.lanes}}} : {type_}, {self.vec}")
        return v

    def op(self, text: str, type_: str | None = None) -> str:
        v = self.t.fresh("t")
        self.t(f"{v} = {text} : {type_ or self.vec}")
        return v

    def block_reduce(self, kind: str, vector: str) -> str:
        """The block's combined value of every thread's `vector` (each thread gets it)."""
        t = self.t
        part, total = t.fresh("part"), t.fresh("total")
        t(f"{part} = vector.reduction <{kind}>, {vector} : {self.vec} into f32")
        t(f"{total} = gpu.all_reduce {kind} {part} uniform {{}} : (f32) -> (f32)")
        return total


def _broadcast(row: _Row, scalar: str) -> str:
    v = row.t.fresh("b")
    row.t(f"{v} = vector.broadcast {scalar} : f32 to {row.vec}")
    return v


def _softmax(row: _Row, x: str, y: str, flat: str) -> None:
    top = _broadcast(
        row,
        row.block_reduce(
            "maximumf",
            row.along(
                [_broadcast(row, "%ninf")],
                lambda j, c: [row.op(f"arith.maximumf {c[0]}, {row.load(x, flat, j)}")],
            )[0],
        ),
    )

    def exp_sum(j: str, carried: list[str]) -> list[str]:
        e = row.op(f"math.exp {row.op(f'arith.subf {row.load(x, flat, j)}, {top}')}")
        return [row.op(f"arith.addf {carried[0]}, {e}")]

    total = row.block_reduce("add", row.along([_broadcast(row, "%zero")], exp_sum)[0])
    inverse = _broadcast(row, row.op(f"arith.divf %one, {total}", "f32"))

    def write(j: str, carried: list[str]) -> list[str]:
        e = row.op(f"math.exp {row.op(f'arith.subf {row.load(x, flat, j)}, {top}')}")
        _store(row, row.op(f"arith.mulf {e}, {inverse}"), y, flat, j)
        return []

    row.along([], write)


def _layer_norm(row: _Row, x: str, y: str, flat: str, gamma: str, beta: str, params: str) -> None:
    def mean_of(vector: str) -> str:
        return row.op(f"arith.mulf {row.block_reduce('add', vector)}, %inv_n", "f32")

    total = row.along(
        [_broadcast(row, "%zero")], lambda j, c: [row.op(f"arith.addf {c[0]}, {row.load(x, flat, j)}")]
    )
    mean = _broadcast(row, mean_of(total[0]))

    def squares(j: str, carried: list[str]) -> list[str]:
        d = row.op(f"arith.subf {row.load(x, flat, j)}, {mean}")
        return [row.op(f"math.fma {d}, {d}, {carried[0]}")]

    var = mean_of(row.along([_broadcast(row, "%zero")], squares)[0])
    root = row.op(f"math.sqrt {row.op(f'arith.addf {var}, %eps', 'f32')}", "f32")
    rstd = _broadcast(row, row.op(f"arith.divf %one, {root}", "f32"))

    def write(j: str, carried: list[str]) -> list[str]:
        normed = row.op(f"arith.mulf {row.op(f'arith.subf {row.load(x, flat, j)}, {mean}')}, {rstd}")
        g, b = row.load(gamma, params, j, row_base=False), row.load(beta, params, j, row_base=False)
        _store(row, row.op(f"math.fma {normed}, {g}, {b}"), y, flat, j)
        return []

    row.along([], write)


def _store(row: _Row, value: str, y: str, flat: str, column: str) -> None:
    where = row.t.fresh("i")
    row.t(f"{where} = arith.addi %base, {column} : index")
    row.t(f"vector.store {value}, {y}[{where}] {{alignment = {4 * row.lanes}}} : {flat}, {row.vec}")


def _flatten(t: Text, value: str, shape: list[int]) -> str:
    """`value` (an identity-layout memref of `shape`) seen as one dimension."""
    if len(shape) == 1:
        return value
    flat = t.fresh("flat")
    full = f"memref<{'x'.join(map(str, shape))}xf32>"
    groups = list(range(len(shape)))
    t(f"{flat} = memref.collapse_shape {value} [{groups}] : {full} into memref<{math.prod(shape)}xf32>")
    return flat


def kernel_text(name: str, kind: str, shape: list[int], lead: int, eps: float, limit: int) -> str:
    """The function `name(x, [gamma, beta,] y)` on memrefs: `kind` over the trailing axes of
    `shape` (from axis `lead`), one block of at most `limit` threads per row."""
    rows, length = math.prod(shape[:lead]), math.prod(shape[lead:])
    lanes = _lanes(length)
    threads = _threads(length, lanes, limit)
    t = Text()
    full, flat = (f"memref<{'x'.join(map(str, s))}xf32>" for s in (shape, [rows * length]))
    params, row_params = [f"%x0: {full}"], f"memref<{length}xf32>"
    if kind == "layer_norm":
        params_full = f"memref<{'x'.join(map(str, shape[lead:]))}xf32>"
        params += [f"%g0: {params_full}", f"%b0: {params_full}"]
    params.append(f"%y0: {full}")
    x, y = _flatten(t, "%x0", shape), _flatten(t, "%y0", shape)
    t("%ninf = arith.constant 0xFF800000 : f32")
    t("%zero = arith.constant 0.0 : f32")
    t("%one = arith.constant 1.0 : f32")
    t(f"%inv_n = arith.constant {f32_literal(1.0 / length)} : f32")
    t(f"%eps = arith.constant {f32_literal(eps)} : f32")
    if kind == "layer_norm":
        gamma, beta = _flatten(t, "%g0", shape[lead:]), _flatten(t, "%b0", shape[lead:])
    t(
        f"gpu.launch blocks(%bx, %by, %bz) in (%gx = {t.c(rows)}, %gy = {t.c(1)}, %gz = {t.c(1)}) "
        f"threads(%tx, %ty, %tz) in (%sx = {t.c(threads)}, %sy = {t.c(1)}, %sz = {t.c(1)}) {{"
    )
    t(f"%base = arith.muli %bx, {t.c(length)} : index")
    t(f"%start = arith.muli %tx, {t.c(lanes)} : index")
    row = _Row(t, length, lanes, threads)
    if kind == "softmax":
        _softmax(row, x, y, flat)
    else:
        _layer_norm(row, x, y, flat, gamma, beta, row_params)
    t("gpu.terminator")
    t("}")
    t("return")
    return t.function(f"func.func private @{name}({', '.join(params)}) {{")


@dataclass(frozen=True)
class VersaGpuRows(Pass):
    name = "versa-gpu-rows"
    summary = "Calls of functions marked by versa-gpu-outline-rows as a GPU kernel writing a new buffer"
    block: int = 256  # the most threads per block

    def run(self, module: ir.Operation) -> None:
        marked = {
            ir.StringAttr(f.attributes["sym_name"]).value: f
            for f in collect(module, lambda op: op.name == "func.func" and MARK in op.attributes)
        }
        calls = collect(module, lambda op: op.name == "func.call" and op.opview.callee.value in marked)
        for count, call in enumerate(calls):
            types = [v.type for v in call.operands] + [call.results[0].type]
            if not all(isinstance(t, ir.MemRefType) and identity_layout(t) for t in types):
                continue  # the bufferized body stays: correct, if slower
            mark = ir.DictAttr(marked[call.opview.callee.value].attributes[MARK])
            kind, name = ir.StringAttr(mark["kind"]).value, f"versa_gpu_{count}_kernel"
            text = kernel_text(
                name, kind, list(ir.MemRefType(types[0]).shape), ir.IntegerAttr(mark["lead"]).value,
                ir.FloatAttr(mark["epsilon"]).value, self.block,
            )  # fmt: skip
            define(module, text)
            with ir.InsertionPoint(call), call.location:
                result = memref.AllocOp(ir.MemRefType(types[-1]), [], []).result
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), [*call.operands, result])
            call.results[0].replace_all_uses_with(result)
            call.erase()
