"""ONNX If nodes: torch-mlir's conversion does not take them where the branches differ in rank, and
Versa has no control flow. Exporters test static sizes with one (torch's local_response_norm:
If(Shape(x)[1] == 1) squeezes): once folding makes the condition a constant, the branch taken
replaces the If (`onnx_fold.inline_if`). Against onnx's reference evaluator.
"""

import numpy as np
import onnx
import pytest
import versa
from onnx import helper, numpy_helper
from test_onnx_forms import F32, _matches_reference, _model, _rand
from versa.diagnostics import CompileError


def _if_model(condition: list[onnx.NodeProto], result: str = "y") -> onnx.ModelProto:
    """If(cond, from `condition`): then 2·x + w (`two` the branch's initializer, `w` the outer
    graph's; the branch defines `y`, as the outer graph does by default), else -x; then that + 1."""
    then = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["y"]), helper.make_node("Add", ["y", "w"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F32, [2, 3])],
        initializer=[numpy_helper.from_array(np.array(2.0, np.float32), "two")],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", F32, [2, 3])]
    )
    nodes = [
        *condition,
        helper.make_node("Sin", ["x"], ["w"]),
        helper.make_node("If", ["cond"], ["r"], then_branch=then, else_branch=other),
        helper.make_node("Add", ["r", "one"], [result]),
    ]
    consts = [
        numpy_helper.from_array(np.array(v, t), n)
        for n, v, t in [("one", 1, np.float32), ("i1", 1, np.int64)]
    ]
    return _model(nodes, [("x", F32, [2, 3])], [(result, F32)], initializers=consts)


@pytest.mark.parametrize("size", [3, 4], ids=["then", "else"])
def test_if_of_a_constant_condition_takes_its_branch(size: int) -> None:
    """torch-mlir's conversion does not take If; exporters test static sizes with one (torch's
    local_response_norm): once its condition folds (Shape(x)[1] == size), its branch replaces it."""
    condition = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "i1"], ["c"]),
        helper.make_node("Constant", [], ["size"], value=numpy_helper.from_array(np.array(size, np.int64))),
        helper.make_node("Equal", ["c", "size"], ["cond"]),
    ]
    _matches_reference(_if_model(condition), _rand(2, 3))


def test_if_of_a_runtime_condition_is_named() -> None:
    condition = [
        helper.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
        helper.make_node("Greater", ["sum", "one"], ["cond"]),
    ]
    with pytest.raises(CompileError, match=r"torch\.prim\.If"):
        versa.import_onnx(_if_model(condition, result="out"))
