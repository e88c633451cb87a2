"""Sizes read from the tensor that uses them (issue 46): a graph rewrite before the import.

torch.export and Dynamo compute a dynamic size once (`b, t = input_ids.shape`) and pass it to
every op that needs it: `linear(...).view(b, t, h, d)` reads its sizes from `input_ids`. The
converter can only relate a size to the tensor it reads (`x.size(0)` of `x`, the view's own
input, is a dim the compiled code has), so each such use of a size node is given its own
`aten.sym_size.int` of the op's first tensor operand with a dim of the same symbolic size,
where there is one. The old size nodes go when no op reads them any more.

The rewrite also makes partitions self-contained: a size read from a partition's own tensor
is computed inside it, so no partition takes or makes a bare size where none is needed.
"""

import torch
from torch.fx import Graph, Node
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

SYM_SIZE = torch.ops.aten.sym_size.int


def is_size(node: Node) -> bool:
    """A call whose value is a size the inputs' shapes give (`sym_size`, arithmetic on sizes)."""
    value = node.meta.get("val")
    return node.op == "call_function" and isinstance(value, torch.SymInt) and not free_unbacked_symbols(value)


def read_from_operands(graph: Graph) -> None:
    """Each size an op takes, read from that op's first tensor operand with a dim that is it."""
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        tensor = next((a for a in node.all_input_nodes if isinstance(a.meta.get("val"), torch.Tensor)), None)
        if tensor is None:
            continue
        dims = {_expr(d): i for i, d in reversed(list(enumerate(tensor.meta["val"].shape)))}
        replaced: dict[Node, Node] = {}

        def local(arg, tensor=tensor, dims=dims, replaced=replaced, node=node):
            if not isinstance(arg, Node) or not is_size(arg) or _expr(arg.meta["val"]) not in dims:
                return arg
            if arg not in replaced:
                with graph.inserting_before(node):
                    replaced[arg] = graph.call_function(SYM_SIZE, (tensor, dims[_expr(arg.meta["val"])]))
                replaced[arg].meta["val"] = arg.meta["val"]
            return replaced[arg]

        if any(is_size(a) for a in node.all_input_nodes):
            node.args = torch.fx.node.map_aggregate(node.args, local)
            node.kwargs = torch.fx.node.map_aggregate(node.kwargs, local)
    for node in reversed(list(graph.nodes)):
        if is_size(node) and not node.users:
            graph.erase_node(node)


def _expr(size) -> object:
    return size.node.expr if isinstance(size, torch.SymInt) else size
