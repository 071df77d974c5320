/* board.c - what the device tree says about the machine, collected into arm64_board:
 * RAM (/memory), reserved ranges (/memreserve/, /reserved-memory), the command line
 * (/chosen/bootargs), the console UART (/chosen/stdout-path, else the first "arm,pl011"
 * or "arm,sbsa-uart" node), the GIC ("arm,gic-v3", or a GICv2 compatible), the
 * virtual timer interrupt (third entry of the "arm,armv8-timer" interrupts), the first
 * "arm,pl061" GPIO controller and its interrupt, PSCI's
 * conduit (/psci method), the vCPUs (/cpus/cpu@N with device_type "cpu": their reg,
 * the MPIDR affinity PSCI CPU_ON takes; the first ARM64_MAX_CPUS), and whether this is a
 * Xen guest (/hypervisor "xen,xen").
 * Without a valid DTB, QEMU virt's defaults are assumed (PL011 at 0x09000000, GICv2
 * at 0x08000000, 128 MiB at 0x40000000, PSCI via HVC) and the command line is empty. */
#include "arm64.h"

struct arm64_board arm64_board;

#define MAX_UARTS 4
struct ctx {
	const void *fdt;
	const char *stdout_path;            /* up to ':' */
	unsigned nuart;
	struct { char path[192]; enum arm64_uart_kind kind; uint64_t base; } uart[MAX_UARTS];
	unsigned nalias;
	struct { const char *name, *value; } alias[8];
	bool virt;
};

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* a equals b up to b's end or a ':' in b. */
static bool path_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return !*a && (!*b || *b == ':');
}

static bool starts(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix)
		s++, prefix++;
	return !*prefix;
}

static void add_range(struct arm64_range *r, unsigned *n, uint64_t base, uint64_t size)
{
	if (size && *n < ARM64_MAX_RANGES)
		r[(*n)++] = (struct arm64_range){ base, size };
}

static bool okay(const void *fdt, const struct fdt_node *n)
{
	const char *s = (const char *)fdt_prop(fdt, n, "status", NULL);
	return !s || streq(s, "okay") || streq(s, "ok");
}

static void visit(const struct fdt_node *n, void *arg)
{
	struct ctx *c = arg;
	const void *fdt = c->fdt;
	struct arm64_board *b = &arm64_board;
	uint64_t base, size;
	uint32_t len;
	const uint8_t *v;

	if (n->depth == 0) {
		c->virt = fdt_compatible(fdt, n, "linux,dummy-virt");
		return;
	}
	if (!okay(fdt, n))
		return;
	if (n->depth == 1 && streq(n->name, "chosen")) {
		if ((v = fdt_prop(fdt, n, "bootargs", &len)))
			plat_cmdline_set((const char *)v, len);
		c->stdout_path = (const char *)fdt_prop(fdt, n, "stdout-path", NULL);
		return;
	}
	if (n->depth == 1 && streq(n->name, "aliases")) {
		/* Properties are name = path; walk them through the generic lookup by
		 * remembering the serial* ones. */
		static const char *const names[] = { "serial0", "serial1", "serial2", "serial3" };
		for (unsigned i = 0; i < 4 && c->nalias < 8; i++)
			if ((v = fdt_prop(fdt, n, names[i], NULL)))
				c->alias[c->nalias++] = (typeof(c->alias[0])){ names[i], (const char *)v };
		return;
	}
	v = fdt_prop(fdt, n, "device_type", NULL);
	if (n->depth == 1 && ((v && streq((const char *)v, "memory")) || starts(n->name, "memory@"))) {
		for (unsigned i = 0; fdt_reg(fdt, n, i, &base, &size); i++)
			add_range(b->ram, &b->nram, base, size);
		return;
	}
	if (n->depth == 2 && n->parent && streq(n->parent->name, "cpus") && v &&
	    streq((const char *)v, "cpu")) {
		if (b->ncpus < ARM64_MAX_CPUS && fdt_reg(fdt, n, 0, &base, &size))
			b->mpidr[b->ncpus++] = base;
		return;
	}
	if (n->depth == 2 && n->parent && streq(n->parent->name, "reserved-memory")) {
		for (unsigned i = 0; fdt_reg(fdt, n, i, &base, &size); i++)
			add_range(b->rsv, &b->nrsv, base, size);
		return;
	}
	if (fdt_compatible(fdt, n, "arm,pl011") || fdt_compatible(fdt, n, "arm,sbsa-uart")) {
		if (c->nuart < MAX_UARTS && fdt_reg(fdt, n, 0, &base, &size)) {
			unsigned i = c->nuart++, k = 0;
			for (; n->path[k] && k < sizeof c->uart[i].path - 1; k++)
				c->uart[i].path[k] = n->path[k];
			c->uart[i].path[k] = 0;
			c->uart[i].base = base;
			c->uart[i].kind = fdt_compatible(fdt, n, "arm,pl011") ? UART_PL011 : UART_SBSA;
		}
		return;
	}
	if (fdt_compatible(fdt, n, "arm,gic-v3")) {
		if (fdt_reg(fdt, n, 0, &b->gicd, &b->gicd_size) &&
		    fdt_reg(fdt, n, 1, &b->gicc, &b->gicc_size))
			b->gic = GIC_V3;
		return;
	}
	if (fdt_compatible(fdt, n, "arm,cortex-a15-gic") || fdt_compatible(fdt, n, "arm,gic-400") ||
	    fdt_compatible(fdt, n, "arm,cortex-a9-gic") || fdt_compatible(fdt, n, "arm,cortex-a7-gic") ||
	    fdt_compatible(fdt, n, "arm,arm11mp-gic") || fdt_compatible(fdt, n, "arm,gic-v2")) {
		if (fdt_reg(fdt, n, 0, &b->gicd, &b->gicd_size) &&
		    fdt_reg(fdt, n, 1, &b->gicc, &b->gicc_size))
			b->gic = GIC_V2;
		return;
	}
	if (fdt_compatible(fdt, n, "arm,armv8-timer") || fdt_compatible(fdt, n, "arm,armv7-timer")) {
		/* interrupts: secure phys, non-secure phys, virtual, hyp; 3 cells each
		 * (type: 0 SPI, 1 PPI; number; flags) with the GIC as parent. */
		if ((v = fdt_prop(fdt, n, "interrupts", &len)) && len >= 36) {
			uint32_t type = fdt_be32(v + 24), num = fdt_be32(v + 28);
			b->vtimer_intid = num + (type == 1 ? 16 : 32);
		}
		return;
	}
	if (fdt_compatible(fdt, n, "arm,pl061")) {
		/* interrupts: one entry of 3 cells (type: 0 SPI, 1 PPI; number; flags) */
		if (!b->gpio_base && fdt_reg(fdt, n, 0, &base, &size) &&
		    (v = fdt_prop(fdt, n, "interrupts", &len)) && len >= 12) {
			b->gpio_base = base;
			b->gpio_intid = fdt_be32(v + 4) + (fdt_be32(v) == 1 ? 16 : 32);
		}
		return;
	}
	if (fdt_compatible(fdt, n, "arm,psci") || fdt_compatible(fdt, n, "arm,psci-0.2") ||
	    fdt_compatible(fdt, n, "arm,psci-1.0")) {
		const char *m = (const char *)fdt_prop(fdt, n, "method", NULL);
		if (m)
			b->psci = streq(m, "hvc") ? PSCI_HVC : streq(m, "smc") ? PSCI_SMC : PSCI_NONE;
		return;
	}
	if (n->depth == 1 && fdt_compatible(fdt, n, "xen,xen"))
		b->xen = true;
}

static void defaults(void)
{
	struct arm64_board *b = &arm64_board;
	b->uart = UART_PL011;
	b->uart_base = 0x09000000;
	b->gic = GIC_V2;
	b->gicd = 0x08000000;
	b->gicd_size = 0x10000;
	b->gicc = 0x08010000;
	b->gicc_size = 0x10000;
	b->nram = 1;
	b->ram[0] = (struct arm64_range){ 0x40000000, 128u << 20 };
	b->psci = PSCI_HVC;
}

void arm64_board_parse(uint64_t dtb)
{
	static struct ctx c;
	struct arm64_board *b = &arm64_board;
	const void *fdt = (const void *)(uintptr_t)dtb;
	uint64_t base, size;

	b->vtimer_intid = 27;
	b->platform = "dt";
	if (!fdt_valid(fdt, &b->dtb_size)) {
		defaults();
		b->platform = "virt";
		return;
	}
	b->dtb_ok = true;
	b->dtb = dtb;
	c.fdt = fdt;
	fdt_walk(fdt, visit, &c);
	for (unsigned i = 0; fdt_memreserve(fdt, i, &base, &size); i++)
		add_range(b->rsv, &b->nrsv, base, size);

	/* The console: stdout-path (a path or an alias), else the first UART. */
	const char *want = c.stdout_path;
	if (want && want[0] != '/') {
		const char *alias = want;
		want = NULL;
		for (unsigned i = 0; i < c.nalias; i++)
			if (path_eq(c.alias[i].name, alias))
				want = c.alias[i].value;
	}
	for (unsigned i = 0; i < c.nuart && want; i++)
		if (path_eq(c.uart[i].path, want)) {
			b->uart = c.uart[i].kind;
			b->uart_base = c.uart[i].base;
		}
	if (b->uart == UART_NONE && c.nuart) {
		b->uart = c.uart[0].kind;
		b->uart_base = c.uart[0].base;
	}
	b->platform = b->xen ? "xen" : c.virt ? "virt" : "dt";
}
