# mk/catalogue.mk - build/catalogue.json: every bench the native programs run, with its
# default role, KPI class, parameters (type, range, default: the declarations the
# programs check values against) and metrics (unit, kind), one suite per program:
# probe (xtalk-bench: the probe guests' benches), posix (xtalk-rt: the Linux-RT image's
# suite), steal (xtalk-steal). xtalk checks campaign specs against it (docs/benchmarks.md,
# "The catalogue"); `make native` and `make all` write it.
CATALOGUE := build/catalogue.json

.PHONY: catalogue
catalogue: $(CATALOGUE)
native: $(CATALOGUE)

CATALOGUE_PROGRAMS := build/native/xtalk-bench build/posix/native/xtalk-rt build/native/xtalk-steal

# (paths, not native.mk's variables: this file is included before native.mk)
$(CATALOGUE): $(CATALOGUE_PROGRAMS) mk/catalogue.mk
	{ sep='{"suites": ['; for p in $(CATALOGUE_PROGRAMS); do \
	  printf '%s\n' "$$sep" && $$p catalogue || exit 1; sep=,; done; printf ']}\n'; } > $@.tmp
	mv $@.tmp $@
