/*
 * test_errbuf.c - the error convention (errbuf.h): rb_fail writes the
 * message and returns -1; rb_reprefix changes who a message names (a
 * peer's "peer: why" said as "server: why" or "client reported: why"),
 * cutting the end to the buffer and never writing past it.
 */
#include "unit.h"

#include "errbuf.h"

static void fail_writes_and_returns_minus_one(void **state)
{
	(void)state;
	char err[16];
	assert_int_equal(rb_fail(err, sizeof(err), "--size %d", 7), -1);
	assert_string_equal(err, "--size 7");
	assert_int_equal(rb_fail(err, sizeof(err), "%s", "a message longer than 15"), -1);
	assert_int_equal(strlen(err), 15);
	assert_int_equal(rb_fail(NULL, 0, "x"), -1);
}

static void reprefix_replaces_the_first_bytes(void **state)
{
	(void)state;
	char err[64] = "peer: refused: --mtu 9000";
	rb_reprefix(err, sizeof(err), 6, "server: ");
	assert_string_equal(err, "server: refused: --mtu 9000");
	rb_reprefix(err, sizeof(err), 0, "--validate: ");
	assert_string_equal(err, "--validate: server: refused: --mtu 9000");
	/* a skip past the end takes the whole message */
	strcpy(err, "abc");
	rb_reprefix(err, sizeof(err), 10, "x: ");
	assert_string_equal(err, "x: ");
}

static void reprefix_cuts_to_the_buffer(void **state)
{
	(void)state;
	/* guard bytes after the buffer must stay untouched */
	struct { char err[12]; char guard[4]; } b;
	memcpy(b.guard, "GGGG", 4);
	strcpy(b.err, "peer: 12345");           /* 11 bytes + NUL: full */
	rb_reprefix(b.err, sizeof(b.err), 6, "cl: ");
	assert_string_equal(b.err, "cl: 12345");
	strcpy(b.err, "peer: 12345");
	rb_reprefix(b.err, sizeof(b.err), 6, "server: ");  /* 8 + 5 > 11: cut */
	assert_string_equal(b.err, "server: 123");
	assert_memory_equal(b.guard, "GGGG", 4);
	/* exactly one byte too long (8 + 4 = 12, no room for the NUL) */
	strcpy(b.err, "peer: 1234");
	rb_reprefix(b.err, sizeof(b.err), 6, "server: ");
	assert_memory_equal(b.guard, "GGGG", 4);
	assert_string_equal(b.err, "server: 123");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fail_writes_and_returns_minus_one),
		cmocka_unit_test(reprefix_replaces_the_first_bytes),
		cmocka_unit_test(reprefix_cuts_to_the_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
