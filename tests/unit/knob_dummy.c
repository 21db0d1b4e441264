/*
 * knob_dummy.c - the recipe for a new knob, walked: this binary is built
 * with RB_KNOB_TEST_DUMMY (Makefile: test_knob_dummy), which adds one field
 * to the TEST wire order (RB_TEST_FIELDS_DUMMY, include/options.h) and one
 * row to the knob table ("dummy-knob", 0..9, default 3, column dummy_knob;
 * bench/lib/options.c) and nothing else. The parser, its range check, --help,
 * --list-knobs and the TEST encoding must take the knob from its row alone.
 *
 * `test_knob_dummy --list-knobs` prints the table's list instead of
 * testing, for tests/bats/knobs.bats (the runner's knob -> flag map).
 */
#include "unit.h"

#include "ctrl.h"
#include "options.h"

#ifndef RB_KNOB_TEST_DUMMY
#error "build with -DRB_KNOB_TEST_DUMMY (make unit does)"
#endif

static char err[1024];

/* What fn(f) prints, as a malloc'd string. */
static char *printed(void (*fn)(FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	assert_non_null(text);
	return text;
}

static void the_row_is_parsed_with_its_default_and_range(void **state)
{
	(void)state;
	struct rb_opts o;

	assert_int_equal(unit_parse("-c host", &o, err, sizeof(err)), 0);
	assert_int_equal(o.t.dummy_knob, 3);
	assert_int_equal(unit_parse("-c host --dummy-knob 9", &o, err, sizeof(err)), 0);
	assert_int_equal(o.t.dummy_knob, 9);
	assert_int_equal(unit_parse("-c host --dummy-knob 10", &o, err, sizeof(err)), -1);
	assert_err_has(err, "--dummy-knob");
	assert_err_has(err, "9");
}

static void help_and_list_knobs_show_the_row(void **state)
{
	(void)state;
	char *help = printed(opts_usage);
	char *list = printed(opts_list_knobs);

	if (!strstr(help, "--dummy-knob N") || !strstr(help, "the recipe's knob, 0..9 (3)"))
		fail_msg("--help lacks the row:\n%s", help);
	if (!strstr(list, "--dummy-knob\t-\tN\tnum\t3\t0..9\tdummy_knob\tdummy_knob\tsent\tclient\n"))
		fail_msg("--list-knobs lacks the row:\n%s", list);
	free(help);
	free(list);
}

static void the_knob_travels_in_the_test_message(void **state)
{
	(void)state;
	struct rb_opts o;
	uint8_t buf[CTRL_HDR_LEN + RB_TEST_NFIELDS * 8];
	struct ctrl_msg m;

	assert_int_equal(unit_parse("-c host --dummy-knob 7", &o, err, sizeof(err)), 0);
	size_t n = ctrl_encode_test(buf, sizeof(buf), &o.t);
	assert_int_equal(n, sizeof(buf));
	if (ctrl_decode(buf, n, &m, err, sizeof(err)))
		fail_msg("decode: %s", err);
	assert_int_equal(m.u.test.dummy_knob, 7);
	/* a TEST from the wire is checked against the row's range too */
	m.u.test.dummy_knob = 10;
	assert_int_equal(test_validate(&m.u.test, err, sizeof(err)), -1);
	assert_err_has(err, "dummy-knob");
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--list-knobs") == 0) {
		opts_list_knobs(stdout);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_row_is_parsed_with_its_default_and_range),
		cmocka_unit_test(help_and_list_knobs_show_the_row),
		cmocka_unit_test(the_knob_travels_in_the_test_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
