#!/usr/bin/env bash
# Runs one tier of the test suite (the Makefile's `make test` and `make test-all`) and prints,
# passed or not, its wall time counted from the make command's start (set-up, build and lint
# included) beside the tests' own, so every CI log shows what the gate costs (pytest's
# --durations=10 shows where), and how many known-answer tests this machine voided
# (tests/framework/known_answer.py: xtalk said the machine cannot answer for them).
# The tier's record (voided.jsonl; other-work.jsonl: what else ran beside each test that runs
# alone, tests/framework/other_work.py) is kept in build/test-record/ for a look after.
# Usage: scripts/test-tier.sh NAME STARTED_AT_EPOCH_S COMMAND...
set -uo pipefail
name=$1 started=$2
shift 2
record="$(dirname "$0")/../build/test-record"
rm -rf "$record" && mkdir -p "$record"
export XTALK_TEST_RECORD
XTALK_TEST_RECORD="$(cd "$record" && pwd)"
tests_started=$(date +%s)
"$@"
status=$?
now=$(date +%s)
took=$((now - started)) tests=$((now - tests_started))
voided=$(cat "$XTALK_TEST_RECORD/voided.jsonl" 2>/dev/null | wc -l)
printf '%s: %d min %02d s wall from its start (set-up, build and lint %d min %02d s, tests %d min %02d s), exit status %d, on %d CPUs, load %s; known-answer tests voided by this machine: %d\n' \
  "$name" $((took / 60)) $((took % 60)) $(((took - tests) / 60)) $(((took - tests) % 60)) $((tests / 60)) $((tests % 60)) \
  "$status" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$voided"
exit "$status"
