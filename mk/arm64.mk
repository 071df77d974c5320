# mk/arm64.mk - the arm64 probe guest.
#   build/arm64/xtalk-probe.img   raw Linux arm64 Image (64-byte header, text_offset
#                                 2 MiB): QEMU -M virt -kernel, Xen arm64 domU kernel=
#   build/arm64/xtalk-probe.elf   the same, with symbols (debugging, nm)
# Included by the top Makefile; standalone: make -f mk/arm64.mk arm64
# Needs Debian's gcc-aarch64-linux-gnu (binutils-aarch64-linux-gnu for objcopy).

ARM64_OUT     := build/arm64
ARM64_ELF     := $(ARM64_OUT)/xtalk-probe.elf
ARM64_IMG     := $(ARM64_OUT)/xtalk-probe.img
ARM64_CROSS   ?= aarch64-linux-gnu-
ARM64_CC      ?= $(ARM64_CROSS)gcc
ARM64_OBJCOPY ?= $(ARM64_CROSS)objcopy
ARM64_LDS     := guests/lib/arm64/link.ld
ARM64_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -march=armv8-a -mno-outline-atomics \
                 -mbranch-protection=none -ffreestanding -fno-pic -no-pie \
                 -fno-stack-protector -fno-asynchronous-unwind-tables -nostdlib \
                 -Iguests/lib -Iguests/lib/arm64 -Iguests/lib/plat -MMD -MP
# Platform code: no FP/SIMD (it runs in exception context) and no unaligned accesses
# (part of it runs with the MMU off, where all memory is Device memory).
ARM64_PLAT_CFLAGS := -mgeneral-regs-only -mstrict-align
ARM64_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
                 -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments -T $(ARM64_LDS)

# guests/lib/plat: the arch-neutral platform code, built with the platform flags too
ARM64_PLAT_SRCS := $(wildcard guests/lib/arm64/*.c guests/lib/arm64/*.S guests/lib/plat/*.c)
ARM64_SRCS      := $(ARM64_PLAT_SRCS) $(wildcard guests/lib/*.c guests/bench/*.c)
ARM64_OBJS      := $(patsubst %,$(ARM64_OUT)/obj/%.o,$(ARM64_SRCS))

.PHONY: arm64
arm64: $(ARM64_IMG) $(ARM64_ELF)

$(ARM64_ELF): $(ARM64_OBJS) $(ARM64_LDS)
	$(ARM64_CC) $(ARM64_CFLAGS) $(ARM64_LDFLAGS) -o $@ $(ARM64_OBJS) -lgcc

$(ARM64_IMG): $(ARM64_ELF)
	$(ARM64_OBJCOPY) -O binary $< $@

$(ARM64_OUT)/obj/guests/lib/arm64/%.c.o: guests/lib/arm64/%.c
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(ARM64_PLAT_CFLAGS) -c -o $@ $<

$(ARM64_OUT)/obj/guests/lib/plat/%.c.o: guests/lib/plat/%.c
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(ARM64_PLAT_CFLAGS) -c -o $@ $<

$(ARM64_OUT)/obj/guests/lib/arm64/%.S.o: guests/lib/arm64/%.S
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) -c -o $@ $<

$(ARM64_OUT)/obj/guests/%.c.o: guests/%.c
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) -c -o $@ $<

-include $(ARM64_OBJS:.o=.d)
