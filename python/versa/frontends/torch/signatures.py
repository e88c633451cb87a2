"""The keys `CompiledModule` finds its compiled functions by: the inputs' signature (shapes,
dtypes, other values), less the dims an export with `dynamic_shapes` left dynamic, which any
size fits; and its quick form for flat tensor calls."""

import numpy as np
import torch
from torch.utils import _pytree as pytree


def signature(leaves: list, dynamic: tuple[frozenset, ...] | None = None) -> tuple:
    """Shapes and dtypes (torch and NumPy spell them alike here) and the non-tensor values;
    `dynamic`: per leaf, the dims left out (None), which any size fits."""
    return tuple(
        (_shape(x.shape, dynamic, i), str(x.dtype).removeprefix("torch."))
        if hasattr(x, "shape")
        else ("const", repr(x))
        for i, x in enumerate(leaves)
    )


def _shape(shape, dynamic: tuple[frozenset, ...] | None, leaf: int) -> tuple:
    if not dynamic or leaf >= len(dynamic) or not dynamic[leaf]:
        return tuple(shape)
    return tuple(None if d in dynamic[leaf] else n for d, n in enumerate(shape))


def dynamic_dims(program: torch.export.ExportedProgram) -> tuple[frozenset, ...] | None:
    """Per user input of the export (its flattened inputs, in order), the dims it left
    symbolic; None when it left none."""
    nodes = {n.name: n for n in program.graph.find_nodes(op="placeholder")}
    dims = tuple(
        frozenset(
            d
            for d, size in enumerate(getattr(nodes[name].meta.get("val"), "shape", ()))
            if isinstance(size, torch.SymInt)
        )
        for name in program.graph_signature.user_inputs
    )
    return dims if any(dims) else None


def quick_key(args: tuple, dynamic: tuple[frozenset, ...] | None = None) -> tuple | None:
    """A key of flat tensor arguments from their type, shape and dtype objects, without
    `signature`'s strings (NumPy and torch arguments of one signature get different quick
    keys for the same compiled function); None when any argument is not a tensor or array.
    `dynamic`: the dims left out, per argument (one key for every size there)."""
    try:
        if dynamic:
            return tuple((type(a), _shape(a.shape, dynamic, i), a.dtype) for i, a in enumerate(args))
        return tuple((type(a), a.shape, a.dtype) for a in args)
    except AttributeError:
        return None


def flat_leaves(args: tuple) -> list:
    """`pytree.tree_leaves(args)`, without its cost (~5 µs a call) where the args are flat."""
    if all(isinstance(a, torch.Tensor | np.ndarray) for a in args):
        return list(args)
    return pytree.tree_leaves(args)
