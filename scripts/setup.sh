#!/usr/bin/env bash
# Install what xtalk needs on Debian/Ubuntu, only what is missing: build tools, QEMU,
# the Python venv (.venv) with pinned dependencies. Safe to run again (a no-op then).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
have() { command -v "$1" >/dev/null 2>&1; }
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
have gcc || need+=(gcc)
have make || need+=(make)
have qemu-system-x86_64 || need+=(qemu-system-x86)
have qemu-system-aarch64 || need+=(qemu-system-arm)
have aarch64-linux-gnu-gcc || need+=(gcc-aarch64-linux-gnu)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
have chromium || need+=(chromium)  # renders the HTML report in tests (headless)
if ((${#need[@]})); then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

stamp=.venv/.xtalk-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: creating .venv and installing Python dependencies"
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[dev]'
  touch "$stamp"
fi
