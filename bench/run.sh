#!/usr/bin/env bash
# Benchmark Versa against torch eager, torch.compile, IREE, ONNX Runtime, OpenVINO and NumPy in one process.
#   bash bench/run.sh [--quick | --real-models] [--threads N] [--rows REGEX] [--repeat R] [--peers NAMES]
#                     [--target NAME | --both-isas] [--isolate | --no-isolate] [--output PATH]
# (--isolate, the default of --real-models: each row in a fresh process of its own; bench/isolate.py)
# Sets up .venv (scripts/setup.sh), then installs the `.[bench]` extra into it. Idempotent like
# scripts/setup.sh: the extra is reinstalled only when pyproject.toml changed since the last
# successful install (stamp file .venv/.versa-bench-stamp). Writes bench/RESULTS.md (a section
# per Versa target) and bench/ratios.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
stamp=".venv/.versa-bench-stamp"
if [ ! -f "$stamp" ] || ! cmp -s pyproject.toml "$stamp"; then
  echo "bench: installing the .[bench] extra into .venv (first run only; log in .venv/bench-setup.log)" >&2
  if ! .venv/bin/python -m pip install --disable-pip-version-check -e '.[bench]' \
      > .venv/bench-setup.log 2>&1; then
    cat .venv/bench-setup.log >&2
    exit 1
  fi
  cp pyproject.toml "$stamp"
fi
exec .venv/bin/python -m bench "$@"
