/*
 * cpustat.c - CPU utilisation from /proc/stat's per-CPU lines (see
 * cpustat.h for why /proc/stat and what is counted).
 *
 * How it works: cs_parse walks the text line by line, takes the lines
 * "cpuN ..." whose N is in the mask and adds their first eight fields;
 * cs_read gives it the file and the caller's affinity mask; cs_diff and
 * cs_util are arithmetic on two snapshots.
 */
#include "cpustat.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CS_FIELDS 8   /* user nice system idle iowait irq softirq steal */

/* One "cpuN f0 f1 ..." line at p: 1 with N and the fields, 0 when the
 * line is not a per-CPU line, -1 when it is one cut short. */
static int parse_line(const char *p, long *cpu, uint64_t f[CS_FIELDS])
{
	char *end;

	if (strncmp(p, "cpu", 3) != 0 || p[3] < '0' || p[3] > '9')
		return 0;
	*cpu = strtol(p + 3, &end, 10);
	p = end;
	for (int i = 0; i < CS_FIELDS; i++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		f[i] = strtoull(p, &end, 10);
		p = end;
	}
	return 1;
}

int cs_parse(const char *text, const cpu_set_t *mask, struct cs_snap *out, char *why, size_t len)
{
	uint32_t seen = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		long cpu;
		uint64_t f[CS_FIELDS];
		int rc = parse_line(p, &cpu, f);
		if (rc == 0)
			continue;
		if (rc < 0) {
			snprintf(why, len, "/proc/stat: cpu%ld line has fewer than %d fields", cpu,
				 CS_FIELDS);
			return -1;
		}
		seen++;
		if (mask && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, mask)))
			continue;
		out->user += f[0];
		out->nice += f[1];
		out->system += f[2];
		out->idle += f[3];
		out->iowait += f[4];
		out->irq += f[5];
		out->softirq += f[6];
		out->steal += f[7];
		out->ncpus++;
	}
	if (seen == 0) {
		snprintf(why, len, "/proc/stat: no per-CPU line (cpuN)");
		return -1;
	}
	if (out->ncpus == 0) {
		snprintf(why, len, "/proc/stat: none of the %u CPUs listed is in the affinity mask", seen);
		return -1;
	}
	return 0;
}

int cs_read(const char *path, struct cs_snap *out, char *why, size_t len)
{
	static const size_t cap = 1 << 20;  /* /proc/stat: ~150 B per CPU, plus the rest */
	const char *file = path ? path : "/proc/stat";
	FILE *f = fopen(file, "r");
	cpu_set_t mask;
	int rc = -1;

	if (!f) {
		snprintf(why, len, "%s: %s", file, strerror(errno));
		return -1;
	}
	char *buf = malloc(cap);
	size_t n = buf ? fread(buf, 1, cap - 1, f) : 0;
	fclose(f);
	if (!buf) {
		snprintf(why, len, "%s: out of memory", file);
		return -1;
	}
	buf[n] = '\0';
	int have_mask = sched_getaffinity(getpid(), sizeof(mask), &mask) == 0;
	rc = cs_parse(buf, have_mask ? &mask : NULL, out, why, len);
	free(buf);
	return rc;
}

int cs_diff(const struct cs_snap *a, const struct cs_snap *b, struct cs_delta *d, char *why,
	    size_t len)
{
	const uint64_t pa[CS_FIELDS] = { a->user, a->nice, a->system, a->idle, a->iowait, a->irq,
					 a->softirq, a->steal };
	const uint64_t pb[CS_FIELDS] = { b->user, b->nice, b->system, b->idle, b->iowait, b->irq,
					 b->softirq, b->steal };

	memset(d, 0, sizeof(*d));
	if (a->ncpus != b->ncpus) {
		snprintf(why, len, "/proc/stat: %u CPUs counted at the window's start, %u at its end",
			 a->ncpus, b->ncpus);
		return -1;
	}
	for (int i = 0; i < CS_FIELDS; i++)
		if (pb[i] < pa[i]) {
			snprintf(why, len, "/proc/stat: a CPU counter went backwards");
			return -1;
		}
	d->ncpus = a->ncpus;
	d->user = (b->user - a->user) + (b->nice - a->nice);
	d->system = b->system - a->system;
	d->irq = b->irq - a->irq;
	d->softirq = b->softirq - a->softirq;
	d->total = d->user + d->system + d->irq + d->softirq + (b->idle - a->idle) +
		   (b->iowait - a->iowait) + (b->steal - a->steal);
	if (d->total == 0) {
		snprintf(why, len, "/proc/stat: no tick elapsed in the window (shorter than 10 ms)");
		return -1;
	}
	return 0;
}

int cs_util(const struct cs_delta *d, struct cs_util *u)
{
	if (d->ncpus == 0 || d->total == 0) {
		u->busy_pct = u->user_pct = u->system_pct = u->irq_pct = u->softirq_pct = NAN;
		return -1;
	}
	double t = (double)d->total / 100.0;
	u->user_pct = (double)d->user / t;
	u->system_pct = (double)d->system / t;
	u->irq_pct = (double)d->irq / t;
	u->softirq_pct = (double)d->softirq / t;
	u->busy_pct = (double)(d->user + d->system + d->irq + d->softirq) / t;
	return 0;
}

void cs_take(struct cs_reading *r)
{
	r->why[0] = '\0';
	r->rc = cs_read(NULL, &r->snap, r->why, sizeof(r->why));
}

int cs_window(const struct cs_reading *a, const struct cs_reading *b, struct cs_delta *d,
	      char *why, size_t len)
{
	memset(d, 0, sizeof(*d));
	why[0] = '\0';
	if (a->rc != 0 || b->rc != 0) {
		const struct cs_reading *bad = a->rc != 0 ? a : b;
		snprintf(why, len, "%s", bad->rc > 0 ? "/proc/stat not read (the window did not start)" :
			 bad->why);
		return -1;
	}
	return cs_diff(&a->snap, &b->snap, d, why, len);
}
