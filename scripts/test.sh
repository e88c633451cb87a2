#!/usr/bin/env bash
# Run the whole suite: lint, lit + FileCheck, pytest; on a CPU above x86-64-v3, the numeric
# suites again as an AVX2 CPU runs them. Sets up .venv first (idempotent). Every stage runs;
# the exit status is non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/cross-tools.sh
bash scripts/chromium.sh
# Where this run is: a red run on a new machine says which CPU and ISA level it met.
.venv/bin/python -c "from versa import targets; print(targets.machine_summary())"
.venv/bin/ruff check dialects passes python tools test bench examples
.venv/bin/ruff format --check --quiet dialects passes python tools test bench examples
status=0
.venv/bin/lit -sv test || status=1
# The numeric suites for AVX2 code (x86-64-v3, through VERSA_HOST_TARGET: versa/targets.py)
# where this CPU can run it and is itself above that level, so that an AVX-512 machine also
# proves the code most users' CPUs run. Every op and element type is in these files.
if .venv/bin/python -c "from versa import targets; raise SystemExit(targets.host().isa != 'x86-64-v4')"; then
  echo "numeric suites for x86-64-v3 (AVX2) code on this $(.venv/bin/python -c "from versa import targets; print(targets.host().isa)") CPU:"
  VERSA_HOST_TARGET=x86-64-v3 .venv/bin/python -m pytest -q -p no:cacheprovider \
    $(grep -v '^#' test/python/cross_isa.txt) || status=1
fi
.venv/bin/python -m pytest -q test/python || status=1
exit "$status"
