"""versa.compile(..., tune=) measures a torch model's kernels into a database and compiles with
them; versa.tune does the first half alone."""

import json

import torch
import versa
from torch import nn


def test_compile_with_tune_writes_the_database_and_matches_eager(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(96, 128), nn.GELU(), nn.Linear(128, 64)).eval()
    x = torch.randn(48, 96)
    database = tmp_path / "tuned.json"
    with torch.no_grad():
        compiled = versa.compile(model, (x,), tune=4, tuning_db=str(database))
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
    entries = json.loads(database.read_text())["entries"]
    assert entries and all(e["op"].startswith("linalg.") for e in entries)
    assert compiled.options.tuning_db == str(database)


def test_tune_a_module_then_compile_reads_it(tmp_path):
    torch.manual_seed(0)
    model = nn.Linear(64, 80).eval()
    x = torch.randn(32, 64)
    database = str(tmp_path / "db.json")
    with torch.no_grad():
        reports = versa.tune(model, (x,), budget_s=3, tuning_db=database, threads=2, progress=False)
        assert reports and all(r.best_s > 0 for r in reports)
        again = versa.tune(model, (x,), budget_s=3, tuning_db=database, threads=2, progress=False)
        assert all(r.cached for r in again)
        compiled = versa.compile(model, (x,), tuning_db=database)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
