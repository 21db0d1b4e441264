/*
 * test_drtm.c - emulated DrTM-KV's pure parts (drtm.h, bench/apps/kv/drtm.c):
 * the lock word (a lock and its release leave the next version, unlocked;
 * a failed CAS's retry word), the item layout and the GET check, the key
 * and operation choice (range, PUT share, Zipf's hottest key), the knobs
 * (parse, describe, TEST round trip, refusals naming value, limit and fix)
 * and the end-of-point check (a lock left, a lost PUT, a stale stamp).
 */
#include "unit.h"

#include "drtm.h"
#include "seq.h"

static char err[512];

static void lock_and_release_give_the_next_version(void **state)
{
	(void)state;
	for (uint64_t owner = 1; owner <= 64; owner++) {
		uint64_t h = drtm_hdr(41, 0);
		uint64_t locked = drtm_lock_swap(h, owner);
		assert_int_equal(drtm_hdr_owner(locked), owner);
		assert_int_equal(drtm_hdr_version(locked), 41);
		/* the FETCH_AND_ADD of the release: owner cleared, version + 1 */
		uint64_t released = locked + DRTM_RELEASE_ADD(owner);
		assert_int_equal(drtm_hdr_owner(released), 0);
		assert_int_equal(drtm_hdr_version(released), 42);
	}
	/* the largest owner and a version near the top of its field */
	uint64_t top = (UINT64_C(1) << (64 - DRTM_OWNER_BITS)) - 2;
	uint64_t l = drtm_lock_swap(drtm_hdr(top, 0), DRTM_OWNER_MASK);
	assert_int_equal(drtm_hdr_version(l + DRTM_RELEASE_ADD(DRTM_OWNER_MASK)), top + 1);
	assert_int_equal(drtm_owner_of(0), 1);   /* owner 0 means unlocked */
}

static void a_failed_cas_retries_with_the_right_word(void **state)
{
	(void)state;
	/* unlocked at another version: retry with that word */
	assert_int_equal(drtm_cas_retry(drtm_hdr(7, 0)), drtm_hdr(7, 0));
	/* held by owner 3 at version 7: its release leaves version 8 */
	assert_int_equal(drtm_cas_retry(drtm_hdr(7, 3)), drtm_hdr(8, 0));
}

static void items_are_laid_out_and_checked(void **state)
{
	(void)state;
	uint8_t buf[3 * DRTM_ITEM_BYTES];
	struct drtm_view v;
	for (uint64_t i = 0; i < 3; i++)
		drtm_item_init(buf + drtm_item_offset(i), i);
	assert_int_equal(drtm_item_offset(2), 128);
	assert_int_equal(drtm_region_bytes(3), sizeof(buf));
	drtm_item_view(buf + drtm_item_offset(2), &v);
	assert_int_equal(v.hdr, 0);
	assert_int_equal(v.key, 2);
	assert_int_equal(v.stamp_key, 2);
	assert_int_equal(v.stamp_version, 0);
	assert_true(drtm_get_ok(&v, 2, false));
	assert_false(drtm_get_ok(&v, 1, false));          /* another key's item */
	/* a PUT with put-writes: value stamped with the new version */
	drtm_value_fill(buf + drtm_item_offset(2) + DRTM_VALUE_OFF, 2, 5);
	memcpy(buf + drtm_item_offset(2), &(uint64_t){ drtm_hdr(5, 0) }, 8);
	drtm_item_view(buf + drtm_item_offset(2), &v);
	assert_int_equal(v.hdr, drtm_hdr(5, 0));
	assert_int_equal(v.stamp_key, 2);
	assert_int_equal(v.stamp_version, 5);
	assert_true(drtm_get_ok(&v, 2, true));
	assert_false(drtm_get_ok(&v, 2, false));          /* without put-writes the stamp stays 0 */
	v.stamp_version = 4;                              /* older than its header: refused */
	assert_false(drtm_get_ok(&v, 2, true));
	assert_int_equal(drtm_cache_slots(10), 10);
	assert_int_equal(drtm_cache_slots(DRTM_PAPER_ITEMS), DRTM_CACHE_MAX);
}

static void keys_and_operations_follow_the_knobs(void **state)
{
	(void)state;
	struct drtm_cfg c;
	struct drtm_gen g;
	drtm_cfg_defaults(&c);
	c.items = 1000;
	c.put_fraction = 0.3;
	assert_int_equal(drtm_gen_init(&g, &c, 1), 0);
	uint64_t puts = 0, n = 200000, low = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = drtm_next_key(&g);
		assert_true(k < 1000);
		low += k < 100;
		puts += drtm_next_is_put(&g);
	}
	assert_close((double)puts / (double)n, 0.3, 0.02);
	assert_close((double)low / (double)n, 0.1, 0.05);   /* uniform: 10 % below 100 */
	for (double f = 0; f <= 1; f += 1) {               /* 0 never, 1 always */
		c.put_fraction = f;
		assert_int_equal(drtm_gen_init(&g, &c, 2), 0);
		for (int i = 0; i < 1000; i++)
			assert_int_equal(drtm_next_is_put(&g), f == 1);
	}
	/* Zipf(0.99) over 1000 keys: key 0 drawn with p = 1 / H(1000, 0.99) */
	c.zipf = 1;
	assert_int_equal(drtm_gen_init(&g, &c, 3), 0);
	double h = 0;
	for (int k = 1; k <= 1000; k++)
		h += pow(k, -0.99);
	uint64_t hot = 0;
	for (uint64_t i = 0; i < n; i++)
		hot += drtm_next_key(&g) == 0;
	assert_close((double)hot / (double)n, 1 / h, 0.05);
	c.items = 0;
	assert_int_equal(drtm_gen_init(&g, &c, 4), -1);
}

static void knobs_parse_describe_and_round_trip(void **state)
{
	(void)state;
	struct drtm_cfg c, b;
	char buf[128];
	drtm_cfg_defaults(&c);
	assert_int_equal(drtm_parse_opts("put=0.25,items=4096,dist=zipf,theta=0.9,put-writes,"
					 "validate", &c, err, sizeof(err)), 0);
	assert_string_equal(drtm_describe(&c, buf, sizeof(buf)),
			    "put=0.25,items=4096,dist=zipf,theta=0.9,put-writes,validate");
	/* an errno left by an earlier call is not these numbers' error */
	errno = ERANGE;
	assert_int_equal(drtm_parse_opts("put=0.5", &c, err, sizeof(err)), 0);
	errno = ERANGE;
	assert_int_equal(drtm_parse_opts("items=100", &c, err, sizeof(err)), 0);
	assert_true(c.put_fraction == 0.5 && c.items == 100);
	assert_int_equal(drtm_parse_opts("put=0.25,items=4096", &c, err, sizeof(err)), 0);
	struct seq_cfg s, s2;
	seq_cfg_defaults(&s);
	s.drtm = c;
	struct ctrl_config cfg;
	seq_cfg_to_config(&s, &cfg);
	assert_int_equal(seq_cfg_from_config(&cfg, &s2, err, sizeof(err)), 0);
	b = s2.drtm;
	assert_memory_equal(&c, &b, sizeof(c));
	drtm_cfg_defaults(&c);
	assert_string_equal(drtm_describe(&c, buf, sizeof(buf)), "put=0.1,items=65536,dist=uniform");
	assert_int_equal(drtm_cfg_validate(&c, 64, err, sizeof(err)), 0);
	/* the variant's configuration through its CONFIG message: drtm-kv named */
	seq_cfg_defaults(&s);
	s.variant = SEQ_DRTM_KV;
	s.server_threads = 0;
	s.drtm.put_fraction = 0.7;
	seq_cfg_to_config(&s, &cfg);
	assert_int_equal(seq_cfg_from_config(&cfg, &s2, err, sizeof(err)), 0);
	assert_int_equal(s2.variant, SEQ_DRTM_KV);
	assert_memory_equal(&s.drtm, &s2.drtm, sizeof(s.drtm));
	assert_int_equal(seq_cfg_validate(&s2, 2, err, sizeof(err)), 0);
	s2.server_threads = 1;
	assert_int_equal(seq_cfg_validate(&s2, 2, err, sizeof(err)), -1);
	assert_err_has(err, "--server-threads 1 with --variant drtm-kv: it uses no server CPU");
}

static void bad_knobs_are_refused_with_the_fix(void **state)
{
	(void)state;
	static const struct {
		const char *list, *msg;
	} bad[] = {
		{ "put=1.5", "--drtm put=1.5 is outside 0..1: give the share of PUTs" },
		{ "put=-0.1", "--drtm put=-0.1 is outside 0..1" },
		{ "put=x", "--drtm put='x' is not a number" },
		{ "put=nan", "--drtm put='nan' is not a number" },
		{ "items=-3", "--drtm items=-3: not a whole number" },
		{ "dist=pareto", "--drtm dist=pareto: use uniform or zipf" },
		{ "theta=0", "--drtm theta=0: give a number in (0, 10)" },
		{ "theta=10", "--drtm theta=10: give a number in (0, 10)" },
		{ "size=3", "--drtm size: unknown knob; use put, items, dist, theta" },
		{ "put", "--drtm put: give NAME=VALUE" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drtm_cfg c;
		drtm_cfg_defaults(&c);
		assert_int_equal(drtm_parse_opts(bad[i].list, &c, err, sizeof(err)), -1);
		assert_err_has(err, bad[i].msg);
	}
	struct drtm_cfg c;
	drtm_cfg_defaults(&c);
	assert_int_equal(drtm_parse_opts("theta=9.5", &c, err, sizeof(err)), 0); /* inside (0, 10) */
	assert_true(c.theta == 9.5);
	c.items = 0;
	assert_int_equal(drtm_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_err_has(err, "--drtm items=0: the store needs at least 1 item; use items=1..");
	c.items = DRTM_MAX_ITEMS + 1;
	assert_int_equal(drtm_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_err_has(err, "is above 33554432");
	drtm_cfg_defaults(&c);
	c.put_fraction = 1.0000001;
	assert_int_equal(drtm_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_err_has(err, "outside 0..1");
	drtm_cfg_defaults(&c);
	assert_int_equal(drtm_cfg_validate(&c, DRTM_OWNER_MASK + 1, err, sizeof(err)), -1);
	assert_err_has(err, "the lock word names at most 65535 owners");
	/* a configuration from the wire: Zipf's theta inside (0, 10), open at both ends */
	drtm_cfg_defaults(&c);
	c.zipf = 1;
	c.theta = 10;
	assert_int_equal(drtm_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_err_has(err, "--drtm theta=10: give a number in (0, 10)");
	c.theta = 9.99;
	assert_int_equal(drtm_cfg_validate(&c, 1, err, sizeof(err)), 0);
}

static void the_end_check_finds_what_does_not_add_up(void **state)
{
	(void)state;
	uint8_t buf[4 * DRTM_ITEM_BYTES];
	struct drtm_tally t;
	struct drtm_counts c = { .puts_done = 3 };
	char why[256];
	for (uint64_t i = 0; i < 4; i++)
		drtm_item_init(buf + drtm_item_offset(i), i);
	memcpy(buf + drtm_item_offset(1), &(uint64_t){ drtm_hdr(2, 0) }, 8);
	memcpy(buf + drtm_item_offset(3), &(uint64_t){ drtm_hdr(1, 0) }, 8);
	drtm_scan(buf, 4, false, &t);
	assert_int_equal(t.items, 4);
	assert_int_equal(t.versions, 3);
	assert_int_equal(t.locked, 0);
	assert_true(drtm_check(&t, &c, why, sizeof(why)));
	/* with put-writes the stamps must carry those versions */
	drtm_scan(buf, 4, true, &t);
	assert_int_equal(t.stamp_stale, 2);
	assert_false(drtm_check(&t, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "2 items hold a value stamped with another version"));
	/* a PUT the clients counted that no item shows */
	drtm_scan(buf, 4, false, &t);
	c.puts_done = 4;
	assert_false(drtm_check(&t, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "versions sum to 3, the clients completed 4 PUTs"));
	/* a lock left behind */
	c.puts_done = 3;
	memcpy(buf, &(uint64_t){ drtm_hdr(0, 2) }, 8);
	drtm_scan(buf, 4, false, &t);
	assert_int_equal(t.locked, 1);
	assert_false(drtm_check(&t, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "1 of 4 items left locked"));
	/* a GET that read another key's item */
	memcpy(buf, &(uint64_t){ 0 }, 8);
	drtm_scan(buf, 4, false, &t);
	c.bad_gets = 1;
	assert_false(drtm_check(&t, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "1 GETs read an item"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_and_release_give_the_next_version),
		cmocka_unit_test(a_failed_cas_retries_with_the_right_word),
		cmocka_unit_test(items_are_laid_out_and_checked),
		cmocka_unit_test(keys_and_operations_follow_the_knobs),
		cmocka_unit_test(knobs_parse_describe_and_round_trip),
		cmocka_unit_test(bad_knobs_are_refused_with_the_fix),
		cmocka_unit_test(the_end_check_finds_what_does_not_add_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
