/*
 * timing.h - the benchmark clock: CLOCK_MONOTONIC_RAW in nanoseconds.
 *
 * One clock for every measurement (docs/rdma_bench.md, "The clock"): the clock
 * is CLOCK_MONOTONIC_RAW, never a rate guessed from /proc/cpuinfo. The raw
 * monotonic clock is not slewed by NTP, so intervals are not stretched or
 * shrunk while a run is in progress. On Linux it is read through the vDSO
 * (no system call, typically 20-60 ns) only when the kernel's clocksource is
 * one the vDSO can read (x86: tsc); with hpet or acpi_pm, as under emulation
 * or on some VMs, every read is a system call plus a slow device read, and
 * per-operation latency inflates (seen on the VM bed: 8 B READ p50 80 us
 * with hpet, 38 us with tsc). timing_probe() measures the cost of one read
 * here; the clocksource and that cost are printed and stored in every row
 * (columns clocksource, clock_read_ns), and a clocksource that is not known
 * to be fast gets a WARN line (timing_clock_warning).
 */
#ifndef RDMA_BENCH_TIMING_H
#define RDMA_BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Current time of CLOCK_MONOTONIC_RAW in ns since an arbitrary origin (boot).
 * Only differences are meaningful. Never fails on Linux >= 2.6.28 (checked
 * once by timing_probe()). uint64_t ns wraps after 584 years.
 */
static inline uint64_t timing_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Seconds between two timing_now_ns() readings (end >= start). */
static inline double timing_elapsed_s(uint64_t start_ns, uint64_t end_ns)
{
	return (double)(end_ns - start_ns) * 1e-9;
}

/* "CLOCK_MONOTONIC_RAW": the clock's name for INFO lines and CSV rows. */
const char *timing_clock_name(void);

/* What the clock can resolve and what reading it costs, measured here. */
struct timing_clock_info {
	const char *name;  /* timing_clock_name() */
	uint64_t res_ns;   /* resolution the kernel reports (clock_getres) */
	double read_ns;    /* cost of one timing_now_ns() in ns: mean over a batch
	                      of back-to-back reads, best of several batches */
	uint64_t step_ns;  /* smallest non-zero difference seen between two
	                      consecutive reads: the effective resolution; 0 if
	                      none was seen */
};

/*
 * Fill *ci (takes well under a millisecond). Returns 0, or -1 with err
 * naming the failing call and errno text (the clock is unavailable: no
 * measurement is possible on this kernel).
 */
int timing_probe(struct timing_clock_info *ci, char *err, size_t errlen);

/* Just ci.read_ns of timing_probe(); NAN if the clock is unavailable. */
double timing_read_cost_ns(void);

/* ---- the kernel clocksource behind the clock ---------------------------- */

#define TIMING_CLOCKSOURCE_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define TIMING_CLOCKSOURCES_FILE "/sys/devices/system/clocksource/clocksource0/available_clocksource"

enum timing_cs_kind {
	TIMING_CS_UNKNOWN = 0, /* name empty (the sysfs file could not be read) */
	TIMING_CS_TSC,         /* x86 TSC: read in user space by the vDSO */
	TIMING_CS_VDSO,        /* another counter the vDSO reads in user space:
	                          arch_sys_counter (arm64), kvm-clock,
	                          hyperv_clocksource_tsc_page */
	TIMING_CS_SLOW,        /* read with a system call and a device or memory
	                          mapped register: hpet, acpi_pm, pit, jiffies,
	                          refined-jiffies, hyperv_clocksource_msr */
	TIMING_CS_OTHER,       /* a name not listed above: not known to be fast */
};

/*
 * Pure: the kind of a clocksource name as the kernel spells it in
 * current_clocksource. Leading and trailing white space (the file's newline)
 * is ignored; the match is exact otherwise ("TSC" is OTHER).
 */
enum timing_cs_kind timing_clocksource_kind(const char *name);

/* "tsc", "vdso", "slow", "other", "unknown". */
const char *timing_cs_kind_name(enum timing_cs_kind k);

/*
 * Read the first line of path (TIMING_CLOCKSOURCE_FILE or
 * TIMING_CLOCKSOURCES_FILE) into buf without its newline; buf is "" when the
 * file cannot be read. Returns buf.
 */
const char *timing_clocksource_read(const char *path, char *buf, size_t len);

/*
 * Pure: the WARN text for clocksource cs (as read; "" = unknown), given
 * available (the available_clocksource list, may be ""), the measured cost
 * of one read (NAN if not measured) and whether this is an x86 machine
 * (where a TSC clocksource is the fix). Returns 1 with buf filled (no
 * "WARN" prefix) for SLOW and OTHER kinds, naming the value, the effect and
 * the fix; 0 with buf = "" for TSC, VDSO and UNKNOWN (nothing to say).
 * The fix: "echo tsc > current_clocksource" when tsc is available, else (x86)
 * the kernel parameters tsc=reliable clocksource=tsc, else a clocksource
 * from available_clocksource that the vDSO reads.
 */
int timing_clock_warning(const char *cs, const char *available, double read_ns, int x86,
			 char *buf, size_t len);

#endif /* RDMA_BENCH_TIMING_H */
