/*
 * test_mica.c - the key-value store of case study 2 (mica.h, bench/apps/
 * mica.c) and its key choice (zipf.h, bench/apps/kv/zipf.c): GET/PUT and
 * overwrite, a full bucket dropping its oldest entry (lossy index), tag
 * collisions told apart by the full key, the log's wrap and the eviction of
 * overwritten items, a hit never stale against a reference model, the
 * self-checking values, the key -> thread spread, and Zipf(0.99) and
 * uniform draws against their expected frequencies (chi-square).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica.h"
#include "zipf.h"

static char err[512];

static void put_id(struct mica *m, uint64_t id, uint64_t version, uint32_t vlen)
{
	uint8_t v[MICA_MAX_VALUE];
	struct mica_key k = mica_key_of(id);
	mica_value_fill(v, vlen, id, version);
	assert_int_equal(mica_put(m, &k, v, vlen), MICA_OK);
}

/* GET key id: MICA_MISS, or MICA_OK with its version checked and returned. */
static int get_id(struct mica *m, uint64_t id, uint64_t *version)
{
	uint8_t v[MICA_MAX_VALUE];
	uint32_t vlen = 0;
	struct mica_key k = mica_key_of(id);
	int rc = mica_get(m, &k, v, sizeof(v), &vlen);
	if (rc == MICA_OK) {
		if (mica_value_check(v, vlen, id, version, err, sizeof(err)))
			fail_msg("key %llu: %s", (unsigned long long)id, err);
	}
	return rc;
}

static unsigned live_entries(const struct mica *m)
{
	unsigned n = 0;
	for (uint64_t i = 0; i < m->nbuckets * MICA_WAYS; i++)
		n += m->index[i] != 0;
	return n;
}

static void get_put_and_overwrite(void **state)
{
	(void)state;
	struct mica m;
	uint64_t ver;
	assert_int_equal(mica_init(&m, 1024, 1 << 20, 7, err, sizeof(err)), 0);
	assert_int_equal(m.nbuckets, 256);
	/* what the server is charged: the index's 256 x 8 entries of 8 bytes, the log */
	assert_int_equal(mica_bytes(1024, 1 << 20), 256 * MICA_WAYS * 8 + (1 << 20));
	for (uint64_t id = 0; id < 200; id++)
		put_id(&m, id, 1, MICA_DEF_VALUE);
	assert_int_equal(m.st.index_evictions, 0);   /* 200 keys in 2048 entries */
	for (uint64_t id = 0; id < 200; id++) {
		assert_int_equal(get_id(&m, id, &ver), MICA_OK);
		assert_int_equal(ver, 1);
	}
	assert_int_equal(get_id(&m, 200, &ver), MICA_MISS);
	assert_int_equal(live_entries(&m), 200);
	/* overwrite: the entry moves to the new item, no second entry */
	put_id(&m, 42, 2, 64);
	assert_int_equal(get_id(&m, 42, &ver), MICA_OK);
	assert_int_equal(ver, 2);
	assert_int_equal(live_entries(&m), 200);
	assert_int_equal(m.st.overwrites, 1);
	assert_int_equal(m.st.index_evictions, 0);
	assert_int_equal(m.st.hits, 201);
	assert_int_equal(m.st.misses, 1);
	assert_int_equal(m.st.gets, 202);
	/* a value longer than the store takes, a GET buffer shorter than the value */
	uint8_t big[MICA_MAX_VALUE + 1] = { 0 };
	struct mica_key k = mica_key_of(42);
	uint32_t vlen;
	assert_int_equal(mica_put(&m, &k, big, MICA_MAX_VALUE + 1), MICA_EINVAL);
	assert_int_equal(mica_get(&m, &k, big, 63, &vlen), MICA_EINVAL);
	mica_free(&m);
}

static void full_bucket_drops_its_oldest_entry(void **state)
{
	(void)state;
	struct mica m;
	uint64_t ver;
	/* 4 keys: one bucket of 8 ways; a big log, so only the index loses keys */
	assert_int_equal(mica_init(&m, MICA_WAYS / 2, 1 << 16, 1, err, sizeof(err)), 0);
	assert_int_equal(m.nbuckets, 1);
	for (uint64_t id = 0; id < MICA_WAYS; id++)
		put_id(&m, id, 1, 32);
	put_id(&m, 3, 2, 32);             /* key 3 is now the newest of the eight */
	assert_int_equal(m.st.index_evictions, 0);
	put_id(&m, 100, 1, 32);           /* a ninth key: key 0 (oldest item) goes */
	assert_int_equal(m.st.index_evictions, 1);
	assert_int_equal(get_id(&m, 0, &ver), MICA_MISS);
	put_id(&m, 101, 1, 32);           /* then key 1 */
	assert_int_equal(get_id(&m, 1, &ver), MICA_MISS);
	for (uint64_t id = 2; id < MICA_WAYS; id++)
		assert_int_equal(get_id(&m, id, &ver), MICA_OK);
	assert_int_equal(get_id(&m, 3, &ver), MICA_OK);
	assert_int_equal(ver, 2);
	assert_int_equal(get_id(&m, 100, &ver), MICA_OK);
	assert_int_equal(get_id(&m, 101, &ver), MICA_OK);
	mica_free(&m);
}

static void tag_collisions_are_told_apart_by_the_key(void **state)
{
	(void)state;
	struct mica m;
	uint64_t ver, a = 0, b = 0;
	/* two keys whose hashes share the top 16 bits (the tag) */
	static uint64_t first[1 << 16];
	memset(first, 0, sizeof(first));
	for (uint64_t id = 1; id < 200000 && !b; id++) {
		struct mica_key k = mica_key_of(id);
		uint64_t t = mica_hash(&k, 5) >> 48;
		if (first[t]) {
			a = first[t];
			b = id;
		} else {
			first[t] = id;
		}
	}
	assert_true(b != 0);
	assert_int_equal(mica_init(&m, 1, 1 << 16, 5, err, sizeof(err)), 0);
	put_id(&m, a, 10, 32);
	put_id(&m, b, 20, 32);
	assert_int_equal(live_entries(&m), 2);   /* b did not overwrite a */
	assert_int_equal(get_id(&m, a, &ver), MICA_OK);
	assert_int_equal(ver, 10);
	assert_int_equal(get_id(&m, b, &ver), MICA_OK);
	assert_int_equal(ver, 20);
	mica_free(&m);
}

static void log_wrap_evicts_overwritten_items(void **state)
{
	(void)state;
	struct mica m;
	uint64_t ver, sz = mica_item_bytes(32);
	assert_int_equal(sz, 56);
	/* room for 3 items of 56 bytes and 32 spare: the 4th skips to the start */
	assert_int_equal(mica_init(&m, 64, 200, 3, err, sizeof(err)), 0);
	for (uint64_t id = 0; id < 3; id++)
		put_id(&m, id, 1, 32);
	assert_int_equal(m.st.wraps, 0);
	put_id(&m, 3, 1, 32);
	assert_int_equal(m.st.wraps, 1);
	assert_int_equal(m.head, 200 + sz);
	assert_int_equal(get_id(&m, 0, &ver), MICA_MISS);   /* its bytes now hold key 3 */
	assert_int_equal(m.st.log_evictions, 1);
	for (uint64_t id = 1; id < 4; id++)
		assert_int_equal(get_id(&m, id, &ver), MICA_OK);
	/* exactly full log: the first item lives until one more byte is appended */
	struct mica e;
	assert_int_equal(mica_init(&e, 64, 10 * sz, 3, err, sizeof(err)), 0);
	for (uint64_t id = 0; id < 10; id++)
		put_id(&e, id, 1, 32);
	assert_int_equal(get_id(&e, 0, &ver), MICA_OK);
	put_id(&e, 10, 1, 32);
	assert_int_equal(e.st.wraps, 0);
	assert_int_equal(get_id(&e, 0, &ver), MICA_MISS);
	assert_int_equal(get_id(&e, 1, &ver), MICA_OK);
	mica_free(&e);
	mica_free(&m);
	/* one bucket: the PUT whose item overwrote item 0 finds that entry stale */
	assert_int_equal(mica_init(&m, 4, 200, 3, err, sizeof(err)), 0);
	assert_int_equal(m.nbuckets, 1);
	for (uint64_t id = 0; id < 4; id++)
		put_id(&m, id, 1, 32);
	assert_int_equal(m.st.log_evictions, 1);  /* before any GET */
	/* a stale entry is freed for the PUT that finds it, and counted once:
	 * nine keys through a log of three items leave six stale entries
	 * freed, no way of the one bucket taken from a live key */
	for (uint64_t id = 4; id < 9; id++)
		put_id(&m, id, 1, 32);
	assert_int_equal(m.st.log_evictions, 6);
	assert_int_equal(m.st.index_evictions, 0);
	assert_int_equal(live_entries(&m), 3);
	mica_free(&m);
}

/* Random PUTs and GETs against a model: a hit returns the newest version. */
static void hits_are_never_stale(void **state)
{
	(void)state;
	enum { KEYS = 4096, OPS = 200000 };
	static uint64_t latest[KEYS];
	struct mica m;
	uint64_t rng = 11, ver, hits = 0, misses = 0;
	memset(latest, 0, sizeof(latest));
	/* a log of 300 items and 20 bytes (its end is skipped: wraps), an index
	 * of 512 entries (64 buckets): both evict */
	assert_int_equal(mica_init(&m, 256, 300 * mica_item_bytes(32) + 20, 9, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < OPS; i++) {
		uint64_t id = zipf_uniform(KEYS, &rng);
		if (zipf_splitmix64(&rng) % 4 == 0) {
			put_id(&m, id, ++latest[id], 32);
		} else if (get_id(&m, id, &ver) == MICA_OK) {
			assert_int_equal(ver, latest[id]);
			hits++;
		} else {
			misses++;
		}
	}
	assert_true(hits > 0 && misses > 0);
	assert_true(m.st.log_evictions > 0 && m.st.index_evictions > 0 && m.st.wraps > 0);
	mica_free(&m);
}

static void bad_sizes_name_value_and_fix(void **state)
{
	(void)state;
	struct mica m;
	assert_int_equal(mica_init(&m, 0, 1 << 20, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "keyspace 0"));
	assert_int_equal(mica_init(&m, 10, 100, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "log size 100 bytes"));
	assert_non_null(strstr(err, "176"));
	assert_int_equal(mica_init(&m, 10, 176, 1, err, sizeof(err)), 0);
	mica_free(&m);
}

static void values_carry_key_and_version(void **state)
{
	(void)state;
	uint8_t v[32];
	uint64_t ver = 0;
	mica_value_fill(v, sizeof(v), 77, 5);
	assert_int_equal(mica_value_check(v, sizeof(v), 77, &ver, err, sizeof(err)), 0);
	assert_int_equal(ver, 5);
	assert_int_equal(mica_value_check(v, sizeof(v), 78, &ver, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "names key 77"));
	v[20] ^= 1;
	assert_int_equal(mica_value_check(v, sizeof(v), 77, &ver, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "byte 20"));
	assert_int_equal(mica_value_check(v, 15, 77, &ver, err, sizeof(err)), -1);
}

static void keys_spread_over_threads(void **state)
{
	(void)state;
	unsigned n[3] = { 0 };
	for (uint64_t id = 0; id < 30000; id++) {
		struct mica_key k = mica_key_of(id);
		n[mica_thread_of(mica_hash(&k, 0), 3)]++;
	}
	for (unsigned t = 0; t < 3; t++)
		assert_true(n[t] > 9500 && n[t] < 10500);
	/* the seed is the hash's key */
	struct mica_key k = mica_key_of(1);
	assert_true(mica_hash(&k, 0) != mica_hash(&k, 1));
}

/* Chi-square of counts against probabilities p (sum 1) over n bins. */
static double chi_square(const uint64_t *count, const double *p, uint64_t n, uint64_t draws)
{
	double x2 = 0;
	for (uint64_t k = 0; k < n; k++) {
		double e = p[k] * (double)draws;
		x2 += ((double)count[k] - e) * ((double)count[k] - e) / e;
	}
	return x2;
}

/*
 * 10^6 draws over 100 keys: chi-square with 99 degrees of freedom has mean
 * 99 and standard deviation 14; 99 + 6 sd = 183 fails a correct sampler
 * with probability below 1e-7, and a sampler of exponent 0.9 or 1.1 (or a
 * rank off by one) far above it. The hottest key alone: within 5 sd.
 */
static void zipf_matches_expected_frequencies(void **state)
{
	(void)state;
	enum { N = 100, DRAWS = 1000000 };
	uint64_t count[N] = { 0 }, rng = 2024;
	double p[N], hsum = 0;
	struct zipf z;
	assert_int_equal(zipf_init(&z, N, 0.99), 0);
	for (int k = 0; k < N; k++)
		hsum += p[k] = pow(k + 1, -0.99);
	for (int k = 0; k < N; k++)
		p[k] /= hsum;
	for (int i = 0; i < DRAWS; i++) {
		uint64_t key = zipf_next(&z, &rng);
		assert_true(key < N);
		count[key]++;
	}
	double x2 = chi_square(count, p, N, DRAWS);
	print_message("zipf(100, 0.99): chi-square %.1f (99 df), key 0 %.4f expected %.4f\n", x2,
		      (double)count[0] / DRAWS, p[0]);
	assert_true(x2 < 183);
	double sd0 = sqrt(DRAWS * p[0] * (1 - p[0]));
	assert_true(fabs((double)count[0] - DRAWS * p[0]) < 5 * sd0);
	/* the same over uniform draws */
	uint64_t ucount[N] = { 0 };
	double up[N];
	for (int k = 0; k < N; k++)
		up[k] = 1.0 / N;
	for (int i = 0; i < DRAWS; i++)
		ucount[zipf_uniform(N, &rng)]++;
	assert_true(chi_square(ucount, up, N, DRAWS) < 183);
	/* a steeper law over few keys, where the sampler's rejection step
	 * matters most: 9 df, mean 9, sd 4.2; 9 + 6 sd = 35 */
	uint64_t scount[10] = { 0 };
	double sp[10], ssum = 0;
	assert_int_equal(zipf_init(&z, 10, 1.5), 0);
	for (int k = 0; k < 10; k++)
		ssum += sp[k] = pow(k + 1, -1.5);
	for (int k = 0; k < 10; k++)
		sp[k] /= ssum;
	for (int i = 0; i < DRAWS; i++)
		scount[zipf_next(&z, &rng)]++;
	assert_true(chi_square(scount, sp, 10, DRAWS) < 35);
	/* theta = 1 exactly: H is log, the series branch of both helpers
	 * (10^5 draws: the rarest key expects ~190) */
	uint64_t ocount[N] = { 0 };
	double op[N], osum = 0;
	assert_int_equal(zipf_init(&z, N, 1.0), 0);
	for (int k = 0; k < N; k++)
		osum += op[k] = 1.0 / (k + 1);
	for (int k = 0; k < N; k++)
		op[k] /= osum;
	for (int i = 0; i < DRAWS / 10; i++)
		ocount[zipf_next(&z, &rng)]++;
	assert_true(chi_square(ocount, op, N, DRAWS / 10) < 183);
	/* a large keyspace stays in range; bad parameters are refused */
	assert_int_equal(zipf_init(&z, UINT64_C(8) << 20, 0.99), 0);
	for (int i = 0; i < 10000; i++)
		assert_true(zipf_next(&z, &rng) < (UINT64_C(8) << 20));
	assert_int_equal(zipf_init(&z, 0, 0.99), -1);
	assert_int_equal(zipf_init(&z, 10, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(get_put_and_overwrite),
		cmocka_unit_test(full_bucket_drops_its_oldest_entry),
		cmocka_unit_test(tag_collisions_are_told_apart_by_the_key),
		cmocka_unit_test(log_wrap_evicts_overwritten_items),
		cmocka_unit_test(hits_are_never_stale),
		cmocka_unit_test(bad_sizes_name_value_and_fix),
		cmocka_unit_test(values_carry_key_and_version),
		cmocka_unit_test(keys_spread_over_threads),
		cmocka_unit_test(zipf_matches_expected_frequencies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
