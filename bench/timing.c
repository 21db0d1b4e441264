/*
 * timing.c - probe of the benchmark clock (CLOCK_MONOTONIC_RAW).
 *
 * Reading the clock is inline in timing.h. This file measures, once per run,
 * the kernel-reported resolution, the cost of one read and the smallest step
 * the clock actually makes, so that a reader of the results can tell how much
 * of a short latency is the clock itself.
 */
#include "timing.h"

#include <errno.h>
#include <math.h>
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
