/* gicv3.c - GICv3: distributor with affinity routing, this CPU's redistributor (found
 * by walking the redistributor region for our MPIDR), system-register CPU interface
 * (ICC_*_EL1, written by encoding so any assembler takes them). The timer PPI goes
 * to Group 1 (IRQ). Works with one security state (QEMU virt) and the non-secure
 * view (Xen vGICv3). SPIs (the PL061's) are Group 1 too, routed to this CPU. */
#include "arm64.h"

#define GICD_CTLR      0x0000
#define GICD_CTLR_RWP  (1u << 31)
#define GICD_IGROUPR   0x0080
#define GICD_ISENABLER 0x0100
#define GICD_IPRIORITYR 0x0400
#define GICD_IROUTER   0x6000
#define GICR_TYPER     0x0008
#define GICR_WAKER     0x0014
#define GICR_SGI       0x10000
#define GICR_IGROUPR0  0x0080
#define GICR_ISENABLER0 0x0100
#define GICR_IPRIORITYR 0x0400

#define ICC_PMR_EL1     "S3_0_C4_C6_0"
#define ICC_IAR1_EL1    "S3_0_C12_C12_0"
#define ICC_EOIR1_EL1   "S3_0_C12_C12_1"
#define ICC_BPR1_EL1    "S3_0_C12_C12_3"
#define ICC_CTLR_EL1    "S3_0_C12_C12_4"
#define ICC_SRE_EL1     "S3_0_C12_C12_5"
#define ICC_IGRPEN1_EL1 "S3_0_C12_C12_7"

static uint64_t sgi;           /* SGI/PPI frame of our redistributor */
static uint64_t dist;          /* the distributor (SPIs) */
static uint64_t affinity;      /* this CPU's Aff3.Aff2.Aff1.Aff0, as GICD_IROUTER takes it */

static void wait_rwp(uint64_t reg)
{
	for (unsigned i = 0; i < 1000000 && (mmio_r32(reg) & GICD_CTLR_RWP); i++)
		;
}

bool gicv3_init(uint64_t gicd, uint64_t gicr, uint64_t gicr_size)
{
	uint64_t mpidr = read_sysreg(mpidr_el1), sre, rd = 0;
	uint32_t aff = (uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32 & 0xff) << 24));

	if (!((read_sysreg(id_aa64pfr0_el1) >> 24) & 15))
		return false;                           /* no system-register interface */
	for (uint64_t r = gicr; r + 0x20000 <= gicr + (gicr_size ? gicr_size : 0x20000); ) {
		uint64_t typer = mmio_r64(r + GICR_TYPER);
		if ((uint32_t)(typer >> 32) == aff) {
			rd = r;
			break;
		}
		if (typer & (1u << 4))                  /* Last */
			break;
		r += (typer & (1u << 1)) ? 0x40000 : 0x20000;   /* VLPIS: two more frames */
	}
	if (!rd)
		return false;
	sgi = rd + GICR_SGI;
	dist = gicd;
	affinity = (mpidr & 0xffffff) | (mpidr & (0xffull << 32));

	mmio_w32(gicd + GICD_CTLR, (1u << 4) | (1u << 1) | 1u);   /* ARE(_NS), Grp1(A), Grp0/1 */
	wait_rwp(gicd + GICD_CTLR);
	mmio_w32(rd + GICR_WAKER, mmio_r32(rd + GICR_WAKER) & ~(1u << 1));   /* ProcessorSleep */
	for (unsigned i = 0; i < 1000000 && (mmio_r32(rd + GICR_WAKER) & (1u << 2)); i++)
		;                                       /* ChildrenAsleep */

	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	__asm__ volatile("msr " ICC_SRE_EL1 ", %0; isb" : : "r"(sre | 1) : "memory");
	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	if (!(sre & 1))
		return false;
	__asm__ volatile("msr " ICC_PMR_EL1 ", %0" : : "r"(0xffull));
	__asm__ volatile("msr " ICC_BPR1_EL1 ", %0" : : "r"(0ull));
	__asm__ volatile("msr " ICC_CTLR_EL1 ", %0" : : "r"(0ull));
	__asm__ volatile("msr " ICC_IGRPEN1_EL1 ", %0; isb" : : "r"(1ull) : "memory");
	return true;
}

void gicv3_enable_ppi(unsigned intid)
{
	uint64_t pr = sgi + GICR_IPRIORITYR + (intid & ~3u);
	unsigned sh = 8 * (intid & 3);
	mmio_w32(sgi + GICR_IGROUPR0, mmio_r32(sgi + GICR_IGROUPR0) | (1u << intid));
	mmio_w32(pr, (mmio_r32(pr) & ~(0xffu << sh)) | (0xa0u << sh));
	mmio_w32(sgi + GICR_ISENABLER0, 1u << intid);
}

void gicv3_enable_spi(unsigned intid)
{
	uint64_t pr = dist + GICD_IPRIORITYR + (intid & ~3u), grp = dist + GICD_IGROUPR + 4 * (intid / 32);
	unsigned sh = 8 * (intid & 3);
	mmio_w32(grp, mmio_r32(grp) | (1u << (intid % 32)));                 /* Group 1: IRQ */
	mmio_w32(pr, (mmio_r32(pr) & ~(0xffu << sh)) | (0xa0u << sh));
	__asm__ volatile("str %0, [%1]" : : "r"(affinity), "r"(dist + GICD_IROUTER + 8ull * intid) : "memory");
	mmio_w32(dist + GICD_ISENABLER + 4 * (intid / 32), 1u << (intid % 32));
	wait_rwp(dist + GICD_CTLR);
}

uint32_t gicv3_ack(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " ICC_IAR1_EL1 : "=r"(v) : : "memory");
	return (uint32_t)v;
}

void gicv3_eoi(uint32_t iar)
{
	__asm__ volatile("msr " ICC_EOIR1_EL1 ", %0; isb" : : "r"((uint64_t)iar) : "memory");
}
