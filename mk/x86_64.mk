# mk/x86_64.mk - the x86-64 probe guest.
#   build/x86_64/xtalk-probe.elf      PVH + multiboot entry: QEMU -M pc, Xen PVH (and
#                                     microvm, where QEMU then picks multiboot)
#   build/x86_64/xtalk-probe-pvh.elf  the same image without the multiboot header:
#                                     QEMU -M microvm boots it via PVH (faster)
# Included by the top Makefile; standalone: make -f mk/x86_64.mk x86_64

X86_64_OUT     := build/x86_64
X86_64_ELF     := $(X86_64_OUT)/xtalk-probe.elf
X86_64_PVH_ELF := $(X86_64_OUT)/xtalk-probe-pvh.elf
X86_64_CC      ?= gcc
X86_64_LDS     := guests/lib/x86_64/link.ld
X86_64_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -m64 -march=x86-64 \
                  -ffreestanding -fno-pic -no-pie -mno-red-zone -fno-stack-protector \
                  -fno-asynchronous-unwind-tables -nostdlib \
                  -Iguests/lib -Iguests/lib/x86_64 -Iguests/lib/plat -MMD -MP
# Platform code runs in ring 0 (emulated on kvm-pvm, may interrupt SSE code): no SSE.
X86_64_PLAT_CFLAGS := -mgeneral-regs-only
X86_64_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
                  -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments -T $(X86_64_LDS)

# guests/lib/plat: the arch-neutral platform code, built with the platform flags too
X86_64_PLAT_SRCS := $(wildcard guests/lib/x86_64/*.c guests/lib/x86_64/*.S guests/lib/plat/*.c)
X86_64_SRCS      := $(X86_64_PLAT_SRCS) $(wildcard guests/lib/*.c guests/bench/*.c)
X86_64_OBJS      := $(patsubst %,$(X86_64_OUT)/obj/%.o,$(X86_64_SRCS))

.PHONY: x86_64
x86_64: $(X86_64_ELF) $(X86_64_PVH_ELF)

$(X86_64_ELF): $(X86_64_OBJS) $(X86_64_LDS)
	$(X86_64_CC) $(X86_64_CFLAGS) $(X86_64_LDFLAGS) -o $@ $(X86_64_OBJS) -lgcc

$(X86_64_PVH_ELF): $(X86_64_OBJS) $(X86_64_LDS)
	$(X86_64_CC) $(X86_64_CFLAGS) $(X86_64_LDFLAGS) -Wl,--defsym=x86_mb_magic=0 -o $@ $(X86_64_OBJS) -lgcc

$(X86_64_OUT)/obj/guests/lib/x86_64/%.c.o: guests/lib/x86_64/%.c
	@mkdir -p $(@D)
	$(X86_64_CC) $(X86_64_CFLAGS) $(X86_64_PLAT_CFLAGS) -c -o $@ $<

$(X86_64_OUT)/obj/guests/lib/plat/%.c.o: guests/lib/plat/%.c
	@mkdir -p $(@D)
	$(X86_64_CC) $(X86_64_CFLAGS) $(X86_64_PLAT_CFLAGS) -c -o $@ $<

$(X86_64_OUT)/obj/guests/lib/x86_64/%.S.o: guests/lib/x86_64/%.S
	@mkdir -p $(@D)
	$(X86_64_CC) $(X86_64_CFLAGS) -c -o $@ $<

$(X86_64_OUT)/obj/guests/%.c.o: guests/%.c
	@mkdir -p $(@D)
	$(X86_64_CC) $(X86_64_CFLAGS) -c -o $@ $<

-include $(X86_64_OBJS:.o=.d)
