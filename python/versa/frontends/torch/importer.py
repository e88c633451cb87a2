"""PyTorch → torch dialect, through torch-mlir's FX importer, in a context that also has versa.

High-level ops are kept (`BACKEND_LEGAL_OPS`, no decomposition table): linear, conv, norms,
softmax and attention arrive whole, which is what the versa conversion and fusion want. Weights
become `DenseElementsAttr`s built from each tensor's buffer (`_WeightHooks`) instead of torch-mlir's
default `tolist()` round trip, so large models import in seconds.
"""

import contextlib
import warnings
from collections.abc import Sequence

import torch
from torch._subclasses.fake_tensor import FakeTensor, unset_fake_temporarily
from torch.export.graph_signature import InputKind, InputSpec, OutputKind
from torch_mlir import fx
from torch_mlir.compiler_utils import TorchMlirCompilerError
from torch_mlir.dialects import torch as torch_dialect
from torch_mlir.extras.fx_importer import FxImporterHooks

from versa.context import make_context
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir

from .decompositions import (
    instance_norm_running_stats,
    meshgrid,
    mixed_dtypes,
    threshold_backward_mixed,
    unroll_recurrent,
    updates_running_stats,
)
from .fallback import load_torch_c
from .locations import source_importer
from .sizes import read_from_operands
from .symbolic import annotate
from .types import TORCH_DTYPES, TORCH_ELEMENT

# What torch-mlir's importer raises on a graph it cannot express: its own errors, and asserts and
# NotImplementedError on argument forms it lacks (a list holding None for `Tensor?[]`).
IMPORT_ERRORS = (ir.MLIRError, TorchMlirCompilerError, AssertionError, NotImplementedError)

BACKEND_LEGAL_OPS = [
    "aten.linear",
    "aten.conv1d",
    "aten.conv2d",
    "aten.conv_transpose1d",
    "aten.conv_transpose2d.input",
    "aten.batch_norm",
    "aten.layer_norm",
    "aten.softmax.int",
    "aten.log_softmax.int",
    "aten.gelu",
    "aten.scaled_dot_product_attention",
    "aten.max_pool2d",
    "aten.avg_pool2d",
    "aten.adaptive_avg_pool2d",
    "aten.flatten.using_ints",
    "aten.matmul",
    "aten.silu",
    "aten.hardswish",
    "aten.hardsigmoid",
    "aten.relu6",
    "aten.hardtanh",
    "aten.mish",
    "aten.embedding",
    "aten.dropout",
    "aten.group_norm",
    "aten.instance_norm",
    "aten.topk",  # rules/sorting.py: k passes of max; decomposed, it was a full sort and a slice
    "aten.einsum",  # rules/einsum.py (torch-mlir's decomposition sums a shared index too early)
]


class _WeightHooks(FxImporterHooks):
    """Literal tensors as dense elements straight from the tensor's buffer (no Python lists)."""

    def resolve_literal(self, gni, literal, info):
        if not isinstance(literal, torch.Tensor) or literal.dtype not in TORCH_DTYPES:
            return None
        if literal.dtype == torch.bfloat16 or literal.device.type != "cpu":
            return None
        if isinstance(literal, FakeTensor):
            return None
        with unset_fake_temporarily():  # torch.compile imports inside FakeTensorMode
            array = literal.detach().contiguous().numpy()
        element = TORCH_DTYPES[literal.dtype]
        dims = ",".join(str(d) for d in array.shape)
        result = ir.Type.parse(f"!torch.vtensor<[{dims}],{TORCH_ELEMENT[element]}>")
        unsigned = {"type": ir.IntegerType.get_unsigned(8)} if element == "ui8" else {}
        attr = ir.DenseElementsAttr.get(array, signless=True, **unsigned)
        return ir.Operation.create(
            "torch.vtensor.literal", results=[result], attributes={"value": attr}
        ).result


def make_torch_context() -> ir.Context:
    """A context with the versa dialect loaded and the torch dialects registered (torch_c loaded)."""
    context = make_context()
    torch_dialect.register_dialect(context)
    load_torch_c(context)
    return context


def import_program(
    model, example_inputs: Sequence, context: ir.Context, dynamic_shapes=None
) -> tuple[ir.Module, object]:
    """`model` (an nn.Module or ExportedProgram) as a torch-dialect module, with its export (the
    dims `dynamic_shapes` names left dynamic: `symbolic.annotate`). Weights are literals, except
    the buffers the forward mutates: those lead the function's arguments, and their new values
    (with mutated inputs') lead its results (`state.State`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning, UserWarning))
            if isinstance(model, torch.export.ExportedProgram):
                program = model
            else:
                program = torch.export.export(
                    model, tuple(example_inputs), dynamic_shapes=dynamic_shapes, strict=False
                )
            program = unroll_recurrent(functional(program))
            read_from_operands(program.graph)
            signature = program.graph_signature
            weights = {*signature.inputs_to_parameters, *signature.inputs_to_buffers}
            weights |= set(getattr(signature, "inputs_to_lifted_tensor_constants", {}))
            _copied_in_lists(
                program.graph, [n for n in program.graph.nodes if n.op == "placeholder" and n.name in weights]
            )
            with _constant_buffers(program), _mutated_state_as_inputs(program):
                module = fx.export_and_import(
                    program,
                    output_type="raw",
                    decomposition_table={},
                    backend_legal_ops=BACKEND_LEGAL_OPS,
                    fx_importer=source_importer(context, _WeightHooks()),
                )
            annotate(module, program.graph, program.range_constraints)
    except IMPORT_ERRORS as err:
        raise _import_error(err) from None
    return module, program


def functional(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """`program` without in-place ops. torch.export's (training) IR keeps them: nn.ReLU(inplace=True)
    is relu_, `x[:, 0] = 0` is select + fill_, a tensor built in forward is lift_fresh_copy +
    detach_, nn.MultiheadAttention's key_padding_mask is masked_fill_; the torch dialect has no
    value semantics for them. An empty decomposition table only functionalizes: conv2d, linear,
    layer_norm, attention... stay whole (batch_norm becomes _native_batch_norm_legit_no_training).
    The same retrace inlines `torch.autocast` regions (a `wrap_with_autocast` higher-order op in
    the training IR, which no rule takes) into the casts they stand for, and `torch.no_grad()`
    regions (`wrap_with_set_grad_enabled`) into their ops, and decomposes the ops
    of `RETRACED` (meshgrid: a list of tensors, which the importer cannot return; an instance
    norm that updates its running statistics, a mutation hidden inside the op)."""
    retrace = any(
        (isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable)
        or node.target in _REGIONS
        or (node.target in RETRACED and _WHEN.get(node.target, _always)(node))
        for node in program.graph.nodes
        if node.op == "call_function"
    )
    return program.run_decompositions(RETRACED) if retrace else program


# Higher-order regions of the training IR that the retrace inlines: `torch.autocast` blocks
# (their casts), and `with torch.no_grad()` / `torch.set_grad_enabled(False)` blocks in forward
# (rotary embeddings in Llama, Mistral, Marian): gradient mode means nothing to a compiled forward
_REGIONS = {
    op
    for op in (
        getattr(torch.ops.higher_order, "wrap_with_autocast", None),
        getattr(torch.ops.higher_order, "wrap_with_set_grad_enabled", None),
    )
    if op is not None
}


_INSTANCE_NORM = torch.ops.aten.instance_norm.default
_THRESHOLD_BACKWARD = torch.ops.aten.threshold_backward.default
RETRACED = {
    torch.ops.aten.meshgrid.default: meshgrid,
    torch.ops.aten.meshgrid.indexing: meshgrid,
    _INSTANCE_NORM: instance_norm_running_stats,
    _THRESHOLD_BACKWARD: threshold_backward_mixed,
}


def _always(node: torch.fx.Node) -> bool:
    return True


# when an op of RETRACED makes the program retraced (default: always)
_WHEN = {
    _INSTANCE_NORM: lambda node: updates_running_stats(node.args),
    _THRESHOLD_BACKWARD: mixed_dtypes,
}


@contextlib.contextmanager
def _constant_buffers(program: torch.export.ExportedProgram):
    """Non-persistent buffers (`register_buffer(..., persistent=False)`: rotary `inv_freq`,
    position ids) live in `program.constants`; torch-mlir's import_frozen_program looks them up in
    `state_dict` only ("Could not find state mapping for buffer"). Lent to it for the import."""
    state = program.state_dict
    lent = {
        name: program.constants[name]
        for name in program.graph_signature.inputs_to_buffers.values()
        if name not in state and name in getattr(program, "constants", {})
    }
    state.update(lent)
    try:
        yield
    finally:
        for name in lent:
            state.pop(name, None)


STATE_INPUTS = (InputKind.BUFFER, InputKind.PARAMETER)
STATE_MUTATIONS = (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION)


def mutated_state(program: torch.export.ExportedProgram) -> set[str]:
    """The names of the buffers (and parameters) the program writes."""
    return {s.target for s in program.graph_signature.output_specs if s.kind in STATE_MUTATIONS}


@contextlib.contextmanager
def _mutated_state_as_inputs(program: torch.export.ExportedProgram):
    """The mutated buffers marked user inputs while the program is imported: torch-mlir's frozen
    import then keeps them function arguments, read at each call, not literals frozen at the
    first (`self.steps += 1` would give 1 forever)."""
    specs = program.graph_signature.input_specs
    mutated = mutated_state(program)
    kept = list(specs)
    specs[:] = [
        InputSpec(InputKind.USER_INPUT, s.arg, None) if s.kind in STATE_INPUTS and s.target in mutated else s
        for s in kept
    ]
    try:
        yield
    finally:
        specs[:] = kept


def _import_error(err: Exception) -> CompileError:
    message = str(err).strip().split("For Torch-MLIR developers")[0].strip()
    return CompileError([Diagnostic("error", f"torch-mlir could not import the graph: {message}")])


def import_graph(graph_module: torch.fx.GraphModule, context: ir.Context, ranges=None) -> ir.Module:
    """An ATen-level FX graph (torch.compile, aot_autograd) as a torch-dialect module. A copy is
    imported: torch-mlir rewrites nodes in place (`_unsafe_index_put` becomes its hacked_twin,
    which eager cannot call with None indices), and the graph may yet run eagerly. Tensor
    attributes (frozen weights, constants made in forward) become literals. `ranges`: the
    dynamic dims' ranges (a partition of an export's graph: its `range_constraints`; by default
    the ShapeEnv's, which is what Dynamo guards)."""
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(graph_module.graph, {}))
    read_from_operands(graph)
    _inline_attributes(graph, graph_module)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning, UserWarning))
            module = fx.stateless_fx_import(
                torch.fx.GraphModule(graph_module, graph),
                output_type="raw",
                fx_importer=source_importer(context, _WeightHooks()),
                backend_legal_ops=BACKEND_LEGAL_OPS,
            )
            annotate(module, graph, ranges)
            return module
    except IMPORT_ERRORS as err:
        raise _import_error(err) from None


def _inline_attributes(graph: torch.fx.Graph, owner: torch.nn.Module) -> None:
    """Each `get_attr` of a tensor replaced by the tensor itself, which the importer takes as a
    literal (its stateless import has no `get_attr`)."""
    _copied_in_lists(graph, graph.find_nodes(op="get_attr"))
    for node in graph.find_nodes(op="get_attr"):
        value = owner
        for name in node.target.split("."):
            value = getattr(value, name)
        if isinstance(value, torch.Tensor):
            node.replace_all_uses_with(value)
            graph.erase_node(node)


def _copied_in_lists(graph: torch.fx.Graph, weights: Sequence[torch.fx.Node]) -> None:
    """Weights the importer makes literals, where a list argument holds them (torch.cat([x,
    self.param]), stack, einsum's operands), passed through an `aten.clone` node: torch-mlir
    imports a `Tensor[]` of graph values only ("Heterogeneous lists are not supported")."""
    for weight in weights:
        users = [
            u
            for u in weight.users
            if any(isinstance(a, list | tuple) and weight in a for a in (*u.args, *u.kwargs.values()))
        ]
        if not users:
            continue
        if weight.op == "placeholder":  # placeholders stay first (after the last one)
            where = graph.inserting_before(next(n for n in graph.nodes if n.op != "placeholder"))
        else:
            where = graph.inserting_after(weight)
        with where:
            copy = graph.call_function(torch.ops.aten.clone.default, (weight,))
        copy.meta = dict(weight.meta)
        for user in users:
            user.args = tuple(
                [copy if v is weight else v for v in a] if isinstance(a, list | tuple) else a
                for a in user.args
            )
            user.kwargs = {
                k: ([copy if v is weight else v for v in a] if isinstance(a, list | tuple) else a)
                for k, a in user.kwargs.items()
            }
