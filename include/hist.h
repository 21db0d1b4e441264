/*
 * hist.h - log-linear latency histogram with bounded memory.
 *
 * Values are unsigned 64-bit integers, by convention nanoseconds. Every power
 * of two [2^k, 2^(k+1)) with k >= 7 is split into HIST_SUB (128) equal linear
 * sub-buckets; values below 128 get one bucket each (exact). The buckets cover
 * the whole uint64_t range in HIST_NBUCKETS (7424) counters, about 58 KiB,
 * whatever the number of samples.
 *
 * Accuracy: a bucket [lo, hi] is represented by its midpoint (lo + hi) / 2,
 * so a value read back from a bucket is within (hi - lo) / 2 / lo <= 1/256
 * (HIST_MAX_REL_ERROR, about 0.39%) of any sample in it. Values below 128 ns
 * are exact. Count, min and max are exact (max is the true largest sample, no
 * trimming). Mean and standard deviation come from running sums kept in double
 * precision relative to a reference value near the data (the first sample,
 * re-centred on merge), so they do not lose precision when latencies are large
 * compared with their spread.
 *
 * All counters are uint64_t: counts above 2^31 work (hist_add_n and
 * hist_merge reach them without a loop). The struct holds fixed arrays only
 * (no pointers), so it can be copied with memcpy, kept per thread and merged
 * at the end. An all-zero struct hist (static, calloc, "= {0}") is a valid
 * empty histogram; hist_reset() makes one.
 *
 * The rules (docs/csv.md, "Metrics": lat_samples, lat_min_us ...): per-operation
 * samples into a log-linear histogram; min, p50, p90, p99, p99.9, max, mean
 * and stdev in double precision; the sample count beside them.
 */
#ifndef RDMA_BENCH_HIST_H
#define RDMA_BENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7u                      /* log2 of sub-buckets per power of two */
#define HIST_SUB (1u << HIST_SUB_BITS)        /* 128 */
#define HIST_NBUCKETS ((64u - HIST_SUB_BITS + 1u) * HIST_SUB) /* 7424 */
#define HIST_MAX_REL_ERROR (1.0 / (2.0 * HIST_SUB)) /* 1/256: bound of |read - sample| / sample */

struct hist {
	uint64_t count;                   /* samples added */
	uint64_t min;                     /* smallest sample (valid when count > 0) */
	uint64_t max;                     /* largest sample (valid when count > 0) */
	double ref;                       /* reference value for the two sums below */
	double sum_d;                     /* sum of (x - ref) over samples */
	double sum_d2;                    /* sum of (x - ref)^2 over samples */
	uint64_t buckets[HIST_NBUCKETS];  /* samples per bucket, see hist_bucket_index */
};

/*
 * Bucket of a value: values 0..127 map to themselves; a value v with highest
 * set bit k >= 7 maps to (k - 6) * 128 + (the 7 bits of v below bit k).
 * Result is in [0, HIST_NBUCKETS).
 */
static inline unsigned hist_bucket_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned k = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = k - HIST_SUB_BITS;
	return ((shift + 1u) << HIST_SUB_BITS) + (unsigned)((v >> shift) & (HIST_SUB - 1u));
}

/* Smallest and largest value that map to bucket idx (idx < HIST_NBUCKETS). */
uint64_t hist_bucket_lower(unsigned idx);
uint64_t hist_bucket_upper(unsigned idx);
/* The value reported for samples in bucket idx: the midpoint of its range. */
double hist_bucket_value(unsigned idx);

/* Make h an empty histogram (same as zeroing it). */
void hist_reset(struct hist *h);

/*
 * Add n samples of value ns at once (n = 0 does nothing), without a loop:
 * counts are exact for any n (the caller keeps the total below 2^64).
 */
static inline void hist_add_n(struct hist *h, uint64_t ns, uint64_t n)
{
	if (n == 0)
		return;
	if (h->count == 0) {
		h->min = ns;
		h->max = ns;
		h->ref = (double)ns;
	}
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	double d = (double)ns - h->ref;
	double dn = (double)n;
	h->count += n;
	h->buckets[hist_bucket_index(ns)] += n;
	h->sum_d += d * dn;
	h->sum_d2 += d * d * dn;
}

/*
 * Add one sample (ns). The hot path: no allocation, no lock, no division, no
 * formatting: a few compares, one count-leading-zeros, one multiply.
 * Not thread-safe: keep one histogram per thread and merge them afterwards.
 */
static inline void hist_add(struct hist *h, uint64_t ns)
{
	hist_add_n(h, ns, 1); /* n == 1 is a constant: the multiplies fold away */
}

/*
 * dst += src: counts and buckets added, min/max combined, mean and variance
 * combined exactly (pairwise formula of Chan et al.). src is unchanged;
 * dst == src is allowed (doubles every count).
 */
void hist_merge(struct hist *dst, const struct hist *src);

/* Number of samples. */
uint64_t hist_count(const struct hist *h);

/* Smallest / largest sample in ns as a double; NAN if the histogram is empty. */
double hist_min(const struct hist *h);
double hist_max(const struct hist *h);

/*
 * The p-th percentile in ns, p in [0, 100]. NAN if the histogram is empty or
 * p is outside [0, 100] or NaN.
 * Rule (nearest rank on the bucket cumulative count): p = 0 gives min and
 * p = 100 gives max (exact). Otherwise rank = ceil(p / 100 * count), at least
 * 1 (the product is taken with a relative tolerance of 1e-12 so that, e.g.,
 * p = 99.9 with count = 1000 gives rank 999, not 1000 from rounding); the
 * result is the value of the first bucket whose cumulative count reaches rank
 * (hist_bucket_value), clamped to [min, max]. So it is within
 * HIST_MAX_REL_ERROR of the exact nearest-rank sample.
 */
double hist_percentile(const struct hist *h, double p);

/* Arithmetic mean in ns; NAN if count == 0. */
double hist_mean(const struct hist *h);

/*
 * Standard deviation in ns, POPULATION form: sqrt(sum (x - mean)^2 / n).
 * The samples are every operation measured in the window, not an estimate of
 * a larger population, so n (not n - 1) is the divisor; it gives 0 for n == 1.
 * NAN if count == 0.
 */
double hist_stdev(const struct hist *h);

#endif /* RDMA_BENCH_HIST_H */
