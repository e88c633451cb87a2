"""Hot shapes of a dynamic compile (issue 46, point 5): once a shape has been called often enough,
a static version of it compiles in the background and serves its later calls; the first call of
any shape is served by the dynamic code at once.

The policy's counting is checked with stand-in compiles (an Event holds one back, so "a call
never waits" is asserted by order, not by timing); the real path with a small attention model,
whose static version must agree with eager (f32 sums reassociated: ~1e-6)."""

import threading

import pytest
import torch
import versa
from torch import nn
from torch.export import Dim
from versa.frontends.torch.hot_shapes import HotShapePolicy, HotShapes

ATOL, RTOL = 1e-5, 1e-4


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj, self.norm = nn.Linear(16, 32), nn.LayerNorm(32)

    def forward(self, x):
        b, t, _ = x.shape
        y = self.norm(self.proj(x)).view(b, t, 4, 8).transpose(1, 2)
        return torch.softmax(y @ y.transpose(-1, -2), -1)


def _compiled(policy):
    model = Attention().eval()
    dims = {"x": {0: Dim("batch", max=16), 1: Dim("seq", max=64)}}
    return model, versa.compile(model, (torch.randn(2, 5, 16),), dynamic_shapes=dims, hot_shapes=policy)


def test_a_hot_shape_gets_a_static_compile_that_serves_its_calls():
    model, compiled = _compiled(HotShapePolicy(limit=1, calls=3, seconds=0))
    hot = compiled._held.hot_shapes
    x = torch.randn(3, 7, 16)
    for _ in range(3):
        torch.testing.assert_close(compiled(x), model(x), atol=ATOL, rtol=RTOL)
    assert compiled.wait_for_hot_shapes(timeout=300)
    static = hot.static(((3, 7, 16),))
    assert static is not None and hot.shapes[((3, 7, 16),)].state == "ready"
    assert static._function.shapes is None  # a static function: no shape program
    assert [tuple(s.shape) for s in static._function.inputs] == [(3, 7, 16)]
    y = torch.randn(3, 7, 16)
    torch.testing.assert_close(compiled(y), model(y), atol=ATOL, rtol=RTOL)
    other = torch.randn(2, 9, 16)  # the limit is spent: the dynamic code, counted no more
    for _ in range(4):
        torch.testing.assert_close(compiled(other), model(other), atol=ATOL, rtol=RTOL)
    assert hot.static(((2, 9, 16),)) is None and ((2, 9, 16),) not in hot.shapes


def test_hot_shapes_zero_keeps_the_dynamic_code_alone():
    _, compiled = _compiled(0)
    assert compiled._held.hot_shapes is None


def test_policy_values():
    assert HotShapePolicy.of(3) == HotShapePolicy(limit=3)
    with pytest.raises(ValueError, match="hot_shapes=-1"):
        HotShapePolicy.of(-1)


def test_policy_from_the_environment(monkeypatch):
    monkeypatch.setenv("VERSA_HOT_SHAPES", "0")
    assert HotShapePolicy.of(None).limit == 0
    monkeypatch.delenv("VERSA_HOT_SHAPES")
    assert HotShapePolicy.of(None).limit == HotShapePolicy.limit


def test_calls_never_wait_for_the_static_compile():
    release, started = threading.Event(), threading.Event()

    def slow_compile(shapes):
        started.set()
        release.wait(60)
        return lambda: "static"

    hot = HotShapes(slow_compile, HotShapePolicy(limit=2, calls=2, seconds=1.0), compile_seconds=9.0)
    shape = ((4, 8),)
    hot.record(shape, 0.6)
    hot.record(shape, 0.6)  # 2 calls, 1.2 s >= the policy's 1 s (not the compile's 9 s)
    assert started.wait(60)
    for _ in range(5):  # served by the dynamic code while the compile is held back
        assert hot.static(shape) is None
        hot.record(shape, 0.1)
    release.set()
    assert hot.wait(60) and hot.static(shape) == "static"


def test_a_shape_is_hot_after_both_its_calls_and_its_time():
    compiles = []
    hot = HotShapes(lambda s: compiles.append(s) or (lambda: "static"), HotShapePolicy(calls=3), 1.0)
    hot.record(((1,),), 5.0)  # the time, not the calls
    hot.record(((2,),), 0.1)
    hot.record(((2,),), 0.1)
    hot.record(((2,),), 0.1)  # the calls, not the time (the compile's 1 s)
    assert hot.wait(60) and compiles == []
    hot.record(((1,),), 0.1)
    hot.record(((1,),), 0.1)
    assert hot.wait(60) and compiles == [((1,),)]


def test_a_failed_static_compile_keeps_the_dynamic_code():
    def failing(shapes):
        raise RuntimeError("no")

    hot = HotShapes(failing, HotShapePolicy(limit=1, calls=1, seconds=0), 0.0)
    hot.record(((5,),), 0.1)
    assert hot.wait(60)
    assert hot.static(((5,),)) is None and hot.shapes[((5,),)].state == "failed"
    assert hot.shapes[((5,),)].why == "no"


def test_an_evicted_static_version_goes_back_to_the_dynamic_code():
    hot = HotShapes(lambda s: (lambda: None), HotShapePolicy(limit=1, calls=1, seconds=0), 0.0)
    hot.record(((5,),), 0.1)
    assert hot.wait(60)
    assert hot.static(((5,),)) is None and hot.shapes[((5,),)].why == "evicted from memory"


def test_a_child_compile_that_fails_says_why(tmp_path):
    from versa.context import make_context
    from versa.cpu import child_compile
    from versa.frontends.torch.executable import compile_options
    from versa.mlir import ir

    context = make_context()
    context.allow_unregistered_dialects = True  # the child's context does not: it cannot parse this
    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = "mystery.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    module = ir.Module.parse(text, context)
    dynamic = child_compile.DynamicModule(module, compile_options())
    with pytest.raises(RuntimeError, match="the static compile's process failed"):
        dynamic.compile(((4,),), tmp_path)


def test_a_child_with_another_compiler_says_the_source_changed(tmp_path, monkeypatch):
    """A child process imports Versa's source as it is now; where it was edited after this
    process imported it, the child's code is keyed by another compiler digest: say so."""
    from versa.context import make_context
    from versa.cpu import child_compile
    from versa.frontends.torch.executable import compile_options
    from versa.mlir import ir

    text = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
      %0 = "versa.tanh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }"""
    dynamic = child_compile.DynamicModule(ir.Module.parse(text, make_context()), compile_options())
    store, digest, _ = dynamic.compile(((4,),), tmp_path)  # the same compiler: no complaint
    assert len(digest) == 64
    monkeypatch.setattr(child_compile, "compiler_digest", lambda: "0.1.0+edited")
    with pytest.raises(RuntimeError, match="Versa's source changed after this process imported it"):
        dynamic.compile(((4,),), tmp_path)
