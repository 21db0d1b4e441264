/*
 * test_units.c - unit tests of unit conversions and strict parsing (units.h),
 * and of the benchmark clock (timing.h), whose numbers feed the same rows.
 */
#include "unit.h"

#include "timing.h"
#include "units.h"

/* err must contain needle. */
static uint64_t parse_ok(const char *s)
{
	char err[256] = "";
	uint64_t v = 0;

	if (units_parse_size(s, &v, err, sizeof(err)) != 0) {
		print_error("units_parse_size(\"%s\") failed: %s\n", s, err);
		fail();
	}
	return v;
}

/* Parsing s fails, leaves *out alone and the message names s and needle. */
static void parse_bad(const char *s, const char *needle)
{
	char err[256] = "";
	uint64_t v = 12345;

	int rc = units_parse_size(s, &v, err, sizeof(err));
	if (rc == 0) {
		print_error("units_parse_size(\"%s\") accepted it as %llu\n", s,
			    (unsigned long long)v);
		fail();
	}
	assert_int_equal(rc, -1); /* the documented failure value */
	assert_true(v == 12345);
	assert_err_has(err, s);
	assert_err_has(err, needle);
}

/* ---- conversions ---------------------------------------------------------- */

static void units_mops_is_millions_of_ops_per_second(void **state)
{
	(void)state;
	assert_close(units_mops(1000000, 1.0), 1.0, 1e-15);
	assert_close(units_mops(30000000, 2.0), 15.0, 1e-15);
	assert_close(units_mops(5, 1e-6), 5.0, 1e-12);
}

static void units_gbps_is_payload_bits_per_second(void **state)
{
	(void)state;
	assert_close(units_gbps(125000000, 1.0), 1.0, 1e-15);      /* 10^9 bits */
	assert_close(units_gbps(UNITS_GIB, 1.0), 8.589934592, 1e-15); /* not 8.0 */
	assert_close(units_gbps(4096ull * 1000000, 0.5), 65.536, 1e-15);
}

static void units_rates_are_nan_without_a_positive_window(void **state)
{
	(void)state;
	assert_true(isnan(units_mops(100, 0.0)));
	assert_true(isnan(units_mops(100, -1.0)));
	assert_true(isnan(units_mops(100, NAN)));
	assert_true(isnan(units_mops(100, INFINITY)));
	assert_true(isnan(units_gbps(100, 0.0)));
	assert_true(isnan(units_mb_per_s(100, 0.0)));
	assert_true(isnan(units_mib_per_s(100, -2.0)));
}

static void units_mb_is_decimal_and_mib_is_binary(void **state)
{
	(void)state;
	assert_true(units_mb(1000000) == 1.0);
	assert_true(units_mib(1048576) == 1.0);
	assert_close(units_mb(1048576), 1.048576, 1e-15);
	assert_close(units_mib(1000000), 0.95367431640625, 1e-15);
	assert_close(units_mb_per_s(3000000, 2.0), 1.5, 1e-15);
	assert_close(units_mib_per_s(3 * 1048576, 2.0), 1.5, 1e-15);
	assert_true(UNITS_KB == 1000 && UNITS_KIB == 1024);
	assert_true(UNITS_GB == 1000000000ull && UNITS_GIB == 1073741824ull);
}

static void units_ns_to_us_divides_by_1000(void **state)
{
	(void)state;
	assert_true(units_ns_to_us(1500.0) == 1.5);
	assert_true(isnan(units_ns_to_us(NAN)));
}

/* ---- sizes ---------------------------------------------------------------- */

static void units_parse_size_accepts_plain_bytes(void **state)
{
	(void)state;
	assert_true(parse_ok("0") == 0);
	assert_true(parse_ok("64") == 64);
	assert_true(parse_ok("4096") == 4096);
	assert_true(parse_ok("64B") == 64);
	assert_true(parse_ok("1T") == UINT64_C(1) << 40);   /* T and TiB: 2^40 */
	assert_true(parse_ok("1TiB") == UINT64_C(1) << 40);
	assert_true(parse_ok("18446744073709551615") == UINT64_MAX);
}

static void units_parse_size_binary_suffixes_are_1024_based(void **state)
{
	(void)state;
	assert_true(parse_ok("4K") == 4096);
	assert_true(parse_ok("4KiB") == 4096);
	assert_true(parse_ok("4k") == 4096);
	assert_true(parse_ok("4kib") == 4096);
	assert_true(parse_ok("1M") == 1048576);
	assert_true(parse_ok("1MiB") == 1048576);
	assert_true(parse_ok("2G") == 2147483648ull);
	assert_true(parse_ok("2GiB") == 2147483648ull);
	assert_true(parse_ok("1T") == 1099511627776ull);
}

static void units_parse_size_decimal_suffixes_are_1000_based(void **state)
{
	(void)state;
	assert_true(parse_ok("4KB") == 4000);
	assert_true(parse_ok("4kb") == 4000);
	assert_true(parse_ok("1MB") == 1000000);
	assert_true(parse_ok("2GB") == 2000000000ull);
	assert_true(parse_ok("1TB") == 1000000000000ull);
	assert_true(parse_ok("4KB") != parse_ok("4K"));
}

static void units_parse_size_rejects_negative(void **state)
{
	(void)state;
	parse_bad("-1", "negative");
	parse_bad("-4K", "negative");
}

static void units_parse_size_rejects_non_numeric(void **state)
{
	(void)state;
	parse_bad("abc", "not a number");
	parse_bad("K", "not a number");
	parse_bad("+4", "not a number");
	parse_bad(" 4", "not a number");
	parse_bad("", "empty");
}

static void units_parse_size_rejects_overflow(void **state)
{
	(void)state;
	parse_bad("18446744073709551616", "too large");
	parse_bad("99999999999999999999999", "too large");
	parse_bad("17179869184G", "too large");  /* 2^34 GiB = 2^64 */
	parse_bad("16777216T", "too large");
	assert_true(parse_ok("17179869183G") == 17179869183ull * UNITS_GIB);
}

static void units_parse_size_rejects_trailing_junk(void **state)
{
	(void)state;
	parse_bad("4X", "unexpected \"X\"");
	parse_bad("4K ", "unexpected \"K \"");
	parse_bad("4 K", "unexpected \" K\"");
	parse_bad("4KBx", "unexpected \"KBx\"");
	parse_bad("4Kib4", "unexpected");
	parse_bad("0x40", "unexpected \"x40\"");
	parse_bad("1.5K", "fractions");
}

static void units_parse_size_error_lists_accepted_suffixes(void **state)
{
	char err[256];
	uint64_t v;
	(void)state;

	assert_int_equal(units_parse_size("4Q", &v, err, sizeof(err)), -1);
	assert_err_has(err, "KiB");
	assert_err_has(err, "1024-based");
	assert_err_has(err, "1000-based");
}

static void units_parse_size_survives_small_error_buffer(void **state)
{
	char err[8];
	uint64_t v;
	(void)state;

	memset(err, 'z', sizeof(err));
	assert_int_equal(units_parse_size("bogus", &v, err, sizeof(err)), -1);
	assert_true(memchr(err, '\0', sizeof(err)) != NULL);
}

static void units_parse_size_opt_names_option_value_and_range(void **state)
{
	char err[512];
	uint64_t v = 7;
	(void)state;

	assert_int_equal(units_parse_size_opt("1K", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), 0);
	assert_true(v == 1024);
	assert_int_equal(units_parse_size_opt("2G", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), -1);
	assert_true(v == 1024);
	assert_err_has(err, "--stride: 2G = 2147483648 bytes is above the maximum 1073741824");
	assert_err_has(err, "from 8 to 1073741824 bytes");
	assert_int_equal(units_parse_size_opt("4", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), -1);
	assert_err_has(err, "below the minimum 8");
	assert_int_equal(units_parse_size_opt("4Q", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), -1);
	assert_err_has(err, "--stride: size \"4Q\"");
	/* a number past 64 bits names the option's maximum, not 2^64 - 1 */
	assert_int_equal(units_parse_size_opt("99999999999999999999", 8, UNITS_GIB, "--stride", &v,
					      err, sizeof(err)), -1);
	assert_err_has(err, "too large (the limit is 1073741824 bytes)");
	/* both ends of the range are inside it; one byte beyond is not */
	assert_int_equal(units_parse_size_opt("1G", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), 0);
	assert_true(v == UNITS_GIB);
	assert_int_equal(units_parse_size_opt("8", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), 0);
	assert_true(v == 8);
	assert_int_equal(units_parse_size_opt("1073741825", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), -1);
	assert_err_has(err, "above the maximum 1073741824");
	assert_int_equal(units_parse_size_opt("7", 8, UNITS_GIB, "--stride", &v, err,
					      sizeof(err)), -1);
	assert_err_has(err, "below the minimum 8");
}

/* ---- integers ------------------------------------------------------------- */

static void units_parse_u64_accepts_values_in_range(void **state)
{
	char err[256];
	uint64_t v = 0;
	(void)state;

	assert_int_equal(units_parse_u64("1", 1, 100, "--iters", &v, err, sizeof(err)), 0);
	assert_true(v == 1);
	assert_int_equal(units_parse_u64("100", 1, 100, "--iters", &v, err, sizeof(err)), 0);
	assert_true(v == 100);
	assert_int_equal(units_parse_u64("18446744073709551615", 0, UINT64_MAX, "-n", &v,
					 err, sizeof(err)), 0);
	assert_true(v == UINT64_MAX);
}

static void units_parse_u64_range_error_names_option_value_limit_and_fix(void **state)
{
	char err[256];
	uint64_t v = 7;
	(void)state;

	assert_int_equal(units_parse_u64("0", 1, 4096, "--window", &v, err, sizeof(err)), -1);
	assert_true(v == 7);
	assert_err_has(err, "--window");
	assert_err_has(err, "0 is below the minimum 1");
	assert_err_has(err, "from 1 to 4096");

	/* a negative value: the value, the limit and the range, not "digits" */
	assert_int_equal(units_parse_u64("-5", 1, 4096, "-n", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "-n: -5 is below the minimum 1 (use an integer from 1 to 4096)");
	assert_int_equal(units_parse_u64("-5x", 1, 4096, "-n", &v, err, sizeof(err)), -1);
	assert_err_has(err, "\"-5x\" is not a decimal integer");
	/* a lone minus sign has no digits: not a number, not a negative value */
	assert_int_equal(units_parse_u64("-", 1, 4096, "-n", &v, err, sizeof(err)), -1);
	assert_err_has(err, "\"-\" is not a decimal integer");

	assert_int_equal(units_parse_u64("5000", 1, 4096, "--window", &v, err, sizeof(err)), -1);
	assert_err_has(err, "--window");
	assert_err_has(err, "5000 is above the maximum 4096");
	assert_err_has(err, "from 1 to 4096");
}

static void units_parse_u64_rejects_non_digits(void **state)
{
	static const char *bad[] = { "", "abc", "-1", "+1", " 1", "1 ", "10x", "1e3", "0x10", "1.0" };
	char err[256];
	uint64_t v = 7;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		int rc = units_parse_u64(bad[i], 0, 1000, "--qps", &v, err, sizeof(err));
		if (rc == 0) {
			print_error("accepted \"%s\"\n", bad[i]);
			fail();
		}
		assert_int_equal(rc, -1);
		assert_true(v == 7);
		assert_err_has(err, "--qps");
		assert_err_has(err, bad[i]);
		assert_err_has(err, "from 0 to 1000");
		/* named as what it is: a negative number below the minimum, else
		 * not a number */
		if (bad[i][0] == '-')
			assert_err_has(err, " is below the minimum 0");
		else if (bad[i][0] != '\0')
			assert_err_has(err, "is not a decimal integer");
	}
}

static void units_parse_u64_rejects_overflow(void **state)
{
	char err[256];
	uint64_t v;
	(void)state;

	assert_int_equal(units_parse_u64("18446744073709551616", 0, UINT64_MAX, "-n", &v,
					 err, sizeof(err)), -1);
	assert_err_has(err, "-n");
	assert_err_has(err, "18446744073709551616");
	assert_err_has(err, "maximum");
}

/* ---- size lists ------------------------------------------------------------- */

static void units_parse_size_list_reads_items_in_order(void **state)
{
	char err[256];
	uint64_t v[UNITS_LIST_MAX];
	int n = -1;
	(void)state;

	assert_int_equal(units_parse_size_list("64,256,4096", UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 64 && v[1] == 256 && v[2] == 4096);

	assert_int_equal(units_parse_size_list("4K,4KB,1M,0,64", UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), 0);
	assert_int_equal(n, 5);
	assert_true(v[0] == 4096 && v[1] == 4000 && v[2] == 1048576 && v[3] == 0 && v[4] == 64);

	assert_int_equal(units_parse_size_list("32", UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] == 32);
}

static void units_parse_size_list_rejects_empty_items(void **state)
{
	static const struct { const char *s; const char *msg; } bad[] = {
		{ "64,,256", "item 2 is empty" },
		{ ",64", "item 1 is empty" },
		{ "64,", "item 2 is empty" },
		{ ",", "item 1 is empty" },
		{ "", "empty" },
	};
	char err[256];
	uint64_t v[UNITS_LIST_MAX];
	int n;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(units_parse_size_list(bad[i].s, UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
						       sizeof(err)), -1);
		assert_err_has(err, bad[i].s);
		assert_err_has(err, bad[i].msg);
	}
	/* no list at all (NULL) or an empty one: one message with an example */
	const char *none[] = { NULL, "" };
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(units_parse_size_list(none[i], UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
						       sizeof(err)), -1);
		assert_err_has(err, "size list \"\": empty (write sizes separated by commas");
	}
}

static void units_parse_size_list_names_the_bad_item(void **state)
{
	char err[256];
	uint64_t v[UNITS_LIST_MAX];
	int n;
	(void)state;

	assert_int_equal(units_parse_size_list("64,abc,4096", UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), -1);
	assert_err_has(err, "item 2");
	assert_err_has(err, "\"abc\"");
	/* an item too long to be a size is named by its position and length */
	char list[128] = "64,";
	memset(list + 3, '1', 70);
	list[73] = '\0';
	assert_int_equal(units_parse_size_list(list, UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), -1);
	assert_err_has(err, "item 2 is 70 characters long");
	/* 63 characters still fit an item (64 with its NUL) */
	memset(list + 3, '0', 62);
	list[65] = '1';
	list[66] = '\0';
	assert_int_equal(units_parse_size_list(list, UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_true(v[1] == 1);
	list[66] = '1';
	list[67] = '\0';
	assert_int_equal(units_parse_size_list(list, UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), -1);
	assert_err_has(err, "item 2 is 64 characters long");
	assert_int_equal(units_parse_size_list("64,-1", UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), -1);
	assert_err_has(err, "negative");
	assert_int_equal(units_parse_size_list("64, 256", UINT64_MAX, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), -1);
	assert_err_has(err, "item 2");
}

static void units_parse_size_list_caps_the_number_of_items(void **state)
{
	char s[512] = "";
	char err[256];
	uint64_t v[UNITS_LIST_MAX];
	int n;
	(void)state;

	for (int i = 0; i < UNITS_LIST_MAX; i++)
		strcat(s, i ? ",8" : "8");
	assert_int_equal(units_parse_size_list(s, UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), 0);
	assert_int_equal(n, UNITS_LIST_MAX);

	strcat(s, ",8");  /* 65 items */
	assert_int_equal(units_parse_size_list(s, UINT64_MAX, v, UNITS_LIST_MAX, &n, err, sizeof(err)), -1);
	assert_err_has(err, "more than 64");
	/* a smaller caller limit; a larger one is capped at UNITS_LIST_MAX */
	assert_int_equal(units_parse_size_list("1,2,3", UINT64_MAX, v, 2, &n, err, sizeof(err)), -1);
	assert_err_has(err, "more than 2");
	assert_int_equal(units_parse_size_list(s, UINT64_MAX, v, 1000, &n, err, sizeof(err)), -1);
	assert_err_has(err, "more than 64");
}

/* The caller's limit is the one named for a number beyond 64 bits (not
 * 2^64 - 1); a long list is quoted by its head so the reason fits. */
static void units_parse_size_list_names_the_limit_and_keeps_the_reason(void **state)
{
	char err[256];
	uint64_t v[UNITS_LIST_MAX];
	int n;
	(void)state;

	assert_int_equal(units_parse_size_list("64,1G", 1u << 30, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), 0);
	assert_true(v[1] == 1u << 30);
	assert_int_equal(units_parse_size_list("64,17179869184G", 1u << 30, v, UNITS_LIST_MAX,
					       &n, err, sizeof(err)), -1);
	assert_err_has(err, "item 2");
	assert_err_has(err, "the limit is 1073741824 bytes");
	assert_int_equal(units_parse_size_list("99999999999999999999", 1u << 30, v,
					       UNITS_LIST_MAX, &n, err, sizeof(err)), -1);
	assert_err_has(err, "the limit is 1073741824 bytes");
	assert_null(strstr(err, "18446744073709551615"));

	/* 5000 items: the reason and the length survive a 256-byte buffer */
	static char big[5000 * 5];
	big[0] = '\0';
	size_t len = 0;
	for (int i = 1; i <= 5000; i++)
		len += (size_t)sprintf(big + len, i > 1 ? ",%d" : "%d", i);
	assert_int_equal(units_parse_size_list(big, 1u << 30, v, UNITS_LIST_MAX, &n, err,
					       sizeof(err)), -1);
	assert_err_has(err, "more than 64 sizes");
	assert_err_has(err, "split the list");
	char want[32];
	snprintf(want, sizeof(want), "(%zu characters)", len);
	assert_err_has(err, want);
}

/* ---- clock ------------------------------------------------------------------ */

static void timing_clock_is_monotonic_raw(void **state)
{
	(void)state;
	assert_string_equal(timing_clock_name(), "CLOCK_MONOTONIC_RAW");
	struct timespec ts;
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC_RAW, &ts), 0);
	uint64_t raw = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uint64_t now = timing_now_ns();
	assert_true(now >= raw && now - raw < 1000000000ull);
}

static void timing_now_never_goes_back(void **state)
{
	(void)state;
	uint64_t prev = timing_now_ns();
	for (int i = 0; i < 100000; i++) {
		uint64_t t = timing_now_ns();
		assert_true(t >= prev);
		prev = t;
	}
}

static void timing_elapsed_counts_a_sleep(void **state)
{
	(void)state;
	struct timespec d = { 0, 20000000 };  /* 20 ms */
	uint64_t t0 = timing_now_ns();
	nanosleep(&d, NULL);
	double s = timing_elapsed_s(t0, timing_now_ns());
	assert_true(s >= 0.019 && s < 5.0);
}

static void timing_probe_reports_plausible_cost(void **state)
{
	(void)state;
	struct timing_clock_info ci;
	char err[160];

	assert_int_equal(timing_probe(&ci, err, sizeof(err)), 0);
	assert_string_equal(ci.name, "CLOCK_MONOTONIC_RAW");
	assert_true(ci.res_ns >= 1 && ci.res_ns <= 1000000);
	assert_true(ci.read_ns > 0.0 && ci.read_ns < 100000.0);
	assert_true(ci.step_ns <= 1000000);
	double c = timing_read_cost_ns();
	assert_true(c > 0.0 && c < 100000.0);
}

/* Sizes in messages: 512 KiB is not "0 MiB"; whole where the unit divides. */
static void size_text_keeps_what_a_whole_unit_would_round_away(void **state)
{
	(void)state;
	char b[32];

	assert_string_equal(units_size_text(512u << 10, b, sizeof(b)), "512 KiB");
	assert_string_equal(units_size_text(1u << 20, b, sizeof(b)), "1 MiB");
	/* TiB is the largest unit: 2^50 bytes are 1024 TiB */
	assert_string_equal(units_size_text(UINT64_C(1) << 50, b, sizeof(b)), "1024 TiB");
	assert_string_equal(units_size_text(3u << 29, b, sizeof(b)), "1.5 GiB");
	assert_string_equal(units_size_text(1536u << 10, b, sizeof(b)), "1.5 MiB");
	assert_string_equal(units_size_text((1u << 20) + 1, b, sizeof(b)), "1.0 MiB");
	assert_string_equal(units_size_text(100, b, sizeof(b)), "100 B");
	assert_string_equal(units_size_text(0, b, sizeof(b)), "0 B");
	assert_string_equal(units_size_text(1ull << 30, b, sizeof(b)), "1 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_mops_is_millions_of_ops_per_second),
		cmocka_unit_test(size_text_keeps_what_a_whole_unit_would_round_away),
		cmocka_unit_test(units_gbps_is_payload_bits_per_second),
		cmocka_unit_test(units_rates_are_nan_without_a_positive_window),
		cmocka_unit_test(units_mb_is_decimal_and_mib_is_binary),
		cmocka_unit_test(units_ns_to_us_divides_by_1000),
		cmocka_unit_test(units_parse_size_accepts_plain_bytes),
		cmocka_unit_test(units_parse_size_binary_suffixes_are_1024_based),
		cmocka_unit_test(units_parse_size_decimal_suffixes_are_1000_based),
		cmocka_unit_test(units_parse_size_rejects_negative),
		cmocka_unit_test(units_parse_size_rejects_non_numeric),
		cmocka_unit_test(units_parse_size_rejects_overflow),
		cmocka_unit_test(units_parse_size_rejects_trailing_junk),
		cmocka_unit_test(units_parse_size_error_lists_accepted_suffixes),
		cmocka_unit_test(units_parse_size_survives_small_error_buffer),
		cmocka_unit_test(units_parse_size_opt_names_option_value_and_range),
		cmocka_unit_test(units_parse_u64_accepts_values_in_range),
		cmocka_unit_test(units_parse_u64_range_error_names_option_value_limit_and_fix),
		cmocka_unit_test(units_parse_u64_rejects_non_digits),
		cmocka_unit_test(units_parse_u64_rejects_overflow),
		cmocka_unit_test(units_parse_size_list_reads_items_in_order),
		cmocka_unit_test(units_parse_size_list_rejects_empty_items),
		cmocka_unit_test(units_parse_size_list_names_the_bad_item),
		cmocka_unit_test(units_parse_size_list_caps_the_number_of_items),
		cmocka_unit_test(units_parse_size_list_names_the_limit_and_keeps_the_reason),
		cmocka_unit_test(timing_clock_is_monotonic_raw),
		cmocka_unit_test(timing_now_never_goes_back),
		cmocka_unit_test(timing_elapsed_counts_a_sleep),
		cmocka_unit_test(timing_probe_reports_plausible_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
