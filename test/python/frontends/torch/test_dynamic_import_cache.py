"""Dynamic imports in the torch import cache (`cache/torch_imports.py`): the key holds
`dynamic_shapes` in a canonical form (`torch_key.dynamic_form`: which dims of which inputs, each
dim's name and range), so importing again with equal dynamic_shapes is a hit, other ranges or
names a miss; `versa.compile` keeps the export's dynamic dims in the entry, so a hit still
serves every size with one compile. Numerics: |out - ref| <= 1e-5 + 1e-4 |ref| (f32)."""

import pytest
import torch
import versa
from torch import nn
from torch.export import Dim
from versa.cache.code_digest import Undigestible
from versa.cache.torch_key import dynamic_form
from versa.frontends.torch import executable


@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(executable, "_EXECUTABLES", type(executable._EXECUTABLES)())
    return tmp_path / "cache"


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()


def _x(batch: int) -> torch.Tensor:
    return torch.linspace(-2, 2, batch * 8).reshape(batch, 8)


def _batch(max_: int = 64, name: str = "batch") -> tuple:
    return ({0: Dim(name, min=1, max=max_)},)


def test_the_form_is_canonical_and_tells_ranges_names_and_dims_apart() -> None:
    form = dynamic_form(_batch())
    assert form == dynamic_form(_batch())  # new Dim objects, the same meaning
    hash(form)
    others = [_batch(max_=32), _batch(name="rows"), ({1: Dim("batch", min=1, max=64)},), None]
    assert len({form, *(dynamic_form(o) for o in others)}) == 5
    derived = Dim("seq", min=2, max=64)
    assert dynamic_form(({0: derived, 1: 2 * derived},)) != dynamic_form(({0: derived, 1: derived + 1},))
    assert dynamic_form({"x": {0: Dim.AUTO}}) != dynamic_form({"x": {0: Dim.DYNAMIC(max=8)}})
    with pytest.raises(Undigestible):
        dynamic_form(({0: object()},))


def test_a_dynamic_import_again_is_a_hit_and_other_ranges_a_miss(cache_on, caplog) -> None:
    def imported(dynamic_shapes) -> tuple[str, str]:
        caplog.clear()
        with caplog.at_level("INFO", logger="versa.cache"):
            module = versa.import_torch(_model(), (_x(3),), dynamic_shapes=dynamic_shapes)
        return str(module), caplog.text

    first, log = imported(_batch())
    assert "torch import cache miss" in log and "import cache write" in log
    again, log = imported(_batch())
    assert "torch import cache hit" in log and again == first
    assert "tensor<?x8xf32>" in again
    _, log = imported(_batch(max_=32))
    assert "torch import cache miss" in log
    _, log = imported(None)  # static: a key of its own
    assert "torch import cache miss" in log


def test_a_dynamic_compile_from_the_cache_serves_every_size_once(cache_on, caplog, monkeypatch) -> None:
    model = _model()
    versa.compile(model, (_x(3),), dynamic_shapes=_batch())  # writes the entry
    monkeypatch.setattr(executable, "_EXECUTABLES", type(executable._EXECUTABLES)())  # a new process's
    caplog.clear()
    with caplog.at_level("INFO", logger="versa.cache"):
        compiled = versa.compile(model, (_x(3),), dynamic_shapes=_batch())
        with torch.no_grad():
            for batch in (3, 5, 17):
                torch.testing.assert_close(compiled(_x(batch)), model(_x(batch)), rtol=1e-4, atol=1e-5)
    assert caplog.text.count("torch import cache hit") == 1
    assert "torch import cache miss" not in caplog.text and len(compiled._compiled) == 1
