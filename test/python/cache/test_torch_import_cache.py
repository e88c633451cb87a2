"""Imported torch models keyed before the export (cache/torch_imports.py, torch_key.py): the same
model compiled again skips torch.export and the import, and anything that would change the
export (a weight, an attribute such as eps, the input shapes, its class's source) is a miss.
A model whose key cannot be taken is compiled as ever and never written. Numerics: the result
against eager torch, |out − ref| ≤ 1e-5 + 1e-4·|ref| (f32; a hit is the very code, bit-equal)."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
import versa
from cache_helpers import entries, environment
from torch import nn
from versa.cache import torch_imports


@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VERSA_LOG", "info")
    return tmp_path / "cache"


def _model(eps: float = 1e-5) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16, eps=eps), nn.ReLU(), nn.Linear(16, 4)).eval()


def _x(batch: int = 3) -> torch.Tensor:
    return torch.linspace(-2, 2, batch * 8).reshape(batch, 8)


def _torch_entries(cache) -> list:
    """The entries of imported torch modules (not compiled code) in the folder `cache`."""
    return [
        e for e in entries(cache) if json.loads(e.read_bytes().split(b"\n")[1])["kind"] == torch_imports.KIND
    ]


def _compile_and_check(model: nn.Module, x: torch.Tensor, caplog) -> tuple[np.ndarray, str]:
    """The compiled result (checked against eager) and what versa.cache logged meanwhile."""
    caplog.clear()
    with caplog.at_level("INFO", logger="versa.cache"):
        out = versa.compile(model, (x,))(x)
    with torch.no_grad():
        np.testing.assert_allclose(out.numpy(), model(x).numpy(), rtol=1e-4, atol=1e-5)
    return out.numpy(), caplog.text


def test_the_same_model_again_is_a_hit_with_the_same_result(cache_on, caplog):
    first, log = _compile_and_check(_model(), _x(), caplog)
    assert "torch import cache miss" in log and "import cache write" in log
    second, log = _compile_and_check(_model(), _x(), caplog)  # rebuilt: equal, not identical
    assert "torch import cache hit" in log and "import cache write" not in log
    np.testing.assert_array_equal(second, first)
    assert len(_torch_entries(cache_on)) == 1


def test_a_changed_weight_attribute_or_shape_is_a_miss(cache_on, caplog):
    _compile_and_check(_model(), _x(), caplog)
    changed = _model()
    with torch.no_grad():
        changed[0].weight[3, 5] += 0.5
    _, log = _compile_and_check(changed, _x(), caplog)
    assert "torch import cache miss" in log
    _, log = _compile_and_check(_model(eps=0.5), _x(), caplog)  # LayerNorm's eps: no tensor
    assert "torch import cache miss" in log
    _, log = _compile_and_check(_model(), _x(batch=5), caplog)
    assert "torch import cache miss" in log
    _, log = _compile_and_check(_model().train(), _x(), caplog)  # the training flag
    assert "torch import cache miss" in log
    assert len(_torch_entries(cache_on)) == 5


class _Keywords(nn.Module):
    """Keyword inputs and a dict of outputs: the pytree structures the entry carries."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)

    def forward(self, x, *, shift):
        return {"y": self.linear(x) + shift, "parts": (x.sum(), None)}


def test_keyword_inputs_and_structured_outputs_come_back_alike(cache_on, caplog):
    shift = torch.full((4,), 0.5)
    results = []
    for _ in range(2):
        torch.manual_seed(0)
        model = _Keywords()
        caplog.clear()
        with caplog.at_level("INFO", logger="versa.cache"):
            compiled = versa.compile(model, (_x(),), example_kwargs={"shift": shift})
        out = compiled(_x(), shift=shift)
        results.append((out, caplog.text))
    (first, log), (second, hit_log) = results
    assert "torch import cache miss" in log and "torch import cache hit" in hit_log
    assert set(second) == {"y", "parts"} and second["parts"][1] is None
    np.testing.assert_array_equal(second["y"].numpy(), first["y"].numpy())
    np.testing.assert_allclose(
        second["y"].detach().numpy(), (model.linear(_x()) + shift).detach().numpy(), rtol=1e-4, atol=1e-5
    )


class _HoldsLambda(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)
        self.act = lambda y: y * 2

    def forward(self, x):
        return self.act(self.linear(x))


class _HoldsClosure(nn.Module):
    def __init__(self, scale: torch.Tensor):
        super().__init__()
        self.linear = nn.Linear(8, 4)

        def act(y):
            return y * scale

        self.act = act

    def forward(self, x):
        return self.act(self.linear(x))


def _class_without_a_file() -> type:
    """A module class as a notebook cell defines it: its module has no file."""
    namespace = {"__name__": "a_notebook_cell", "nn": nn}
    exec("class Cell(nn.Module):\n    def forward(self, x):\n        return x * 3\n", namespace)
    return namespace["Cell"]


class _Counts(nn.Module):
    """A forward that mutates a buffer: its entry would have to name the buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls += 1
        return x + self.calls


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_HoldsLambda, "is a lambda"),
        (lambda: _HoldsClosure(torch.tensor(2.0)), "is a closure over scale"),
        (lambda: _class_without_a_file()(), "which has no file"),
        (_Counts, None),
    ],
    ids=["lambda", "closure", "no-file", "mutates-state"],
)
def test_a_model_the_key_cannot_pin_down_is_compiled_and_never_written(cache_on, caplog, make, why):
    for _ in range(2):
        torch.manual_seed(0)
        expected = make()(_x()).detach().numpy()  # a twin's first call: the forward may mutate
        torch.manual_seed(0)
        model = make()
        caplog.clear()
        with caplog.at_level("INFO", logger="versa.cache"):
            out = versa.compile(model, (_x(),))(_x())
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
        assert "torch import cache hit" not in caplog.text
        if why:
            assert "imported module not cached" in caplog.text and why in caplog.text
    assert _torch_entries(cache_on) == []


def test_a_corrupt_entry_is_removed_and_imported_again(cache_on, caplog):
    first, _ = _compile_and_check(_model(), _x(), caplog)
    (entry,) = _torch_entries(cache_on)
    data = bytearray(entry.read_bytes())
    data[-100] ^= 0xFF  # a byte of the module's bytecode
    entry.write_bytes(bytes(data))
    second, log = _compile_and_check(_model(), _x(), caplog)
    assert "corrupt cache entry" in log and "torch import cache miss" in log and "import cache write" in log
    np.testing.assert_array_equal(second, first)
    _, log = _compile_and_check(_model(), _x(), caplog)
    assert "torch import cache hit" in log


def test_import_torch_reads_the_module_back(cache_on, caplog):
    first = versa.import_torch(_model(), (_x(),))
    with caplog.at_level("INFO", logger="versa.cache"):
        second = versa.import_torch(_model(), (_x(),))
    assert "torch import cache hit" in caplog.text
    assert str(second) == str(first)


# Compiles model.Net from the folder argv[1] and prints whether the import came from the cache.
CHILD = """
import json, sys
import torch, versa
sys.path.insert(0, sys.argv[1])
from model import Net
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
out = versa.compile(Net(), (x,))(x)
print(json.dumps({"out": out.tolist()}))
"""


def _source(factor: int) -> str:
    return textwrap.dedent(f"""
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x * {factor} + 1
        """)


def _compile_in_a_process(folder, cache) -> tuple[list, str]:
    env = environment(cache, PYTHONDONTWRITEBYTECODE="1")  # no .pyc: Python reads the source
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)], env=env, capture_output=True, text=True, timeout=300
    )
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout.splitlines()[-1])["out"], child.stderr


def test_a_second_process_hits_and_an_edited_class_misses(tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "model.py"
    source.write_text(_source(2))
    out, log = _compile_in_a_process(tmp_path, cache)
    assert "torch import cache miss" in log and out == [[1, 3, 5], [7, 9, 11]]
    out, log = _compile_in_a_process(tmp_path, cache)
    assert "torch import cache hit" in log and "cache hit: main" in log
    source.write_text(_source(3))  # the same size: a stat alone could miss it, the content not
    out, log = _compile_in_a_process(tmp_path, cache)
    assert "torch import cache miss" in log and out == [[1, 4, 7], [10, 13, 16]]
