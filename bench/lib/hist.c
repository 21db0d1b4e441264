/*
 * hist.c - log-linear latency histogram: bucket bounds, merge, statistics.
 *
 * The hot path (hist_add) is inline in hist.h. This file holds what runs once
 * per report: reading percentiles back from the bucket counts, and mean and
 * standard deviation from the running sums.
 *
 * The sums are kept relative to a reference value ref (the first sample):
 * S = sum (x - ref), Q = sum (x - ref)^2. Then mean = ref + S / n and
 * n * variance = Q - S^2 / n. With ref near the data, S and Q stay small and
 * the subtraction does not cancel (the "shifted data" algorithm). A merge
 * combines the two means and M2 = n * variance with the pairwise formula and
 * re-centres the result on the combined mean (S = 0, Q = M2).
 */
#include "hist.h"

#include <math.h>
#include <string.h>

uint64_t hist_bucket_lower(unsigned idx)
{
	if (idx < HIST_SUB)
		return idx;
	unsigned shift = (idx >> HIST_SUB_BITS) - 1u;
	uint64_t sub = idx & (HIST_SUB - 1u);
	return (HIST_SUB + sub) << shift;
}

uint64_t hist_bucket_upper(unsigned idx)
{
	if (idx < HIST_SUB)
		return idx;
	unsigned shift = (idx >> HIST_SUB_BITS) - 1u;
	return hist_bucket_lower(idx) + ((UINT64_C(1) << shift) - 1u);
}

double hist_bucket_value(unsigned idx)
{
	uint64_t lo = hist_bucket_lower(idx);
	uint64_t hi = hist_bucket_upper(idx);
	return (double)lo + (double)(hi - lo) / 2.0;
}

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0) {
		if (dst != src)
			memcpy(dst, src, sizeof(*dst));
		return;
	}

	/* Read src first: dst and src may be the same histogram. */
	double n1 = (double)dst->count, n2 = (double)src->count;
	double mean1 = dst->ref + dst->sum_d / n1;
	double mean2 = src->ref + src->sum_d / n2;
	double m2_1 = fmax(dst->sum_d2 - dst->sum_d * dst->sum_d / n1, 0.0);
	double m2_2 = fmax(src->sum_d2 - src->sum_d * src->sum_d / n2, 0.0);
	uint64_t smin = src->min, smax = src->max, scount = src->count;

	double n = n1 + n2;
	double delta = mean2 - mean1;
	double mean = mean1 + delta * (n2 / n);
	double m2 = m2_1 + m2_2 + delta * delta * (n1 * n2 / n);

	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += scount;
	if (smin < dst->min)
		dst->min = smin;
	if (smax > dst->max)
		dst->max = smax;
	dst->ref = mean;
	dst->sum_d = 0.0;
	dst->sum_d2 = m2;
}

uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

double hist_min(const struct hist *h)
{
	return h->count ? (double)h->min : NAN;
}

double hist_max(const struct hist *h)
{
	return h->count ? (double)h->max : NAN;
}

double hist_percentile(const struct hist *h, double p)
{
	if (h->count == 0 || !(p >= 0.0 && p <= 100.0))
		return NAN;
	if (p == 0.0)
		return (double)h->min;
	if (p == 100.0)
		return (double)h->max;

	/* Nearest rank; the tolerance absorbs p / 100 not being exact in binary. */
	double x = p / 100.0 * (double)h->count;
	double r = ceil(x * (1.0 - 1e-12));
	uint64_t rank = r < 1.0 ? 1 : (uint64_t)r;
	if (rank > h->count)
		rank = h->count;

	/* Walk only the buckets between min and max. */
	unsigned first = hist_bucket_index(h->min), last = hist_bucket_index(h->max);
	uint64_t cum = 0;
	unsigned i;
	for (i = first; i < last; i++) {
		cum += h->buckets[i];
		if (cum >= rank)
			break;
	}
	double v = hist_bucket_value(i);
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

double hist_mean(const struct hist *h)
{
	if (h->count == 0)
		return NAN;
	return h->ref + h->sum_d / (double)h->count;
}

double hist_stdev(const struct hist *h)
{
	if (h->count == 0)
		return NAN;
	double n = (double)h->count;
	double m2 = h->sum_d2 - h->sum_d * h->sum_d / n;
	if (m2 <= 0.0)
		return 0.0;
	return sqrt(m2 / n);
}
