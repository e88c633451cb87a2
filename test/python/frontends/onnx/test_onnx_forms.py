"""ONNX forms that torch-mlir's conversion gets wrong or refuses, normalised by `onnx.prepare`.

Each model is built with onnx.helper and compared with onnx's reference evaluator on seeded inputs (rtol 1e-5,
atol 1e-5 of the output's scale; indices exactly). Before `prepare`, each failed: an import
error, a Python traceback, or (Gemm's alpha, MaxPool's indices) a silently wrong result.
"""

import subprocess
import sys

import numpy as np
import onnx
import pytest
import versa
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError
from versa.frontends.onnx import load

F32, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, opset=17, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s[0] if s else None) for n, t, *s in outputs],
        initializer=list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _matches_reference(model: onnx.ModelProto, *arrays, input_shapes=None, want=None) -> None:
    """Versa's outputs against `want` (NumPy) or onnx's reference evaluator."""
    module = versa.import_onnx(model, input_shapes)
    got = JitFunction(module, pipeline="versa-canonicalize,versa-fuse,lower-to-llvm")(*arrays)
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    if want is None:
        want = ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))
    for g, w in zip(got, want, strict=True):
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
        else:
            scale = max(1.0, float(np.abs(w[np.isfinite(w)]).max(initial=0.0)))  # infinities match exactly
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * scale)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def test_gemm_alpha_without_c_is_kept() -> None:
    """torch-mlir's conversion drops alpha when there is no C (a zero C is added)."""
    node = helper.make_node("Gemm", ["a", "b"], ["y"], transA=1, transB=1, alpha=2.5)
    model = _model([node], [("a", F32, [8, 3]), ("b", F32, [5, 8])], [("y", F32)])
    _matches_reference(model, _rand(8, 3), _rand(5, 8, seed=1))


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_opset_11_softmax_is_upgraded(op: str) -> None:
    """Opset 11's softmax flattens at `axis` (normalises over every later dim)."""
    model = _model(
        [helper.make_node(op, ["x"], ["y"], axis=1)], [("x", F32, [2, 3, 4])], [("y", F32)], opset=11
    )
    x = _rand(2, 3, 4)
    rows = x.reshape(2, 12).astype(np.float64)  # onnx's reference evaluator has opset 13's semantics only
    e = np.exp(rows - rows.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    _matches_reference(model, x, want=[(p if op == "Softmax" else np.log(p)).reshape(2, 3, 4)])


def test_opset_11_unsqueeze_and_split_attributes() -> None:
    nodes = [
        helper.make_node("Unsqueeze", ["x"], ["u"], axes=[0, 3]),
        helper.make_node("Split", ["u"], ["s0", "s1"], axis=2, split=[1, 2]),
    ]
    model = _model(nodes, [("x", F32, [3, 3])], [("s0", F32), ("s1", F32)], opset=11)
    _matches_reference(model, _rand(3, 3))


def test_slice_with_negative_steps() -> None:
    """x[:, ::-1] and x[-2:0:-2] (torch.flip exports): a gather of constant indices."""
    consts = [
        numpy_helper.from_array(np.array(v, np.int64), n)
        for n, v in [("s", [-1, -2]), ("e", [-(2**62), 0]), ("a", [1, 0]), ("st", [-1, -2])]
    ]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"])
    model = _model([node], [("x", F32, [5, 6])], [("y", F32)], initializers=consts)
    _matches_reference(model, _rand(5, 6))


def test_group_normalization_18_per_group_scale() -> None:
    scale = numpy_helper.from_array(np.array([0.5, 2.0], np.float32), "scale")
    bias = numpy_helper.from_array(np.array([1.0, -1.0], np.float32), "bias")
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2, epsilon=1e-5)
    outputs = [("y", F32, [2, 4, 3, 3])]  # onnx infers no shape for this function op
    model = _model([node], [("x", F32, [2, 4, 3, 3])], outputs, opset=18, initializers=[scale, bias])
    _matches_reference(model, _rand(2, 4, 3, 3))


def test_negative_pad_crops() -> None:
    pads = numpy_helper.from_array(np.array([0, -1, 0, 2], np.int64), "pads")
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="constant")
    model = _model([node], [("x", F32, [3, 5])], [("y", F32)], initializers=[pads])
    x = _rand(3, 5)  # onnx's reference evaluator refuses negative pads
    _matches_reference(model, x, want=[np.pad(x[:, 1:], [(0, 0), (0, 2)])])


def test_max_pool_indices_count_across_the_tensor() -> None:
    """ONNX's indices are flat over N, C, H, W; torch's restart at each channel."""
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2])
    model = _model([node], [("x", F32, [2, 3, 4, 4])], [("y", F32), ("i", I64)])
    _matches_reference(model, _rand(2, 3, 4, 4))


def test_shape_arithmetic_folds_to_constants() -> None:
    """Shape → Gather → Div → Concat → Reshape, as exporters write a reshape to [n, c / 2, 2]."""
    consts = [
        numpy_helper.from_array(np.array(v, np.int64), n)
        for n, v in [("zero", 0), ("one", 1), ("two", 2), ("last", [2])]
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"]),
        helper.make_node("Gather", ["shape", "one"], ["c"]),
        helper.make_node("Div", ["c", "two"], ["half"]),
        helper.make_node("Unsqueeze", ["n", "zero_axes"], ["n1"]),
        helper.make_node("Unsqueeze", ["half", "zero_axes"], ["h1"]),
        helper.make_node("Concat", ["n1", "h1", "last"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    consts.append(numpy_helper.from_array(np.array([0], np.int64), "zero_axes"))
    model = _model(nodes, [("x", F32, [3, 8])], [("y", F32)], initializers=consts)
    _matches_reference(model, _rand(3, 8))


def test_input_shapes_pin_symbolic_input_dims() -> None:
    """A symbolic dim stays dynamic (test_onnx_dynamic.py) unless `input_shapes` pins it."""
    node = helper.make_node("Relu", ["x"], ["y"])
    model = _model([node], [("x", F32, ["batch", 4])], [("y", F32)])
    assert "tensor<?x4xf32>" in str(versa.import_onnx(model))
    assert "tensor<3x4xf32>" in str(versa.import_onnx(model, input_shapes={"x": [3, 4]}))
    _matches_reference(model, _rand(3, 4), input_shapes={"x": [3, 4]})
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"  # not edited


def test_versa_import_input_shape(tmp_path) -> None:
    source = tmp_path / "relu.onnx"
    node = helper.make_node("Relu", ["x"], ["y"])
    source.write_bytes(_model([node], [("x", F32, ["batch", 4])], [("y", F32)]).SerializeToString())
    tool = [sys.executable, "-m", "versa.tools.versa_import", str(source)]
    done = subprocess.run([*tool, "--input-shape", "x=3,4"], capture_output=True, text=True)
    assert done.returncode == 0 and "tensor<3x4xf32>" in done.stdout, done.stderr
    done = subprocess.run(tool, capture_output=True, text=True)  # not pinned: dynamic
    assert done.returncode == 0 and "tensor<?x4xf32>" in done.stdout, done.stderr
    for bad in (["--input-shape", "x=3,four"], ["--input-shape", "z=3,4"]):
        done = subprocess.run([*tool, *bad], capture_output=True, text=True)
        assert done.returncode == 1 and "error:" in done.stderr and "Traceback" not in done.stderr, bad


@pytest.mark.parametrize("mode", ["CRD", "DCR"])
@pytest.mark.parametrize(("shape", "block"), [((1, 12, 2, 3), 2), ((2, 9, 3, 2), 3), ((1, 8, 3, 5), 2)])
def test_depth_to_space_modes(mode: str, shape: tuple, block: int) -> None:
    """torch-mlir's conversion views CRD's input in DCR's layout: right only where C / b² == b
    (the last shape), so CRD (torch's PixelShuffle export) is rewritten to Reshape, Transpose, Reshape."""
    node = helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=block, mode=mode)
    _matches_reference(_model([node], [("x", F32, list(shape))], [("y", F32)]), _rand(*shape))


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,j,jk->ik", [(3, 4), (4,), (4, 5)]),
        ("bhl,bhl,bhlp->bhp", [(2, 3, 4), (2, 3, 4), (2, 3, 4, 5)]),
        (
            "bclhn,bcshn,bhcls,bcshp->bclhp",
            [(1, 2, 3, 2, 4), (1, 2, 3, 2, 4), (1, 2, 2, 3, 3), (1, 2, 3, 2, 5)],
        ),
    ],
)
def test_einsum_of_three_or_more_operands(equation: str, shapes: list) -> None:
    """torch-mlir's einsum decomposition summed a shared index before its last use (Mamba-2's
    equations: wrong by up to 200); einsum stays whole and the versa rule contracts pairwise."""
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    inputs = [(n, F32, list(s)) for n, s in zip(names, shapes, strict=True)]
    arrays = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    _matches_reference(_model([node], inputs, [("y", F32)]), *arrays)


def test_constant_read_only_by_a_loop_body_is_kept() -> None:
    """Folding dropped a main-graph Constant that only a Loop body read: torch-mlir's importer then
    said 'Non topologically produced ONNX node input'; kept, the error names the Loop."""
    bool_, acc = TensorProto.BOOL, [2, 3]
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["go"], ["go_on"]),
            helper.make_node("Add", ["acc", "step"], ["acc_on"]),
        ],
        "body",
        [
            helper.make_tensor_value_info(n, t, s)
            for n, t, s in [("i", I64, []), ("go", bool_, []), ("acc", F32, acc)]
        ],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in [("go_on", bool_, []), ("acc_on", F32, acc)]],
    )
    nodes = [
        helper.make_node("Constant", [], ["step"], value=numpy_helper.from_array(np.ones(acc, np.float32))),
        helper.make_node("Constant", [], ["n"], value=numpy_helper.from_array(np.array(3, np.int64))),
        helper.make_node("Constant", [], ["go"], value=numpy_helper.from_array(np.array(True))),
        helper.make_node("Loop", ["n", "go", "x"], ["y"], body=body),
    ]
    model = _model(nodes, [("x", F32, [2, 3])], [("y", F32, [2, 3])])
    onnx.checker.check_model(load(model))  # every value read is defined
    with pytest.raises(CompileError, match="Loop") as error:
        versa.import_onnx(model)
    assert "topologically" not in str(error.value)


def _log_sum_exp_model(opset: int, axes: list[int] | None, keepdims: int) -> onnx.ModelProto:
    inputs, initializers = ["x"], []
    attributes = {"axes": axes} if opset < 18 and axes is not None else {}
    if opset >= 18 and axes is not None:  # from opset 18 on, axes are an input
        initializers.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
        inputs.append("axes")
    node = helper.make_node("ReduceLogSumExp", inputs, ["y"], keepdims=keepdims, **attributes)
    return _model([node], [("x", F32, [4, 5, 6])], [("y", F32)], opset=opset, initializers=initializers)


@pytest.mark.parametrize(
    ("opset", "axes", "keepdims"),
    [(17, [-1], 0), (17, [0, 2], 1), (17, None, 0), (18, [1], 0), (18, [-1, 0], 1), (18, None, 1)],
)
def test_reduce_log_sum_exp_stays_f32(opset: int, axes: list[int] | None, keepdims: int) -> None:
    """torch-mlir's conversion sums exp(x) in f64, which versa lacks: rewritten as m + log(sum(exp(x - m)))
    in f32. Against f64 NumPy (rtol 1e-5), with exp(x) past f32's range and an all -inf row."""
    x = _rand(4, 5, 6)
    x[0] += 100.0
    x[1, 2] = -np.inf
    with np.errstate(divide="ignore"):  # log(0) of the -inf row
        want = np.log(
            np.exp(x.astype(np.float64)).sum(None if axes is None else tuple(axes), keepdims=bool(keepdims))
        )
    _matches_reference(_log_sum_exp_model(opset, axes, keepdims), x, want=[want.astype(np.float32)])


def test_f64_intermediates_of_an_f32_model_are_f32() -> None:
    """Cast(to=DOUBLE) -> IsInf / Mul(f64 constant) -> Cast(to=FLOAT) (torch.nan_to_num's export):
    computed in f32, since versa has no f64. Against onnx's reference, which computes in f64."""
    half = numpy_helper.from_array(np.array(0.5, np.float64), "half")
    nodes = [
        helper.make_node("Cast", ["x"], ["wide"], to=TensorProto.DOUBLE),
        helper.make_node("IsInf", ["wide"], ["inf"]),
        helper.make_node("ConstantOfShape", ["shape"], ["zeros"], value=numpy_helper.from_array(np.zeros(1))),
        helper.make_node("Mul", ["wide", "half"], ["halved"]),
        helper.make_node("Where", ["inf", "zeros", "halved"], ["clean"]),
        helper.make_node("Cast", ["clean"], ["y"], to=F32),
    ]
    shape = numpy_helper.from_array(np.array([3, 4], np.int64), "shape")
    model = _model(nodes, [("x", F32, [3, 4])], [("y", F32)], initializers=[half, shape])
    x = _rand(3, 4)
    x[0, 1], x[2, 3] = np.inf, -np.inf
    _matches_reference(model, x)
