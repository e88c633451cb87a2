#!/usr/bin/env bash
# Debian's chromium and chromium-driver: the headless browser in which
# test/python/optimizer/test_browser.py opens `versa optimize`'s report pages (idempotent; run by
# scripts/test.sh; about 40 s the first time, apt-get update included). Installed when missing
# and we may (root, or passwordless sudo); otherwise those tests skip, saying what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .venv
browser_ready() {
  [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]
}
if ! browser_ready && command -v apt-get > /dev/null; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo="sudo -n"
  fi
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    { $sudo apt-get update -q \
      && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; } \
      > .venv/chromium-apt.log 2>&1 || true
  fi
fi
if ! browser_ready; then
  echo "setup: chromium or chromedriver missing (apt-get install chromium chromium-driver; log:" \
    ".venv/chromium-apt.log if tried); the browser tests of the report pages will skip" >&2
fi
