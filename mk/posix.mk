# mk/posix.mk - the POSIX real-time suite xtalk-rt (guests/posix): hosted Linux programs
# with pthreads that reuse the protocol code of guests/lib (params, ring, XT lines, hist)
# and the hosted-Linux platform code native/linux_common.c shares with the native program.
#   make posix          native build: build/posix/native/xtalk-rt (dynamic)
#   make posix-x86_64   static build for the x86-64 Linux-RT initramfs
#   make posix-arm64    static build for the arm64 Linux-RT initramfs (aarch64-linux-gnu-gcc)
# The probe benches xtalk-rt carries (seed 003's: guests/posix/main.c, PROBE) run on the
# probe's own driver (guests/lib/driver.c, run.c).
POSIX_PROBE := dhrystone cachebench stream
POSIX_SRC   := $(wildcard guests/posix/*.c guests/posix/lib/*.c guests/posix/bench/*.c) \
               $(addprefix guests/lib/,cmdline.c fmt.c string.c ring.c proto.c hist.c catalogue.c driver.c run.c) \
               $(POSIX_PROBE:%=guests/bench/%.c) native/linux_common.c native/smp_linux.c
POSIX_HDR   := $(wildcard guests/posix/lib/*.h guests/lib/*.h) native/linux_common.h
POSIX_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
                -Iguests/posix/lib -Iguests/lib -Inative -pthread
POSIX_ARM64_CC ?= aarch64-linux-gnu-gcc

.PHONY: posix posix-x86_64 posix-arm64 posix-clean
posix: build/posix/native/xtalk-rt
posix-x86_64: build/posix/x86_64/xtalk-rt
posix-arm64: build/posix/arm64/xtalk-rt

build/posix/native/xtalk-rt: $(POSIX_SRC) $(POSIX_HDR) mk/posix.mk
	@mkdir -p $(dir $@)
	gcc $(POSIX_CFLAGS) -o $@ $(POSIX_SRC)

build/posix/x86_64/xtalk-rt: $(POSIX_SRC) $(POSIX_HDR) mk/posix.mk
	@mkdir -p $(dir $@)
	gcc $(POSIX_CFLAGS) -DXT_POSIX_GUEST -static -o $@ $(POSIX_SRC)

build/posix/arm64/xtalk-rt: $(POSIX_SRC) $(POSIX_HDR) mk/posix.mk
	@mkdir -p $(dir $@)
	$(POSIX_ARM64_CC) $(POSIX_CFLAGS) -DXT_POSIX_GUEST -static -o $@ $(POSIX_SRC)

posix-clean:
	rm -rf build/posix
