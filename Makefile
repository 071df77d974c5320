# xtalk — top-level make targets. Guest and native builds live in mk/*.mk.
#   make demo   set up (apt + venv), build, run experiments/quickstart.toml, write its report
#   make test   set up, build, run the whole test suite
#   make bench  benchmarks, printed as ratios against their goals
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
XTALK := $(VENV)/bin/xtalk
SPEC ?= experiments/quickstart.toml
OUT ?= results

.PHONY: all setup demo test bench clean
all: native posix x86_64 arm64

include $(wildcard mk/*.mk)

setup:
	@scripts/setup.sh

demo: setup
	@$(MAKE) -s all
	$(XTALK) run $(SPEC) --out $(OUT) --report

test: setup
	@$(MAKE) -s all
	$(VENV)/bin/ruff check src tests benchmarks
	$(PY) -m pytest -q -ra $(PYTEST_ARGS)

bench: setup
	@$(MAKE) -s all
	$(PY) -m benchmarks

clean:
	rm -rf build
