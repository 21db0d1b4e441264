/*
 * test_server_quiet.c - unit tests of the server's wait for late receives
 * (server_recv_quiet_ns, session.h): 50 mean gaps of the window, within
 * 50 ms .. 200 ms.
 */
#include "unit.h"

#include "session.h"

#define MS 1000000ull

/* 1,000 receives in a 1 s window: 1 ms apart, 50 of them = 50 ms. */
static void test_fast_stream_waits_50_gaps(void **state)
{
	(void)state;
	assert_int_equal(server_recv_quiet_ns(1000, 1000), 50 * MS);
	/* 500 receives in 1 s: 2 ms apart -> 100 ms */
	assert_int_equal(server_recv_quiet_ns(1000, 500), 100 * MS);
}

/* Never shorter than 50 ms, however fast the stream. */
static void test_floor_50_ms(void **state)
{
	(void)state;
	assert_int_equal(server_recv_quiet_ns(1000, 1000000), 50 * MS);
}

/* A slow stream (10 receives a second) waits no longer than the old 200 ms. */
static void test_cap_200_ms(void **state)
{
	(void)state;
	assert_int_equal(server_recv_quiet_ns(1000, 10), 200 * MS);
	assert_int_equal(server_recv_quiet_ns(2000, 1), 200 * MS);
}

/* Iteration mode or no receive yet: the fixed 200 ms. */
static void test_no_window_or_no_receive(void **state)
{
	(void)state;
	assert_int_equal(server_recv_quiet_ns(0, 1000), 200 * MS);
	assert_int_equal(server_recv_quiet_ns(1000, 0), 200 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_stream_waits_50_gaps),
		cmocka_unit_test(test_floor_50_ms),
		cmocka_unit_test(test_cap_200_ms),
		cmocka_unit_test(test_no_window_or_no_receive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
