/* gicv2.c - GICv2 distributor + memory-mapped CPU interface (QEMU virt
 * gic-version=2, Xen vGICv2). Non-secure view / no security extensions: enable bit 0
 * of GICD_CTLR and GICC_CTLR. */
#include "arm64.h"

#define GICD_CTLR       0x000
#define GICD_ISENABLER  0x100
#define GICD_IPRIORITYR 0x400
#define GICD_ITARGETSR  0x800
#define GICC_CTLR       0x000
#define GICC_PMR        0x004
#define GICC_BPR        0x008
#define GICC_IAR        0x00c
#define GICC_EOIR       0x010

static uint64_t dist, cpu;

bool gicv2_init(uint64_t gicd, uint64_t gicc)
{
	dist = gicd;
	cpu = gicc;
	mmio_w32(dist + GICD_CTLR, 1);
	mmio_w32(cpu + GICC_PMR, 0xf0);
	mmio_w32(cpu + GICC_BPR, 0);
	mmio_w32(cpu + GICC_CTLR, 1);
	return true;
}

void gicv2_enable_ppi(unsigned intid)
{
	uint64_t pr = dist + GICD_IPRIORITYR + (intid & ~3u);
	unsigned sh = 8 * (intid & 3);
	mmio_w32(pr, (mmio_r32(pr) & ~(0xffu << sh)) | (0xa0u << sh));
	mmio_w32(dist + GICD_ISENABLER, 1u << intid);   /* banked: SGIs and PPIs 0..31 */
}

void gicv2_enable_spi(unsigned intid)
{
	uint64_t pr = dist + GICD_IPRIORITYR + (intid & ~3u), tg = dist + GICD_ITARGETSR + (intid & ~3u);
	unsigned sh = 8 * (intid & 3);
	mmio_w32(pr, (mmio_r32(pr) & ~(0xffu << sh)) | (0xa0u << sh));
	mmio_w32(tg, (mmio_r32(tg) & ~(0xffu << sh)) | (0x01u << sh));   /* CPU interface 0: us */
	mmio_w32(dist + GICD_ISENABLER + 4 * (intid / 32), 1u << (intid % 32));
}

uint32_t gicv2_ack(void)
{
	return mmio_r32(cpu + GICC_IAR);
}

void gicv2_eoi(uint32_t iar)
{
	mmio_w32(cpu + GICC_EOIR, iar);
}
