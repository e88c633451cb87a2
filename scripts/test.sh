#!/usr/bin/env bash
# Run the whole suite: lint, lit + FileCheck, pytest. Sets up .venv first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/cross-tools.sh
.venv/bin/ruff check dialects passes python tools test bench examples
.venv/bin/ruff format --check --quiet dialects passes python tools test bench examples
.venv/bin/lit -sv test
.venv/bin/python -m pytest -q test/python
