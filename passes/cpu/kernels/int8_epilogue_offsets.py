"""The integer constants an INT8 epilogue adds to the accumulator, for the kernel's start values.

The generic after a quantized contraction (lower_qcontract.Parts) begins with per-channel i32
terms on the raw sum: the input zero point's column term (acc - za·ΣW) and the bias (+ b), then
the float requantization. The dot-product kernels start each accumulator from a packed constant
per filter (int8_pack.py: ±128·ΣW), so these terms can start there too: one vector add less per
term and output vector (two on most PT2E convs, of ~10 once the clamps are single instructions,
int8_epilogue_facts.py), and their inputs are no kernel arguments. Exact: i32 sums wrap modulo
2^32 in any order. Absorbed: `addi`/`subi` of the accumulator (or of an absorbed result) and an
integer constant read per filter (its other dims of extent 1) or once, each value of the chain read
by its next op alone; `c - acc` negates and stays.
"""

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir


def _constant(value: ir.Value) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    array = elements_to_numpy(owner.operation.attributes["value"])
    return array if array.dtype.kind in "iu" else None


def _filter_at(results, dims: tuple[str, ...]) -> int:
    """The position of the FILTER dim among a map's results."""
    return next(
        k for k, e in enumerate(results) if isinstance(e, ir.AffineDimExpr) and dims[e.position] == "FILTER"
    )


def offsets(generic: ir.Operation, operand: int, dims: tuple[str, ...], filters: int):
    """(the positions of the body ops the start values can hold, their sum per filter [filters]
    as int64) for `generic` reading the accumulator at `operand` (`dims`: the kernel's index of
    each loop dim, FILTER the accumulator's filter)."""
    block = generic.regions[0].blocks[0]
    maps = generic.attributes["indexing_maps"]
    per_filter: dict[ir.Value, np.ndarray] = {}
    for i, (arg, value) in enumerate(zip(block.arguments, generic.operands, strict=False)):
        array = _constant(value) if i != operand else None
        if array is None:
            continue
        results = ir.AffineMapAttr(maps[i]).value.results
        read = [dims[e.position] for e in results if isinstance(e, ir.AffineDimExpr)]
        if array.size == 1 and "FILTER" not in read:  # one value (dims of extent 1 read at 0)
            per_filter[arg] = np.full(filters, int(array.reshape(-1)[0]), np.int64)
        elif read.count("FILTER") == 1 and array.size == array.shape[_filter_at(results, dims)] <= filters:
            per_filter[arg] = np.pad(array.reshape(-1).astype(np.int64), (0, filters - array.size))
    chain, total, absorbed = block.arguments[operand], np.zeros(filters, np.int64), []
    for position, op in enumerate(list(block.operations)[:-1]):
        op = op.operation
        ins = list(op.operands)
        if chain not in ins:
            continue
        if len(list(chain.uses)) != 1 or op.name not in ("arith.addi", "arith.subi") or len(ins) != 2:
            break  # read raw elsewhere too, or by an op the start values cannot hold
        other = ins[1 - ins.index(chain)]
        if other not in per_filter or (op.name == "arith.subi" and ins[0] != chain):
            break  # a term read at run time, or c - acc
        total += per_filter[other] if op.name == "arith.addi" else -per_filter[other]
        chain = op.results[0]
        absorbed.append(position)
    return tuple(absorbed), total
