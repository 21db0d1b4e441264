/*
 * test_knobs.c - the knob table (options.h, bench/lib/options.c) and what is
 * derived from it: the TEST encoding of the sent knobs, the defaults, the
 * range checks of the command line and of the wire, the CSV column names
 * and --help / --list-knobs.
 */
#include "unit.h"

#include "ctrl.h"
#include "options.h"
#include "report.h"
#include "seq_opts.h"

static char err[1024];

static int parse(const char *line, struct rb_opts *o)
{
	return unit_parse(line, o, err, sizeof(err));
}

static bool owns_test_field(const struct rb_knob *k)
{
	return k->where == RB_KW_TEST && !(k->flags & (RB_KF_ALIAS | RB_KF_HELP2));
}

/* Every field of struct rb_test but rep is one row's (sent: "sent" in
 * --list-knobs), and each such row's value round-trips through TEST. */
static void each_sent_knob_round_trips_through_test(void **state)
{
	(void)state;
	size_t n, owners[RB_TEST_NFIELDS] = { 0 };
	const struct rb_knob *k = opts_knobs(&n);
	static uint8_t buf[CTRL_HDR_LEN + 8 * RB_TEST_NFIELDS];
	struct ctrl_msg m;

	for (size_t i = 0; i < n; i++) {
		struct rb_test t;
		uint64_t want = UINT64_C(0x0102030405060708) * (i + 1), got;
		if (!owns_test_field(&k[i]))
			continue;
		assert_int_equal(k[i].width, 8);
		owners[k[i].off / 8]++;
		test_defaults(&t);
		memcpy((char *)&t + k[i].off, &want, 8);
		size_t len = ctrl_encode_test(buf, sizeof(buf), &t);
		assert_int_equal(len, sizeof(buf));
		if (ctrl_decode(buf, len, &m, err, sizeof(err)))
			fail_msg("--%s: TEST not decoded: %s", k[i].name, err);
		memcpy(&got, (const char *)&m.u.test + k[i].off, 8);
		if (got != want)
			fail_msg("--%s: sent %llx, decoded %llx", k[i].name, (unsigned long long)want,
				 (unsigned long long)got);
	}
	for (size_t f = 0; f < RB_TEST_NFIELDS; f++) {
		size_t want = f == offsetof(struct rb_test, rep) / 8 ? 0 : 1;
		if (owners[f] != want)
			fail_msg("field %zu of struct rb_test has %zu knob rows, expected %zu", f,
				 owners[f], want);
	}
}

/* The defaults the command line starts from are the table's. */
static void defaults_are_the_rows_defaults(void **state)
{
	(void)state;
	size_t n;
	const struct rb_knob *k = opts_knobs(&n);
	struct rb_opts o;

	assert_int_equal(parse("-c h", &o), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		/* computed or resolved later: iters, window, signal interval */
		if (!owns_test_field(&k[i]) || k[i].given || k[i].type == RB_KT_STR)
			continue;
		memcpy(&v, (const char *)&o.t + k[i].off, 8);
		if (v != k[i].def)
			fail_msg("--%s: default %llu, the row says %llu", k[i].name,
				 (unsigned long long)v, (unsigned long long)k[i].def);
	}
	assert_int_equal(o.t.ack_timeout, 14);
	/* the field no row owns starts at 0: a point's first repetition */
	struct rb_test t;
	memset(&t, 0xa5, sizeof(t));
	test_defaults(&t);
	assert_int_equal(t.rep, 0);
	assert_int_equal(o.port, RB_DEFAULT_PORT);
	assert_int_equal(o.gid_index, -1);
	assert_int_equal(o.lim.max_qps, RB_DEFAULT_MAX_QPS);
}

/* knob_arg: row k's value v as its option takes it (seconds for a SECS row) */
static void knob_arg(const struct rb_knob *k, uint64_t v, char *buf, size_t len)
{
	/* the point where the row applies (a row that needs a verb) */
	static const char *const at[][2] = {
		{ "atomic-counters", "-c h --verb fetch_add" },
		{ "recv-batch", "-c h --verb send" },
	};
	const char *role = k->flags & RB_KF_SERVER ? "-s" : "-c h";
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (strcmp(k->name, at[i][0]) == 0)
			role = at[i][1];
	if (k->type == RB_KT_SECS)
		snprintf(buf, len, "%s --%s %.3f", role, k->name, (double)v / 1000.0);
	else
		snprintf(buf, len, "%s --%s %llu", role, k->name, (unsigned long long)v);
}

/* Does the command line check row k's range (a number, not a rule of test_validate)? */
static bool ranged(const struct rb_knob *k)
{
	return !(k->flags & (RB_KF_HELP2 | RB_KF_NOWIRE)) && !k->act &&
	       (k->type == RB_KT_NUM || k->type == RB_KT_SECS || k->type == RB_KT_SIZE);
}

/* The command line refuses row k at v naming the option; so does
 * test_validate for a TEST with v in the row's field (a sent row). */
static void assert_refused_everywhere(const struct rb_knob *k, uint64_t v, const char *why)
{
	char line[256], name[64];
	struct rb_opts o;

	snprintf(name, sizeof(name), "--%s", k->name);
	knob_arg(k, v, line, sizeof(line));
	if (parse(line, &o) != -1 || !strstr(err, name))
		fail_msg("'%s' (%s) not refused by name: \"%s\"", line, why, err);
	if (!owns_test_field(k) || (v == 0 && (k->flags & RB_KF_ZERO)))
		return; /* a ZERO row takes 0 from the wire: automatic */
	struct rb_test t;
	test_defaults(&t);
	t.iters = 100;
	test_resolve_defaults(&t, NULL);
	memcpy((char *)&t + k->off, &v, 8);
	if (test_validate(&t, err, sizeof(err)) != -1 || !strstr(err, name))
		fail_msg("a TEST with %s %llu (%s) not refused by name: \"%s\"", name,
			 (unsigned long long)v, why, err);
}

/* The row's range is the one the parser and the wire check enforce: one
 * above the top is refused naming the option, on the command line and in
 * a TEST (RB_KF_NOWIRE rows: a rule of test_validate instead). */
static void every_range_is_enforced_on_the_command_line_and_the_wire(void **state)
{
	(void)state;
	size_t n, checked = 0;
	const struct rb_knob *k = opts_knobs(&n);

	for (size_t i = 0; i < n; i++) {
		if (k[i].hi == UINT64_MAX || !ranged(&k[i]))
			continue;
		assert_refused_everywhere(&k[i], k[i].hi + 1, "above the row's range");
		checked++;
	}
	assert_true(checked > 30);
}

/* The bottom of every row's range: lo itself is taken on the command line,
 * lo - 1 is refused naming the option, on the command line and in a TEST
 * (where an RB_KF_ZERO row takes 0: automatic). A moved bound is caught
 * where another rule disagrees (--mtu's powers of two), not where the row
 * alone decides. */
static void every_lower_bound_is_taken_and_one_below_refused(void **state)
{
	(void)state;
	size_t n, checked = 0;
	const struct rb_knob *k = opts_knobs(&n);
	struct rb_opts o;

	for (size_t i = 0; i < n; i++) {
		char line[256];
		if (!ranged(&k[i]))
			continue;
		knob_arg(&k[i], k[i].lo, line, sizeof(line));
		if (parse(line, &o) != 0)
			fail_msg("'%s' (the bottom of the row's range) refused: %s", line, err);
		checked++;
		if (k[i].lo > 0)
			assert_refused_everywhere(&k[i], k[i].lo - 1, "below the row's range");
	}
	assert_true(checked > 30);
}

/* A row whose range is a rule of test_validate (RB_KF_NOWIRE) lists the
 * range that rule enforces (--list-knobs prints lo..hi from the row): lo
 * and hi pass, one below lo and one above hi are refused naming the option.
 * The point each row is tried at: --stride needs an atomic verb (8-byte
 * payload), --size a WRITE. */
static void every_nowire_range_is_the_one_test_validate_enforces(void **state)
{
	(void)state;
	size_t n, checked = 0;
	const struct rb_knob *k = opts_knobs(&n);

	for (size_t i = 0; i < n; i++) {
		if (!(k[i].flags & RB_KF_NOWIRE) || !owns_test_field(&k[i]))
			continue;
		char name[64];
		bool stride = strcmp(k[i].name, "stride") == 0;
		if (!stride && strcmp(k[i].name, "size") != 0)
			fail_msg("--%s: a RB_KF_NOWIRE row this test has no point for", k[i].name);
		snprintf(name, sizeof(name), "--%s", k[i].name);
		uint64_t try[4] = { k[i].lo, k[i].hi, k[i].lo - 1, k[i].hi + 1 };
		for (int j = 0; j < 4; j++) {
			struct rb_test t;
			test_defaults(&t);
			t.verb = stride ? RB_VERB_FETCH_ADD : RB_VERB_WRITE;
			t.size = 8;
			t.iters = 100;
			test_resolve_defaults(&t, NULL);
			if (j == 2 && k[i].lo == 0)
				continue; /* nothing below 0 */
			memcpy((char *)&t + k[i].off, &try[j], 8);
			int rc = test_validate(&t, err, sizeof(err));
			if (j < 2 && rc != 0)
				fail_msg("%s %llu (the row's range %llu..%llu) refused: %s", name,
					 (unsigned long long)try[j], (unsigned long long)k[i].lo,
					 (unsigned long long)k[i].hi, err);
			if (j >= 2 && (rc != -1 || !strstr(err, name)))
				fail_msg("%s %llu (outside the row's range %llu..%llu) not refused by "
					 "name: \"%s\"", name, (unsigned long long)try[j],
					 (unsigned long long)k[i].lo, (unsigned long long)k[i].hi, err);
		}
		checked++;
	}
	assert_int_equal(checked, 2);
}

/* Every knob with a column names a column of the row report_build_row
 * builds, each once; no column is named "?" (a field without a row). */
static void every_knob_column_is_in_the_row(void **state)
{
	(void)state;
	size_t n;
	const struct rb_knob *k = opts_knobs(&n);
	static struct row r;
	struct rb_opts o;
	struct rb_env e = { .clock_read_ns = NAN };

	assert_int_equal(parse("-c h", &o), 0);
	struct rb_point_info p = { .o = &o, .t = &o.t, .env = &e, .inline_used = -1,
				   .setup_us_per_qp = NAN, .gate_wait_s = NAN, .status = "ok",
				   .reason = "" };
	report_build_row(&r, &p, -1, NULL);
	assert_int_equal(r.dropped, 0);
	for (int c = 0; c < r.ncols; c++) {
		assert_string_not_equal(r.cols[c].name, "?");
		for (int d = c + 1; d < r.ncols; d++)
			assert_string_not_equal(r.cols[c].name, r.cols[d].name);
	}
	for (size_t i = 0; i < n; i++)
		if (k[i].col && !row_get(&r, k[i].col))
			fail_msg("--%s: column %s not in the row", k[i].name, k[i].col);
	assert_string_equal(RB_TEST_COL(duration_ms), "duration_req_s");
	assert_string_equal(RB_TEST_COL(mtu), "path_mtu");
	assert_string_equal(RB_TEST_COL(use_cm), "connect");
	assert_string_equal(RB_TEST_COL(rep), "?");
}

/* --help lists every row with help text, --list-knobs every option once. */
static void help_and_list_come_from_the_table(void **state)
{
	(void)state;
	size_t n, len = 0, lines = 0, helped = 0;
	const struct rb_knob *k = opts_knobs(&n);
	char *help = NULL, *list = NULL;
	FILE *f = open_memstream(&help, &len);

	assert_non_null(f);
	opts_usage(f);
	fclose(f);
	f = open_memstream(&list, &len);
	assert_non_null(f);
	opts_list_knobs(f);
	fclose(f);
	for (const char *p = list; *p; p++)
		lines += *p == '\n';
	for (size_t i = 0; i < n; i++) {
		char want[80];
		if (k[i].flags & RB_KF_HELP2) {
			lines++; /* not listed: the option's first row is */
			continue;
		}
		snprintf(want, sizeof(want), "--%s\t", k[i].name);
		if (!strstr(list, want))
			fail_msg("--list-knobs lacks %s", k[i].name);
		snprintf(want, sizeof(want), "--%s%s", k[i].name, k[i].arg ? " " : "");
		if (k[i].help && !strstr(help, want))
			fail_msg("--help lacks \"%s\"", want);
		helped += k[i].help != NULL;
	}
	assert_int_equal(lines, n);
	assert_true(helped > 60);
	assert_null(strstr(help, "%D"));
	assert_null(strstr(help, "%E"));
	assert_non_null(strstr(help, "--ack-timeout V     local ACK timeout code, 4.096 us x 2^V (14)\n"));
	assert_non_null(strstr(help, "--verb V            read|write|write_imm|send|send_imm|fetch_add|"
				     "cmp_swap (write)\n"));
	free(help);
	free(list);
}

/* list_equals_file: the --list-knobs output of cli equals the file at path
 * (relative to RB_SRCDIR, default the working directory: the tree's root
 * under make unit and tests/mutate); else fails naming the first line that
 * differs. */
static void list_equals_file(const struct rb_cli *cli, const char *path)
{
	char *list = NULL, *want = NULL, full[4096];
	size_t len = 0, wlen = 0;
	const char *dir = getenv("RB_SRCDIR");
	FILE *f = open_memstream(&list, &len);

	assert_non_null(f);
	opts_list_knobs_cli(cli, f);
	fclose(f);
	snprintf(full, sizeof(full), "%s/%s", dir && *dir ? dir : ".", path);
	FILE *in = fopen(full, "r");
	if (!in)
		fail_msg("%s: cannot open (%s): run the unit tests from the tree's root or set "
			 "RB_SRCDIR", full, strerror(errno));
	f = open_memstream(&want, &wlen);
	assert_non_null(f);
	for (int ch; (ch = getc(in)) != EOF;)
		putc(ch, f);
	fclose(in);
	fclose(f);
	size_t line = 1, i = 0;
	while (list[i] && list[i] == want[i]) {
		line += list[i] == '\n';
		i++;
	}
	if (list[i] || want[i])
		fail_msg("%s line %zu differs from the table's --list-knobs line (a range, default or "
			 "name changed: the runner's copy is written by make; review the diff)",
			 full, line);
	free(list);
	free(want);
}

/* The runner's copies of the knob tables (experiments/lib/knobs.tsv,
 * knobs-rdma_seq.tsv: the runner maps and range-checks a sweep's values
 * with them) are the tables the code was built with: a row's range,
 * default or name changed without its copy is caught here. */
static void runner_copies_are_the_tables(void **state)
{
	(void)state;
	list_equals_file(opts_cli(), "experiments/lib/knobs.tsv");
	list_equals_file(seq_cli(), "experiments/lib/knobs-rdma_seq.tsv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_sent_knob_round_trips_through_test),
		cmocka_unit_test(defaults_are_the_rows_defaults),
		cmocka_unit_test(every_range_is_enforced_on_the_command_line_and_the_wire),
		cmocka_unit_test(every_nowire_range_is_the_one_test_validate_enforces),
		cmocka_unit_test(every_lower_bound_is_taken_and_one_below_refused),
		cmocka_unit_test(every_knob_column_is_in_the_row),
		cmocka_unit_test(help_and_list_come_from_the_table),
		cmocka_unit_test(runner_copies_are_the_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
