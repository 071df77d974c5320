# mk/xen-lab.mk - the Xen lab: Xen 4.17 + a busybox dom0 from Debian packages, booted
# under QEMU (TCG). Everything is cached by content hash in ~/.cache/xtalk/lab.
#   make xen-lab              build the boot files for arm64 and x86_64
#   make xen-lab-start        boot it (XEN_LAB_ARCH=arm64 or x86_64), wait for dom0's ssh
#   make xen-lab-stop         stop every running lab
#   make xen-quick            start the arm64 lab and run experiments/xen_quick.toml
# The same as `xtalk lab build|start|stop xen --arch ...`.

XEN_LAB_ARCH ?= arm64
XEN_XTALK    ?= .venv/bin/xtalk

.PHONY: xen-lab xen-lab-arm64 xen-lab-x86_64 xen-lab-start xen-lab-stop xen-quick
xen-lab: xen-lab-arm64 xen-lab-x86_64

xen-lab-arm64: arm64
	$(XEN_XTALK) lab build xen --arch arm64

xen-lab-x86_64: x86_64
	$(XEN_XTALK) lab build xen --arch x86_64

xen-lab-start:
	$(XEN_XTALK) lab start xen --arch $(XEN_LAB_ARCH)

xen-lab-stop:
	$(XEN_XTALK) lab stop

xen-quick: arm64
	$(XEN_XTALK) lab start xen --arch arm64
	$(XEN_XTALK) run experiments/xen_quick.toml --out $(or $(OUT),results)
