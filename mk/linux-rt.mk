# mk/linux-rt.mk - the Linux PREEMPT_RT guest image (images/linux-rt, docs/linux-rt.md):
#   make linux-rt                      build (or reuse from the cache) the x86_64 image
#   make linux-rt LINUX_RT_ARCH=arm64
# The image lives in the cache (~/.cache/xtalk/images/linux-rt-<arch>-<hash>/), keyed by
# the content hash of its inputs; `xtalk images build` does the work (needs the venv:
# make setup).
LINUX_RT_ARCH ?= x86_64

.PHONY: linux-rt
linux-rt:
	@$(MAKE) -s posix-$(LINUX_RT_ARCH)
	$(VENV)/bin/xtalk images build linux-rt --arch $(LINUX_RT_ARCH)
