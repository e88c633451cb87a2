"""The reshapes a row kernel (`row_kernels.py`) wraps around its work: the function's tensor
to R rows x N elements and back. Dynamic dims (None in a shape) take their extent from the
SSA names in `dims` where an `expand_shape` needs it; the collapsed types say `?`."""

from .kernel_text import Size, dim


def _type(shape: list[int | None], element: str) -> str:
    return f"tensor<{'x'.join('?' if d is None else str(d) for d in shape)}x{element}>"


def reshapes(
    shape: list[int | None],
    lead: int,
    rows: Size,
    length: Size,
    element: str = "f32",
    dims: dict[int, str] | None = None,
) -> tuple[list[str], list[str]]:
    """Ops (templates with `{}` for the operand) taking the function's tensor to rows x length
    and back: collapse the `lead` leading and the other axes, or add a unit row axis. `dims`:
    the extent of each dynamic dim of `shape` (an SSA index name)."""
    full = _type(shape, element)
    mat = f"tensor<{dim(rows)}x{dim(length)}x{element}>"
    sizes = ", ".join(str(d) if d is not None else (dims or {})[i] for i, d in enumerate(shape))
    if lead and len(shape) - lead:
        if len(shape) == 2:
            return [], []
        groups = f"[{list(range(lead))}, {list(range(lead, len(shape)))}]"
        return (
            [f"tensor.collapse_shape {{}} {groups} : {full} into {mat}"],
            [f"tensor.expand_shape {{}} {groups} output_shape [{sizes}] : {mat} into {full}"],
        )
    flat = f"tensor<{dim(length)}x{element}>"
    axes = list(range(len(shape)))
    to_flat = [] if len(shape) == 1 else [f"tensor.collapse_shape {{}} [{axes}] : {full} into {flat}"]
    from_flat = (
        []
        if len(shape) == 1
        else [f"tensor.expand_shape {{}} [{axes}] output_shape [{sizes}] : {flat} into {full}"]
    )
    return (
        [*to_flat, f"tensor.expand_shape {{}} [[0, 1]] output_shape [1, {length}] : {flat} into {mat}"],
        [f"tensor.collapse_shape {{}} [[0, 1]] : {mat} into {flat}", *from_flat],
    )
