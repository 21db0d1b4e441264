/*
 * pcie_host.h - the PCIe link of this host's RDMA device, from sysfs, as a
 * pm_link for the PCIe model (pcie_model.h).
 *
 * Read: /sys/class/infiniband/DEV/device (the device's PCI function):
 * current_link_speed ("8.0 GT/s PCIe" -> generation 3), current_link_width
 * ("16"), and the max payload size from the PCI Express capability's Device
 * Control register in `config` (bits 7:5; readable beyond the first 64
 * bytes by root only), and MRRS from the same register. The other fields
 * (C_rc, cache line, CQE sizes) are the paper's (pm_link_gen); the DMA
 * read and MMIO rates follow from the link read (pcie_model.h).
 */
#ifndef RDMA_BENCH_PCIE_HOST_H
#define RDMA_BENCH_PCIE_HOST_H

#include <stddef.h>

#include "pcie_model.h"

/*
 * Fill *l for RDMA device dev under sysfs root sysroot (NULL: the
 * environment's RB_SYSFS_ROOT if set and not empty, for tests with a fake
 * tree; else "/sys").
 * Returns 1 when the link was read (MPS and MRRS too, or the paper's with a
 * note in note), 0 when there is no PCI device (soft-RoCE, a device without
 * a `device` link or link files; *l is then the paper's link and note says
 * why), or -1 on bad arguments. note is always a sentence ("" when
 * everything was read).
 */
int pcie_host_link(const char *sysroot, const char *dev, struct pm_link *l, char *note, size_t len);

/* "8.0 GT/s PCIe" -> 3 (2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5); 0 unknown. */
unsigned pcie_gen_from_speed(const char *s);

#endif
