"""versa-gpu-map: put the loop nests of bufferized host functions onto GPU threads.

After `convert-linalg-to-parallel-loops`, every linalg op is one `scf.parallel` over its
parallel dimensions (reductions stay `scf.for` loops inside). Each becomes one `gpu.launch`
over a flattened 1-D index space: thread `t` of block `b` takes element `b * block + t`,
delinearized row-major in the order its stores lay the loop dimensions out in memory (the
stored buffer's strides, largest first), so neighbouring threads write neighbouring elements
(coalesced accesses) whatever the rank, and a guard drops the tail. The order matters for
named ops whose loops do not follow their output's layout: `linalg.depthwise_conv_2d_nchw_chw`
iterates (n, oh, ow, c) over an NCHW output, and in loop order neighbouring threads would
write (and read) a whole channel plane apart. Upstream's `gpu-map-parallel-loops` maps each
dimension to one hardware id instead, which leaves loops of rank > 3 partly serial and untiled
loops on the host. What is neither a loop nor a host op (a 0-d reduction's `scf.for`, a scalar
store) runs in a single-thread launch: host code must not touch device memory.

    scf.parallel (%i, %j) = (0, 0) to (64, 100) step (1, 1) { body(%i, %j) }
  → gpu.launch blocks(25) threads(256) { %l = bx * 256 + tx; scf.if %l < 6400 { body(%l / 100, %l % 100) } }
"""

import math
from dataclasses import dataclass

from versa.mlir import arith, ir, scf

from ..common.base import Pass, PassError
from .kernels.launch import delinearize, index, launch

# Ops that stay on the host: buffers, views of them, constants and the kernels' launches.
_HOST_OPS = {
    "arith.constant",
    "func.return",
    "memref.alloc",
    "memref.dealloc",
    "memref.copy",
    "memref.cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.get_global",
    "memref.reinterpret_cast",
    "memref.subview",
}


def _constant(value: ir.Value) -> int:
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
        raise PassError("GPU loops need static bounds (a dynamic loop bound was found)", value.location)
    return ir.IntegerAttr(owner.attributes["value"]).value


def _loop_dim(value: ir.Value, body: ir.Block) -> int | None:
    """The loop dimension `value` is, if it is one of the loop's induction variables."""
    if isinstance(value, ir.BlockArgument) and value.owner == body:
        return value.arg_number
    return None


def _stores(op: ir.Operation) -> list[ir.Operation]:
    found = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == "memref.store":
                    found.append(inner)
                found.extend(_stores(inner))
    return found


def _store_order(store: ir.Operation, body: ir.Block, rank: int) -> tuple[int, ...] | None:
    """The loop dims outermost first as `store` lays them out (strides decreasing, ties in
    index order), if it indexes the buffer with each induction variable once, else None."""
    memref = ir.MemRefType(store.operands[1].type)
    strides, _ = memref.get_strides_and_offset()
    if ir.ShapedType.get_dynamic_stride_or_offset() in strides:
        return None
    dims = {}  # loop dim -> (stride, position) of the buffer dim it indexes
    for position, value in enumerate(list(store.operands)[2:]):
        dim = _loop_dim(value, body)
        if dim is not None:
            if dim in dims:
                return None
            dims[dim] = (strides[position], position)
    if len(dims) != rank:
        return None
    return tuple(sorted(dims, key=lambda d: (-dims[d][0], dims[d][1])))


def thread_order(loop: ir.Operation) -> tuple[int, ...]:
    """The order of `loop`'s dims (outermost first) for the thread index to delinearize in:
    the one all its stores that index with every induction variable agree on, else the loop's."""
    body = loop.regions[0].blocks[0]
    rank = len(body.arguments)
    orders = {_store_order(s, body, rank) for s in _stores(loop)} - {None}
    return orders.pop() if len(orders) == 1 else tuple(range(rank))


def _move_into(ops: list[ir.Operation], before: ir.Operation) -> None:
    for op in ops:
        op.move_before(before)


@dataclass(frozen=True)
class VersaGpuMap(Pass):
    name = "versa-gpu-map"
    summary = "Map host loop nests onto GPU blocks and threads (one gpu.launch per nest)"
    block: int = 256  # threads per block

    def run(self, module: ir.Operation) -> None:
        if self.block < 1 or self.block > 1024:
            raise PassError(f"'versa-gpu-map' block {self.block} is not in 1..1024")
        for op in module.regions[0].blocks[0].operations:
            if op.operation.name == "func.func" and len(op.regions[0].blocks):
                self._map_function(op.regions[0].blocks[0])

    def _map_function(self, block: ir.Block) -> None:
        serial: list[ir.Operation] = []
        for op in list(block.operations):
            op = op.operation
            if op.name in _HOST_OPS or op.name.startswith("gpu."):
                self._single_thread(serial)
                serial = []
            elif op.name == "scf.parallel":
                self._single_thread(serial)
                serial = []
                self._parallel(op)
            else:
                serial.append(op)
        self._single_thread(serial)

    def _single_thread(self, ops: list[ir.Operation]) -> None:
        """Ops with no parallel loop (0-d results, full reductions) as a one-thread kernel."""
        if not ops:
            return
        for op in ops:
            for result in op.results:
                for use in result.uses:
                    if not any(use.owner == other for other in ops):
                        raise PassError(f"'{op.name}' computes a value the host needs", op.location)
        with ir.InsertionPoint(ops[0]), ops[0].location:
            _, body = launch(1, 1)
        _move_into(ops, body.operations[len(body.operations) - 1])

    def _parallel(self, loop: ir.Operation) -> None:
        if len(loop.results):
            raise PassError("scf.parallel with reductions cannot be mapped to GPU threads", loop.location)
        view = loop.opview
        lows = [_constant(v) for v in view.lowerBound]
        highs = [_constant(v) for v in view.upperBound]
        steps = [_constant(v) for v in view.step]
        trips = [max(0, -(-(h - lo) // s)) for lo, h, s in zip(lows, highs, steps, strict=True)]
        total = math.prod(trips)
        if total == 0:
            loop.erase()
            return
        block, order = min(self.block, total), thread_order(loop)
        with ir.InsertionPoint(loop), loop.location:
            _, body = launch(-(-total // block), block)
        with ir.InsertionPoint.at_block_begin(body), loop.location:
            block_id, thread_id = body.arguments[0], body.arguments[3]
            linear = arith.addi(arith.muli(block_id, index(block)), thread_id)
            inside = arith.cmpi(arith.CmpIPredicate.ult, linear, index(total))
            guard = scf.IfOp(inside)
        then = guard.then_block
        with ir.InsertionPoint(then), loop.location:
            yield_op = scf.YieldOp([])
        with ir.InsertionPoint(yield_op), loop.location:
            at: list[ir.Value] = [linear] * len(trips)  # each dim's index, in the stores' order
            for dim, i in zip(order, delinearize(linear, [trips[d] for d in order]), strict=True):
                at[dim] = i
            ivs = [
                arith.addi(arith.muli(i, index(step)), index(low))
                for i, step, low in zip(at, steps, lows, strict=True)
            ]
        loop_body = loop.regions[0].blocks[0]
        for old, new in zip(loop_body.arguments, ivs, strict=True):
            old.replace_all_uses_with(new)
        _move_into(list(loop_body.operations)[:-1], yield_op)
        loop.erase()
