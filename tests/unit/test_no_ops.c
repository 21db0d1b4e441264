/*
 * test_no_ops.c - unit tests of report_no_ops (report.h): a point whose
 * measured window completed no operation gets a named reason (the client
 * then writes its row as failed, never ok with 0 Mops).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report.h"

/* Duration mode (-D): 0 ops -> 1, the reason names the window in seconds. */
static void zero_ops_in_a_window_is_named(void **state)
{
	(void)state;
	struct rb_test t = { .duration_ms = 500 };
	char why[128] = "junk";

	assert_int_equal(report_no_ops(&t, 0, why, sizeof(why)), 1);
	assert_string_equal(why, "no operation completed in the 0.5 s window (-D)");
}

/* Iteration mode (-n): the reason names the iterations asked for. */
static void zero_ops_of_iterations_is_named(void **state)
{
	(void)state;
	struct rb_test t = { .iters = 1000, .duration_ms = 500 };
	char why[128] = "";

	assert_int_equal(report_no_ops(&t, 0, why, sizeof(why)), 1);
	assert_string_equal(why, "no operation completed of the -n 1000 iterations");
}

/* One operation is a measurement: 0, and the buffer is left alone. */
static void some_ops_leave_the_point_alone(void **state)
{
	(void)state;
	struct rb_test t = { .duration_ms = 500 };
	char why[16] = "untouched";

	assert_int_equal(report_no_ops(&t, 1, why, sizeof(why)), 0);
	assert_string_equal(why, "untouched");
}

/* A short buffer: cut, still terminated. */
static void short_buffer_is_terminated(void **state)
{
	(void)state;
	struct rb_test t = { .duration_ms = 2000 };
	char why[12];

	assert_int_equal(report_no_ops(&t, 0, why, sizeof(why)), 1);
	assert_int_equal(strlen(why), sizeof(why) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zero_ops_in_a_window_is_named),
		cmocka_unit_test(zero_ops_of_iterations_is_named),
		cmocka_unit_test(some_ops_leave_the_point_alone),
		cmocka_unit_test(short_buffer_is_terminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
