/* pci.c - is there a PCI host bridge (configuration mechanism 1, device 00:00.0)?
 * Tells QEMU -M pc/q35 from -M microvm, whichever entry point booted us. */
#include "x86.h"

bool x86_pci_present(void)
{
	uint32_t id;
	__asm__ volatile("outl %0, %1" : : "a"(0x80000000u), "Nd"((uint16_t)0xcf8));
	__asm__ volatile("inl %1, %0" : "=a"(id) : "Nd"((uint16_t)0xcfc));
	return id != 0xffffffffu && id != 0;
}
