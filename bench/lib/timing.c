/*
 * timing.c - probe of the benchmark clock (CLOCK_MONOTONIC_RAW).
 *
 * Reading the clock is inline in timing.h. This file measures, once per run,
 * the kernel-reported resolution, the cost of one read and the smallest step
 * the clock actually makes, so that a reader of the results can tell how much
 * of a short latency is the clock itself. It also names the kernel
 * clocksource behind the clock and says (timing_clock_warning) when that
 * one makes every read a system call.
 */
#include "timing.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TIMING_BATCH 1000  /* reads per batch */
#define TIMING_ROUNDS 5    /* batches; the cheapest one is kept */

const char *timing_clock_name(void)
{
	return "CLOCK_MONOTONIC_RAW";
}

int timing_probe(struct timing_clock_info *ci, char *err, size_t errlen)
{
	struct timespec ts;

	memset(ci, 0, sizeof(*ci));
	ci->name = timing_clock_name();
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0) {
		snprintf(err, errlen, "clock_gettime(CLOCK_MONOTONIC_RAW) failed: %s "
			 "(this kernel lacks the raw monotonic clock; Linux >= 2.6.28 has it)",
			 strerror(errno));
		return -1;
	}
	if (clock_getres(CLOCK_MONOTONIC_RAW, &ts) != 0) {
		snprintf(err, errlen, "clock_getres(CLOCK_MONOTONIC_RAW) failed: %s",
			 strerror(errno));
		return -1;
	}
	ci->res_ns = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;

	double best = INFINITY;
	uint64_t step = 0;
	for (int r = 0; r < TIMING_ROUNDS; r++) {
		uint64_t start = timing_now_ns(), prev = start, now = start;
		for (int i = 0; i < TIMING_BATCH; i++) {
			now = timing_now_ns();
			uint64_t d = now - prev;
			if (d != 0 && (step == 0 || d < step))
				step = d;
			prev = now;
		}
		double per_read = (double)(now - start) / TIMING_BATCH;
		if (per_read < best)
			best = per_read;
	}
	ci->read_ns = best;
	ci->step_ns = step;
	return 0;
}

double timing_read_cost_ns(void)
{
	struct timing_clock_info ci;
	char err[160];

	if (timing_probe(&ci, err, sizeof(err)) != 0)
		return NAN;
	return ci.read_ns;
}

/* Clocksources by kind, as the kernel names them (drivers/clocksource, arch/). */
static const char *const cs_vdso[] = {
	"arch_sys_counter", "kvm-clock", "hyperv_clocksource_tsc_page", NULL,
};
static const char *const cs_slow[] = {
	"hpet", "acpi_pm", "pit", "jiffies", "refined-jiffies", "hyperv_clocksource_msr", NULL,
};

static bool in_list(const char *const *list, const char *s, size_t n)
{
	for (; *list; list++)
		if (strlen(*list) == n && strncmp(*list, s, n) == 0)
			return true;
	return false;
}

enum timing_cs_kind timing_clocksource_kind(const char *name)
{
	if (!name)
		return TIMING_CS_UNKNOWN;
	while (isspace((unsigned char)*name))
		name++;
	size_t n = strlen(name);
	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	if (n == 0)
		return TIMING_CS_UNKNOWN;
	if (n == 3 && strncmp(name, "tsc", 3) == 0)
		return TIMING_CS_TSC;
	if (in_list(cs_vdso, name, n))
		return TIMING_CS_VDSO;
	if (in_list(cs_slow, name, n))
		return TIMING_CS_SLOW;
	return TIMING_CS_OTHER;
}

const char *timing_cs_kind_name(enum timing_cs_kind k)
{
	switch (k) {
	case TIMING_CS_TSC: return "tsc";
	case TIMING_CS_VDSO: return "vdso";
	case TIMING_CS_SLOW: return "slow";
	case TIMING_CS_OTHER: return "other";
	default: return "unknown";
	}
}

const char *timing_clocksource_read(const char *path, char *buf, size_t len)
{
	FILE *f;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

/* Is word w one of the space-separated words of list? */
static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && *p;) {
		while (isspace((unsigned char)*p))
			p++;
		size_t k = 0;
		while (p[k] && !isspace((unsigned char)p[k]))
			k++;
		if (k == n && strncmp(p, w, n) == 0)
			return true;
		p += k;
	}
	return false;
}

int timing_clock_warning(const char *cs, const char *available, double read_ns, int x86,
			 char *buf, size_t len)
{
	enum timing_cs_kind k = timing_clocksource_kind(cs);
	char cost[64] = "";
	const char *fix;

	if (len)
		buf[0] = '\0';
	if (k != TIMING_CS_SLOW && k != TIMING_CS_OTHER)
		return 0;
	if (!isnan(read_ns))
		snprintf(cost, sizeof(cost), " (one read costs %.0f ns here)", read_ns);
	if (available && has_word(available, "tsc"))
		fix = "switch to the TSC: echo tsc > " TIMING_CLOCKSOURCE_FILE " (root), or boot "
		      "with clocksource=tsc";
	else if (x86)
		fix = "a TSC clocksource: in a VM, the kernel parameters tsc=reliable "
		      "clocksource=tsc (and a host CPU with an invariant TSC)";
	else
		fix = "a clocksource the vDSO reads (see " TIMING_CLOCKSOURCES_FILE ")";
	snprintf(buf, len, "clocksource is %s, not %s: %s%s, and each latency sample takes two "
		 "reads, so measured latencies are inflated (seen on an emulated VM: 8 B READ p50 80 us "
		 "with hpet, 38 us with tsc); fix: %s", cs, x86 ? "tsc" : "a counter the vDSO reads",
		 k == TIMING_CS_SLOW ?
			 "every clock read is a system call plus a slow device read" :
			 "it is not known to be read in user space, so every clock read may be a "
			 "system call", cost, fix);
	return 1;
}
