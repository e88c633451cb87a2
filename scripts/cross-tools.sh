#!/usr/bin/env bash
# The Debian packages the AArch64 ahead-of-time tests need (idempotent; run by scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .venv
# Cross tools for the AArch64 ahead-of-time tests (gcc, glibc, qemu user mode): installed when
# missing and we may (root, or passwordless sudo); otherwise the tests that need them skip.
cross_ready() {
  command -v qemu-aarch64-static > /dev/null && command -v aarch64-linux-gnu-gcc > /dev/null \
    && [ -f /usr/aarch64-linux-gnu/include/stdio.h ]
}
if ! cross_ready && command -v apt-get > /dev/null; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo="sudo -n"
  fi
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    packages="qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
    { $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages; } \
      > .venv/apt.log 2>&1 || true
  fi
fi
if ! cross_ready; then
  echo "setup: AArch64 cross tools missing (apt-get install qemu-user-static gcc-aarch64-linux-gnu" \
    "libc6-dev-arm64-cross; log: .venv/apt.log if tried); the AArch64 ahead-of-time tests will skip" >&2
fi
