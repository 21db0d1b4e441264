/*
 * test_ctrl_corpus.c - replay the control-channel fuzz corpus
 * (tests/fuzz/corpus/ctrl) through the decoder and the receive path.
 *
 * The corpus directory: $RB_CTRL_CORPUS, else tests/fuzz/corpus/ctrl under
 * the working directory (make test runs from the repo root), else found by
 * walking up from the test binary's own directory.
 *
 * File names carry the expectation (tests/fuzz/gen_ctrl_corpus.c):
 *   ok-*      decodes, respects every cap, re-encodes to the same bytes
 *   bad-*     refused (-1) with a message naming the problem
 *   stream-*  back-to-back messages for ctrl_recv, with known outcomes
 *   others    (added by the fuzzer) decode cleanly either way
 * The invariants are those of the fuzz target (tests/fuzz/ctrl_check.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include "unit.h"
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fuzz/ctrl_check.h"

#define MAX_FILES 4096

struct input {
	char name[256];
	uint8_t *data;
	size_t len;
};

static struct input inputs[MAX_FILES];
static size_t ninputs;
static char corpus_dir[PATH_MAX];

/* Failures are collected per test and reported together. */
static char report[16384];
static size_t nfail;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	size_t used = strlen(report);
	va_list ap;

	nfail++;
	if (used + 2 >= sizeof(report))
		return;
	va_start(ap, fmt);
	vsnprintf(report + used, sizeof(report) - used - 1, fmt, ap);
	va_end(ap);
	used = strlen(report);
	if (used + 1 < sizeof(report)) {
		report[used] = '\n';
		report[used + 1] = '\0';
	}
}

static void begin(void)
{
	report[0] = '\0';
	nfail = 0;
}

static void finish(const char *what)
{
	if (nfail) {
		print_error("%s", report);
		fail_msg("%zu corpus file(s) broke: %s (details above)", nfail, what);
	}
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int find_corpus(void)
{
	const char *env = getenv("RB_CTRL_CORPUS");
	char exe[PATH_MAX - 64], try[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(corpus_dir, sizeof(corpus_dir), "%s", env);
		return is_dir(corpus_dir) ? 0 : -1;
	}
	if (is_dir("tests/fuzz/corpus/ctrl")) {
		snprintf(corpus_dir, sizeof(corpus_dir), "tests/fuzz/corpus/ctrl");
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	for (int up = 0; up < 6; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(try, sizeof(try), "%s/tests/fuzz/corpus/ctrl", exe);
		if (is_dir(try)) {
			snprintf(corpus_dir, sizeof(corpus_dir), "%s", try);
			return 0;
		}
	}
	return -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->name, ((const struct input *)b)->name);
}

static int load_corpus(void **state)
{
	DIR *d;
	struct dirent *e;

	(void)state;
	if (find_corpus()) {
		fprintf(stderr, "test_ctrl_corpus: corpus not found (set RB_CTRL_CORPUS, or run "
			"from the repo root)\n");
		return -1;
	}
	d = opendir(corpus_dir);
	if (!d)
		return -1;
	while ((e = readdir(d)) && ninputs < MAX_FILES) {
		char path[PATH_MAX + 300];
		struct input *in = &inputs[ninputs];
		FILE *f;
		long sz;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus_dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			fclose(f);
			continue;
		}
		/* an exact-size heap copy: reads past the end are caught under ASan */
		in->data = malloc(sz ? (size_t)sz : 1);
		if (!in->data || (sz && fread(in->data, 1, (size_t)sz, f) != (size_t)sz)) {
			free(in->data);
			fclose(f);
			continue;
		}
		fclose(f);
		in->len = (size_t)sz;
		snprintf(in->name, sizeof(in->name), "%s", e->d_name);
		ninputs++;
	}
	closedir(d);
	qsort(inputs, ninputs, sizeof(inputs[0]), by_name);
	return 0;
}

static int free_corpus(void **state)
{
	(void)state;
	for (size_t i = 0; i < ninputs; i++)
		free(inputs[i].data);
	ninputs = 0;
	return 0;
}

static bool prefixed(const struct input *in, const char *p)
{
	return strncmp(in->name, p, strlen(p)) == 0;
}

static size_t count_prefix(const char *p)
{
	size_t n = 0;
	for (size_t i = 0; i < ninputs; i++)
		n += prefixed(&inputs[i], p);
	return n;
}

/* The corpus is there and holds the seed groups (a lost corpus must fail). */
static void test_corpus_has_every_group(void **state)
{
	(void)state;
	print_message("# corpus %s: %zu files (%zu ok-, %zu bad-, %zu stream-)\n", corpus_dir,
		      ninputs, count_prefix("ok-"), count_prefix("bad-"), count_prefix("stream-"));
	assert_true(count_prefix("ok-") >= 20);
	assert_true(count_prefix("bad-") >= 40);
	assert_true(count_prefix("stream-") >= 4);
	const char *types[] = { "ok-hello", "ok-test", "ok-setup", "ok-ready", "ok-done",
				"ok-error", "ok-bye", "ok-cpu", "ok-config-seq" };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!count_prefix(types[i]))
			fail_msg("no %s-* seed in %s", types[i], corpus_dir);
}

/* cc_check_input(file, skip) on every corpus file, each failure noted
 * with its file name; what names the property in the verdict. */
static void check_every_file(const char *skip, const char *what)
{
	struct cc_result r;

	begin();
	for (size_t i = 0; i < ninputs; i++)
		if (cc_check_input(inputs[i].data, inputs[i].len, skip, &r))
			note("  %s: %s", inputs[i].name, r.why);
	finish(what);
}

/* Every file: clean return and every decode invariant (either verdict). */
static void test_every_file_decodes_cleanly(void **state)
{
	(void)state;
	check_every_file("test-caps,layout", "decoder invariants");
}

/* ok-*: decode to 0, caps respected, byte-exact re-encoding. */
static void test_valid_messages_decode_and_reencode(void **state)
{
	struct cc_result r;

	(void)state;
	begin();
	for (size_t i = 0; i < ninputs; i++) {
		const struct input *in = &inputs[i];
		if (!prefixed(in, "ok-"))
			continue;
		if (cc_check_input(in->data, in->len, "test-caps,layout", &r))
			note("  %s: %s", in->name, r.why);
		else if (r.rc != 0)
			note("  %s: refused: %s", in->name, r.err);
	}
	finish("valid messages refused or not re-encoded");
}

/* bad-*: refused, and the message names the problem. */
static const struct {
	const char *prefix, *fragment;
} bad_words[] = {
	{ "bad-empty", "truncated" },
	{ "bad-header-cut", "truncated" },
	{ "bad-magic", "magic" },
	{ "bad-version", "version" },
	{ "bad-type", "type" },
	{ "bad-oversized", "oversized" },
	{ "bad-length-ffffffff", "oversized" },
	{ "bad-hello-cut", "truncated" },
	{ "bad-hello-trailing", "inconsistent" },
	{ "bad-ready-with-payload", "oversized" },   /* READY: limit 0 bytes */
	{ "bad-bye-length", "oversized" },
	{ "bad-hello-host-above-cap", "too long" },
	{ "bad-hello-host-with-nul", "NUL" },
	{ "bad-hello-host-with-newline", "control character" },
	{ "bad-hello-run-id-with-escape", "control character" },
	{ "bad-hello-header-above", "oversized" },
	{ "bad-hello-string-longer", "truncated" },
	{ "bad-hello-missing", "truncated" },
	{ "bad-test-", "TEST" },
	{ "bad-setup-nqp-3-with-2", "inconsistent" },
	{ "bad-setup-nqp-1-with-2", "inconsistent" },
	{ "bad-setup-nqp-above", "limit" },
	{ "bad-setup-qp-list", "inconsistent" },
	{ "bad-setup-nqp-ffff", "limit" },
	{ "bad-setup-fixed-part-cut", "truncated" },
	{ "bad-setup-reserved", "reserved" },
	{ "bad-setup-port-0", "port" },
	{ "bad-setup-link-layer", "link_layer" },
	{ "bad-setup-gid-type", "gid_type" },
	{ "bad-setup-mtu", "mtu" },
	{ "bad-setup-buffer-wraps", "wraps" },
	{ "bad-setup-psn", "psn" },
	{ "bad-setup-qpn", "qpn" },
	{ "bad-gate-procs", "procs" },
	{ "bad-gate-cut", "truncated" },
	{ "bad-go-arrive", "arrive_ns" },
	{ "bad-go-release", "start_ns" },
	{ "bad-go-procs", "procs" },
	{ "bad-time-cut", "truncated" },
	{ "bad-done-checked", "checked" },
	{ "bad-done-note", "oversized" },          /* DONE's own limit */
	{ "bad-done-cut", "truncated" },
	{ "bad-done-sent-before", "before the client's DONE arrived" },
	{ "bad-error-reason-above", "oversized" },   /* ERROR's own limit */
	{ "bad-error-reason-with-nul", "NUL" },
	{ "bad-error-no-reason", "truncated" },
	{ "bad-cpu-threads", "threads" },
	{ "bad-cpu-state", "state" },
	{ "bad-cpu-uncounted", "not counted" },
	{ "bad-cpu-ncpus", "CPUs, limit" },
	{ "bad-cpu-ticks-without", "without a CPU" },
	{ "bad-cpu-busy", "above the total" },
	{ "bad-cpu-reason-above", "oversized" },      /* CPU's own limit */
	{ "bad-cpu-reason-with-nul", "NUL" },
	{ "bad-cpu-cut", "truncated" },
	{ "bad-cpu-trailing", "inconsistent" },
	{ "bad-config-program", "program" },
	{ "bad-config-version", "version 0" },
	{ "bad-config-no-fields", "0 fields" },
	{ "bad-config-fields-above", "65 fields" },
	{ "bad-config-fields-2-of-3", "inconsistent" },
	{ "bad-config-trailing", "inconsistent" },
	{ "bad-config-cut", "truncated" },
};

static void test_malformed_messages_refused_with_reason(void **state)
{
	struct cc_result r;

	(void)state;
	begin();
	for (size_t i = 0; i < ninputs; i++) {
		const struct input *in = &inputs[i];
		const char *want = NULL;
		if (!prefixed(in, "bad-"))
			continue;
		for (size_t k = 0; k < sizeof(bad_words) / sizeof(bad_words[0]); k++)
			if (prefixed(in, bad_words[k].prefix)) {
				want = bad_words[k].fragment;
				break;
			}
		if (cc_check_input(in->data, in->len, "test-caps,layout", &r))
			note("  %s: %s", in->name, r.why);
		else if (r.rc != -1)
			note("  %s: accepted (should be refused)", in->name);
		else if (!want)
			note("  %s: no expected message fragment listed in this test", in->name);
		else if (!strstr(r.err, want))
			note("  %s: message \"%s\" does not say \"%s\"", in->name, r.err, want);
	}
	finish("malformed messages not refused with a clear reason");
}

/* A corpus file through ctrl_recv on a socket pair: messages, then the end. */
static int replay_stream(const struct input *in, unsigned *msgs, int *last_rc, char *err,
			 size_t errlen)
{
	struct ctrl_rbuf rb = { 0 };
	static struct ctrl_msg m;
	int sv[2];

	*msgs = 0;
	*last_rc = 0;
	err[0] = '\0';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	if (in->len && send(sv[1], in->data, in->len, MSG_NOSIGNAL) != (ssize_t)in->len) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	shutdown(sv[1], SHUT_WR);
	for (unsigned k = 0; k < in->len / CTRL_HDR_LEN + 2; k++) {
		int rc = ctrl_recv(sv[0], &rb, &m, 0, 2000, "a corpus message", err, errlen);
		if (rc) {
			*last_rc = rc;
			break;
		}
		(*msgs)++;
	}
	ctrl_rbuf_free(&rb);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static void test_streams_through_ctrl_recv(void **state)
{
	static const struct {
		const char *name;
		unsigned msgs;
		int rc;
		const char *fragment;
	} want[] = {
		{ "stream-hello-test-bye", 3, -1, "closed" },
		{ "stream-hello-test-cut", 1, -1, "cut short" },
		{ "stream-bye-then-http", 3, -1, "magic" },
		{ "stream-error-then-ready", 0, -2, "peer: server: no ACTIVE port" },
	};
	char err[512];

	(void)state;
	begin();
	for (size_t i = 0; i < ninputs; i++) {
		const struct input *in = &inputs[i];
		unsigned msgs;
		int rc;

		if (replay_stream(in, &msgs, &rc, err, sizeof(err))) {
			note("  %s: could not feed it to a socket pair: %s", in->name, strerror(errno));
			continue;
		}
		if (rc == 0)
			note("  %s: ctrl_recv never reported the end of the stream", in->name);
		else if (!err[0])
			note("  %s: ctrl_recv returned %d without a message", in->name, rc);
		else if (rc == -1 && strstr(err, "timed out"))
			note("  %s: timed out on a closed stream: %s", in->name, err);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			if (strcmp(in->name, want[k].name))
				continue;
			if (msgs != want[k].msgs || rc != want[k].rc || !strstr(err, want[k].fragment))
				note("  %s: %u message(s) then %d \"%s\"; expected %u then %d \"...%s...\"",
				     in->name, msgs, rc, err, want[k].msgs, want[k].rc,
				     want[k].fragment);
		}
		/* ok- files are one whole message each (an ERROR is reported as -2) */
		if (prefixed(in, "ok-error") && (msgs != 0 || rc != -2 || strncmp(err, "peer: ", 6)))
			note("  %s: %u message(s) then %d \"%s\"; expected -2 \"peer: ...\"", in->name,
			     msgs, rc, err);
		else if (prefixed(in, "ok-") && !prefixed(in, "ok-error") &&
			 (msgs != 1 || !strstr(err, "closed")))
			note("  %s: %u message(s) then \"%s\"; expected 1 then the close", in->name,
			     msgs, err);
	}
	finish("receive path");
}

/* Decoded TESTs the server's test_validate accepts stay in command-line ranges. */
static void test_server_validation_matches_command_line(void **state)
{
	struct cc_result r;
	size_t tests = 0;

	(void)state;
	begin();
	for (size_t i = 0; i < ninputs; i++) {
		if (cc_check_input(inputs[i].data, inputs[i].len, "layout", &r)) {
			note("  %s: %s", inputs[i].name, r.why);
			continue;
		}
		tests += r.rc == 0 && r.type == CTRL_TEST && r.test_valid;
	}
	print_message("# %zu TEST messages accepted by test_validate\n", tests);
	assert_true(tests >= 5);
	finish("TEST fields the server accepts but the command line refuses");
}

/* Every program's message through its own checks: the rdma_seq CONFIGs
 * its client sends (ok-config-seq-VARIANT) pass them and re-encode; the
 * ok-config-seq-refused-* ones decode and are refused by value. */
static void test_every_programs_config_is_checked(void **state)
{
	struct cc_result r;
	size_t accepted = 0;

	(void)state;
	begin();
	for (size_t i = 0; i < ninputs; i++) {
		const struct input *in = &inputs[i];
		if (cc_check_input(in->data, in->len, "test-caps,layout", &r)) {
			note("  %s: %s", in->name, r.why);
			continue;
		}
		bool refused = prefixed(in, "ok-config-seq-refused");
		if (prefixed(in, "ok-config-seq") && r.config_valid == refused)
			note("  %s: %s by rdma_seq's checks", in->name,
			     refused ? "accepted" : "refused");
		accepted += r.rc == 0 && r.type == CTRL_CONFIG && r.config_valid;
	}
	print_message("# %zu CONFIG messages accepted by rdma_seq's server checks\n", accepted);
	assert_true(accepted >= SEQ_VARIANT_COUNT);
	finish("CONFIG messages whose program's verdict is not the expected one");
}

/* ... and their buffer layout does not wrap. */
static void test_server_layout_does_not_wrap(void **state)
{
	(void)state;
	check_every_file("test-caps", "buffer layout of accepted TESTs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_has_every_group),
		cmocka_unit_test(test_every_file_decodes_cleanly),
		cmocka_unit_test(test_valid_messages_decode_and_reencode),
		cmocka_unit_test(test_malformed_messages_refused_with_reason),
		cmocka_unit_test(test_streams_through_ctrl_recv),
		cmocka_unit_test(test_server_validation_matches_command_line),
		cmocka_unit_test(test_server_layout_does_not_wrap),
		cmocka_unit_test(test_every_programs_config_is_checked),
	};

	return cmocka_run_group_tests_name("ctrl_corpus", tests, load_corpus, free_corpus);
}
