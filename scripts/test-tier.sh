#!/usr/bin/env bash
# Runs one tier of the test suite (the Makefile's `make test` and `make test-all`) and prints,
# passed or not, its wall time counted from the make command's start: set-up, build and lint
# included, so every CI log shows what the gate costs (pytest's --durations=10 shows where).
# Usage: scripts/test-tier.sh NAME STARTED_AT_EPOCH_S COMMAND...
set -uo pipefail
name=$1 started=$2
shift 2
"$@"
status=$?
took=$(($(date +%s) - started))
printf '%s: %d min %02d s wall from its start (set-up, build and lint included), exit status %d, on %d CPUs, load %s\n' \
  "$name" $((took / 60)) $((took % 60)) "$status" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
