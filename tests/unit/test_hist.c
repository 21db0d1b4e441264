/*
 * test_hist.c - unit tests of the log-linear latency histogram (hist.h).
 *
 * Reference values are computed independently: exact nearest-rank
 * percentiles from the sorted samples (integer rank arithmetic), mean and
 * population standard deviation by a two-pass loop in double.
 */
#include "unit.h"

#include "hist.h"

/* |actual - expected| <= rel * |expected| (or both NaN), with a readable failure. */
static uint64_t rng_state = 88172645463325252ull;

/* xorshift64: a fixed sequence, so failures reproduce. */
static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Latency-like value: log-uniform between 500 ns and about 2 ms. */
static uint64_t rng_latency(void)
{
	double u = (double)(rng_next() >> 11) / 9007199254740992.0;
	return (uint64_t)(500.0 * exp(u * log(4000.0)));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Exact nearest-rank percentile of sorted v[0..n-1], p given in per mille. */
static uint64_t ref_percentile_permille(const uint64_t *sorted, uint64_t n, uint64_t pm)
{
	uint64_t rank = (pm * n + 999) / 1000;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static double ref_mean(const uint64_t *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)v[i];
	return s / (double)n;
}

static double ref_stdev_population(const uint64_t *v, size_t n)
{
	double m = ref_mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += ((double)v[i] - m) * ((double)v[i] - m);
	return sqrt(s / (double)n);
}

static struct hist *hist_new(void)
{
	struct hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	hist_reset(h);
	return h;
}

/* n random samples: percentiles within the bucket error of the exact ones. */
static void check_random_samples(size_t n)
{
	static const uint64_t permille[] = { 1, 10, 100, 250, 500, 750, 900, 990, 999 };
	uint64_t *v = malloc(n * sizeof(*v));
	struct hist *h = hist_new();

	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		v[i] = rng_latency();
		hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);

	assert_int_equal(hist_count(h), n);
	assert_true(hist_min(h) == (double)v[0]);
	assert_true(hist_max(h) == (double)v[n - 1]);
	assert_true(hist_percentile(h, 0) == (double)v[0]);
	assert_true(hist_percentile(h, 100) == (double)v[n - 1]);
	for (size_t i = 0; i < sizeof(permille) / sizeof(permille[0]); i++) {
		double p = (double)permille[i] / 10.0;
		double exact = (double)ref_percentile_permille(v, n, permille[i]);
		assert_close(hist_percentile(h, p), exact, HIST_MAX_REL_ERROR);
		assert_close(hist_percentile(h, p), exact, 0.01);
	}
	assert_close(hist_mean(h), ref_mean(v, n), 1e-12);
	assert_close(hist_stdev(h), ref_stdev_population(v, n), 1e-9);
	free(v);
	free(h);
}

static void hist_bucket_error_bound_is_within_one_percent(void **state)
{
	(void)state;
	assert_true(HIST_MAX_REL_ERROR <= 0.01);
	assert_true(sizeof(struct hist) < 64 * 1024);
}

static void hist_empty_reports_nan_and_zero_count(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	assert_int_equal(hist_count(h), 0);
	assert_true(isnan(hist_percentile(h, 50)));
	assert_true(isnan(hist_percentile(h, 0)));
	assert_true(isnan(hist_percentile(h, 100)));
	assert_true(isnan(hist_mean(h)));
	assert_true(isnan(hist_stdev(h)));
	assert_true(isnan(hist_min(h)));
	assert_true(isnan(hist_max(h)));
	free(h);
}

static void hist_zeroed_struct_is_an_empty_histogram(void **state)
{
	static struct hist h;  /* all zero, never reset */
	(void)state;

	assert_int_equal(hist_count(&h), 0);
	hist_add(&h, 5000);
	hist_add(&h, 7000);
	assert_true(hist_min(&h) == 5000.0);
	assert_true(hist_max(&h) == 7000.0);
	assert_close(hist_mean(&h), 6000.0, 1e-15);
}

static void hist_one_sample_is_exact_everywhere(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 123457);
	assert_int_equal(hist_count(h), 1);
	assert_true(hist_percentile(h, 0) == 123457.0);
	assert_true(hist_percentile(h, 50) == 123457.0);   /* clamped to [min, max] */
	assert_true(hist_percentile(h, 99.9) == 123457.0);
	assert_true(hist_percentile(h, 100) == 123457.0);
	assert_true(hist_mean(h) == 123457.0);
	assert_true(hist_stdev(h) == 0.0);
	free(h);
}

static void hist_two_samples_follow_nearest_rank(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 5000);
	hist_add(h, 1000);
	/* rank = ceil(p/100 * 2): p <= 50 -> first sample, p > 50 -> second */
	assert_close(hist_percentile(h, 1), 1000.0, HIST_MAX_REL_ERROR);
	assert_close(hist_percentile(h, 50), 1000.0, HIST_MAX_REL_ERROR);
	assert_close(hist_percentile(h, 50.001), 5000.0, HIST_MAX_REL_ERROR);
	assert_close(hist_percentile(h, 99), 5000.0, HIST_MAX_REL_ERROR);
	assert_true(hist_percentile(h, 0) == 1000.0);
	assert_true(hist_percentile(h, 100) == 5000.0);
	assert_true(hist_mean(h) == 3000.0);
	assert_close(hist_stdev(h), 2000.0, 1e-15);  /* population: divisor n */
	free(h);
}

static void hist_100_samples_match_exact_percentiles(void **state)
{
	(void)state;
	check_random_samples(100);
}

static void hist_1001_samples_match_exact_percentiles(void **state)
{
	(void)state;
	check_random_samples(1001);
}

static void hist_small_values_are_exact(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	for (uint64_t v = 0; v < 128; v++)
		hist_add(h, v);
	/* p = (i + 0.5) / 128 * 100 has rank i + 1: sample value i, exact below 128 */
	for (uint64_t i = 0; i < 128; i++)
		assert_true(hist_percentile(h, ((double)i + 0.5) / 128.0 * 100.0) == (double)i);
	free(h);
}

static void hist_rank_does_not_round_up_at_p99_9(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	/* 999 samples of 100 ns and one of 1 ms: rank(99.9%, n = 1000) = 999. */
	hist_add_n(h, 100, 999);
	hist_add(h, 1000000);
	assert_true(hist_percentile(h, 99.9) == 100.0);
	assert_true(hist_percentile(h, 99.91) == 1000000.0);
	free(h);
}

static void hist_min_and_max_are_exact_samples(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 987654321123ull);
	hist_add(h, 123456789);
	hist_add(h, 5555555555ull);
	assert_true(hist_min(h) == 123456789.0);
	assert_true(hist_max(h) == 987654321123.0);
	assert_true(hist_percentile(h, 100) == 987654321123.0);
	assert_true(hist_percentile(h, 0) == 123456789.0);
	free(h);
}

static void hist_stdev_keeps_precision_with_large_offset(void **state)
{
	struct hist *h = hist_new();
	uint64_t v[1000];
	(void)state;

	/* 10 s plus 0..999 ns: mean and spread far apart in scale. */
	for (int i = 0; i < 1000; i++) {
		v[i] = 10000000000ull + (uint64_t)i;
		hist_add(h, v[i]);
	}
	assert_close(hist_mean(h), 10000000499.5, 1e-15);
	assert_close(hist_stdev(h), ref_stdev_population(v, 1000), 1e-9);
	assert_close(hist_stdev(h), sqrt((1000.0 * 1000.0 - 1.0) / 12.0), 1e-9);
	free(h);
}

static void hist_counts_above_2_31_with_add_n(void **state)
{
	struct hist *h = hist_new();
	const uint64_t n = 3000000000ull;  /* each > 2^31 */
	(void)state;

	hist_add_n(h, 1000, n);
	hist_add_n(h, 2000, n);
	hist_add_n(h, 1500, 0);  /* no-op */
	assert_true(hist_count(h) == 2 * n);
	assert_close(hist_percentile(h, 50), 1000.0, HIST_MAX_REL_ERROR);
	assert_close(hist_percentile(h, 50.0001), 2000.0, HIST_MAX_REL_ERROR);
	assert_true(hist_min(h) == 1000.0);
	assert_true(hist_max(h) == 2000.0);
	assert_close(hist_mean(h), 1500.0, 1e-12);
	assert_close(hist_stdev(h), 500.0, 1e-9);
	free(h);
}

static void hist_merge_sums_counts_above_2_31(void **state)
{
	struct hist *a = hist_new(), *b = hist_new();
	const uint64_t n = (1ull << 31) + 5;
	(void)state;

	hist_add_n(a, 700, n);
	hist_add_n(b, 900, n);
	hist_merge(a, b);
	assert_true(hist_count(a) == 2 * n);
	assert_true(hist_count(a) > (1ull << 32));
	assert_true(a->buckets[hist_bucket_index(700)] == n);
	assert_true(a->buckets[hist_bucket_index(900)] == n);
	assert_close(hist_percentile(a, 50), 700.0, HIST_MAX_REL_ERROR);
	assert_close(hist_percentile(a, 51), 900.0, HIST_MAX_REL_ERROR);
	assert_close(hist_mean(a), 800.0, 1e-12);
	assert_close(hist_stdev(a), 100.0, 1e-9);
	free(a);
	free(b);
}

static void hist_relative_error_bound_holds_from_1ns_to_10s(void **state)
{
	size_t cap = 8192, n = 0;
	uint64_t *v = malloc(cap * sizeof(*v));
	struct hist *h = hist_new();
	(void)state;

	assert_non_null(v);
	/* Geometric sweep 1 ns .. 10 s, plus each power of two and its neighbours. */
	for (double x = 1.0; x <= 1e10 && n < cap; x *= 1.005)
		v[n++] = (uint64_t)x;
	for (int k = 1; k <= 33 && n + 3 <= cap; k++) {
		v[n++] = (1ull << k) - 1;
		v[n++] = 1ull << k;
		v[n++] = (1ull << k) + 1;
	}
	v[n++] = 10000000000ull;
	qsort(v, n, sizeof(*v), cmp_u64);

	for (size_t i = 0; i < n; i++) {
		unsigned idx = hist_bucket_index(v[i]);
		assert_true(idx < HIST_NBUCKETS);
		assert_true(hist_bucket_lower(idx) <= v[i] && v[i] <= hist_bucket_upper(idx));
		assert_close(hist_bucket_value(idx), (double)v[i], HIST_MAX_REL_ERROR);
		hist_add(h, v[i]);
	}
	/* Through the public path: p picked so that its rank is i + 1. */
	for (size_t i = 0; i < n; i++) {
		double p = ((double)i + 0.5) / (double)n * 100.0;
		assert_close(hist_percentile(h, p), (double)v[i], HIST_MAX_REL_ERROR);
	}
	free(v);
	free(h);
}

static void hist_buckets_tile_the_whole_u64_range(void **state)
{
	(void)state;

	assert_true(hist_bucket_lower(0) == 0);
	assert_true(hist_bucket_upper(HIST_NBUCKETS - 1) == UINT64_MAX);
	assert_int_equal(hist_bucket_index(UINT64_MAX), HIST_NBUCKETS - 1);
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		assert_int_equal(hist_bucket_index(hist_bucket_lower(i)), i);
		assert_int_equal(hist_bucket_index(hist_bucket_upper(i)), i);
		if (i + 1 < HIST_NBUCKETS)
			assert_true(hist_bucket_upper(i) + 1 == hist_bucket_lower(i + 1));
	}
}

static void hist_extreme_values_stay_in_range(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 0);
	hist_add(h, UINT64_MAX);
	assert_true(hist_min(h) == 0.0);
	assert_true(hist_max(h) == (double)UINT64_MAX);
	assert_true(hist_percentile(h, 50) == 0.0);
	assert_true(hist_percentile(h, 75) <= (double)UINT64_MAX);
	assert_close(hist_percentile(h, 75), (double)UINT64_MAX, HIST_MAX_REL_ERROR);
	free(h);
}

static void hist_percentile_outside_0_100_is_nan(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 1000);
	assert_true(isnan(hist_percentile(h, -0.1)));
	assert_true(isnan(hist_percentile(h, 100.1)));
	assert_true(isnan(hist_percentile(h, NAN)));
	free(h);
}

static void hist_merge_equals_adding_every_sample(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	(void)state;

	for (int i = 0; i < 1001; i++) {
		uint64_t x = rng_latency() + (i % 2 ? 50000 : 0);  /* two different means */
		hist_add(i % 2 ? a : b, x);
		hist_add(all, x);
	}
	hist_add(b, 0);  /* bucket 0 is merged too */
	hist_add(all, 0);
	hist_merge(a, b);
	assert_true(hist_count(a) == hist_count(all));
	assert_true(a->min == all->min && a->max == all->max);
	assert_memory_equal(a->buckets, all->buckets, sizeof(a->buckets));
	for (double p = 0; p <= 100; p += 0.5)
		assert_true(hist_percentile(a, p) == hist_percentile(all, p));
	assert_close(hist_mean(a), hist_mean(all), 1e-12);
	assert_close(hist_stdev(a), hist_stdev(all), 1e-9);
	/* the merged histogram keeps accumulating correctly */
	hist_add(a, 3000);
	hist_add(all, 3000);
	assert_close(hist_mean(a), hist_mean(all), 1e-12);
	assert_close(hist_stdev(a), hist_stdev(all), 1e-9);
	free(a);
	free(b);
	free(all);
}

static void hist_merge_with_empty_sides(void **state)
{
	struct hist *a = hist_new(), *empty = hist_new(), *c = hist_new();
	(void)state;

	hist_add(a, 4000);
	hist_add(a, 6000);
	hist_merge(a, empty);  /* nothing changes */
	assert_true(hist_count(a) == 2);
	assert_true(hist_mean(a) == 5000.0);
	hist_merge(c, a);      /* into an empty one: a copy */
	assert_true(hist_count(c) == 2);
	assert_true(hist_min(c) == 4000.0 && hist_max(c) == 6000.0);
	assert_close(hist_stdev(c), 1000.0, 1e-12);
	free(a);
	free(empty);
	free(c);
}

static void hist_merge_with_itself_doubles_counts(void **state)
{
	struct hist *a = hist_new();
	(void)state;

	hist_add(a, 4000);
	hist_add(a, 6000);
	hist_merge(a, a);
	assert_true(hist_count(a) == 4);
	assert_true(a->buckets[hist_bucket_index(4000)] == 2);
	assert_close(hist_mean(a), 5000.0, 1e-15);
	assert_close(hist_stdev(a), 1000.0, 1e-12);
	free(a);
}

static void hist_reset_empties_a_used_histogram(void **state)
{
	struct hist *h = hist_new();
	(void)state;

	hist_add(h, 42);
	hist_add(h, 4200);
	hist_reset(h);
	assert_int_equal(hist_count(h), 0);
	assert_true(isnan(hist_mean(h)));
	hist_add(h, 10);
	assert_true(hist_min(h) == 10.0 && hist_max(h) == 10.0);
	assert_true(hist_mean(h) == 10.0);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hist_bucket_error_bound_is_within_one_percent),
		cmocka_unit_test(hist_empty_reports_nan_and_zero_count),
		cmocka_unit_test(hist_zeroed_struct_is_an_empty_histogram),
		cmocka_unit_test(hist_one_sample_is_exact_everywhere),
		cmocka_unit_test(hist_two_samples_follow_nearest_rank),
		cmocka_unit_test(hist_100_samples_match_exact_percentiles),
		cmocka_unit_test(hist_1001_samples_match_exact_percentiles),
		cmocka_unit_test(hist_small_values_are_exact),
		cmocka_unit_test(hist_rank_does_not_round_up_at_p99_9),
		cmocka_unit_test(hist_min_and_max_are_exact_samples),
		cmocka_unit_test(hist_stdev_keeps_precision_with_large_offset),
		cmocka_unit_test(hist_counts_above_2_31_with_add_n),
		cmocka_unit_test(hist_merge_sums_counts_above_2_31),
		cmocka_unit_test(hist_relative_error_bound_holds_from_1ns_to_10s),
		cmocka_unit_test(hist_buckets_tile_the_whole_u64_range),
		cmocka_unit_test(hist_extreme_values_stay_in_range),
		cmocka_unit_test(hist_percentile_outside_0_100_is_nan),
		cmocka_unit_test(hist_merge_equals_adding_every_sample),
		cmocka_unit_test(hist_merge_with_empty_sides),
		cmocka_unit_test(hist_merge_with_itself_doubles_counts),
		cmocka_unit_test(hist_reset_empties_a_used_histogram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
