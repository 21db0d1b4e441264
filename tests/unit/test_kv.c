/*
 * test_kv.c - HERD-KV's pure parts (kv.h, bench/apps/kv/kv.c): a request's
 * round trip through a slot and the WRITE span ending on the arrival byte,
 * malformed slots refused, the region layout dense and disjoint, the slot
 * rings, and the knob checks naming value, limit and fix (value size above
 * the slot, GET fraction outside 0..1, keyspace 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "kv.h"

static char err[512];

static void put_round_trips_and_span_ends_on_the_mark(void **state)
{
	(void)state;
	uint8_t slot[KV_SLOT_BYTES], value[32];
	struct mica_key k = mica_key_of(1234);
	struct kv_req r;
	uint32_t off, len;
	memset(slot, 0, sizeof(slot));
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_EMPTY);
	mica_value_fill(value, sizeof(value), 1234, 9);
	assert_int_equal(kv_req_encode(slot, KV_PUT, &k, value, 32, 5, &off, &len), 0);
	assert_int_equal(off, KV_VALUE_END - 32);
	assert_int_equal(off + len, KV_CTRL_OFF + 8);   /* the span's last byte: the mark */
	assert_int_equal(slot[off + len - 1], 5);
	assert_true(off + len <= KV_SLOT_BYTES);
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_REQ);
	assert_int_equal(r.op, KV_PUT);
	assert_int_equal(r.vlen, 32);
	assert_memory_equal(&r.key, &k, sizeof(k));
	assert_memory_equal(r.value, value, 32);
	kv_req_clear(slot);
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_EMPTY);
	/* a GET: key and control word only; the largest PUT: from byte 0 */
	assert_int_equal(kv_req_encode(slot, KV_GET, &k, NULL, 0, 1, &off, &len), 0);
	assert_int_equal(off, KV_KEY_OFF);
	assert_int_equal(len, MICA_KEY_BYTES + 8);
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_REQ);
	assert_int_equal(r.op, KV_GET);
	assert_int_equal(r.vlen, 0);
	uint8_t big[KV_MAX_VALUE] = { 0 };
	assert_int_equal(kv_req_encode(slot, KV_PUT, &k, big, KV_MAX_VALUE, 1, &off, &len), 0);
	assert_int_equal(off, 0);
	/* the largest value is a request, not a bad slot (decode's limit is inclusive) */
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_REQ);
	assert_int_equal(r.op, KV_PUT);
	assert_int_equal(r.vlen, KV_MAX_VALUE);
}

static void malformed_requests_are_refused(void **state)
{
	(void)state;
	uint8_t slot[KV_SLOT_BYTES] = { 0 }, v[80] = { 0 };
	struct mica_key k = mica_key_of(1);
	struct kv_req r;
	uint32_t off, len;
	assert_int_equal(kv_req_encode(slot, 3, &k, v, 8, 1, &off, &len), -1);        /* op */
	assert_int_equal(kv_req_encode(slot, KV_GET, &k, v, 8, 1, &off, &len), -1);   /* GET + value */
	assert_int_equal(kv_req_encode(slot, KV_PUT, &k, v, KV_MAX_VALUE + 1, 1, &off, &len), -1);
	assert_int_equal(kv_req_encode(slot, KV_PUT, &k, v, 8, 0, &off, &len), -1);   /* no mark */
	assert_int_equal(kv_req_encode(slot, KV_PUT, &k, v, 8, 1, &off, &len), 0);
	slot[KV_CTRL_OFF + 0] = 7;   /* unknown op */
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_BAD);
	slot[KV_CTRL_OFF + 0] = KV_PUT;
	slot[KV_CTRL_OFF + 1] = KV_MAX_VALUE + 1;
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_BAD);
	slot[KV_CTRL_OFF + 1] = 8;
	slot[KV_CTRL_OFF + 3] = 1;   /* reserved byte */
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_BAD);
	slot[KV_CTRL_OFF + 3] = 0;
	slot[KV_CTRL_OFF + 0] = KV_GET;   /* a GET claiming a value */
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_BAD);
	slot[KV_CTRL_OFF + 1] = 0;
	assert_int_equal(kv_req_decode(slot, &r), KV_SLOT_REQ);
}

static void region_is_dense_and_disjoint(void **state)
{
	(void)state;
	uint64_t prev = 0, n = 0;
	for (uint64_t t = 0; t < 3; t++)
		for (uint64_t c = 0; c < 4; c++)
			for (uint64_t k = 0; k < 5; k++) {
				uint64_t o = kv_slot_offset(4, 5, t, c, k);
				if (n++)
					assert_int_equal(o, prev + KV_SLOT_BYTES);
				else
					assert_int_equal(o, 0);
				prev = o;
			}
	assert_int_equal(prev + KV_SLOT_BYTES, kv_region_bytes(3, 4, 5));
}

static void rings_hand_out_each_slot_once(void **state)
{
	(void)state;
	uint64_t ring = kv_ring_init(5);
	for (int k = 0; k < 5; k++)
		assert_int_equal(kv_ring_take(&ring), k);
	assert_int_equal(kv_ring_take(&ring), -1);
	kv_ring_put(&ring, 3);
	assert_int_equal(kv_ring_take(&ring), 3);
	assert_int_equal(kv_ring_take(&ring), -1);
	ring = kv_ring_init(KV_MAX_WINDOW);
	for (int k = 0; k < (int)KV_MAX_WINDOW; k++)
		assert_int_equal(kv_ring_take(&ring), k);
	assert_int_equal(kv_ring_take(&ring), -1);
}

static void knob_checks_name_value_limit_and_fix(void **state)
{
	(void)state;
	struct kv_cfg c;
	double f = -1;
	kv_cfg_defaults(&c);
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), 0);
	c.value_bytes = KV_MAX_VALUE + 1;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv value=65 is outside 1..64"));
	assert_non_null(strstr(err, "give 64 or less"));
	c.value_bytes = KV_MAX_VALUE;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), 0);
	c.get_fraction = 1.5;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv get=1.5 is outside 0..1"));
	c.get_fraction = 0;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), 0);
	c.keys = 0;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv keys=0"));
	c.keys = KV_MAX_KEYS + 1;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv keys=134217729 is above 134217728"));
	c.keys = KV_MAX_KEYS;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), 0);
	kv_cfg_defaults(&c);
	c.validate = 1;
	c.value_bytes = 8;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "16 bytes at least"));
	kv_cfg_defaults(&c);
	assert_int_equal(kv_cfg_validate(&c, KV_MAX_WINDOW + 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--window 65"));
	c.theta = 0;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), 0);   /* uniform: unused */
	c.zipf = 1;
	assert_int_equal(kv_cfg_validate(&c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv theta=0"));
	/* the option's text */
	assert_int_equal(kv_parse_fraction("0.95", &f, err, sizeof(err)), 0);
	assert_true(f > 0.9499 && f < 0.9501);
	assert_int_equal(kv_parse_fraction("1", &f, err, sizeof(err)), 0);
	assert_int_equal(kv_parse_fraction("1.01", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv get=1.01 is outside 0..1"));
	assert_int_equal(kv_parse_fraction("-0.1", &f, err, sizeof(err)), -1);
	assert_int_equal(kv_parse_fraction("nan", &f, err, sizeof(err)), -1);
	assert_int_equal(kv_parse_fraction("0.5x", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'0.5x' is not a number"));
}

/* kv_describe(c) into the first len bytes of a larger buffer: it reads want,
 * and every byte after those len is left as it was (a canary) */
static void assert_describe_cut(const struct kv_cfg *c, size_t len, const char *want)
{
	char mem[128];

	assert_true(len < sizeof(mem));
	memset(mem, 'Z', sizeof(mem));
	assert_string_equal(kv_describe(c, mem, len), want);
	for (size_t i = len; i < sizeof(mem); i++)
		assert_int_equal(mem[i], 'Z');
}

static void kv_option_list_parses_and_describes(void **state)
{
	(void)state;
	struct kv_cfg c;
	char buf[160];
	kv_cfg_defaults(&c);
	assert_string_equal(kv_describe(&c, buf, sizeof(buf)), "get=0.95,keys=65536,value=32,dist=uniform");
	assert_int_equal(kv_parse_opts("get=0.5,keys=1000,value=64,dist=zipf,theta=0.9,validate", &c,
				       err, sizeof(err)), 0);
	assert_true(c.get_fraction == 0.5 && c.keys == 1000 && c.value_bytes == 64 && c.zipf &&
		    c.theta == 0.9 && c.validate);
	assert_string_equal(kv_describe(&c, buf, sizeof(buf)),
			    "get=0.5,keys=1000,value=64,dist=zipf,theta=0.9,validate");
	/* a buffer too short for the theta and validate parts: cut at its end,
	 * nothing written past it (a canary right after the buffer) */
	assert_describe_cut(&c, 44, "get=0.5,keys=1000,value=64,dist=zipf,theta=");
	assert_describe_cut(&c, 50, "get=0.5,keys=1000,value=64,dist=zipf,theta=0.9,va");
	/* each knob keeps its value unless named */
	assert_int_equal(kv_parse_opts("dist=uniform", &c, err, sizeof(err)), 0);
	assert_true(!c.zipf && c.keys == 1000);
	/* an errno left by an earlier call is not this number's error */
	errno = ERANGE;
	assert_int_equal(kv_parse_opts("keys=5000", &c, err, sizeof(err)), 0);
	assert_true(c.keys == 5000);
	errno = ERANGE;
	assert_int_equal(kv_parse_opts("get=0.5", &c, err, sizeof(err)), 0);
	assert_true(c.get_fraction == 0.5);
	assert_int_equal(kv_parse_opts("keys=99999999999999999999", &c, err, sizeof(err)), -1);
	assert_int_equal(kv_parse_opts("keys=-1", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv keys: '-1' is not a whole number"));
	assert_int_equal(kv_parse_opts("dist=pareto", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv dist=pareto: use uniform or zipf"));
	assert_int_equal(kv_parse_opts("size=8", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv size: unknown knob"));
	assert_int_equal(kv_parse_opts("keys", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "give NAME=VALUE"));
	assert_int_equal(kv_parse_opts("get=2", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv get=2 is outside 0..1"));
	assert_int_equal(kv_parse_opts("theta=0", &c, err, sizeof(err)), -1);
	/* the list's limit, 255 characters: keys=7 repeated up to it is taken,
	 * one more character is refused by length */
	char list[300] = "keys=7";
	while (strlen(list) + 7 <= 255)
		strcat(list, ",keys=7");
	while (strlen(list) < 255)
		strcat(list, ",");
	assert_int_equal(kv_parse_opts(list, &c, err, sizeof(err)), 0);
	assert_true(c.keys == 7);
	strcat(list, ",");
	assert_int_equal(kv_parse_opts(list, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--kv: the list is longer than 255 characters"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_round_trips_and_span_ends_on_the_mark),
		cmocka_unit_test(malformed_requests_are_refused),
		cmocka_unit_test(region_is_dense_and_disjoint),
		cmocka_unit_test(rings_hand_out_each_slot_once),
		cmocka_unit_test(knob_checks_name_value_limit_and_fix),
		cmocka_unit_test(kv_option_list_parses_and_describes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
