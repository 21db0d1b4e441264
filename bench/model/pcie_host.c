/*
 * pcie_host.c - this host's PCIe link from sysfs for the PCIe model (see
 * pcie_host.h). Config space layout: PCI Local Bus spec (capability list
 * at 0x34, each capability: ID, next pointer) and PCI Express base spec
 * (capability ID 0x10; Device Control at +8: MPS bits 7:5, MRRS bits 14:12,
 * both 128 << code). The Link Control register's RCB bit is not read: the
 * model's C_rc is the CPU's read completion combining size (the paper's
 * 2.1: 128 B on its Intel CPUs), which the Root Port's RCB (64 or 128 B:
 * where it may split) does not tell.
 */
#include "pcie_host.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (ok == NULL)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

unsigned pcie_gen_from_speed(const char *s)
{
	char *end = NULL;
	double gts = strtod(s, &end);
	if (end == s || strncmp(end, " GT/s", 5) != 0)
		return 0;
	if (gts == 2.5)
		return 1;
	if (gts == 5.0)
		return 2;
	if (gts == 8.0)
		return 3;
	if (gts == 16.0)
		return 4;
	if (gts == 32.0)
		return 5;
	return 0;
}

/* MPS and MRRS from the config space file; 0 if read, -1 if not. */
static int read_config(const char *path, struct pm_link *l)
{
	uint8_t cfg[256] = { 0 };
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	size_t n = fread(cfg, 1, sizeof(cfg), f);
	fclose(f);
	/* an unprivileged read gets the first 64 bytes only */
	if (n < sizeof(cfg))
		return -1;
	unsigned pos = cfg[0x34] & 0xfc;
	for (int hops = 0; pos >= 0x40 && pos < 0xfc && hops < 48; hops++) {
		if (cfg[pos] == 0x10) {
			if (pos + 0x12 > sizeof(cfg))
				return -1;
			unsigned devctl = cfg[pos + 8] | (unsigned)cfg[pos + 9] << 8;
			unsigned mps = (devctl >> 5) & 7, mrrs = (devctl >> 12) & 7;
			if (mps > 5 || mrrs > 5)
				return -1; /* reserved codes */
			l->mps = 128u << mps;
			l->mrrs = 128u << mrrs;
			return 0;
		}
		pos = cfg[pos + 1] & 0xfc;
	}
	return -1;
}

int pcie_host_link(const char *sysroot, const char *dev, struct pm_link *l, char *note, size_t len)
{
	if (dev == NULL || l == NULL || note == NULL || len == 0)
		return -1;
	*l = pm_link_paper();
	note[0] = '\0';
	if (sysroot == NULL)
		sysroot = getenv("RB_SYSFS_ROOT");
	if (sysroot == NULL || sysroot[0] == '\0')
		sysroot = "/sys";
	char path[512], speed[64], width[32];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/current_link_speed", sysroot, dev);
	if (read_line(path, speed, sizeof(speed)) != 0) {
		snprintf(note, len, "no PCI device behind %s (soft-RoCE or no link files): model uses the paper's link", dev);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/current_link_width", sysroot, dev);
	unsigned gen = pcie_gen_from_speed(speed);
	char *end = NULL;
	unsigned long lanes = 0;
	if (read_line(path, width, sizeof(width)) == 0)
		lanes = strtoul(width, &end, 10);
	if (gen == 0 || end == NULL || *end != '\0' || lanes == 0 || lanes > 32 || (lanes & (lanes - 1))) {
		snprintf(note, len, "%s: PCIe link not understood (speed \"%s\", width \"%s\"): model uses the paper's link",
			 dev, speed, end ? width : "?");
		return 0;
	}
	l->gen = gen;
	l->lanes = (unsigned)lanes;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/config", sysroot, dev);
	if (read_config(path, l) != 0)
		snprintf(note, len, "%s: MPS/MRRS not readable (config space needs root): the paper's 128/512 assumed", dev);
	return 1;
}
