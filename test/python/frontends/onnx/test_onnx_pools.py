"""ONNX MaxPool / AveragePool with ceil_mode=1, against torch eager (`onnx_rewrites.pool_ceil_mode`).

torch-mlir's conversion turned an AveragePool's ceil-mode overhang into padding it counted
(count_include_pad kept), so a partial last window was divided by the whole kernel (0.7 off);
a MaxPool kept ceil_mode and failed in torch-mlir's linalg lowering wherever onnx's shape inference
counts a last window that would start in the end padding (torch and onnx's reference drop it).
onnx's reference evaluator is wrong for an AveragePool whose overhang is 2 or more (it moves
half of it to the front), so torch eager is the reference, and onnx's only for uneven pads.
"""

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F
import versa
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from versa.cpu.runtime import JitFunction

F32, I64 = TensorProto.FLOAT, TensorProto.INT64
_PIPELINE = "versa-canonicalize,versa-fuse,lower-to-llvm"


def _pools(shape: list[int], ops: list[tuple[str, dict]], indices: bool = False) -> onnx.ModelProto:
    """One model: each (op, attributes) pools x into its own output y0, y1, ... (with `indices`,
    a MaxPool's indices too: i0, i1, ...)."""
    nodes, outputs = [], []
    for n, (op, attrs) in enumerate(ops):
        names = [f"y{n}", f"i{n}"] if indices and op == "MaxPool" else [f"y{n}"]
        nodes.append(helper.make_node(op, ["x"], names, **attrs))
        outputs += [
            helper.make_tensor_value_info(name, I64 if name[0] == "i" else F32, None) for name in names
        ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, shape)], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    return JitFunction(versa.import_onnx(model), pipeline=_PIPELINE)(x)


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)


# (spatial size, kernel, stride, pad): partial last windows of 1 and 2, a last window that would
# start in the end padding (kernel 1 or 2, stride 3), the exporters' k2 s2 on odd sizes
_CASES = [
    ((7, 9), (2, 2), (2, 2), (0, 0)),
    ((7, 9), (3, 3), (2, 2), (1, 1)),
    ((7, 9), (3, 2), (2, 3), (1, 0)),
    ((6, 5), (3, 2), (2, 3), (1, 0)),
    ((6, 5), (2, 2), (3, 3), (0, 0)),
    ((4, 8), (3, 3), (3, 3), (0, 1)),
    ((6, 5), (1, 3), (2, 2), (0, 1)),
    ((5, 7), (3, 3), (3, 3), (1, 1)),
    ((6, 6), (3, 3), (2, 2), (1, 1)),  # no partial window: ceil_mode changes nothing
]


@pytest.mark.parametrize(("size", "kernel", "stride", "pad"), _CASES)
def test_ceil_mode_pools_match_eager(size: tuple, kernel: tuple, stride: tuple, pad: tuple) -> None:
    """MaxPool, AveragePool with and without count_include_pad, as torch's ceil_mode pools."""
    common = {"kernel_shape": list(kernel), "strides": list(stride), "pads": [*pad, *pad], "ceil_mode": 1}
    ops = [("MaxPool", common), *(("AveragePool", {**common, "count_include_pad": c}) for c in (0, 1))]
    x = _x(2, 3, *size)
    got = _run(_pools([2, 3, *size], ops), x)
    t = torch.from_numpy(x)
    want = [
        F.max_pool2d(t, kernel, stride, pad, ceil_mode=True),
        *(F.avg_pool2d(t, kernel, stride, pad, ceil_mode=True, count_include_pad=c) for c in (False, True)),
    ]
    for name, g, w in zip(("max", "avg", "avg count_include_pad"), got, want, strict=True):
        assert g.shape == tuple(w.shape), name
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize(
    ("size", "kernel", "stride", "pad", "dilation"),
    [((7, 9), (3, 2), (2, 3), (1, 0), (2, 1)), ((8, 6), (2, 3), (3, 2), (1, 1), (2, 2))],
)
def test_ceil_mode_max_pool_indices(
    size: tuple, kernel: tuple, stride: tuple, pad: tuple, dilation: tuple
) -> None:
    """Dilated, with indices: ONNX's count over the whole tensor. The overhang makes the pads
    uneven, where torch-mlir's conversion counted indices over the padded plane."""
    attrs = {"kernel_shape": list(kernel), "strides": list(stride), "pads": [*pad, *pad], "ceil_mode": 1}
    x = _x(2, 3, *size)
    got = _run(_pools([2, 3, *size], [("MaxPool", {**attrs, "dilations": list(dilation)})], indices=True), x)
    y, i = F.max_pool2d(
        torch.from_numpy(x), kernel, stride, pad, dilation, ceil_mode=True, return_indices=True
    )
    np.testing.assert_array_equal(got[0], y.numpy())
    np.testing.assert_array_equal(
        got[1], (i + torch.arange(6).reshape(2, 3, 1, 1) * size[0] * size[1]).numpy()
    )


def test_ceil_mode_pools_1d_and_3d() -> None:
    x1, x3 = _x(1, 2, 9), _x(1, 2, 5, 7, 6)
    one = {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1}
    three = {"kernel_shape": [3, 2, 2], "strides": [2, 3, 2], "pads": [1, 1, 0, 1, 1, 0], "ceil_mode": 1}
    for x, attrs, max_pool, avg_pool in [
        (x1, one, F.max_pool1d, F.avg_pool1d),
        (x3, three, F.max_pool3d, F.avg_pool3d),
    ]:
        ops = [("MaxPool", attrs), *(("AveragePool", {**attrs, "count_include_pad": c}) for c in (0, 1))]
        got = _run(_pools(list(x.shape), ops), x)
        k, s, p = attrs["kernel_shape"], attrs["strides"], attrs["pads"][: len(attrs["kernel_shape"])]
        t = torch.from_numpy(x)
        want = [max_pool(t, k, s, p, ceil_mode=True)]
        want += [avg_pool(t, k, s, p, ceil_mode=True, count_include_pad=c) for c in (False, True)]
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("pads", [[1, 0, 0, 1], [0, 1, 2, 0], [1, 1, 0, 0]])
def test_ceil_mode_pools_with_uneven_pads(pads: list[int]) -> None:
    """Uneven pads (torch has none): against onnx's reference evaluator, with overhangs of at most 1."""
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": pads, "ceil_mode": 1}
    ops = [("MaxPool", attrs), *(("AveragePool", {**attrs, "count_include_pad": c}) for c in (0, 1))]
    model, x = _pools([1, 2, 8, 9], ops), _x(1, 2, 8, 9)
    want = ReferenceEvaluator(model).run(None, {"x": x})
    for g, w in zip(_run(model, x), want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_shape_of_a_ceil_mode_pool_folds_to_torchs() -> None:
    """onnx infers 3 rows for k2 s3 over 6 rows (a last window starting past the input), torch
    has 2; a Shape of the pool then folded to onnx's, and the Reshape to it could not be done."""
    nodes = [
        helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[3, 3], ceil_mode=1),
        helper.make_node("Shape", ["y"], ["s"]),
        helper.make_node("Flatten", ["y"], ["f"], axis=1),
        helper.make_node("Reshape", ["f", "s"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, [1, 2, 6, 5])],
        [helper.make_tensor_value_info("z", F32, None)],
    )
    x = _x(1, 2, 6, 5)
    got = _run(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), x)[0]
    np.testing.assert_array_equal(got, F.max_pool2d(torch.from_numpy(x), 2, 3, ceil_mode=True).numpy())


def test_max_pool_indices_with_uneven_pads() -> None:
    """Without ceil_mode too: torch-mlir's conversion pads x itself and counted over the padded plane."""
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 2]}
    model, x = _pools([2, 2, 7, 8], [("MaxPool", attrs)], indices=True), _x(2, 2, 7, 8)
    for g, w in zip(_run(model, x), ReferenceEvaluator(model).run(None, {"x": x}), strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("pads", [[0, 0, 0, 0], [1, 0, 0, 1]])
def test_uneven_average_pool_is_a_versa_pool(pads: list[int]) -> None:
    """torch-mlir's conversion passes uneven pads (and a ceil overhang) as [top, left, bottom,
    right]: the avg_pool2d rule read the first two as even pads, refused, and torch-mlir's linalg
    lowering pooled instead."""
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2], "pads": pads, "ceil_mode": 1}
    text = str(versa.import_onnx(_pools([1, 2, 7, 9], [("AveragePool", attrs)])))
    assert "versa.avg_pool2d" in text and "linalg." not in text, text
