# xtalk — top-level make targets. Guest and native builds live in mk/*.mk.
#   make demo      set up (apt + venv), build, run experiments/quickstart.toml, write its report
#   make test      the gate (what CI runs): set up, build, check the import contracts (pyproject.toml),
#                  run every test not marked `full` (README, "Tests")
#   make test-all  the same with every test: the full Xen-lab groups, Linux-RT under TCG, foreign
#                  images, the long searches (before a change to backends, the lab, images or guests)
#   make bench     benchmarks, printed as ratios against their goals
SHELL := /bin/bash
# every rule is written out (here and in mk/*.mk): without make's built-in ones, `make native`
# with nothing to do takes under 5 ms instead of ~45 (xtalk asks make at every run; issue 46)
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
VENV ?= .venv
# pytest-xdist workers: auto is one a CPU; the tests marked timing or xen run with no other
# beside them (tests/framework/alone.py); 0 runs every test one after the other
TEST_WORKERS ?= auto
# the guests and native programs are built with a job a CPU (26 s -> 13 s on 2 CPUs): nproc is asked
# by the recipe's shell, so xtalk's own `make native` calls start no shell for it
BUILD = $(MAKE) -s -j$$(nproc) all
# the gate's tests: every test but those marked full (pyproject.toml's markers)
GATE := not full
# when the tier began (scripts/test-tier.sh): asked of the shell only by the goals that read it,
# as the cross compiler's check below is, so that xtalk's own make calls (images/artifacts.py)
# start no shell that they do not need
STARTED_AT := $(if $(filter test test-all,$(MAKECMDGOALS)),$(shell date +%s))
PY := $(VENV)/bin/python
PYTEST := $(PY) -m pytest -q -ra -n $(TEST_WORKERS) --dist loadgroup --durations=10
XTALK := $(VENV)/bin/xtalk
SPEC ?= experiments/quickstart.toml
OUT ?= results

.PHONY: all setup tools demo test test-all lint bench clean
# the cross compiler (and the rest) are installed first when missing
TOOLS_OK = $(shell command -v aarch64-linux-gnu-gcc >/dev/null && command -v gcc >/dev/null && echo yes)
all: $(if $(filter all,$(or $(MAKECMDGOALS),all)),$(if $(TOOLS_OK),,tools)) native posix catalogue x86_64 arm64

tools:
	@scripts/setup.sh --apt-only

include $(wildcard mk/*.mk)

setup:
	@scripts/setup.sh

demo: setup
	@$(BUILD)
	$(XTALK) run $(SPEC) --out $(OUT) --report --wait

lint: setup
	@$(BUILD)
	$(VENV)/bin/ruff check src tests benchmarks
	PYTHONPATH=src $(VENV)/bin/lint-imports --no-logo

test: lint
	@scripts/test-tier.sh "make test" $(STARTED_AT) $(PYTEST) -m "$(GATE)" $(PYTEST_ARGS)

test-all: lint
	@scripts/test-tier.sh "make test-all" $(STARTED_AT) $(PYTEST) $(PYTEST_ARGS)

bench: setup
	@$(BUILD)
	$(PY) -m benchmarks

clean:
	rm -rf build
