/* smp.c - several vCPUs (platform.h: xt_ncpus, xt_cpu_index, xt_cpu_start).
 *
 * xt_ncpus: the enabled local APICs of the ACPI MADT (RSDP from the PVH start info, else
 * searched for in 0xe0000..0xfffff, where SeaBIOS and qboot put it), parsed on first use where the caller runs
 * (ring 3: the search is native there); without a MADT, QEMU's fw_cfg FW_CFG_NB_CPUS
 * (key 0x05, I/O ports 0x510/0x511, read at boot in ring 0; -M microvm and -M pc have
 * both); else 1. The MADT also gives each vCPU's APIC ID (the boot vCPU's first, the
 * others in table order); without it vCPU i is APIC ID i, as QEMU numbers -smp N.
 * Under Xen (PVH domU) always 1: a Xen guest's vCPUs come up through
 * VCPUOP_initialise/VCPUOP_up, not INIT-SIPI, and that is not implemented.
 * xt_cpu_index: the index in the vCPU's struct x86_percpu, read through its GS base
 * (`mov %gs:8`, cpu.c). Chosen over RDTSCP/RDPID with IA32_TSC_AUX: on kvm-pvm ring-3 code
 * runs natively, so those would read whatever TSC_AUX the host has loaded; a GS base is
 * part of the guest's user context there, under TCG and on VT-x/AMD-V alike, and a
 * segment-prefixed load is as cheap as any read. Nothing in the guest touches %gs.
 * xt_cpu_start(cpu, fn, arg), from vCPU 0 only: INIT, 10 ms, STARTUP (twice at most,
 * 200 us apart) to vCPU cpu's local APIC, with aptramp.S copied to a free page below 1 MiB;
 * the new vCPU loads the boot vCPU's CR0/CR3/CR4/EFER, boot.S's GDT, the IDT, a TSS and
 * per-CPU block of its own (cpu.c), then runs fn(arg) on stacks of its own. Returns true
 * once the vCPU has taken fn; after 1 s without that it sends INIT again (so a late
 * vCPU cannot run fn after false was returned) and returns false. The waits run where
 * the caller runs (ring 3 for all of xt_main): only the IPIs go through the ring-0 gate.
 * When fn returns, the vCPU halts for good with interrupts off (xt_cpu_start on it
 * again restarts it).
 * Deliberate difference from platform.h's "privileged": fn runs in ring 3, through
 * xt_run_unprivileged, as xt_main does on the boot vCPU (x86.h): on kvm-pvm ring 0 is
 * emulated and cannot run the SSE code the compiler puts in neutral C; ring-0 work goes
 * through the gates that check x86_cpl() (console, exit, timer), and
 * xt_run_unprivileged inside fn is a plain call.
 * Caveats: started vCPUs get no guard
 * pages and a 64 KiB ring-3 stack; their local APICs stay software-disabled (interrupts
 * serve the boot vCPU alone); the trampoline page must be usable RAM below 1 MiB in the
 * boot memory map (the boot information there has been copied out by then).
 */
#include "platform.h"
#include "x86.h"

#define FW_CFG_SEL  0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_SIGNATURE 0x00
#define FW_CFG_NB_CPUS   0x05
#define ICR_INIT    0x4500          /* INIT, assert (edge: QEMU and KVM need no de-assert) */
#define ICR_STARTUP 0x0600

enum { AP_OFF, AP_STARTING, AP_RUNNING, AP_PARKED, AP_ABANDONED };

#define AP_KSTACK 16384
#define AP_IST    4096
#define AP_USTACK 65536
struct ap_stacks {
	char kstack[AP_KSTACK], ist[AP_IST], ustack[AP_USTACK];
};

static unsigned fw_cfg_cpus = 1;                /* from fw_cfg at boot */
static uint32_t bsp_apic_id;                    /* from CPUID at boot: in ring 0 (in ring 3
						 * kvm-pvm shows the host CPU's) */
static unsigned ncpus;                          /* 0 until xt_ncpus has looked */
static uint32_t apic_id[X86_MAX_CPUS];          /* by vCPU index */
static uintptr_t tramp_page;                    /* the copy of aptramp.S, 0 until placed */
static volatile uint32_t ap_state[X86_MAX_CPUS];
static void (*volatile ap_fn[X86_MAX_CPUS])(void *);
static void *volatile ap_arg[X86_MAX_CPUS];
static struct ap_stacks ap_stacks[X86_MAX_CPUS - 1] __attribute__((aligned(4096)));

static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }

void x86_smp_init(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	bsp_apic_id = r[1] >> 24;
	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		if (r[1])
			bsp_apic_id = r[3];     /* the full x2APIC ID */
	}
	if (x86_xen_base())
		return;                         /* Xen: no INIT-SIPI (see above) */
	outw(FW_CFG_SEL, FW_CFG_SIGNATURE);
	if (inb(FW_CFG_DATA) != 'Q' || inb(FW_CFG_DATA) != 'E' || inb(FW_CFG_DATA) != 'M' ||
	    inb(FW_CFG_DATA) != 'U')
		return;
	outw(FW_CFG_SEL, FW_CFG_NB_CPUS);
	unsigned n = inb(FW_CFG_DATA);
	n |= (unsigned)inb(FW_CFG_DATA) << 8;
	fw_cfg_cpus = n < 1 ? 1 : n > X86_MAX_CPUS ? X86_MAX_CPUS : n;
}

static bool acpi_sum_ok(const uint8_t *p, uint32_t n)
{
	uint8_t sum = 0;
	while (n--)
		sum += *p++;
	return sum == 0;
}

static bool sig_is(const void *p, const char *sig, unsigned n)
{
	const char *c = p;
	for (unsigned i = 0; i < n; i++)
		if (c[i] != sig[i])
			return false;
	return true;
}

/* Tables are read in place through the identity map (below 4 GiB, page 0 unmapped). */
static bool table_ok(uint64_t addr)
{
	return addr >= 0x1000 && addr < 0xfffff000ull;
}

static const uint8_t *find_rsdp(void)
{
	uint64_t r = x86_boot_info.rsdp;
	if (table_ok(r) && sig_is((const void *)(uintptr_t)r, "RSD PTR ", 8))
		return (const uint8_t *)(uintptr_t)r;
	for (uintptr_t p = 0xe0000; p < 0x100000; p += 16)     /* the BIOS area (not the EBDA: */
		if (sig_is((const void *)p, "RSD PTR ", 8) &&  /* its pointer is on page 0) */
		    acpi_sum_ok((const uint8_t *)p, 20))
			return (const uint8_t *)p;
	return 0;
}

static const uint8_t *find_madt(void)
{
	const uint8_t *rsdp = find_rsdp();
	if (!rsdp)
		return 0;
	uint64_t xsdt = rsdp[15] >= 2 ? *(const uint64_t *)(rsdp + 24) : 0;
	uint64_t root = table_ok(xsdt) ? xsdt : *(const uint32_t *)(rsdp + 16);
	unsigned esz = table_ok(xsdt) ? 8 : 4;
	if (!table_ok(root))
		return 0;
	const uint8_t *t = (const uint8_t *)(uintptr_t)root;
	uint32_t len = *(const uint32_t *)(t + 4);
	for (uint32_t off = 36; off + esz <= len; off += esz) {
		uint64_t e = esz == 8 ? *(const uint64_t *)(t + off) : *(const uint32_t *)(t + off);
		if (table_ok(e) && sig_is((const void *)(uintptr_t)e, "APIC", 4))
			return (const uint8_t *)(uintptr_t)e;
	}
	return 0;
}

/* The MADT's enabled local APICs into apic_id[], the boot vCPU's first; 0 if none. */
static unsigned madt_cpus(void)
{
	const uint8_t *m = find_madt();
	if (!m)
		return 0;
	uint32_t len = *(const uint32_t *)(m + 4), bsp = bsp_apic_id, n = 1;
	apic_id[0] = bsp;
	bool bsp_seen = false;
	for (uint32_t off = 44; off + 2 <= len && m[off + 1] >= 2; off += m[off + 1]) {
		const uint8_t *e = m + off;
		uint32_t id, flags;
		if (e[0] == 0 && e[1] >= 8) {            /* processor local APIC */
			id = e[3];
			flags = *(const uint32_t *)(e + 4);
		} else if (e[0] == 9 && e[1] >= 16) {    /* processor local x2APIC */
			id = *(const uint32_t *)(e + 4);
			flags = *(const uint32_t *)(e + 8);
		} else {
			continue;
		}
		if (!(flags & 1))
			continue;                       /* not enabled (e.g. hot-pluggable) */
		if (id == bsp && !bsp_seen)
			bsp_seen = true;
		else if (n < X86_MAX_CPUS)
			apic_id[n++] = id;
	}
	return bsp_seen ? n : 0;
}

unsigned xt_ncpus(void)
{
	if (!ncpus) {
		unsigned n = x86_xen_base() ? 1 : madt_cpus();
		if (!n) {
			n = fw_cfg_cpus;
			for (unsigned i = 0; i < n; i++)
				apic_id[i] = i;
		}
		ncpus = n;
	}
	return ncpus;
}

unsigned xt_cpu_index(void)
{
	uint32_t i;
	__asm__("movl %%gs:%c1, %0" : "=r"(i) : "i"(X86_PC_INDEX));
	return i;
}

/* A page below 1 MiB (not page 0) inside usable RAM: 0x8000 if it is, else the first. */
static uintptr_t find_low_page(void)
{
	const struct x86_bootinfo *bi = &x86_boot_info;
	if (!bi->nram)
		return 0x8000;                  /* no memory map: the usual choice */
	for (uintptr_t p = 0x8000;; p = p == 0x8000 ? 0x1000 : p + 0x1000) {
		if (p >= 0x100000)
			return 0;
		for (unsigned i = 0; i < bi->nram; i++)
			if (p >= bi->ram[i].base && p + 0x1000 <= bi->ram[i].base + bi->ram[i].size)
				return p;
	}
}

static void place_trampoline(uintptr_t page)
{
	size_t n = (size_t)(x86_ap_tramp_end - x86_ap_tramp);
	void *d = (void *)page;
	const void *s = x86_ap_tramp;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");   /* one emulated instruction */
	tramp_page = page;
}

static uint64_t read_cr(int n)
{
	uint64_t v = 0;
	if (n == 0)
		__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	else if (n == 3)
		__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	else
		__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* The parameter block for vCPU cpu (the copy's; one start at a time). */
static void fill_params(unsigned cpu)
{
	char *p = (char *)tramp_page + (x86_ap_tramp_params - x86_ap_tramp);
	uint32_t base = (uint32_t)tramp_page;
	uint64_t *gdt = (uint64_t *)(p + X86_AP_GDT);
	gdt[0] = 0;
	gdt[1] = 0x00af9a000000ffffull;         /* 0x08: 64-bit code, as boot.S's */
	gdt[2] = 0x00cf92000000ffffull;         /* 0x10: data */
	gdt[3] = 0x00cf9a000000ffffull;         /* 0x18: 32-bit code */
	*(uint16_t *)(p + X86_AP_GDTR) = 4 * 8 - 1;
	*(uint32_t *)(p + X86_AP_GDTR + 2) = base + (uint32_t)(p + X86_AP_GDT - (char *)tramp_page);
	*(uint32_t *)(p + X86_AP_PM32) = base + (uint32_t)(x86_ap_tramp_pm32 - x86_ap_tramp);
	*(uint16_t *)(p + X86_AP_PM32 + 4) = X86_AP_CODE32;
	*(uint32_t *)(p + X86_AP_LM64) = base + (uint32_t)(x86_ap_tramp_lm64 - x86_ap_tramp);
	*(uint16_t *)(p + X86_AP_LM64 + 4) = X86_KERNEL_CS;
	*(uint64_t *)(p + X86_AP_CR0) = read_cr(0);
	*(uint64_t *)(p + X86_AP_CR3) = read_cr(3);
	*(uint64_t *)(p + X86_AP_CR4) = read_cr(4);
	*(uint64_t *)(p + X86_AP_EFER) = rdmsr(0xc0000080) & ~0x400ull;   /* LMA is the CPU's to set */
	*(uint64_t *)(p + X86_AP_STACK) = (uintptr_t)ap_stacks[cpu - 1].kstack + AP_KSTACK;
	*(uint64_t *)(p + X86_AP_CPU) = cpu;
}

/* Ring 0 (the X86_SYS_CPU_* gates): INIT with fn and arg recorded, STARTUP, or INIT alone
 * (RESET: back to waiting for a STARTUP IPI). */
long x86_smp_ring0(long nr, long cpu, long fn, long arg)
{
	if (cpu < 1 || (unsigned long)cpu >= xt_ncpus())
		return 0;
	uint32_t id = apic_id[cpu];
	if (id == bsp_apic_id)
		return 0;                       /* never INIT ourselves (a bad table) */
	if (nr == X86_SYS_CPU_SIPI)
		return tramp_page && x86_lapic_ipi(id, ICR_STARTUP | (uint32_t)(tramp_page >> 12));
	if (nr == X86_SYS_CPU_RESET)
		return x86_lapic_ipi(id, ICR_INIT);
	uint32_t st = ap_state[cpu];
	if (st == AP_STARTING || st == AP_RUNNING)
		return 0;
	if (!tramp_page) {
		uintptr_t page = find_low_page();
		if (!page)
			return 0;
		place_trampoline(page);
	}
	fill_params((unsigned)cpu);
	ap_fn[cpu] = (void (*)(void *))fn;
	ap_arg[cpu] = (void *)arg;
	__atomic_store_n(&ap_state[cpu], AP_STARTING, __ATOMIC_RELEASE);
	if (x86_lapic_ipi(id, ICR_INIT))
		return 1;
	ap_state[cpu] = st;
	return 0;
}

static long gate(long nr, long cpu, long fn, long arg)
{
	if (x86_cpl())
		return x86_syscall(nr, cpu, fn, arg);
	return x86_smp_ring0(nr, cpu, fn, arg);
}

/* Until vCPU cpu has left AP_STARTING or the TSC reaches until. */
static void wait_start(unsigned cpu, uint64_t until)
{
	while (__atomic_load_n(&ap_state[cpu], __ATOMIC_ACQUIRE) == AP_STARTING && rdtsc() < until)
		__asm__ volatile("pause");
}

bool xt_cpu_start(unsigned cpu, void (*fn)(void *), void *arg)
{
	if (cpu < 1 || cpu >= xt_ncpus() || !fn || xt_cpu_index() != 0)
		return false;
	uint64_t hz = xt_counter_hz(), ms = (hz ? hz : 4000000000ull) / 1000;   /* unknown: waits err long */
	uint64_t t0 = rdtsc();
	if (!gate(X86_SYS_CPU_INIT, cpu, (long)fn, (long)arg))
		return false;
	wait_start(cpu, rdtsc() + 10 * ms);     /* INIT -> STARTUP */
	for (int i = 0; i < 2 && ap_state[cpu] == AP_STARTING; i++) {
		gate(X86_SYS_CPU_SIPI, cpu, 0, 0);
		wait_start(cpu, rdtsc() + ms / 5);
	}
	wait_start(cpu, t0 + 1000 * ms);
	uint32_t want = AP_STARTING;
	if (__atomic_compare_exchange_n(&ap_state[cpu], &want, AP_ABANDONED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		gate(X86_SYS_CPU_RESET, cpu, 0, 0);
		return false;
	}
	return true;                            /* AP_RUNNING, or AP_PARKED if fn was quick */
}

static long run_fn(void *arg)                   /* ring 3 */
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	ap_fn[cpu](ap_arg[cpu]);
	return 0;
}

/* From aptramp.S, ring 0 on the vCPU's stack. */
void x86_ap_main(unsigned cpu)
{
	struct ap_stacks *s = &ap_stacks[cpu - 1];
	x86_cpu_setup(cpu, (uintptr_t)s->kstack + AP_KSTACK, (uintptr_t)s->ist + AP_IST,
		      (uintptr_t)s->ustack + AP_USTACK);
	x86_idt_load();
	uint32_t want = AP_STARTING;
	if (__atomic_compare_exchange_n(&ap_state[cpu], &want, AP_RUNNING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		xt_run_unprivileged(run_fn, (void *)(uintptr_t)cpu);
		__atomic_store_n(&ap_state[cpu], AP_PARKED, __ATOMIC_RELEASE);
	}
	for (;;)
		__asm__ volatile("cli; hlt");
}
