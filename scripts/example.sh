#!/usr/bin/env bash
# The main job: compile the bundled example model without and with versa-fuse, run both,
# and print their agreement and median times; the bundled PyTorch models through versa.compile
# and torch.compile; then `versa optimize` on ResNet-18 (defined in examples/torch/resnet.py,
# random weights, no download): checked against torch, timed, profiled per layer, written as
# a library + header and a report (versa-optimized/resnet18/report.html). Sets up .venv first
# (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m versa.example "${@:-examples/mlp.mlir}"
# The PyTorch frontend: the bundled models through versa.compile and torch.compile(backend="versa").
.venv/bin/python examples/torch/run_models.py
# The optimizer: its own output folder, replaced on each run (--force).
PYTHONPATH=examples/torch .venv/bin/versa optimize resnet:resnet18 --out versa-optimized/resnet18 --force
