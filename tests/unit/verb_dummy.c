/*
 * verb_dummy.c - the recipe for a new verb, walked: this binary is built
 * with RB_VERB_TEST_DUMMY (Makefile: test_verb_dummy), which adds one code
 * (RB_VERB_DUMMY, include/verb.h) and one row ("dummy": a SEND by another
 * name, RC only; bench/lib/verb.c) and nothing else. The parser, the
 * transport rule of validation and the lists the refusals offer must take
 * the new verb from its row alone.
 */
#include "unit.h"

#include "options.h"
#include "verb.h"

#ifndef RB_VERB_TEST_DUMMY
#error "build with -DRB_VERB_TEST_DUMMY (make unit does)"
#endif

static char err[1024];

static int parse_verb(const char *name, struct rb_opts *o)
{
	char v[32];
	snprintf(v, sizeof(v), "%s", name);
	char *argv[] = { "rdma_bench", "-c", "host", "--verb", v, NULL };
	err[0] = '\0';
	return opts_parse(5, argv, o, err, sizeof(err));
}

static void the_new_row_is_parsed_by_its_name(void **state)
{
	(void)state;
	struct rb_opts o;
	assert_int_equal(RB_VERB_DUMMY, RB_VERB_COUNT - 1);
	if (parse_verb("dummy", &o) != 0)
		fail_msg("--verb dummy: %s", err);
	assert_int_equal(o.t.verb, RB_VERB_DUMMY);
	assert_string_equal(verb_name(o.t.verb), "dummy");
	/* an unknown name's refusal lists it with the others */
	assert_int_equal(parse_verb("dummyx", &o), -1);
	if (!strstr(err, "|cmp_swap|dummy"))
		fail_msg("refusal \"%s\" does not list dummy", err);
}

static void validation_takes_its_transports_from_the_row(void **state)
{
	(void)state;
	struct rb_test t;
	char on[128];

	test_defaults(&t);
	t.verb = RB_VERB_DUMMY;
	t.iters = 100;
	t.size = 64;
	test_resolve_defaults(&t, NULL);
	if (test_validate(&t, err, sizeof(err)) != 0)
		fail_msg("dummy on RC refused: %s", err);
	t.transport = RB_TR_UC;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--verb dummy with --transport uc"));
	t.transport = RB_TR_UD;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--verb dummy with --transport ud"));
	assert_string_equal(verb_names_on(RB_TR_RC, on, sizeof(on)),
			    "read|write|write_imm|send|send_imm|fetch_add|cmp_swap|dummy");
	assert_string_equal(verb_names_on(RB_TR_UD, on, sizeof(on)), "send|send_imm");
	assert_true(verb_needs_recv(RB_VERB_DUMMY));
	assert_true(verb_server_works(RB_VERB_DUMMY, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_new_row_is_parsed_by_its_name),
		cmocka_unit_test(validation_takes_its_transports_from_the_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
