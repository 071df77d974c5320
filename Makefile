# xtalk — top-level make targets. Guest and native builds live in mk/*.mk.
#   make demo   set up (apt + venv), build, run experiments/quickstart.toml, write its report
#   make test   set up, build, check the import contracts (pyproject.toml), run the whole test suite
#   make bench  benchmarks, printed as ratios against their goals
SHELL := /bin/bash
VENV ?= .venv
# TEST_WORKERS=auto runs the tests in parallel, one worker a CPU (those marked timing alone:
# tests/framework/alone.py); 0, the default until every test is safe beside others (README)
TEST_WORKERS ?= 0
PY := $(VENV)/bin/python
XTALK := $(VENV)/bin/xtalk
SPEC ?= experiments/quickstart.toml
OUT ?= results

.PHONY: all setup tools demo test bench clean
# the cross compiler (and the rest) are installed first when missing
TOOLS_OK := $(shell command -v aarch64-linux-gnu-gcc >/dev/null && command -v gcc >/dev/null && echo yes)
all: $(if $(TOOLS_OK),,tools) native posix catalogue x86_64 arm64

tools:
	@scripts/setup.sh --apt-only

include $(wildcard mk/*.mk)

setup:
	@scripts/setup.sh

demo: setup
	@$(MAKE) -s all
	$(XTALK) run $(SPEC) --out $(OUT) --report

test: setup
	@$(MAKE) -s all
	$(VENV)/bin/ruff check src tests benchmarks
	PYTHONPATH=src $(VENV)/bin/lint-imports --no-logo
	$(PY) -m pytest -q -ra -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

bench: setup
	@$(MAKE) -s all
	$(PY) -m benchmarks

clean:
	rm -rf build
