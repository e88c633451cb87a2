"""Imported ONNX files by content (cache/imports.py): a second import of the same file reads
the module back (locations included), a changed file or other input shapes import again."""

import numpy as np
import onnx
import pytest
import versa
from onnx import TensorProto, helper
from versa.cpu.runtime import JitFunction


def _model(path, scale: float) -> str:
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "s"], ["y"], name="scale_node"),
            helper.make_node("Relu", ["y"], ["z"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor("s", TensorProto.FLOAT, [4], [scale] * 4)],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VERSA_LOG", "info")
    return tmp_path


def test_a_file_imported_again_comes_from_the_cache(cache_on, caplog):
    path = _model(cache_on / "m.onnx", 2.0)
    first = versa.import_onnx(path, {"x": [3, 4]})
    with caplog.at_level("INFO", logger="versa.cache"):
        second = versa.import_onnx(path, {"x": [3, 4]})
    assert "import cache hit" in caplog.text
    assert str(second) == str(first)
    assert "scale_node" in second.operation.get_asm(enable_debug_info=True)  # names kept
    x = np.arange(-6, 6, dtype=np.float32).reshape(3, 4)
    out = JitFunction(second, pipeline="lower-to-llvm", cache=False)(x)[0]
    np.testing.assert_array_equal(out, np.maximum(2 * x, 0))


def test_other_shapes_or_content_import_again(cache_on, caplog):
    path = _model(cache_on / "m.onnx", 2.0)
    versa.import_onnx(path, {"x": [3, 4]})
    with caplog.at_level("INFO", logger="versa.cache"):
        other = versa.import_onnx(path, {"x": [5, 4]})
        assert "import cache hit" not in caplog.text
        _model(cache_on / "m.onnx", 3.0)  # the same path, other weights
        changed = versa.import_onnx(path, {"x": [3, 4]})
        assert "import cache hit" not in caplog.text
    assert "5x4xf32" in str(other)
    x = np.ones((3, 4), np.float32)
    out = JitFunction(changed, pipeline="lower-to-llvm", cache=False)(x)[0]
    np.testing.assert_array_equal(out, 3 * x)
