"""`versa optimize` reports what the compiler declined, and why, at the source: versa-fuse's
missed fusions and versa-codegen's declined threads, from the passes' remarks, in report.json
(schema-checked on load) with their numbers and the torch module path and node they come from."""

import torch
import versa
from versa.optimizer import report as reports


class Block(torch.nn.Module):
    """exp read by two outputs: stored once, so neither relu nor tanh fuses it (versa-fuse)."""

    def forward(self, x):
        e = torch.exp(x)
        return torch.relu(e), torch.tanh(e)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        self.block = Block()

    def forward(self, x):
        return self.block(self.fc(x))


def test_declined_fusions_and_threads_are_in_report_json_at_their_source(tmp_path):
    torch.manual_seed(0)
    out = tmp_path / "out"
    versa.optimize(Net(), str(out), example_inputs=(torch.randn(4, 16),), rounds=1, threads=2)
    report = reports.load(out / "report.json")
    assert not report["errors"]
    declined = [d for d in report["decisions"] if d["kind"] == "declined"]
    fusions = {d["subject"]: d for d in declined if d.get("pass") == "versa-fuse"}
    assert set(fusions) == {"exp → relu", "exp → tanh"}
    relu = fusions["exp → relu"]
    assert relu["location"] == "block, relu"  # the consumer: module path, then FX node
    assert relu["values"] == {
        "producer": "versa.exp",
        "consumer": "versa.relu",
        "producer_at": "block, exp",
        "users": 2,
    }
    assert relu["message"].startswith("the producer has other users and is not cheap to recompute")
    # 4x16x16: 2048 flops save 24 cycles on a second thread, below a fork and join (2^15)
    (threads,) = [d for d in declined if d.get("pass") == "versa-codegen"]
    assert threads["subject"] == "linalg.matmul" and threads["location"] == "fc, linear"
    assert threads["values"]["threads"] == 2 and threads["values"]["flops"] == 2 * 4 * 16 * 16
    assert threads["values"]["saved_cycles"] < threads["values"]["fork_join_cycles"] == 1 << 15
    assert "declined" in (out / "report.html").read_text()
