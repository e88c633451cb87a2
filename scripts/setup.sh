#!/usr/bin/env bash
# Create .venv in the checkout with the pinned dependencies and Versa (editable). Idempotent:
# reinstalls only when pyproject.toml changed since the last successful setup.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
stamp=".venv/.versa-setup-stamp"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
if [ ! -f "$stamp" ] || ! cmp -s pyproject.toml "$stamp"; then
  if ! .venv/bin/python -m pip install --disable-pip-version-check -e '.[test]' \
      > .venv/setup.log 2>&1; then
    cat .venv/setup.log >&2
    exit 1
  fi
  cp pyproject.toml "$stamp"
fi
