"""ONNX ScatterElements and ScatterND: torch-mlir's ONNX conversion turns them into torch's
scatter ops, which rules/scatter.py makes one versa.scatter each (no onnx.py code of its own).
Against onnx's reference evaluator, rtol/atol 1e-5 of the output's scale (test_onnx_forms)."""

import numpy as np
import pytest
from onnx import helper
from test_onnx_forms import F32, I64, _matches_reference, _model, _rand

ROWS = np.array([[4], [0], [-2], [0]])  # row 0 twice; -2 is row 4 again


@pytest.mark.parametrize(
    ("op", "attributes", "x", "indices", "updates"),
    [
        ("ScatterElements", {"axis": 1}, (3, 5), np.array([[0, 4], [1, 3], [-1, 2]]), (3, 2)),
        (
            "ScatterElements",
            {"axis": 0, "reduction": "add"},
            (4, 3),
            np.array([[0, 3, 0], [0, 1, 0]]),
            (2, 3),
        ),
        ("ScatterND", {}, (6, 4), np.array([[5], [0], [2]]), (3, 4)),
        ("ScatterND", {"reduction": "add"}, (6, 4), ROWS, (4, 4)),
        (
            "ScatterND",
            {"reduction": "add"},
            (4, 3, 2),
            np.array([[[0, 2], [3, 0]], [[0, 2], [1, 1]]]),
            (2, 2, 2),
        ),
    ],
    ids=["elements", "elements_add", "nd_rows", "nd_rows_add", "nd_two_coordinates_add"],
)
def test_scatter_matches_onnx_reference(op: str, attributes: dict, x, indices, updates) -> None:
    node = helper.make_node(op, ["x", "i", "u"], ["y"], **attributes)
    inputs = [("x", F32, list(x)), ("i", I64, list(indices.shape)), ("u", F32, list(updates))]
    model = _model([node], inputs, [("y", F32)], opset=18)
    _matches_reference(model, _rand(*x), indices.astype(np.int64), _rand(*updates, seed=1))
