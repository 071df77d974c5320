#!/usr/bin/env bash
# Install what xtalk needs on Debian/Ubuntu, only what is missing: build tools, QEMU,
# the Python venv (.venv) with pinned dependencies. Safe to run again (a no-op then).
# --apt-only: the packages only (what `make all` needs to build the guests).
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
# Linux-RT suite (guests/posix): static glibc for the guest builds, the image builder's
# Debian tools, and rt-tests / stress-ng so the native baseline runs the same wrappers.
# A compiler installed by this very run has no static libc yet: its libc comes with it.
static_libc() { have "$1" && [ "$("$1" -print-file-name=libc.a 2>/dev/null)" != libc.a ]; }
static_libc gcc || need+=(libc6-dev)
static_libc aarch64-linux-gnu-gcc || need+=(libc6-dev-arm64-cross)
have apt-get && { have dpkg-deb || need+=(dpkg); }
have cyclictest || need+=(rt-tests)
have stress-ng || need+=(stress-ng)
# Xen lab (`xtalk lab start xen`): fdtput extends QEMU virt's DTB, ssh/ssh-keygen reach
# dom0 with a pinned host key, cpio packs the dom0 initramfs, readelf checks its libraries.
have fdtput || need+=(device-tree-compiler)
{ have ssh && have ssh-keygen; } || need+=(openssh-client)
# the link fault tests (tests/framework/netem_link.py) drop packets with nftables in a namespace of their own
have nft || need+=(nftables)
have cpio || need+=(cpio)
# Fleet tests (tests/framework/fleet_lab.py): boards that are this machine over ssh, a user-run sshd each.
{ have sshd || [ -x /usr/sbin/sshd ]; } || need+=(openssh-server)
have readelf || need+=(binutils)
# The lab's "all-schedulers" Xen (xtalk.lab.xen_source): Xen's kconfig and dpkg-source.
have bison || need+=(bison)
have flex || need+=(flex)
have dpkg-source || need+=(dpkg-dev)
# Instruments (xtalk.instruments, docs/instruments.md): sigrok-cli, which labgrid's
# SigrokDriver runs; its demo device is the tests' logic analyser.
have sigrok-cli || need+=(sigrok-cli)
if ((${#need[@]})); then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ "${1:-}" = "--apt-only" ] && exit 0

stamp=.venv/.xtalk-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: creating .venv and installing Python dependencies"
  # uv (pinned) resolves and installs the pinned dependencies: ~5 s from its cache where pip
  # takes ~65 s on 2 CPUs; --compile-bytecode writes the .pyc files pip would have (where
  # PYTHONDONTWRITEBYTECODE is set, every command would otherwise compile what it imports).
  # uv itself is installed once a machine, in a venv of its own in xtalk's cache directory
  # (images/cache.py's): a new checkout's venv is then made by uv, without pip (set-up 18.6 s -> 13.6 s)
  uv_home="${XTALK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xtalk}/uv-0.9.5"
  if [ ! -x "$uv_home/bin/uv" ]; then
    rm -rf "$uv_home"
    python3 -m venv "$uv_home"
    "$uv_home/bin/pip" install -q --disable-pip-version-check uv==0.9.5
  fi
  rm -rf .venv
  "$uv_home/bin/uv" venv -q --python "$(command -v python3)" .venv
  "$uv_home/bin/uv" pip install -q --compile-bytecode --python .venv/bin/python -e '.[dev]'
  touch "$stamp"
fi
# xtalk's own modules byte-compiled now, as pip does for installed packages: where
# PYTHONDONTWRITEBYTECODE is set, every command would otherwise compile them (~0.3 s).
.venv/bin/python -m compileall -q src >/dev/null
