/*
 * test_verb.c - the verb table (verb.h): every row against the IB spec's
 * verb x transport matrix (IB spec 9.4 and table 9.7.1; the paper's
 * Table 1: RC has every verb, UC SEND and WRITE but no READ or atomics,
 * UD SEND only), each row's facts against the spec, the rows' facts
 * against each other, the hooks, and every row reachable from the command
 * line by its name (a new row needs no parser change).
 */
#include "unit.h"

#include "ctx.h"
#include "options.h"
#include "verb.h"

static char err[1024];

/* The paper's Table 1 / IB spec 9.4, written here independently of the table. */
static void rows_match_the_spec_verb_transport_matrix(void **state)
{
	(void)state;
	static const struct { const char *name; bool rc, uc, ud; } spec[] = {
		{ "read",      1, 0, 0 },
		{ "write",     1, 1, 0 },
		{ "write_imm", 1, 1, 0 },
		{ "send",      1, 1, 1 },
		{ "send_imm",  1, 1, 1 },
		{ "fetch_add", 1, 0, 0 },
		{ "cmp_swap",  1, 0, 0 },
	};
	assert_int_equal(RB_VERB_COUNT, sizeof(spec) / sizeof(spec[0]));
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		int v = verb_by_name(spec[i].name);
		if (v < 0)
			fail_msg("verb %s has no row", spec[i].name);
		bool want[RB_TR_COUNT] = { spec[i].rc, spec[i].uc, spec[i].ud };
		for (unsigned tr = 0; tr < RB_TR_COUNT; tr++)
			if (verb_on_transport((uint64_t)v, tr) != want[tr])
				fail_msg("%s on %s: table %d, spec %d", spec[i].name,
					 transport_name(tr), verb_on_transport((uint64_t)v, tr),
					 want[tr]);
	}
	assert_false(verb_on_transport(RB_VERB_COUNT, RB_TR_RC));
	assert_false(verb_on_transport(RB_VERB_SEND, RB_TR_COUNT));

	/* the lists the refusals offer (test_validate's UC and UD messages) */
	char buf[128];
	assert_string_equal(verb_names_on(RB_TR_UC, buf, sizeof(buf)), "write|write_imm|send|send_imm");
	assert_string_equal(verb_names_on(RB_TR_UD, buf, sizeof(buf)), "send|send_imm");
	assert_string_equal(verb_names_on(RB_TR_RC, buf, sizeof(buf)),
			    "read|write|write_imm|send|send_imm|fetch_add|cmp_swap");
	assert_string_equal(verb_names_on(RB_TR_UD, buf, 5), "send");   /* cut at a name */
	assert_string_equal(verb_names_on(RB_TR_UD, buf, 10), "send");  /* not "send|send" */
	assert_string_equal(verb_names_on(RB_TR_UD, buf, 14), "send|send_imm");
	/* nothing is written past len */
	char fence[32];
	memset(fence, 'x', sizeof(fence));
	verb_names_on(RB_TR_UD, fence, 10);
	assert_string_equal(fence, "send");
	for (size_t i = 10; i < sizeof(fence); i++)
		assert_int_equal(fence[i], 'x');
	assert_string_equal(verb_names_on(RB_TR_COUNT, buf, sizeof(buf)), "");
}

/* test_validate refuses exactly the cells the table refuses, naming the transport. */
static void validate_follows_the_table(void **state)
{
	(void)state;
	for (unsigned v = 0; v < RB_VERB_COUNT; v++)
		for (unsigned tr = 0; tr < RB_TR_COUNT; tr++) {
			struct rb_test t;
			test_defaults(&t);
			t.verb = v;
			t.transport = tr;
			t.iters = 100;
			t.size = verb_is_atomic(v) ? 8 : 64;
			test_resolve_defaults(&t, NULL);
			err[0] = '\0';
			int rc = test_validate(&t, err, sizeof(err));
			bool ok = verb_on_transport(v, tr);
			if ((rc == 0) != ok)
				fail_msg("%s on %s: test_validate %d (%s), table %d", verb_name(v),
					 transport_name(tr), rc, err, ok);
			if (!ok && !strstr(err, transport_name(tr)))
				fail_msg("%s on %s: message \"%s\" does not name the transport",
					 verb_name(v), transport_name(tr), err);
		}
}

/* Opcodes (IB spec 11.4.1.1) and the facts that follow from the operation. */
static void rows_state_each_verbs_operation(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int opcode;
		bool atomic, recv, imm, rdma, inl, rd_atomic;
		const char *lat;
		enum rb_verb_slot slot;
		bool success, polls;
	} spec[] = {
		{ "read",      IBV_WR_RDMA_READ,            0, 0, 0, 1, 0, 1, "rtt",
		  RB_SLOT_RECV, 0, 0 },
		{ "write",     IBV_WR_RDMA_WRITE,           0, 0, 0, 1, 1, 0, "one_way",
		  RB_SLOT_SEND, 0, 1 },
		{ "write_imm", IBV_WR_RDMA_WRITE_WITH_IMM,  0, 1, 1, 1, 1, 0, "one_way",
		  RB_SLOT_SEND, 0, 0 },
		{ "send",      IBV_WR_SEND,                 0, 1, 0, 0, 1, 0, "one_way",
		  RB_SLOT_SEND, 0, 0 },
		{ "send_imm",  IBV_WR_SEND_WITH_IMM,        0, 1, 1, 0, 1, 0, "one_way",
		  RB_SLOT_SEND, 0, 0 },
		{ "fetch_add", IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, 0, 0, 0, 1, "rtt",
		  RB_SLOT_RESULT, 0, 0 },
		{ "cmp_swap",  IBV_WR_ATOMIC_CMP_AND_SWP,   1, 0, 0, 0, 0, 1, "rtt",
		  RB_SLOT_RESULT, 1, 0 },
	};
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		int v = verb_by_name(spec[i].name);
		assert_true(v >= 0);
		const struct rb_verb_row *r = verb_row((uint64_t)v);
		if ((int)r->opcode != spec[i].opcode || r->atomic != spec[i].atomic ||
		    r->consumes_recv != spec[i].recv || r->imm != spec[i].imm ||
		    r->rdma != spec[i].rdma || r->inline_ok != spec[i].inl ||
		    r->rd_atomic != spec[i].rd_atomic ||
		    strcmp(verb_lat_kind((uint64_t)v), spec[i].lat) != 0)
			fail_msg("%s: opcode %d atomic %d recv %d imm %d rdma %d inline %d "
				 "rd_atomic %d lat %s", spec[i].name, r->opcode, r->atomic,
				 r->consumes_recv, r->imm, r->rdma, r->inline_ok, r->rd_atomic,
				 verb_lat_kind((uint64_t)v));
		if (r->slot != spec[i].slot || r->counts_success != spec[i].success ||
		    r->lat_polls_byte != spec[i].polls)
			fail_msg("%s: slot %d counts_success %d lat_polls_byte %d", spec[i].name,
				 r->slot, r->counts_success, r->lat_polls_byte);
		assert_int_equal(verb_is_atomic((uint64_t)v), spec[i].atomic);
		assert_int_equal(verb_needs_recv((uint64_t)v), spec[i].recv);
		assert_int_equal(verb_is_rdma((uint64_t)v), spec[i].rdma);
	}
	assert_null(verb_row(RB_VERB_COUNT));
	assert_string_equal(verb_name(RB_VERB_COUNT), "?");
	assert_false(verb_is_atomic(RB_VERB_COUNT));
	assert_false(verb_needs_recv(RB_VERB_COUNT));
}

/* Facts of one row that must agree with each other (a new row is checked too). */
static void every_row_is_consistent(void **state)
{
	(void)state;
	for (unsigned v = 0; v < RB_VERB_COUNT; v++) {
		const struct rb_verb_row *r = verb_row(v);
		const char *n = r->name;
		if (!n || !*n)
			fail_msg("row %u has no name", v);
		if (verb_by_name(n) != (int)v)
			fail_msg("%s: name not unique (lookup gives %d)", n, verb_by_name(n));
		if (!r->on[RB_TR_RC])
			fail_msg("%s: every verb runs on RC (IB spec 9.4)", n);
		if (r->atomic != (r->slot == RB_SLOT_RESULT) ||
		    r->atomic != (r->atomic_operands != NULL) ||
		    (r->atomic && (!r->counter_want || !r->counter_what)))
			fail_msg("%s: atomic %d but slot %d, operand hook %d, counter hook %d", n,
				 r->atomic, r->slot, r->atomic_operands != NULL, r->counter_want != NULL);
		if (r->atomic && (r->on[RB_TR_UC] || r->on[RB_TR_UD] || r->inline_ok))
			fail_msg("%s: atomics are RC only and carry no inline payload", n);
		if (r->rd_atomic != (r->lat == RB_LAT_RTT))
			fail_msg("%s: a round trip is what the responder's answer makes", n);
		if (r->consumes_recv != (r->serve == RB_SERVE_RECVS))
			fail_msg("%s: the server's workers serve receives iff it consumes them", n);
		if (r->counts_success && !r->atomic)
			fail_msg("%s: only an atomic compare has a success", n);
		if (r->lat_polls_byte && r->min_size == 0 && r->region_check == NULL)
			fail_msg("%s: a polled byte needs a checked region", n);
	}
}

static void access_is_what_the_peer_needs(void **state)
{
	(void)state;
	const bool S = true, C = false, lat = true, bw = false;
	assert_int_equal(verb_access(RB_VERB_READ, S, bw), IBV_ACCESS_REMOTE_READ);
	assert_int_equal(verb_access(RB_VERB_WRITE, S, bw), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(verb_access(RB_VERB_WRITE_IMM, S, lat), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(verb_access(RB_VERB_FETCH_ADD, S, bw), IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(verb_access(RB_VERB_CMP_SWAP, S, bw), IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(verb_access(RB_VERB_SEND, S, bw), 0);
	assert_int_equal(verb_access(RB_VERB_SEND_IMM, S, lat), 0);
	/* the client is written to only by WRITE / WRITE_IMM ping-pong replies */
	assert_int_equal(verb_access(RB_VERB_WRITE, C, lat), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(verb_access(RB_VERB_WRITE_IMM, C, lat), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(verb_access(RB_VERB_WRITE, C, bw), 0);
	assert_int_equal(verb_access(RB_VERB_READ, C, lat), 0);
	assert_int_equal(verb_access(RB_VERB_SEND, C, lat), 0);
	assert_int_equal(verb_access(RB_VERB_FETCH_ADD, C, lat), 0);
	assert_int_equal(verb_access(RB_VERB_COUNT, S, bw), 0);
}

static void receives_and_server_workers_where_the_verb_needs_them(void **state)
{
	(void)state;
	const bool S = true, C = false, lat = true, bw = false;
	assert_true(verb_has_recv(RB_VERB_SEND, S, bw));
	assert_true(verb_has_recv(RB_VERB_WRITE_IMM, S, bw));
	assert_true(verb_has_recv(RB_VERB_SEND_IMM, C, lat));
	assert_false(verb_has_recv(RB_VERB_SEND, C, bw));
	assert_false(verb_has_recv(RB_VERB_WRITE, S, lat));
	assert_false(verb_has_recv(RB_VERB_READ, S, bw));
	assert_false(verb_has_recv(RB_VERB_WRITE, C, lat));
	/* the server's CPU stays out of READ and atomics; WRITE ping-pongs in lat only */
	assert_false(verb_server_works(RB_VERB_READ, lat));
	assert_false(verb_server_works(RB_VERB_FETCH_ADD, bw));
	assert_false(verb_server_works(RB_VERB_WRITE, bw));
	assert_true(verb_server_works(RB_VERB_WRITE, lat));
	assert_true(verb_server_works(RB_VERB_SEND, bw));
	assert_true(verb_server_works(RB_VERB_WRITE_IMM, bw));
	assert_false(verb_server_works(RB_VERB_COUNT, lat));
}

static void hooks_set_operands_and_checks(void **state)
{
	(void)state;
	struct ibv_send_wr wr = { 0 };
	uint64_t len = 99;

	verb_row(RB_VERB_FETCH_ADD)->atomic_operands(&wr, 41);
	assert_int_equal(wr.wr.atomic.compare_add, 1);        /* adds 1 whatever expected */
	verb_row(RB_VERB_CMP_SWAP)->atomic_operands(&wr, 41);
	assert_int_equal(wr.wr.atomic.compare_add, 41);
	assert_int_equal(wr.wr.atomic.swap, 42);              /* a success adds exactly 1 */
	assert_int_equal(verb_row(RB_VERB_FETCH_ADD)->counter_want(7, 3), 7);
	assert_int_equal(verb_row(RB_VERB_CMP_SWAP)->counter_want(7, 3), 3);

	/* READ: the client checks what it read; the server has nothing to check */
	assert_true(verb_row(RB_VERB_READ)->region_check(false, false, 64, &len));
	assert_int_equal(len, 64);
	assert_false(verb_row(RB_VERB_READ)->region_check(true, false, 64, &len));
	/* WRITE: the server always, the client in lat; the ping-pong byte is not pattern */
	assert_true(verb_row(RB_VERB_WRITE)->region_check(true, false, 64, &len));
	assert_int_equal(len, 64);
	assert_true(verb_row(RB_VERB_WRITE)->region_check(true, true, 64, &len));
	assert_int_equal(len, 63);
	assert_true(verb_row(RB_VERB_WRITE)->region_check(false, true, 64, &len));
	assert_int_equal(len, 63);
	assert_false(verb_row(RB_VERB_WRITE)->region_check(false, false, 64, &len));
	/* WRITE_IMM: the immediate carries the ping-pong, every byte is pattern */
	assert_true(verb_row(RB_VERB_WRITE_IMM)->region_check(false, true, 64, &len));
	assert_int_equal(len, 64);
	assert_false(verb_row(RB_VERB_WRITE_IMM)->region_check(false, false, 64, &len));
	assert_null(verb_row(RB_VERB_SEND)->region_check);
}

/* Every row, present or added later, is reachable by --verb NAME with no
 * parser change: the parser reads its names from the table. */
static void every_row_is_reachable_from_the_command_line(void **state)
{
	(void)state;
	for (unsigned v = 0; v < RB_VERB_COUNT; v++) {
		struct rb_opts o;
		char name[64];
		snprintf(name, sizeof(name), "%s", verb_name(v));
		char *argv[] = { "rdma_bench", "-c", "host", "--verb", name, NULL };
		err[0] = '\0';
		if (opts_parse(5, argv, &o, err, sizeof(err)) != 0)
			fail_msg("--verb %s: refused: %s", name, err);
		if (o.t.verb != v)
			fail_msg("--verb %s: parsed as code %llu, row %u", name,
				 (unsigned long long)o.t.verb, v);
	}
	/* an unknown name is refused, the message listing every row's name */
	char *argv[] = { "rdma_bench", "-c", "host", "--verb", "readx", NULL };
	struct rb_opts o;
	assert_int_equal(opts_parse(5, argv, &o, err, sizeof(err)), -1);
	for (unsigned v = 0; v < RB_VERB_COUNT; v++)
		if (!strstr(err, verb_name(v)))
			fail_msg("refusal \"%s\" does not list %s", err, verb_name(v));
	assert_int_equal(verb_by_name("readx"), -1);
	assert_int_equal(verb_by_name(""), -1);
}

/* --list-verbs: one line per row, 7 tab-separated fields, the transports
 * field the row's own (the paper's Table 1 is drawn from these lines). */
static void list_verbs_prints_each_row(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	verb_list(f);
	assert_int_equal(fclose(f), 0);
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	for (unsigned v = 0; v < RB_VERB_COUNT; v++, line = strtok_r(NULL, "\n", &save)) {
		char want[32] = "";
		size_t n = 0, tabs = 0;
		static const char *const tr[RB_TR_COUNT] = { "rc", "uc", "ud" };
		if (!line)
			fail_msg("--list-verbs: %u lines, the table has %d rows", v, RB_VERB_COUNT);
		for (const char *c = line; *c; c++)
			tabs += *c == '\t';
		if (tabs != 6)
			fail_msg("--list-verbs line \"%s\": %zu fields, want 7", line, tabs + 1);
		for (unsigned t = 0; t < RB_TR_COUNT; t++)
			if (verb_on_transport(v, t))
				n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s", n ? "," : "", tr[t]);
		char head[64];
		snprintf(head, sizeof(head), "%s\t%s\t", verb_name(v), want);
		if (strncmp(line, head, strlen(head)) != 0)
			fail_msg("--list-verbs line \"%s\" does not start \"%s\"", line, head);
		if (strcmp(line + strlen(line) - strlen(verb_lat_kind(v)), verb_lat_kind(v)) != 0)
			fail_msg("--list-verbs line \"%s\" does not end with %s", line, verb_lat_kind(v));
	}
	assert_null(line);
	free(text);
}

/* The atomics self-test's judge (ctx_atomic_order): the value back, its
 * byte swap, or neither (a one-bit error, a zero, a byte rotation). */
static void atomic_reply_order_is_told_apart(void **state)
{
	(void)state;
	const uint64_t k = UINT64_C(0x0102030405060708);

	assert_int_equal(ctx_atomic_order(k, k), 0);
	assert_int_equal(ctx_atomic_order(k, UINT64_C(0x0807060504030201)), 1);
	assert_int_equal(ctx_atomic_order(k, k ^ 1), -1);
	assert_int_equal(ctx_atomic_order(k, 0), -1);
	assert_int_equal(ctx_atomic_order(k, UINT64_C(0x0201040306050807)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_match_the_spec_verb_transport_matrix),
		cmocka_unit_test(validate_follows_the_table),
		cmocka_unit_test(rows_state_each_verbs_operation),
		cmocka_unit_test(every_row_is_consistent),
		cmocka_unit_test(access_is_what_the_peer_needs),
		cmocka_unit_test(receives_and_server_workers_where_the_verb_needs_them),
		cmocka_unit_test(hooks_set_operands_and_checks),
		cmocka_unit_test(every_row_is_reachable_from_the_command_line),
		cmocka_unit_test(list_verbs_prints_each_row),
		cmocka_unit_test(atomic_reply_order_is_told_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
