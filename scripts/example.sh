#!/usr/bin/env bash
# The main job: compile the bundled example model without and with versa-fuse, run both,
# and print their agreement and median times. Sets up .venv first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m versa.example "${@:-examples/mlp.mlir}"
# The PyTorch frontend: the bundled models through versa.compile and torch.compile(backend="versa").
.venv/bin/python examples/torch/run_models.py
