/*
 * test_trouble.c - unit tests of report_trouble (report.h): which port
 * counters that moved during a point give which words of the WARN line.
 */
#include "unit.h"

#include "report.h"

/* The rxe counters of the run: RNR NAKs 86 and retries 61. */
static void rnr_and_retries_named_with_counts_and_fixes(void **state)
{
	(void)state;
	struct rb_counters b = { 0 }, a = { 0 };
	char out[1024];

	unit_ctr_put(&b, "hw_counters/rcvd_rnr_err", 10);
	unit_ctr_put(&a, "hw_counters/rcvd_rnr_err", 96);
	unit_ctr_put(&b, "hw_counters/completer_retry_err", 5);
	unit_ctr_put(&a, "hw_counters/completer_retry_err", 66);
	unit_ctr_put(&b, "hw_counters/sent_pkts", 0);
	unit_ctr_put(&a, "hw_counters/sent_pkts", 100000);
	unit_ctr_put(&b, "hw_counters/duplicate_request", 7);
	unit_ctr_put(&a, "hw_counters/duplicate_request", 7);
	assert_int_equal(report_trouble(&b, &a, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "RNR NAKs 86 ("));
	assert_non_null(strstr(out, "raise --rq-depth or post fewer outstanding SENDs"));
	assert_non_null(strstr(out, "retries 61 ("));
	assert_non_null(strstr(out, "--ack-timeout"));
	/* a counter that did not move, and a non-trouble counter, are not named */
	assert_null(strstr(out, "duplicate"));
	assert_null(strstr(out, "sent_pkts"));
	assert_null(strstr(out, "100000"));
}

/* A kind sums its counters (rxe's and mlx5's names); each kind is named once. */
static void every_kind_sums_its_counters(void **state)
{
	(void)state;
	struct rb_counters b = { 0 }, a = { 0 };
	char out[2048];
	static const struct { const char *name; uint64_t d; } moved[] = {
		{ "hw_counters/rcvd_rnr_err", 1 }, { "hw_counters/rnr_nak_retry_err", 2 },
		{ "hw_counters/local_ack_timeout_err", 3 }, { "hw_counters/retry_exceeded_err", 4 },
		{ "hw_counters/rcvd_seq_err", 5 }, { "hw_counters/packet_seq_err", 6 },
		{ "hw_counters/out_of_seq_request", 7 }, { "hw_counters/out_of_sequence", 8 },
		{ "hw_counters/duplicate_request", 9 }, { "hw_counters/np_cnp_sent", 10 },
		{ "hw_counters/rp_cnp_handled", 11 },
	};
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		unit_ctr_put(&b, moved[i].name, 1000);
		unit_ctr_put(&a, moved[i].name, 1000 + moved[i].d);
	}
	assert_int_equal(report_trouble(&b, &a, out, sizeof(out)), 6);
	assert_non_null(strstr(out, "RNR NAKs 3 ("));
	assert_non_null(strstr(out, "retries 7 ("));
	assert_non_null(strstr(out, "sequence errors 11 ("));
	assert_non_null(strstr(out, "out-of-sequence 15 ("));
	assert_non_null(strstr(out, "duplicate requests 9 ("));
	assert_non_null(strstr(out, "CNP/ECN 21 ("));
	/* in the table's order, separated by "; " */
	assert_true(strstr(out, "RNR NAKs") < strstr(out, "retries"));
	assert_true(strstr(out, "duplicate requests") < strstr(out, "CNP/ECN"));
	assert_non_null(strstr(out, "); retries"));
}

/* Nothing moved, or counters missing in a snapshot: no line, 0. */
static void quiet_when_nothing_moved_or_counter_missing(void **state)
{
	(void)state;
	struct rb_counters b = { 0 }, a = { 0 };
	char out[256] = "junk";

	unit_ctr_put(&b, "hw_counters/rcvd_rnr_err", 4);
	unit_ctr_put(&a, "hw_counters/rcvd_rnr_err", 4);
	unit_ctr_put(&a, "hw_counters/completer_retry_err", 50); /* not in the before snapshot */
	assert_int_equal(report_trouble(&b, &a, out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

/* A small buffer: still terminated, the count still right. */
static void small_buffer_is_terminated(void **state)
{
	(void)state;
	struct rb_counters b = { 0 }, a = { 0 };
	char out[16];

	unit_ctr_put(&b, "hw_counters/rcvd_rnr_err", 0);
	unit_ctr_put(&a, "hw_counters/rcvd_rnr_err", 86);
	unit_ctr_put(&b, "hw_counters/duplicate_request", 0);
	unit_ctr_put(&a, "hw_counters/duplicate_request", 3);
	assert_int_equal(report_trouble(&b, &a, out, sizeof(out)), 2);
	assert_true(strlen(out) < sizeof(out));
	assert_int_equal(strncmp(out, "RNR NAKs 86", 11), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rnr_and_retries_named_with_counts_and_fixes),
		cmocka_unit_test(every_kind_sums_its_counters),
		cmocka_unit_test(quiet_when_nothing_moved_or_counter_missing),
		cmocka_unit_test(small_buffer_is_terminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
