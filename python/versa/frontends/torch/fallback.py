"""The linalg fallback: a torch op with no versa rule is lowered by torch-mlir itself.

The op is copied into the versa function as it is, its tensor operands wrapped in
`torch_c.from_builtin_tensor` and its results in `torch_c.to_builtin_tensor`, its scalar and
list operands copied with their defining ops. After the conversion, torch-mlir's own
`convert-torch-to-linalg` family lowers those ops in place and the casts cancel, so the module
is versa + linalg, which `lower-to-llvm` takes. It still compiles: never eager. Ops torch-mlir
cannot lower either (sort, scatter: `tm_tensor`, which our pipeline cannot bufferize) stay and
are reported as unsupported. Nor are ops whose torch-mlir lowering reads out of bounds on
input data (`UNSAFE`): a rule converts them, or they run eagerly. Only tensors of a Versa type
cross into the copy: an operand made by an op with a tensor result (a complex `aten.zeros`) is
never copied with it, as torch-mlir's lowering crashes the process on complex tensors.
"""

from versa.mlir import PassManager, arith, ir, tensor

from . import types

_STEPS = (
    "canonicalize",
    "torch-decompose-complex-ops",  # e.g. upsample_nearest2d.vec into the form the lowering takes
    "canonicalize",
    "convert-torch-to-linalg",
    "convert-torch-to-scf",
    "convert-torch-to-arith",
    "convert-torch-to-tensor",
    "canonicalize",  # drops the scalar and list ops the lowered ops used
)
LOWER = f"builtin.module(func.func({', '.join(_STEPS)}))"
# the torch_c casts cancel pairwise
FINALIZE = "builtin.module(func.func(torch-finalizing-backend-type-conversion), canonicalize, cse)"

# ops whose torch-mlir lowering reads memory that the input data picks, unchecked (a segfault
# at an index or grid value of 1e9): grid_sampler also ignores padding_mode and reads outside the
# image for a grid point outside [-1, 1] (rules/grid_sample.py converts the forms it covers);
# index.Tensor reaches here only in the forms the rule in rules/nn.py refuses (index tensors on
# axes that are not adjacent). And instance_norm, whose decomposition normalises with the input's
# statistics even when told to use the running ones, and takes the `None` weight of an
# InstanceNorm without affine for a tensor (the process aborts: "SmallVector unable to grow"):
# rules/norm.py converts every well-formed use
UNSAFE = frozenset(
    {
        "torch.aten.instance_norm",
        "torch.aten.grid_sampler",
        "torch.aten.grid_sampler_2d",
        "torch.aten.grid_sampler_2d_backward",
        "torch.aten.index.Tensor",
        "torch.aten.index.Tensor_hacked_twin",
        "torch.aten._unsafe_index.Tensor",
    }
)


# ops torch-mlir lowers under another name (the operator spellings `a << b` of shifts by a
# tensor): name -> (the name it lowers as, operand positions of a number to make a 0-d tensor)
ALIASES = {
    "torch.aten.__lshift__.Tensor": ("torch.aten.bitwise_left_shift.Tensor", ()),
    "torch.aten.__rshift__.Tensor": ("torch.aten.bitwise_right_shift.Tensor", ()),
    "torch.aten.bitwise_left_shift.Scalar_Tensor": ("torch.aten.bitwise_left_shift.Tensor", (0,)),
    "torch.aten.bitwise_right_shift.Scalar_Tensor": ("torch.aten.bitwise_right_shift.Tensor", (0,)),
}


class CannotCopy(Exception):
    """The op cannot be handed to torch-mlir (a region, a non-tensor result, an unknown operand)."""


class Fallback:
    """Copies of torch ops (and what they need) inside the versa function being built."""

    def __init__(self) -> None:
        self.torch_values: dict[ir.Value, ir.Value] = {}
        self.copied: list[str] = []

    def copy(self, op: ir.OpView, env: dict) -> list[ir.Value]:
        """`op` copied at the current insertion point; its results as builtin tensors."""
        if op.operation.regions and any(r.blocks for r in op.operation.regions):
            raise CannotCopy("an op with regions")
        if op.operation.name in UNSAFE:
            raise CannotCopy("torch-mlir's lowering reads out of bounds on some inputs")
        results = [types.parse_tensor_type(r.type) for r in op.results]
        if any(t is None or t.element not in types.SUPPORTED for t in results):
            raise CannotCopy("a result that is not a static tensor of a supported type")
        operands = [self._torch_value(v, env) for v in op.operands]
        name, attributes = op.operation.name, _attributes(op.operation)
        if name == "torch.operator" and ir.StringAttr(attributes["name"]).value in ALIASES:
            name, numbers = ALIASES[ir.StringAttr(attributes.pop("name")).value]
            operands = [_as_tensor(v) if i in numbers else v for i, v in enumerate(operands)]
        copy = ir.Operation.create(
            name,
            results=[r.type for r in op.results],
            operands=operands,
            attributes=attributes,
            loc=op.location,
        )
        self.copied.append(name)
        return [
            _cast("torch_c.to_builtin_tensor", r, t.mlir())
            for r, t in zip(copy.results, results, strict=True)
        ]

    def _torch_value(self, value: ir.Value, env: dict) -> ir.Value:
        if value in self.torch_values:
            return self.torch_values[value]
        if types.parse_tensor_type(value.type) is not None:
            builtin = env.get(value)
            if not isinstance(builtin, ir.Value):  # unconverted: a placeholder, so the op is still tried
                builtin = placeholder(types.parse_tensor_type(value.type))
            made = _cast("torch_c.from_builtin_tensor", builtin, value.type)
        elif isinstance(value, ir.OpResult) and _scalar_maker(value.owner.operation):
            owner = value.owner.operation  # a constant or a list: copy it and what it uses
            made = ir.Operation.create(
                owner.name,
                results=[r.type for r in owner.results],
                operands=[self._torch_value(v, env) for v in owner.operands],
                attributes=_attributes(owner),
                loc=owner.location,
            ).results[value.result_number]
        else:
            raise CannotCopy(f"an operand of type {value.type}")
        self.torch_values[value] = made
        return made


def _scalar_maker(op: ir.Operation) -> bool:
    """An op without regions or tensor results (a constant, a list): safe to copy as it is."""
    return not op.regions and not any(str(r.type).startswith(_TENSOR_TYPES) for r in op.results)


_TENSOR_TYPES = ("!torch.vtensor", "!torch.tensor")


def placeholder(t: types.TensorType) -> ir.Value:
    """A `tensor.empty` standing for a value that was not converted: the module stays valid
    IR, so torch-mlir can still be asked about every other op before the error is raised."""
    if t.element not in types.SUPPORTED:
        raise CannotCopy(f"an operand of type {t}")
    sizes = [_one() if d is None else d for d in t.shape]  # a dynamic dim: any size will do
    return tensor.EmptyOp(sizes, types.element_type(t.element)).result


def _one() -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), 1).result


def _as_tensor(number: ir.Value) -> ir.Value:
    """A torch number as a 0-d tensor (`prim.NumToTensor`), which broadcasts like the number."""
    element = {"!torch.int": "si64", "!torch.float": "f64", "!torch.bool": "i1"}.get(str(number.type))
    if element is None:
        raise CannotCopy(f"an operand of type {number.type}")
    result = ir.Type.parse(f"!torch.vtensor<[],{element}>")
    return ir.Operation.create("torch.prim.NumToTensor.Scalar", results=[result], operands=[number]).result


def _cast(name: str, value: ir.Value, to: ir.Type) -> ir.Value:
    return ir.Operation.create(name, results=[to], operands=[value]).result


def load_torch_c(context: ir.Context) -> None:
    """`torch_c` is loaded only once a pass that uses it has run: run one on an empty module."""
    with context:
        empty = ir.Module.create(ir.Location.unknown())
        PassManager.parse("builtin.module(torch-func-backend-type-conversion)").run(empty.operation)


def lower(module: ir.Module) -> list[ir.Operation]:
    """Lower the copied torch ops with torch-mlir; the torch ops that remain (not lowerable)."""
    with module.context:
        PassManager.parse(LOWER).run(module.operation)
    remaining: list[ir.Operation] = []

    def find(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("torch.") and not op.name.startswith(("torch.constant.", "torch.prim.List")):
            remaining.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    if not remaining:
        with module.context:
            PassManager.parse(FINALIZE).run(module.operation)
    return remaining


def _attributes(op: ir.Operation) -> dict[str, ir.Attribute]:
    return {name: op.attributes[name] for name in op.attributes}
