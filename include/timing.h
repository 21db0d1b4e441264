/*
 * timing.h - the benchmark clock: CLOCK_MONOTONIC_RAW in nanoseconds.
 *
 * One clock for every measurement (DESIGN.md, "Measurement rules": the clock
 * is CLOCK_MONOTONIC_RAW; never a rate guessed from /proc/cpuinfo). The raw
 * monotonic clock is not slewed by NTP, so intervals are not stretched or
 * shrunk while a run is in progress. On Linux it is read through the vDSO
 * (no system call), typically in 20-60 ns; timing_probe() measures that cost
 * on this machine so it can be printed in an INFO line and stored.
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

#endif /* RDMA_BENCH_TIMING_H */
