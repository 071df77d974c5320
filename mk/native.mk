# mk/native.mk - builds build/native/xtalk-bench: the shared bench code as a Linux host
# program for the `native` backend, and build/native/xtalk-steal (native/steal.c: the
# steal injector, on the protocol code of guests/lib and the POSIX suite's platform).
# Included by the top Makefile; also usable alone:
#   make -f mk/native.mk native
# The neutral code (guests/lib/*.c minus libc_shims.c, guests/bench/*.c) is compiled
# -ffreestanding -nostdinc so a libc header or call there fails here, not in a guest.
NATIVE_CC      ?= gcc
NATIVE_OUT     := build/native
NATIVE_BIN     := $(NATIVE_OUT)/xtalk-bench
NATIVE_WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror=implicit-function-declaration
NATIVE_CFLAGS  := -O2 -g -std=gnu11 $(NATIVE_WARN) -Iguests/lib -MMD -MP
NATIVE_FREE    = -ffreestanding -nostdinc -isystem $(shell $(NATIVE_CC) -print-file-name=include)
NATIVE_LIB_SRC := $(filter-out guests/lib/libc_shims.c,$(wildcard guests/lib/*.c))
NATIVE_NEUTRAL := $(NATIVE_LIB_SRC) $(wildcard guests/bench/*.c)
NATIVE_HOST    := $(filter-out native/steal.c,$(wildcard native/*.c))
NATIVE_HOST_S  := $(wildcard native/*.S)
NATIVE_OBJS    := $(patsubst %.c,$(NATIVE_OUT)/obj/%.o,$(NATIVE_NEUTRAL) $(NATIVE_HOST)) \
                  $(patsubst %.S,$(NATIVE_OUT)/obj/%.o,$(NATIVE_HOST_S))

NATIVE_STEAL   := $(NATIVE_OUT)/xtalk-steal
STEAL_SRC      := native/steal.c native/linux_common.c guests/posix/lib/platform_posix.c \
                  $(addprefix guests/lib/,cmdline.c fmt.c string.c ring.c proto.c catalogue.c)

.PHONY: native native-clean
native: $(NATIVE_BIN) $(NATIVE_STEAL)

$(NATIVE_BIN): $(NATIVE_OBJS)
	$(NATIVE_CC) -pthread -o $@ $^

$(NATIVE_STEAL): $(STEAL_SRC) $(wildcard guests/lib/*.h guests/posix/lib/*.h) native/linux_common.h mk/native.mk
	@mkdir -p $(dir $@)
	$(NATIVE_CC) -O2 -g -std=gnu11 $(NATIVE_WARN) -Iguests/posix/lib -Iguests/lib -Inative -o $@ $(STEAL_SRC)

$(NATIVE_OUT)/obj/guests/%.o: guests/%.c
	@mkdir -p $(dir $@)
	$(NATIVE_CC) $(NATIVE_CFLAGS) $(NATIVE_FREE) -c -o $@ $<

$(NATIVE_OUT)/obj/native/%.o: native/%.c
	@mkdir -p $(dir $@)
	$(NATIVE_CC) $(NATIVE_CFLAGS) -c -o $@ $<

$(NATIVE_OUT)/obj/native/%.o: native/%.S
	@mkdir -p $(dir $@)
	$(NATIVE_CC) -MMD -MP -c -o $@ $<

native-clean:
	rm -rf $(NATIVE_OUT)

-include $(NATIVE_OBJS:.o=.d)
