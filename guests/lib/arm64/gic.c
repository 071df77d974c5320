/* gic.c - the interrupt controller the DTB names: GICv2 (gicv2.c) or GICv3
 * (gicv3.c). What the timer and the GPIO need: enable a PPI or an SPI (level, to this
 * CPU), acknowledge, end. Set up once, by whichever asks first. */
#include "arm64.h"

static enum arm64_gic_kind ready;

bool gic_init(void)
{
	const struct arm64_board *b = &arm64_board;
	if (ready != GIC_NONE)
		return true;
	if (b->gic == GIC_V3 && gicv3_init(b->gicd, b->gicc, b->gicc_size))
		ready = GIC_V3;
	else if (b->gic == GIC_V2 && gicv2_init(b->gicd, b->gicc))
		ready = GIC_V2;
	return ready != GIC_NONE;
}

bool gic_enable_ppi(unsigned intid)
{
	if (intid < 16 || intid > 31)
		return false;
	if (ready == GIC_V3)
		gicv3_enable_ppi(intid);
	else if (ready == GIC_V2)
		gicv2_enable_ppi(intid);
	return ready != GIC_NONE;
}

bool gic_enable_spi(unsigned intid)
{
	if (intid < 32 || intid > 1019)
		return false;
	if (ready == GIC_V3)
		gicv3_enable_spi(intid);
	else if (ready == GIC_V2)
		gicv2_enable_spi(intid);
	return ready != GIC_NONE;
}

uint32_t gic_ack(void)
{
	return ready == GIC_V3 ? gicv3_ack() : ready == GIC_V2 ? gicv2_ack() : 1023;
}

void gic_eoi(uint32_t iar)
{
	if (ready == GIC_V3)
		gicv3_eoi(iar);
	else if (ready == GIC_V2)
		gicv2_eoi(iar);
}
