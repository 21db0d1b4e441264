/*
 * test_options.c - the command line and the pure validation rules of a test
 * point (options.h): every refusal names the option and what to do, and the
 * accepted values land where the rest of the program reads them.
 */
#include <unistd.h>

#include "unit.h"

#include "ctx.h"
#include "options.h"
#include "report.h"

static struct rb_opts o;
static char err[1024];

/* Parse a command line given as one string of space-separated words. */
static int parse(const char *line)
{
	return unit_parse(line, &o, err, sizeof(err));
}

#define assert_refused(line, ...)                                                    \
	do {                                                                         \
		assert_int_equal(parse(line), -1);                                   \
		const char *subs[] = { __VA_ARGS__ };                                \
		for (size_t i_ = 0; i_ < sizeof(subs) / sizeof(subs[0]); i_++)       \
			if (!strstr(err, subs[i_]))                                  \
				fail_msg("'%s': message \"%s\" lacks \"%s\"", line, err, \
					 subs[i_]);                                  \
	} while (0)

static struct rb_test base(void)
{
	struct rb_test t;
	test_defaults(&t);
	t.iters = 100;
	test_resolve_defaults(&t, NULL);
	return t;
}

/* The enum names: the last of each table by its name, one past it "?"
 * (a value read off the wire or a table is never indexed past its end). */
static void enum_names_stop_at_their_tables_end(void **state)
{
	(void)state;
	assert_string_equal(access_name(RB_ACCESS_RANDOM), "random");
	assert_string_equal(access_name(RB_ACCESS_COUNT), "?");
	assert_string_equal(read_completion_name(RB_READ_POLL), "poll");
	assert_string_equal(read_completion_name(RB_READ_COUNT), "?");
	assert_string_equal(perf_mode_name(RB_PERF_OFF), "off");
	assert_string_equal(perf_mode_name(RB_PERF_COUNT), "?");
	assert_string_equal(transport_name(RB_TR_COUNT), "?");
	assert_string_equal(transport_name(UINT64_MAX), "?");
}

static void client_defaults_are_write_rc_bw_64(void **state)
{
	(void)state;
	unsetenv("MSG_SIZES");
	assert_int_equal(parse("-c host"), 0);
	assert_int_equal(o.role, RB_ROLE_CLIENT);
	assert_string_equal(o.host, "host");
	assert_int_equal(o.port, RB_DEFAULT_PORT);
	assert_int_equal(o.t.verb, RB_VERB_WRITE);
	assert_int_equal(o.t.transport, RB_TR_RC);
	assert_int_equal(o.t.test, RB_TEST_BW);
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 64);
	assert_int_equal(o.t.iters, 1000);
	assert_int_equal(o.t.window, 64);
	assert_int_equal(o.t.signal_interval, 16);
	assert_int_equal(o.gid_index, -1);
}

static void size_list_from_option_and_env(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h -m 8,64,4K"), 0);
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[2], 4096);
	setenv("MSG_SIZES", "16,32", 1);
	assert_int_equal(parse("-c h"), 0);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[1], 32);
	assert_int_equal(parse("-c h -m 128"), 0); /* -m wins over MSG_SIZES */
	assert_int_equal(o.sizes[0], 128);
	unsetenv("MSG_SIZES");
	assert_refused("-c h -m 64,,128", "64,,128");
}

static void atomics_default_to_8_bytes_and_refuse_others(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h --verb fetch_add"), 0);
	assert_int_equal(o.sizes[0], 8);
	assert_refused("-c h --verb cmp_swap -m 64", "--size 64", "8 bytes", "-m 8");
}

static void uc_has_no_read_or_atomics(void **state)
{
	(void)state;
	assert_refused("-c h --verb read --transport uc", "UC", "READ", "--transport rc");
	assert_refused("-c h --verb fetch_add --transport uc", "UC");
	assert_refused("-c h --verb cmp_swap --transport uc", "UC");
	assert_int_equal(parse("-c h --verb write_imm --transport uc"), 0);
	assert_int_equal(parse("-c h --verb send --transport uc"), 0);
}

static void ud_has_only_send(void **state)
{
	(void)state;
	assert_refused("-c h --verb write --transport ud", "UD", "send");
	assert_refused("-c h --verb read --transport ud", "UD");
	assert_refused("-c h --verb fetch_add --transport ud", "UD");
	assert_int_equal(parse("-c h --verb send_imm --transport ud -m 0"), 0);
}

static void ud_size_above_mtu_is_refused(void **state)
{
	(void)state;
	assert_refused("-c h --verb send --transport ud -m 2048 --mtu 1024", "--size 2048",
		       "--mtu 1024", "-m <= 1024");
	assert_int_equal(parse("-c h --verb send --transport ud -m 1024 --mtu 1024"), 0);
	/* Against the device: the active MTU. */
	struct rb_test t = base();
	struct rb_caps c = { .max_qp_wr = 1024, .max_cqe = 4096, .max_qp = 1024,
			     .max_qp_rd_atom = 16, .max_qp_init_rd_atom = 16,
			     .max_msg_sz = 1u << 30, .active_mtu = 1024, .atomics = true };
	t.verb = RB_VERB_SEND;
	t.transport = RB_TR_UD;
	t.size = 1025;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "active MTU is 1024"));
	t.size = 1024;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), 0);
}

/* a seconds range: each end as short as exact, hours beside it from 1 h up */
static void secs_range_text_is_short_with_hours_from_one_hour(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(opts_secs_range(1, 86400000, buf, sizeof(buf)), "0.001..86400 s (24 h)");
	assert_string_equal(opts_secs_range(1000, 5400000, buf, sizeof(buf)), "1..5400 s (1.5 h)");
	assert_string_equal(opts_secs_range(500, 3600000, buf, sizeof(buf)), "0.500..3600 s (1 h)");
	assert_string_equal(opts_secs_range(0, 3599999, buf, sizeof(buf)), "0..3599.999 s");
	assert_string_equal(opts_secs_range(1, 3600001, buf, sizeof(buf)), "0.001..3600.001 s (1.0 h)");
	/* cut at the buffer's end */
	assert_string_equal(opts_secs_range(1, 86400000, buf, 8), "0.001..");
}

static void header_only_send_imm_is_allowed_zero_read_is_not(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h --verb send_imm -m 0"), 0);
	assert_int_equal(parse("-c h --verb write_imm --test lat -m 0"), 0);
	assert_refused("-c h --verb read -m 0", "--size 0", "read");
	/* the smallest READ that moves a byte is allowed */
	assert_int_equal(parse("-c h --verb read -m 1"), 0);
	assert_int_equal(parse("-c h --verb read --test lat -m 1"), 0);
	assert_refused("-c h --verb write --test lat -m 0", "write_imm");
}

static void iters_and_duration_are_exclusive(void **state)
{
	(void)state;
	assert_refused("-c h -n 10 -D 2", "-n/--iters 10", "-D/--duration", "choose one");
	assert_refused("-c h --warmup-iters 10 --warmup 1", "--warmup-iters", "--warmup");
	assert_int_equal(parse("-c h -D 0.5"), 0);
	assert_int_equal(o.t.duration_ms, 500);
	assert_int_equal(o.t.iters, 0);
}

static void zero_negative_and_non_numeric_are_refused(void **state)
{
	(void)state;
	assert_refused("-c h -n 0", "-n/--iters", "0");
	assert_refused("-c h -n -5", "-n/--iters", "-5");
	assert_refused("-c h -n ten", "-n/--iters", "ten");
	assert_refused("-c h -D 0", "-D/--duration");
	assert_refused("-c h -D -1", "-D/--duration", "negative");
	assert_refused("-c h -D 1.2.3", "-D/--duration");
	assert_refused("-c h -D 1e3", "-D/--duration '1e3': no exponent notation", "1000");
	assert_refused("-c h -D 2s", "trailing 's'");
	assert_refused("-c h -w 0", "-w/--window");
	assert_refused("-c h -p 70000", "-p/--port");
	assert_refused("-c h --ack-timeout 32", "--ack-timeout");
	assert_refused("-c h --retry-cnt 8", "--retry-cnt");
	assert_refused("-c h --mtu 1000", "--mtu 1000", "256 512 1024 2048 4096");
	assert_refused("-c h --stride 12 --verb fetch_add", "--stride 12", "multiple of 8");
	/* a short option with '=' (getopt_long gives it "=64"): the value and both
	 * right spellings named, for every short option of the table */
	assert_refused("-c h -m=64", "-m=64: the value of -m is '=64' ('=' included); "
		       "write -m 64 or --size=64");
	assert_refused("-c h -n=5", "write -n 5 or --iters=5");
	assert_refused("-c h -D =1", "-D =1: the value of -D is '=1'", "write -D 1 or --duration=1");
	assert_refused("-c=h", "write -c h or --client=h");
	/* the long form's own '=' stays the value's separator */
	assert_int_equal(parse("-c h --size=64"), 0);
	assert_int_equal(o.sizes[0], 64);
}

static void window_is_bounded_by_sq_depth(void **state)
{
	(void)state;
	assert_refused("-c h -w 200 --sq-depth 128", "-w/--window 200", "128", "--sq-depth");
	assert_int_equal(parse("-c h -w 256 --sq-depth 128 -q 2 --signal-interval 1"), 0);
	assert_int_equal(parse("-c h -w 512 --sq-depth 512 --signal-interval 1"), 0);
}

static void signal_interval_cannot_overflow_the_sq(void **state)
{
	(void)state;
	assert_refused("-c h --signal-interval 256 --sq-depth 128 -w 128", "--signal-interval 256",
		       "--sq-depth (128)");
	/* every QP could sit on an unsignaled tail: window too small */
	assert_refused("-c h -w 4 --signal-interval 8", "-w/--window 4", "need window >= 8");
	assert_refused("-c h -q 4 -w 16 --signal-interval 8", "need window >= 29");
	assert_int_equal(parse("-c h -l 8 --signal-interval 4 -w 32"), 0);
	/* the bound itself, QPs x (interval - 1) + 1, is accepted; one below is not */
	assert_int_equal(parse("-c h -q 2 --signal-interval 4 -w 7"), 0);
	assert_refused("-c h -q 2 --signal-interval 4 -w 6", "-w/--window 6", "need window >= 7");
	assert_int_equal(parse("-c h --signal-interval 8 -w 8"), 0);
	assert_refused("-c h --signal-interval 8 -w 7", "need window >= 8");
}

static void postlist_fits_window_and_sq(void **state)
{
	(void)state;
	assert_refused("-c h -l 256 --sq-depth 128", "-l/--postlist 256", "--sq-depth");
	assert_refused("-c h -l 32 -w 16 --signal-interval 1", "-l/--postlist 32", "-w/--window 16");
}

static void lat_means_one_outstanding_op(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h --test lat"), 0);
	assert_int_equal(o.t.window, 1);
	assert_int_equal(o.t.signal_interval, 1);
	assert_refused("-c h --test lat -w 4", "--test lat", "-w 4");
	assert_refused("-c h --test lat -l 2 -w 2", "--test lat");
}

static void uc_with_rdma_cm_is_refused_at_parse_time(void **state)
{
	(void)state;
	assert_refused("-c h -R --transport uc", "-R/--rdma-cm", "uc");
	assert_int_equal(parse("-c h -R --transport ud --verb send"), 0);
	assert_int_equal(o.t.use_cm, 1);
	assert_refused("-c h -R --mtu 1024", "--mtu 1024", "-R", "route");
}

static void inline_on_needs_send_or_write(void **state)
{
	(void)state;
	assert_refused("-c h --inline on --verb read", "--inline on", "read");
	assert_int_equal(parse("-c h --inline on --verb send"), 0);
	assert_int_equal(o.t.inline_mode, RB_INLINE_ON);
	assert_refused("-c h --inline maybe", "--inline 'maybe'", "auto|on|off");
}

static void knobs_of_other_verbs_are_refused_not_ignored(void **state)
{
	(void)state;
	assert_refused("-c h --verb write --atomic-counters 4", "fetch_add");
	assert_refused("-c h --verb read --recv-batch 4", "--recv-batch");
	/* --recv-batch up to --rq-depth, included */
	assert_int_equal(parse("-c h --verb send --rq-depth 16 --recv-batch 16"), 0);
	assert_int_equal(o.t.recv_batch, 16);
	assert_refused("-c h --verb send --rq-depth 16 --recv-batch 17", "--recv-batch 17", "16");
	assert_int_equal(parse("-c h --verb fetch_add --atomic-counters 16 --stride 128 --access random"), 0);
	assert_int_equal(o.t.atomic_counters, 16);
	assert_int_equal(o.t.stride, 128);
	assert_int_equal(o.t.access, RB_ACCESS_RANDOM);
}

static void server_takes_no_test_flags(void **state)
{
	(void)state;
	assert_int_equal(parse("-s -p 9999 --bind 127.0.0.1 -d rxe0 -i 1 -x 1 --once"), 0);
	assert_int_equal(o.role, RB_ROLE_SERVER);
	assert_int_equal(o.port, 9999);
	assert_string_equal(o.bind_addr, "127.0.0.1");
	assert_int_equal(o.gid_index, 1);
	assert_true(o.once);
	assert_int_equal(o.max_sessions, 64);
	assert_refused("-s --verb read", "--verb", "client");
	assert_refused("-s -n 5", "--iters", "client");
	assert_refused("-s -c h", "-s and -c");
	assert_refused("-c h --once", "--once");
	assert_refused("", "-s", "-c HOST");
	assert_refused("-c h extra", "extra");
	assert_refused("-c h --bogus", "--bogus");
}

static void cpu_lists_parse_ranges(void **state)
{
	int cpus[16], n = 0;
	(void)state;
	assert_int_equal(opts_parse_cpus("0,2,4-6", cpus, 16, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 5);
	assert_int_equal(cpus[4], 6);
	assert_int_equal(opts_parse_cpus("3-1", cpus, 16, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "reversed"));
	assert_int_equal(opts_parse_cpus("1,", cpus, 16, &n, err, sizeof(err)), -1);
	assert_int_equal(opts_parse_cpus("a", cpus, 16, &n, err, sizeof(err)), -1);
	assert_int_equal(parse("-c h --cpus spread"), 0);
	assert_true(o.cpus_spread);
	assert_false(o.cpus_none);
	assert_int_equal(o.numa, -1);          /* default: the device's node */
	assert_false(o.hugepages);
	assert_int_equal(o.doorbell, RB_DOORBELL_TD);
	/* the last --cpus wins: none drops the list */
	assert_int_equal(parse("-c h --cpus 1,2 --cpus none --numa 1 --hugepages --doorbell shared "
			       "--atomic-order refuse"), 0);
	assert_true(o.cpus_none);
	assert_int_equal(o.ncpus, 0);
	assert_int_equal(o.numa, 1);
	assert_true(o.hugepages);
	assert_int_equal(o.doorbell, RB_DOORBELL_SHARED);
	assert_int_equal(o.atomic_order, RB_AORDER_REFUSE);
	/* placement knobs are the server's too */
	assert_int_equal(parse("-s --cpus 0 --numa 0 --hugepages --doorbell td"), 0);
	assert_int_equal(o.ncpus, 1);
	assert_int_equal(parse("-c h --numa 4096"), -1);
	/* ctx: a context per client worker; the server takes it too (as td) */
	assert_int_equal(parse("-c h --doorbell ctx"), 0);
	assert_int_equal(o.doorbell, RB_DOORBELL_CTX);
	assert_string_equal(doorbell_name(o.doorbell), "ctx");
	assert_int_equal(parse("-s --doorbell ctx"), 0);
	assert_int_equal(o.doorbell, RB_DOORBELL_CTX);
	/* a name outside the table: refused with the list of names */
	assert_refused("-c h --doorbell uar", "--doorbell", "'uar'", "td|shared|ctx");
	assert_refused("-c h --doorbell 2", "'2'", "td|shared|ctx");
	/* rdma_cm makes the QPs on its own id's context */
	assert_refused("-c h -R --doorbell ctx", "--doorbell ctx", "-R", "--doorbell td");
	assert_int_equal(parse("-c h -R --doorbell td"), 0);
}

static void validate_needs_an_op_per_qp(void **state)
{
	(void)state;
	assert_refused("-c h --validate -n 3 -q 4 -w 4 --signal-interval 1", "--validate", "-n 3");
	assert_int_equal(parse("-c h --validate -n 4 -q 4 -w 4 --signal-interval 1"), 0);
}

static void wire_tests_outside_command_line_ranges_are_refused(void **state)
{
	(void)state;
	struct rb_test t = base();
	t.emulated_peers = UINT64_C(0xaaaaaaaaaaaaaaab); /* would wrap qps * peers */
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--emulated-peers"));
	t = base();
	t.timeout_ms = UINT64_MAX;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	t = base();
	t.verb = 99;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--verb"));
	t = base();
	t.size = RB_MAX_SIZE;
	t.verb = RB_VERB_SEND;
	t.rq_depth = 4096;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "GiB"));
}

static void device_limits_are_checked_before_qps(void **state)
{
	(void)state;
	struct rb_caps c = { .max_qp_wr = 64, .max_cqe = 4096, .max_qp = 8,
			     .max_qp_rd_atom = 16, .max_qp_init_rd_atom = 16,
			     .max_msg_sz = 1u << 20, .active_mtu = 1024, .atomics = false };
	struct rb_test t = base();
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--sq-depth 128"));
	t.sq_depth = 64;
	t.window = 64;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), 0);
	t.verb = RB_VERB_FETCH_ADD;
	t.size = 8;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "atomic"));
	t.verb = RB_VERB_READ;
	t.max_rd_atomic = 32;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--max-rd-atomic 32"));
	t.max_rd_atomic = 0;
	t.mtu = 2048;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--mtu 2048"));
	t.mtu = 0;
	t.qps_per_thread = 16;
	t.window = 64;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "max_qp"));
	t.qps_per_thread = 1;
	t.size = 2u << 20;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "max_msg_sz"));
}

static void dependent_defaults_respect_qp_count(void **state)
{
	(void)state;
	/* 8 QPs, window 64: the largest s with 8 * (s - 1) + 1 <= 64 is 8. */
	assert_int_equal(parse("-c h -q 8"), 0);
	assert_int_equal(o.t.window, 64);
	assert_int_equal(o.t.signal_interval, 8);
	assert_int_equal(parse("-c h --emulated-peers 100 -w 512 --sq-depth 16"), 0);
	assert_int_equal(o.t.signal_interval, 6);
	assert_int_equal(parse("-c h -l 100 --sq-depth 128"), 0);
	assert_int_equal(o.t.window, 100);
}

/* ctx_negotiate: the rules both ends apply to the two SETUPs (no device needed). */
static struct rb_dev ndev;
static struct rb_ctx nctx;
static struct ctrl_setup npeer;

static void negotiate_setup(struct rb_test t, enum rb_role role)
{
	memset(&ndev, 0, sizeof(ndev));
	ndev.active_mtu = 1024;
	ndev.link_layer = 2;
	ndev.gid_type = 2;
	ndev.gid_index = 1;
	ndev.auto_gid_index = 1;
	ndev.gid.raw[10] = ndev.gid.raw[11] = 0xff;
	ndev.gid.raw[12] = 10;
	ndev.attr.max_qp_rd_atom = 16;      /* responder */
	ndev.attr.max_qp_init_rd_atom = 8;  /* initiator */
	memset(&nctx, 0, sizeof(nctx));
	nctx.t = t;
	nctx.role = role;
	nctx.dev = &ndev;
	layout_compute(&nctx.t, &nctx.lay);
	npeer = (struct ctrl_setup){
		.port = 1, .link_layer = 2, .gid_type = 2, .gid_index = 3, .active_mtu = 2048,
		.max_qp_rd_atom = 4, .max_qp_init_rd_atom = 32, .buf_len = nctx.lay.total,
		.nqp = (uint32_t)nctx.lay.nqp_total,
	};
	npeer.gid[10] = npeer.gid[11] = 0xff;
	npeer.gid[12] = 10;
	npeer.gid[15] = 2;
}

static void negotiation_takes_the_smaller_mtu_and_refuses_above(void **state)
{
	(void)state;
	struct rb_test t = base();
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), 0);
	assert_int_equal(nctx.path_mtu, 1024);
	t.mtu = 512;
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), 0);
	assert_int_equal(nctx.path_mtu, 512);
	t.mtu = 2048;
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--mtu 2048"));
	assert_non_null(strstr(err, "this side 1024, peer 2048"));
}

static void negotiation_ud_payload_fits_the_mtu(void **state)
{
	(void)state;
	struct rb_test t = base();
	t.verb = RB_VERB_SEND;
	t.transport = RB_TR_UD;
	t.size = 1500;
	negotiate_setup(t, RB_ROLE_SERVER);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--size 1500 with --transport ud"));
	assert_non_null(strstr(err, "-m <= 1024"));
}

static void negotiation_rd_atomic_is_client_initiator_vs_server_responder(void **state)
{
	(void)state;
	struct rb_test t = base();
	t.verb = RB_VERB_READ;
	/* client: own initiator 8, server responder 4 -> 4 */
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), 0);
	assert_int_equal(nctx.rd_atomic, 4);
	assert_int_equal(nctx.rd_init, 4);
	/* server: client initiator 32 (peer), own responder 16 -> 16 */
	negotiate_setup(t, RB_ROLE_SERVER);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), 0);
	assert_int_equal(nctx.rd_atomic, 16);
	assert_int_equal(nctx.rd_resp, 16);
	assert_true(nctx.rd_init <= 8); /* unused direction within own initiator cap */
	t.max_rd_atomic = 5;
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--max-rd-atomic 5"));
	assert_non_null(strstr(err, "use <= 4"));
}

static void negotiation_refuses_link_local_against_ipv4_mapped(void **state)
{
	(void)state;
	struct rb_test t = base();
	negotiate_setup(t, RB_ROLE_CLIENT);
	memset(ndev.gid.raw, 0, 16);
	ndev.gid.raw[0] = 0xfe;
	ndev.gid.raw[1] = 0x80;
	ndev.gid_index = 0;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "link-local"));
	assert_non_null(strstr(err, "-x 1"));
	negotiate_setup(t, RB_ROLE_CLIENT);
	ndev.gid_type = 1;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "RoCE v1"));
	/* RoCE v2: a global IPv6 GID here, the peer's IPv4-mapped: refused by name */
	negotiate_setup(t, RB_ROLE_CLIENT);
	assert_true(dev_gid_v4mapped(npeer.gid));
	memset(ndev.gid.raw, 0, 16);
	ndev.gid.raw[0] = 0x20;
	ndev.gid.raw[1] = 0x01;
	ndev.gid.raw[2] = 0x0d;
	ndev.gid.raw[3] = 0xb8;
	ndev.gid.raw[15] = 1;
	ndev.gid_index = 3;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "GID index 3 (2001:db8::1) on this side"));
	assert_non_null(strstr(err, "RoCE v2 over IPv4 and over IPv6 do not reach each other"));
	assert_non_null(strstr(err, "(IPv4-mapped) on both ends"));
	/* both IPv6 global: agreed */
	memcpy(npeer.gid, ndev.gid.raw, 16);
	npeer.gid[15] = 2;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), 0);
}

static void negotiation_refuses_mismatched_shapes(void **state)
{
	(void)state;
	struct rb_test t = base();
	negotiate_setup(t, RB_ROLE_CLIENT);
	npeer.nqp = 2;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "2 QPs"));
	negotiate_setup(t, RB_ROLE_CLIENT);
	npeer.buf_len += 4096;
	assert_int_equal(ctx_negotiate(&nctx, &npeer, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "buffer"));
}

static void layout_covers_every_qp_region(void **state)
{
	(void)state;
	struct rb_test t = base();
	struct rb_layout l;
	t.verb = RB_VERB_SEND;
	t.transport = RB_TR_UD;
	t.size = 100;
	t.rq_depth = 16;
	t.threads = 3;
	t.qps_per_thread = 5;
	layout_compute(&t, &l);
	assert_int_equal(l.nqp_total, 15);
	assert_true(l.recv_slot >= 100 + RB_UD_GRH_BYTES);
	assert_int_equal(l.recv_slots, 16);
	assert_int_equal(l.total % 4096, 0);
	assert_true(l.total >= l.regions_off + 15 * l.region_len);
	t.verb = RB_VERB_FETCH_ADD;
	t.transport = RB_TR_RC;
	t.size = 8;
	t.atomic_counters = 100;
	t.stride = 64;
	layout_compute(&t, &l);
	assert_true(l.counters_len >= 6400);
	assert_true(l.send_len >= t.sq_depth * 8); /* one result slot per SQ entry */
	/* the rings the data path masks: a power of two, >= the depth, < twice it */
	assert_true(l.sq_ring >= t.sq_depth && l.sq_ring < 2 * t.sq_depth);
	assert_int_equal(l.sq_ring & (l.sq_ring - 1), 0);
	assert_true(l.send_len >= l.sq_ring * 8);
}

/* --read-completion: parsed, cqe by default, poll only for READ bw. */
static void read_completion_poll_is_read_bw_only(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h --verb read"), 0);
	assert_int_equal(o.t.read_completion, RB_READ_CQE);
	assert_int_equal(parse("-c h --verb read --read-completion poll"), 0);
	assert_int_equal(o.t.read_completion, RB_READ_POLL);
	assert_true(test_read_poll(&o.t));
	assert_int_equal(parse("-c h --verb read --read-completion cqe"), 0);
	assert_int_equal(o.t.read_completion, RB_READ_CQE);
	/* cqe is what every other verb does anyway */
	assert_int_equal(parse("-c h --verb write --read-completion cqe"), 0);
	assert_refused("-c h --verb read --read-completion maybe", "--read-completion 'maybe'",
		       "cqe|poll");
	assert_refused("-c h --verb write --read-completion poll", "--read-completion poll",
		       "--verb write", "READ completions only", "--verb read", "--read-completion cqe");
	assert_refused("-c h --verb send --read-completion poll", "--verb send");
	assert_refused("-c h --verb fetch_add --read-completion poll", "--verb fetch_add");
	assert_refused("-c h --verb write_imm --transport uc --read-completion poll",
		       "--verb write_imm");
	assert_refused("-c h --verb read --test lat --read-completion poll", "--test lat",
		       "--test bw", "--read-completion cqe");
	/* READ is RC only, whatever the completion mode */
	assert_refused("-c h --verb read --transport uc --read-completion poll", "UC",
		       "--transport rc");
	/* from the wire: an unknown mode */
	struct rb_test t = base();
	t.read_completion = 7;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--read-completion"));
}

/*
 * cqe: window >= qps x (s - 1) + 1. poll: that rule is gone; instead
 * window + s - 1 <= sq_depth (each QP's SQ holds the window in flight plus
 * the finished unsignaled tail before the next signaled WR).
 */
static void read_poll_replaces_the_window_rule_with_an_sq_rule(void **state)
{
	(void)state;
	/* the smoke point: 6 QPs, window 8, signal interval 16 */
	assert_refused("-c h --verb read -m 32 --emulated-peers 6 -w 8 --signal-interval 16",
		       "-w/--window 8", "need window >= 91", "--read-completion poll");
	assert_int_equal(parse("-c h --verb read -m 32 --emulated-peers 6 -w 8 --signal-interval 16 "
			       "--read-completion poll"), 0);
	assert_int_equal(o.t.window, 8);
	assert_int_equal(o.t.signal_interval, 16);
	/* the hint names poll only where it applies */
	assert_refused("-c h --verb write -q 6 -w 8 --signal-interval 16", "need window >= 91");
	assert_null(strstr(err, "--read-completion"));
	/* the SQ rule, at the boundary: 113 + 16 - 1 = 128 */
	assert_int_equal(parse("-c h --verb read --read-completion poll -w 113 --signal-interval 16"),
			 0);
	assert_refused("-c h --verb read --read-completion poll -w 114 --signal-interval 16",
		       "-w/--window 114", "--signal-interval 16", "need --sq-depth >= 129", "it is 128",
		       "raise --sq-depth, or lower -w or --signal-interval");
	assert_int_equal(parse("-c h --verb read --read-completion poll -w 114 --signal-interval 16 "
			       "--sq-depth 129"), 0);
	/* all signaled: the window alone, up to the SQ depth */
	assert_int_equal(parse("-c h --verb read --read-completion poll -w 128 --signal-interval 1"),
			 0);
	assert_refused("-c h --verb read --read-completion poll -w 129 --signal-interval 1 -q 2",
		       "need --sq-depth >= 129");
	/* the same rule when the point arrives over the wire */
	struct rb_test t = base();
	t.verb = RB_VERB_READ;
	t.read_completion = RB_READ_POLL;
	t.window = 100;
	t.signal_interval = 64;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "need --sq-depth >= 163"));
	t.sq_depth = 163;
	assert_int_equal(test_validate(&t, err, sizeof(err)), 0);
}

/* experiments/swarm-32b_read: every point of its grid runs with poll. */
static void read_poll_accepts_the_swarm_grid(void **state)
{
	(void)state;
	static const unsigned windows[] = { 8, 16, 32, 48, 64 };
	static const unsigned sigs[] = { 4, 8, 16, 32, 64 };
	char line[256];
	unsigned cqe_ok = 0;

	for (unsigned i = 0; i < 5; i++)
		for (unsigned j = 0; j < 5; j++) {
			snprintf(line, sizeof(line), "-c h --verb read -m 32 --threads 14 "
				 "--emulated-peers 6 -w %u --signal-interval %u -D 2 "
				 "--read-completion poll", windows[i], sigs[j]);
			if (parse(line))
				fail_msg("'%s' refused: %s", line, err);
			snprintf(line, sizeof(line), "-c h --verb read -m 32 --threads 14 "
				 "--emulated-peers 6 -w %u --signal-interval %u -D 2",
				 windows[i], sigs[j]);
			cqe_ok += parse(line) == 0;
		}
	/* cqe runs only the points with window >= 6 x (s - 1) + 1 */
	assert_int_equal(cqe_ok, 5);
}

static void read_poll_defaults_fit_the_sq_rule(void **state)
{
	(void)state;
	/* with 6 QPs cqe shrinks the signal interval to 11; poll keeps 16 */
	assert_int_equal(parse("-c h --verb read -q 6"), 0);
	assert_int_equal(o.t.window, 64);
	assert_int_equal(o.t.signal_interval, 11);
	assert_int_equal(parse("-c h --verb read -q 6 --read-completion poll"), 0);
	assert_int_equal(o.t.window, 64);
	assert_int_equal(o.t.signal_interval, 16);
	/* small SQ: the window takes it, the signal interval what is left */
	assert_int_equal(parse("-c h --verb read --sq-depth 32 --read-completion poll"), 0);
	assert_int_equal(o.t.window, 32);
	assert_int_equal(o.t.signal_interval, 1);
	assert_int_equal(parse("-c h --verb read --sq-depth 32 --signal-interval 8 "
			       "--read-completion poll"), 0);
	assert_int_equal(o.t.window, 25);
	assert_int_equal(parse("-c h --verb read --sq-depth 72 -w 64 --read-completion poll"), 0);
	assert_int_equal(o.t.signal_interval, 9);
	/* the room the window leaves at the default's edge: 15 is taken, 16 is
	 * the default itself */
	assert_int_equal(parse("-c h --verb read --sq-depth 64 -w 50 --read-completion poll"), 0);
	assert_int_equal(o.t.signal_interval, 15);
	assert_int_equal(parse("-c h --verb read --sq-depth 64 -w 49 --read-completion poll"), 0);
	assert_int_equal(o.t.signal_interval, 16);
}

/* The READ slots: one per outstanding READ per thread, after the QP regions. */
static void read_poll_layout_has_a_slot_per_outstanding_read(void **state)
{
	(void)state;
	struct rb_test t = base();
	struct rb_layout l, plain;
	t.verb = RB_VERB_READ;
	t.size = 100;
	t.threads = 3;
	t.emulated_peers = 6;
	t.window = 8;
	t.signal_interval = 16;
	layout_compute(&t, &plain);
	assert_int_equal(plain.poll_slots, 0);
	t.read_completion = RB_READ_POLL;
	assert_int_equal(test_validate(&t, err, sizeof(err)), 0);
	layout_compute(&t, &l);
	assert_int_equal(l.poll_slots, 24);
	assert_int_equal(l.poll_slot, 128);
	assert_true(l.poll_off >= l.regions_off + l.nqp_total * l.region_len);
	assert_int_equal(l.poll_off % 64, 0);
	assert_true(l.total >= l.poll_off + 24 * 128);
	assert_int_equal(l.total % 4096, 0);
	/* everything before the slots is where it was */
	assert_int_equal(l.regions_off, plain.regions_off);
	assert_int_equal(l.region_len, plain.region_len);
	/* lat and other verbs never get slots */
	t.verb = RB_VERB_WRITE;
	layout_compute(&t, &l);
	assert_int_equal(l.poll_slots, 0);
	assert_int_equal(l.total, plain.total);
	/* the buffer limit counts the slots (window x threads x size) */
	t = base();
	t.verb = RB_VERB_READ;
	t.read_completion = RB_READ_POLL;
	t.size = RB_MAX_SIZE;
	t.threads = 200;
	t.sq_depth = 1024;
	t.window = 1000;
	t.signal_interval = 1;
	assert_int_equal(test_validate(&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "READ slot per outstanding op"));
}

/* The server's bytes never equal the sentinel a READ slot waits on. */
static void pattern_never_produces_the_read_sentinel(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 8; seed++)
		for (int role = 0; role < 3; role++)
			for (uint32_t g = 0; g < 256; g++)
				for (uint64_t i = 0; i < 256; i++)
					if (rb_pattern(seed, (enum rb_role)role, g, i) ==
					    RB_READ_SENTINEL)
						fail_msg("rb_pattern(seed %llu, role %d, QP %u, byte "
							 "%llu) is the sentinel",
							 (unsigned long long)seed, role, g,
							 (unsigned long long)i);
	/* a few values away from the sentinel are unchanged */
	assert_int_equal(rb_pattern(1, RB_ROLE_SERVER, 0, 0), (uint8_t)(7 + 101 + 1));
}

/* The columns after accel: 14 perf counter columns (report.c
 * set_perf_columns), 23 CPU utilisation and server counter columns
 * (set_cpu_columns), 8 PCIe model columns and explain (set_model_columns;
 * the last is model_link, never empty), then perf_counters, then the fabric
 * knobs tclass, sl, pkey_index, then the 3 uncore PCIe columns
 * (set_pcie_columns; pcie_counted never empty), then 7 more ctr_* columns,
 * 15 srv_ctr_*, srv_ctr_span_s and srv_foreign_recvs (report_counters_added),
 * then the 9 placement columns (report_placement: numa_node to
 * atomic_order). */
#define PLACE_COLS 9
#define PERF_COLS (77 + PLACE_COLS)

/* What report_build_row needs beside the test: empty options and
 * environment (the clock not measured). */
struct row_fixture {
	struct rb_opts ro;
	struct rb_env e;
};

static struct rb_point_info row_fixture(struct row_fixture *fx, struct rb_test *t)
{
	memset(fx, 0, sizeof(*fx));
	fx->ro.procs = 1;
	fx->e.clock_read_ns = NAN;
	return (struct rb_point_info){ .o = &fx->ro, .t = t, .env = &fx->e, .inline_used = -1,
				       .setup_us_per_qp = NAN, .gate_wait_s = NAN, .status = "ok",
				       .reason = "" };
}

/* The row records the mode: poll on READ bw, cqe on every other row (the
 * last column is never empty). */
static void rows_record_the_read_completion(void **state)
{
	(void)state;
	static struct row r;
	struct row_fixture fx;
	struct rb_test t = base();
	struct rb_point_info pi = row_fixture(&fx, &t);
	t.verb = RB_VERB_READ;
	t.read_completion = RB_READ_POLL;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 1].name, "accel");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 2].name, "procs");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 3].name, "clock_err_us");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 4].name, "win_end_srv_s");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 5].name, "win_start_srv_s");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 6].name, "gate_wait_s");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 7].name, "server_recv_mops");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 8].name, "read_completion");
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 9].name, "clock_read_ns");
	assert_string_equal(row_get(&r, "read_completion"), "poll");
	assert_string_equal(row_get(&r, "schema_version"), "1");
	t.read_completion = RB_READ_CQE;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "read_completion"), "cqe");
	t.test = RB_TEST_LAT;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "read_completion"), "cqe");
	t.verb = RB_VERB_WRITE;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "read_completion"), "cqe");
}

/* server_recv_mops: the server's receives over its first-to-last receive
 * time, on the process row of verbs that consume receives only. */
static void rows_record_the_server_receive_rate(void **state)
{
	(void)state;
	static struct row r;
	struct row_fixture fx;
	struct rb_test t = base();
	struct rb_point_info pi = row_fixture(&fx, &t);
	t.verb = RB_VERB_SEND;
	t.transport = RB_TR_UD;
	pi.have_server = true;
	pi.server.recvs = 2000001;              /* 2,000,000 intervals */
	pi.server.active_ns = 4000000000ull;    /* in 4 s: 0.5 Mops */
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "server_recv_mops"), "0.5");
	assert_string_equal(row_get(&r, "server_recvs"), "2000001");
	/* thread rows, a single receive, no server report, READ: empty */
	report_build_row(&r, &pi, 0, NULL);
	assert_string_equal(row_get(&r, "server_recv_mops"), "");
	pi.server.recvs = 1;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "server_recv_mops"), "");
	pi.server.recvs = 2000001;
	pi.have_server = false;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "server_recv_mops"), "");
	pi.have_server = true;
	t.verb = RB_VERB_READ;
	t.transport = RB_TR_RC;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "server_recv_mops"), "");
}

/* --procs N: the start barrier's process count, with a run id only. */
static void procs_needs_a_run_id_and_a_range(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h"), 0);
	assert_int_equal(o.procs, 1);
	assert_int_equal(parse("-c h --procs 4 --run-id r1 -D 1"), 0);
	assert_int_equal(o.procs, 4);
	assert_int_equal(parse("-c h --procs 1"), 0);
	assert_refused("-c h --procs 4 -D 1", "--procs 4 without --run-id", "same --run-id");
	assert_refused("-c h --procs 2 -D 1", "--procs 2 without --run-id");  /* the least */
	assert_refused("-c h --procs 2 --run-id r1 -n 100", "--procs 2 needs -D SECS");
	assert_refused("-c h --procs 0 --run-id r -D 1", "--procs");
	assert_refused("-c h --procs 4097 --run-id r -D 1", "--procs", "4096");
	assert_refused("-s --procs 2", "--procs", "client");
}

/* A gated window on the server's clock: the client's window plus the GO
 * exchange's offset; the bound and the wait beside it; empty when not gated. */
static void rows_place_the_window_on_the_server_clock(void **state)
{
	(void)state;
	static struct row r;
	struct row_fixture fx;
	struct rb_test t = base();
	struct rb_point_info pi = row_fixture(&fx, &t);
	struct rb_measure m = { .valid = true, .duration_s = 1.0, .ops = 1000, .bytes = 64000,
				.t_start_ns = 5000000000ull, .t_end_ns = 6000000001ull };
	report_build_row(&r, &pi, -1, &m);
	assert_string_equal(row_get(&r, "win_start_srv_s"), "");
	assert_string_equal(row_get(&r, "win_end_srv_s"), "");
	assert_string_equal(row_get(&r, "clock_err_us"), "");
	assert_string_equal(row_get(&r, "gate_wait_s"), "");
	assert_string_equal(row_get(&r, "procs"), "1");
	fx.ro.procs = 4;
	pi.gate_wait_s = 2.5;
	pi.have_offset = true;
	pi.clock_offset_ns = -1500000000ll;     /* the server's clock 1.5 s behind ours */
	pi.clock_err_ns = 12500;
	report_build_row(&r, &pi, -1, &m);
	assert_string_equal(row_get(&r, "win_start_srv_s"), "3.500000000");
	assert_string_equal(row_get(&r, "win_end_srv_s"), "4.500000001");
	assert_string_equal(row_get(&r, "clock_err_us"), "12.5");
	assert_string_equal(row_get(&r, "gate_wait_s"), "2.500000");
	assert_string_equal(row_get(&r, "procs"), "4");
	/* nothing measured: no window, the wait still stands */
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "win_start_srv_s"), "");
	assert_string_equal(row_get(&r, "gate_wait_s"), "2.500000");
}

/* accel: the test bed's rb.accel= word of the kernel command line, else
 * vm (hypervisor flag) or none; the last column, never empty. */
static void rows_record_the_accelerator(void **state)
{
	(void)state;
	static struct row r;
	struct row_fixture fx;
	struct rb_test t = base();
	struct rb_point_info pi = row_fixture(&fx, &t);
	char a[16];

	env_accel("console=ttyS0 quiet rb.mode=node rb.accel=tcg rb.proj=/p\n", true, a, sizeof(a));
	assert_string_equal(a, "tcg");
	env_accel("rb.accel=kvm", false, a, sizeof(a));
	assert_string_equal(a, "kvm");
	/* not a whole word, empty, or not a plain word: not taken */
	env_accel("xrb.accel=kvm", true, a, sizeof(a));
	assert_string_equal(a, "vm");
	env_accel("rb.accel= quiet", false, a, sizeof(a));
	assert_string_equal(a, "none");
	env_accel("rb.accel=k\"vm", false, a, sizeof(a));
	assert_string_equal(a, "none");
	env_accel(NULL, true, a, sizeof(a));
	assert_string_equal(a, "vm");

	snprintf(fx.e.accel, sizeof(fx.e.accel), "kvm");
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(r.cols[r.ncols - PERF_COLS - 1].name, "accel");
	/* the port counters come after pcie_counted: 23 columns, then srv_foreign_recvs */
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 8].name, "model_link");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 7].name, "perf_counters");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 1].name, "pcie_counted");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 6].name, "tclass");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 5].name, "sl");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 24 - 4].name, "pkey_index");
	assert_string_equal(row_get(&r, "tclass"), "0");
	t.tclass = 106;  /* DSCP 26 << 2 | ECT(0): a lossless RoCE class */
	t.sl = 3;
	t.pkey_index = 1;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "tclass"), "106");
	assert_string_equal(row_get(&r, "sl"), "3");
	assert_string_equal(row_get(&r, "pkey_index"), "1");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 2].name, "srv_ctr_span_s");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS - 1].name, "srv_foreign_recvs");
	assert_string_equal(r.cols[r.ncols - PLACE_COLS].name, "numa_node");
	assert_string_equal(r.cols[r.ncols - 1].name, "atomic_order");
	assert_string_equal(row_get(&r, "perf_counters"), "auto");
	assert_string_equal(row_get(&r, "accel"), "kvm");
	fx.e.accel[0] = '\0';
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "accel"), "none");
}

/* The placement columns: where the workers ran (the list on the process
 * row, worker i's CPU on thread i's row), why, the pages and the doorbell
 * mode the QPs got; empty when the point failed before its context. */
static void rows_record_the_placement(void **state)
{
	(void)state;
	static struct row r;
	static struct rb_place pl = { .cpus = { 4, 6, 5 }, .ncpus = 3, .node = 1,
				      .source = "local_cpulist" };
	struct row_fixture fx;
	struct rb_test t = base();
	struct rb_point_info pi = row_fixture(&fx, &t);

	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "numa_node"), "");
	assert_string_equal(row_get(&r, "cpus_used"), "");
	assert_string_equal(row_get(&r, "page_size"), "");
	assert_string_equal(row_get(&r, "doorbell"), "");
	assert_string_equal(row_get(&r, "doorbell_mode"), "td");
	assert_string_equal(row_get(&r, "atomic_order_mode"), "swap");
	pi.place = &pl;
	pi.page_size = 2097152;
	snprintf(pi.page_source, sizeof(pi.page_source), "thp");
	snprintf(pi.doorbell, sizeof(pi.doorbell), "shared:no-td");
	snprintf(pi.atomic_order, sizeof(pi.atomic_order), "swapped");
	fx.ro.doorbell = RB_DOORBELL_SHARED;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "numa_node"), "1");
	assert_string_equal(row_get(&r, "cpus_used"), "4 6 5");
	assert_string_equal(row_get(&r, "cpu_source"), "local_cpulist");
	assert_string_equal(row_get(&r, "page_size"), "2097152");
	assert_string_equal(row_get(&r, "page_source"), "thp");
	assert_string_equal(row_get(&r, "doorbell"), "shared:no-td");
	assert_string_equal(row_get(&r, "doorbell_mode"), "shared");
	assert_string_equal(row_get(&r, "atomic_order"), "swapped");
	report_build_row(&r, &pi, 4, NULL);    /* thread 4: CPU 4 mod 3 = index 1 */
	assert_string_equal(row_get(&r, "cpus_used"), "6");
	/* process 1 of a run of 2 threads each: its workers from entry 2 on */
	pi.cpu_first = 2;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "cpus_used"), "5 4 6");
	report_build_row(&r, &pi, 1, NULL);    /* entry (2 + 1) mod 3 = 0 */
	assert_string_equal(row_get(&r, "cpus_used"), "4");
	pi.cpu_first = 0;
	pl.node = -1;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "numa_node"), "");
}

/* --rep-first: the rep column of the first repetition (a runner's own
 * repetition number), 0 by default, refused out of range. */
static void rep_first_sets_the_first_repetition_index(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h --reps 2"), 0);
	assert_int_equal(o.rep_first, 0);
	assert_int_equal(parse("-c h --rep-first 3"), 0);
	assert_int_equal(o.rep_first, 3);
	assert_refused("-c h --rep-first -1", "--rep-first");
	assert_refused("-c h --rep-first 1000001", "--rep-first");
}

/* Edges the mutation run found untested: each value at its limit accepted,
 * the next one refused, and the defaults. */
static void server_limits_and_cpus_at_their_edges(void **state)
{
	(void)state;
	int cpus[16], n = 0;

	/* a range of one CPU ("3-3") is not reversed */
	assert_int_equal(opts_parse_cpus("3-3", cpus, 16, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], 3);
	/* --rep-first 0 is the default and accepted */
	assert_int_equal(parse("-c h --rep-first 0"), 0);
	assert_int_equal(o.rep_first, 0);
	/* --connect-timeout defaults to 10 s */
	assert_int_equal(parse("-c h"), 0);
	assert_int_equal(o.connect_timeout_s, 10);
	/* --max-mem and --max-session-mem: 1 MiB .. 2^50 bytes */
	assert_int_equal(parse("-s --max-mem 1048576 --max-session-mem 1048576"), 0);
	assert_true(o.lim.max_mem == 1048576 && o.lim.max_session_mem == 1048576);
	assert_refused("-s --max-mem 1048575", "--max-mem");
	assert_refused("-s --max-session-mem 1048575", "--max-session-mem");
	assert_int_equal(parse("-s --max-mem 1125899906842624 --max-session-mem 1125899906842624"), 0);
	assert_refused("-s --max-mem 1125899906842625", "--max-mem");
	assert_refused("-s --max-session-mem 1125899906842625", "--max-session-mem");
	/* --max-duration: 1 ms .. 24 h, given in seconds */
	assert_int_equal(parse("-s --max-duration 0.001"), 0);
	assert_true(o.lim.max_duration_ms == 1);
	assert_refused("-s --max-duration 0", "--max-duration");
	assert_int_equal(parse("-s --max-duration 86400"), 0);
	assert_true(o.lim.max_duration_ms == UINT64_C(86400000));
	assert_refused("-s --max-duration 86400.001", "--max-duration 86400.001: must be 0.001..86400 s (24 h)");
	/* --max-per-peer: 1 .. 4096 */
	assert_int_equal(parse("-s --max-per-peer 1"), 0);
	assert_int_equal(o.lim.max_per_peer, 1);
	assert_refused("-s --max-per-peer 0", "--max-per-peer");
	assert_int_equal(parse("-s --max-per-peer 4096"), 0);
	assert_int_equal(o.lim.max_per_peer, 4096);
	assert_refused("-s --max-per-peer 4097", "--max-per-peer");
	/* a missing value names the option */
	assert_refused("-c h --verb", "option --verb needs a value");
	/* an enum's names beside its placeholder; a number's placeholder alone */
	assert_refused("-c h --inline", "option --inline needs a value: --inline MODE, one of auto|on|off (see --help)");
	assert_refused("-c h --iters", "option --iters needs a value: --iters N (see --help)");
}

/* --version and --help print and return 1 (stop, exit 0), not 0 or 2. */
static void help_and_version_return_1(void **state)
{
	(void)state;
	fflush(stdout);
	assert_int_equal(parse("--version"), 1);
	assert_true(o.version);
	assert_int_equal(parse("--help"), 1);
	assert_false(o.version);
}

/* What one parse of line wrote to standard error, into buf (len bytes). */
static void parse_stderr(const char *line, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 2) == 2);
	(void)parse(line);
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

/* An unknown option fails even beside --list-knobs, --help or --version
 * (which print only once the whole line parsed). */
static void print_options_still_refuse_unknown_ones(void **state)
{
	(void)state;
	assert_refused("--list-knobs --bogus", "unknown option '--bogus'");
	assert_refused("--help --bogus", "unknown option '--bogus'");
	assert_refused("--version -c", "needs a value");
	assert_refused("--bogus --version", "unknown option '--bogus'");
	/* the parser says it through err alone (the caller prints it once):
	 * getopt's own message is off (opterr = 0) */
	char said[256];
	parse_stderr("-c host --bogus", said, sizeof(said));
	assert_string_equal(said, "");
	parse_stderr("-c host --verb", said, sizeof(said));
	assert_string_equal(said, "");
}

/* Parse exactly these words (one may be empty), after the program name. */
static int parse_words(int n, const char *const *words)
{
	char *argv[16] = { "rdma_bench" };

	for (int i = 0; i < n && i < 14; i++)
		argv[i + 1] = (char *)words[i];
	argv[n + 1] = NULL;
	err[0] = '\0';
	return opts_parse(n + 1, argv, &o, err, sizeof(err));
}

/* Contradictions are refused, not resolved by the order of the options. */
static void contradictions_are_refused(void **state)
{
	(void)state;
	assert_refused("-c h --qps 2 --qps-per-thread 3", "-q/--qps 2", "--qps-per-thread 3",
		       "give one");
	assert_refused("-c h --qps-per-thread 3 -q 2", "--qps-per-thread 3", "-q/--qps 2");
	assert_int_equal(parse("-c h --qps 2 --qps-per-thread 2"), 0);
	assert_int_equal(o.t.qps_per_thread, 2);
	assert_int_equal(parse("-c h -q 3 -q 3"), 0);
	assert_refused("-c a -c b", "-c/--client 'b' after -c 'a'", "give -c once");
	static const char *const json[] = { "-c", "h", "--json", "" };
	assert_int_equal(parse_words(4, json), -1);
	assert_non_null(strstr(err, "--json '': an empty file name"));
	static const char *const csv[] = { "-c", "h", "--csv", "" };
	assert_int_equal(parse_words(4, csv), -1);
	assert_non_null(strstr(err, "--csv '': an empty file name"));
	static const char *const ok[] = { "-c", "h", "--csv", "x.csv" };
	assert_int_equal(parse_words(4, ok), 0);
	/* any other text option given '' would act as if left out: refused */
	static const char *const rid[] = { "-c", "h", "--run-id", "" };
	assert_int_equal(parse_words(4, rid), -1);
	assert_non_null(strstr(err, "--run-id '': an empty value; give a value (--run-id ID), "
				    "or leave --run-id out"));
	/* --run-id fits in 63 characters (options.h run_id[64]); one more refused */
	char id64[65], line[128];
	memset(id64, 'r', 64);
	id64[64] = '\0';
	snprintf(line, sizeof(line), "-c h --run-id %s", id64);
	assert_int_equal(parse(line), -1);
	assert_non_null(strstr(err, "--run-id: value longer than 63 characters"));
	id64[63] = '\0';
	snprintf(line, sizeof(line), "-c h --run-id %s", id64);
	assert_int_equal(parse(line), 0);
	static const char *const dev[] = { "-c", "h", "-d", "" };
	assert_int_equal(parse_words(4, dev), -1);
	assert_non_null(strstr(err, "-d/--ib-dev '': an empty value"));
	static const char *const bind[] = { "-s", "--bind", "" };
	assert_int_equal(parse_words(3, bind), -1);
	assert_non_null(strstr(err, "--bind '': an empty value"));
}

/* One option given twice with two values: the last one is taken and
 * o.repeated names both (main prints it as WARN; wrappers pass defaults,
 * then overrides); the same value again says nothing; two rows of one
 * field with two values are refused (contradictions_are_refused). */
static void repeated_options_take_the_last_and_say_so(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h -n 5 -n 6"), 0);
	assert_int_equal(o.t.iters, 6);
	assert_non_null(strstr(o.repeated, "-n/--iters 5 then 6: given more than once; the last "
				   "value is used"));
	assert_int_equal(parse("-c h -n 5 --iters 5"), 0);
	assert_string_equal(o.repeated, "");
	assert_int_equal(parse("-c h -D 1 -D 1.000"), 0); /* one value, two spellings */
	assert_string_equal(o.repeated, "");
	assert_int_equal(parse("-c h --timeout 30 --timeout 5"), 0);
	assert_non_null(strstr(o.repeated, "30 then 5"));
	assert_int_equal(parse("-c h --run-id a --run-id b"), 0);
	assert_string_equal(o.run_id, "b");
	assert_non_null(strstr(o.repeated, "--run-id a then b"));
	/* text options compare by text: the same text again says nothing */
	assert_int_equal(parse("-c h --run-id a --run-id a"), 0);
	assert_string_equal(o.repeated, "");
	assert_int_equal(parse("-c h -m 64,4K -m 64,4K"), 0);
	assert_string_equal(o.repeated, "");
	assert_int_equal(parse("-c h -m 64 -m 128"), 0);
	assert_non_null(strstr(o.repeated, "64 then 128"));
	assert_int_equal(parse("-c h --verb read --verb write"), 0);
	assert_non_null(strstr(o.repeated, "read then write"));
	/* a third value is compared with the second; the first stays named */
	assert_int_equal(parse("-c h -n 5 -n 6 -n 6"), 0);
	assert_non_null(strstr(o.repeated, "5 then 6: given"));
	assert_int_equal(parse("-c h -n 5 -n 6 -n 7"), 0);
	assert_non_null(strstr(o.repeated, "-n/--iters 5 then 7 (3 values)"));
	/* every repeated option is named, not only the last one */
	assert_int_equal(parse("-c h -n 5 -n 6 -m 64,128 -m 32 --timeout 3 --timeout 4"), 0);
	assert_non_null(strstr(o.repeated, "-n/--iters 5 then 6, -m/--size 64,128 then 32, "
				   "--timeout 3 then 4: given more than once; the last value of "
				   "each is used"));
	/* two repeated options: "of each" too */
	assert_int_equal(parse("-c h -n 5 -n 6 --timeout 3 --timeout 4"), 0);
	assert_non_null(strstr(o.repeated, "the last value of each is used"));
	/* a flag twice contradicts nothing */
	assert_int_equal(parse("-c h --validate --validate"), 0);
	assert_string_equal(o.repeated, "");
	/* an alias pair stays refused, whatever came between */
	assert_refused("-c h -q 2 -n 5 --qps-per-thread 3", "-q/--qps 2 and --qps-per-thread 3");
	/* four repeated options fill 479 of the 512 bytes: the closing words
	 * (53) are cut at the buffer's end, not written past it */
	char line[600], x[61], y[61], a[31], b[31];
	memset(x, 'x', 60), memset(y, 'y', 60), memset(a, 'a', 30), memset(b, 'b', 30);
	x[60] = y[60] = a[30] = b[30] = '\0';
	snprintf(line, sizeof(line), "-c h --csv %s --csv %s --json %s --json %s --bind %s --bind %s "
		 "--run-id %s --run-id %s", x, y, x, y, x, y, a, b);
	assert_int_equal(parse(line), 0);
	assert_int_equal(o.repeated[sizeof(o.repeated) - 1], '\0');
	assert_int_equal(strlen(o.repeated), sizeof(o.repeated) - 1);
	assert_non_null(strstr(o.repeated, "--run-id aaa"));
	assert_non_null(strstr(o.repeated, ": given more than once"));
}

/* --proc-index numbers the --procs processes of a run from 0. */
static void proc_index_is_below_procs(void **state)
{
	(void)state;
	assert_refused("-c h -D 1 --procs 2 --run-id r --proc-index 2", "--proc-index 2 with "
		       "--procs 2", "0..1");
	assert_int_equal(parse("-c h -D 1 --procs 2 --run-id r --proc-index 1"), 0);
	assert_int_equal(parse("-c h --proc-index 7"), 0); /* no barrier: only a label */
}

/* The help text is written as is (fputs, not a format): no doubled percent signs. */
static void help_text_is_printed_verbatim(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	opts_usage(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "pin worker i to LIST[i % n]"));
	assert_null(strstr(text, "%%"));
	assert_non_null(strstr(text, "--recv-batch N"));
	assert_non_null(strstr(text, "--read-completion M"));
	free(text);
}

/*
 * Every limit of test_validate at its edge: the last value accepted and the
 * first refused (naming the option). prep adjusts the point so that only
 * the field under test is at a limit.
 */
/* validate: an expression of t_ (and err), non-zero when the point is refused. */
#define EDGE_BY(validate, prep, field, good, bad, needle)                             \
	do {                                                                          \
		struct rb_test t_ = base();                                           \
		prep;                                                                 \
		t_.field = (good);                                                    \
		if (validate)                                                         \
			fail_msg("line %d: " #field " %llu refused: %s", __LINE__,     \
				 (unsigned long long)(good), err);                    \
		t_.field = (bad);                                                     \
		if ((validate) == 0)                                                  \
			fail_msg("line %d: " #field " %llu accepted", __LINE__,        \
				 (unsigned long long)(bad));                          \
		if (!strstr(err, needle))                                             \
			fail_msg("line %d: \"%s\" lacks \"%s\"", __LINE__, err, needle); \
	} while (0)
#define EDGE(prep, field, good, bad, needle) \
	EDGE_BY(test_validate(&t_, err, sizeof(err)), prep, field, good, bad, needle)

static void every_limit_accepts_its_edge_and_refuses_one_beyond(void **state)
{
	(void)state;
	const uint64_t G48 = UINT64_C(1) << 48, G32 = UINT64_C(1) << 32;
	EDGE((void)0, iters, G48, G48 + 1, "-n/--iters");
	EDGE(t_.iters = 0, duration_ms, RB_MAX_SECS_MS, RB_MAX_SECS_MS + 1, "-D/--duration");
	EDGE((void)0, warmup_iters, G48, G48 + 1, "--warmup-iters");
	EDGE((void)0, warmup_ms, RB_MAX_SECS_MS, RB_MAX_SECS_MS + 1, "--warmup");
	EDGE((void)0, timeout_ms, 1000, 999, "--timeout");
	EDGE((void)0, timeout_ms, UINT64_C(86400000), UINT64_C(86400001), "--timeout");
	EDGE((void)0, threads, RB_MAX_THREADS, RB_MAX_THREADS + 1, "--threads");
	/* named by the option that owns the field in the knob table (-q is its alias) */
	EDGE(t_.signal_interval = 1, qps_per_thread, RB_MAX_QPS_THREAD, RB_MAX_QPS_THREAD + 1,
	     "--qps-per-thread 65537: must be 1..65536");
	EDGE(t_.signal_interval = 1, emulated_peers, RB_MAX_QPS_THREAD, RB_MAX_QPS_THREAD + 1,
	     "--emulated-peers");
	EDGE((t_.threads = 256, t_.signal_interval = 1), qps_per_thread, 1024, 1025, "above 262144");
	EDGE(t_.window = 64, sq_depth, RB_MAX_DEPTH, RB_MAX_DEPTH + 1, "--sq-depth");
	EDGE((void)0, rq_depth, RB_MAX_DEPTH, RB_MAX_DEPTH + 1, "--rq-depth");
	EDGE((void)0, cq_depth, UINT64_C(1) << 24, (UINT64_C(1) << 24) + 1, "or 1..16777216");
	/* posting: the range and the send queue */
	EDGE((t_.sq_depth = RB_MAX_DEPTH, t_.window = RB_MAX_DEPTH), postlist, RB_MAX_DEPTH,
	     RB_MAX_DEPTH + 1, "-l/--postlist");
	EDGE((t_.sq_depth = 16, t_.window = 16, t_.signal_interval = 1), postlist, 16, 17,
	     "-l/--postlist 17");
	EDGE((t_.sq_depth = 16, t_.qps_per_thread = 2, t_.signal_interval = 1), window, 32, 33,
	     "-w/--window 33");
	EDGE((t_.sq_depth = RB_MAX_DEPTH, t_.qps_per_thread = RB_MAX_QPS_THREAD,
	      t_.signal_interval = 1), window, G32, G32 + 1, "-w/--window");
	EDGE((t_.sq_depth = 16, t_.window = 16), signal_interval, 16, 17, "--signal-interval 17");
	EDGE((t_.sq_depth = RB_MAX_DEPTH, t_.window = RB_MAX_DEPTH), signal_interval, RB_MAX_DEPTH,
	     RB_MAX_DEPTH + 1, "--signal-interval");
	EDGE((t_.window = 8, t_.signal_interval = 8), postlist, 8, 9, "above -w/--window 8");
	EDGE((t_.verb = RB_VERB_READ, t_.read_completion = RB_READ_POLL, t_.sq_depth = 64,
	      t_.signal_interval = 16), window, 49, 50, "plus 15 finished unsignaled WRs");
	EDGE((t_.verb = RB_VERB_READ, t_.read_completion = RB_READ_POLL, t_.sq_depth = 64,
	      t_.signal_interval = 16), window, 49, 50, "--sq-depth >= 65");
	EDGE((t_.qps_per_thread = 2, t_.signal_interval = 8), window, 15, 14,
	     "could hold 7 unsignaled WRs");
	EDGE((t_.verb = RB_VERB_SEND, t_.rq_depth = RB_MAX_DEPTH), recv_batch, RB_MAX_DEPTH,
	     RB_MAX_DEPTH + 1, "--recv-batch");
	/* path and QP attributes */
	EDGE((void)0, ack_timeout, 31, 32, "--ack-timeout 32");
	EDGE((void)0, retry_cnt, 7, 8, "--retry-cnt 8");
	EDGE((void)0, rnr_retry, 7, 8, "--rnr-retry 8");
	EDGE((void)0, min_rnr_timer, 31, 32, "--min-rnr-timer 32");
	EDGE((void)0, max_rd_atomic, 255, 256, "--max-rd-atomic 256");
	EDGE((void)0, mtu, 256, 257, "--mtu 257");
	EDGE((void)0, mtu, 4096, 8192, "--mtu 8192");
	EDGE((void)0, size, RB_MAX_SIZE, RB_MAX_SIZE + 1, "--size");
	/* atomics */
	EDGE((t_.verb = RB_VERB_FETCH_ADD, t_.size = 8), atomic_counters, UINT64_C(1) << 24,
	     (UINT64_C(1) << 24) + 1, "--atomic-counters 16777217: must be 1..16777216");
	EDGE((t_.verb = RB_VERB_FETCH_ADD, t_.size = 8), stride, 8, 7, "--stride 7");
	EDGE((t_.verb = RB_VERB_FETCH_ADD, t_.size = 8), stride, UINT64_C(1) << 20,
	     (UINT64_C(1) << 20) + 8, "--stride");
	EDGE((t_.verb = RB_VERB_FETCH_ADD, t_.size = 8, t_.stride = UINT64_C(1) << 20),
	     atomic_counters, 4096, 4097, "above 4 GiB");
	EDGE((t_.validate = 1, t_.qps_per_thread = 4), iters, 4, 3, "--validate with -n 3");
	/* the buffer: 32 QPs of 2 x 2^30 bytes is exactly 64 GiB */
	EDGE((t_.threads = 32, t_.signal_interval = 1), size, (UINT64_C(1) << 30) - 64,
	     (UINT64_C(1) << 30) - 63, "buffer of about");
	/* 33 QPs of 2 x (1041204129 + 64) bytes is 64 GiB + 2: each QP's 64 bytes
	 * of padding (send and receive) count, one byte less each would pass */
	EDGE((t_.threads = 33, t_.signal_interval = 1), size, 1041204128, 1041204129,
	     "buffer of about");
	/* with --read-completion poll, plus a (size + 64)-byte READ slot per
	 * outstanding READ: 2^31 + 62 x 2^30 is exactly 64 GiB */
	EDGE((t_.verb = RB_VERB_READ, t_.read_completion = RB_READ_POLL, t_.signal_interval = 1,
	      t_.size = (UINT64_C(1) << 30) - 64), window, 62, 63, "READ slot per outstanding op");
	/* 2 + 64 slots of (1041204129 + 64) bytes is 64 GiB + 2: each READ
	 * slot's 64 bytes count, one byte less each would pass */
	EDGE((t_.verb = RB_VERB_READ, t_.read_completion = RB_READ_POLL, t_.signal_interval = 1,
	      t_.window = 64), size, 1041204128, 1041204129, "READ slot per outstanding op");
}

static struct rb_caps caps(void)
{
	return (struct rb_caps){ .max_qp_wr = 128, .max_cqe = 4096, .max_qp = 64, .max_cq = 64,
				 .max_qp_rd_atom = 16, .max_qp_init_rd_atom = 16,
				 .max_msg_sz = 4096, .active_mtu = 1024, .atomics = true };
}

/* c_: the device's caps, caps() changed by prep. */
#define DEV_EDGE(prep, field, good, bad, needle)                                       \
	EDGE_BY(test_validate_device(&t_, &c_, err, sizeof(err)),                      \
		struct rb_caps c_ = caps(); prep, field, good, bad, needle)

static void device_limits_accept_their_edge_and_refuse_one_beyond(void **state)
{
	(void)state;
	DEV_EDGE((void)0, sq_depth, 128, 129, "max_qp_wr");
	DEV_EDGE(t_.verb = RB_VERB_SEND, rq_depth, 128, 129, "--rq-depth 129");
	DEV_EDGE((void)0, qps_per_thread, 64, 65, "(max_qp)");
	DEV_EDGE(t_.threads = 4, qps_per_thread, 16, 17, "68 QPs");
	DEV_EDGE((void)0, size, 4096, 4097, "max_msg_sz 4096");
	DEV_EDGE((void)0, mtu, 1024, 2048, "--mtu 2048");
	DEV_EDGE(t_.transport = RB_TR_UD, size, 1024, 1025, "active MTU is 1024");
	DEV_EDGE((t_.transport = RB_TR_UD, t_.mtu = 512), size, 512, 513, "active MTU is 512");
	DEV_EDGE(t_.verb = RB_VERB_READ, max_rd_atomic, 16, 17, "max_qp_init_rd_atom");
	/* a WRITE test does not use READ/atomic depth: not refused */
	struct rb_test t = base();
	struct rb_caps c = caps();
	t.max_rd_atomic = 17;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), 0);
	c.atomics = false;
	t.verb = RB_VERB_FETCH_ADD;
	t.max_rd_atomic = 0;
	assert_int_equal(test_validate_device(&t, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no atomic support"));
}

static void default_window_grows_to_a_postlist_the_sq_can_hold(void **state)
{
	(void)state;
	/* postlist 100 above the default window 64: the window becomes 100 when
	 * the send queue holds it (postlist == sq x QPs is the edge) */
	assert_int_equal(parse("-c h --sq-depth 100 -l 100"), 0);
	assert_int_equal(o.t.window, 100);
	assert_int_equal(parse("-c h --sq-depth 100 -l 65"), 0);
	assert_int_equal(o.t.window, 65);
	assert_int_equal(parse("-c h --sq-depth 100 -l 64"), 0);
	assert_int_equal(o.t.window, 64);
	/* default window: min(64, sq x QPs) */
	assert_int_equal(parse("-c h --sq-depth 16 -q 2"), 0);
	assert_int_equal(o.t.window, 32);
	/* default interval: largest s <= 16 with QPs x (s - 1) + 1 <= window */
	assert_int_equal(o.t.signal_interval, 16);
	assert_int_equal(parse("-c h --sq-depth 16 -q 4"), 0);
	assert_int_equal(o.t.window, 64);
	assert_int_equal(o.t.signal_interval, 16);
	assert_int_equal(parse("-c h -w 61 -q 4"), 0);
	assert_int_equal(o.t.signal_interval, 16);
	assert_int_equal(parse("-c h -w 60 -q 4"), 0);
	assert_int_equal(o.t.signal_interval, 15);
	assert_int_equal(parse("-c h --sq-depth 8 -w 8"), 0);
	assert_int_equal(o.t.signal_interval, 8);
	/* a send queue just below the default window: the window is the SQ */
	assert_int_equal(parse("-c h --sq-depth 63"), 0);
	assert_int_equal(o.t.window, 63);
	/* --read-completion poll with the window filling the SQ: interval 1 */
	assert_int_equal(parse("-c h --verb read --read-completion poll -w 128"), 0);
	assert_int_equal(o.t.signal_interval, 1);
	assert_int_equal(parse("-c h --verb read --read-completion poll -w 127"), 0);
	assert_int_equal(o.t.signal_interval, 2);
	/* every path MTU of IB spec 9.7.6.1.1 is accepted */
	static const char *const mtus[] = { "256", "512", "1024", "2048", "4096" };
	for (size_t i = 0; i < 5; i++) {
		char line[64];
		snprintf(line, sizeof(line), "-c h --mtu %s", mtus[i]);
		if (parse(line) != 0)
			fail_msg("--mtu %s refused: %s", mtus[i], err);
	}
}

/* Codes from the wire: the last of each enum is accepted, COUNT refused. */
static void enum_codes_end_at_their_count(void **state)
{
	(void)state;
	EDGE((void)0, verb, RB_VERB_SEND_IMM, RB_VERB_COUNT, "--verb: unknown verb code 7");
	EDGE(t_.verb = RB_VERB_SEND, transport, RB_TR_UD, RB_TR_COUNT, "--transport: unknown");
	EDGE((t_.window = 1, t_.signal_interval = 1), test, RB_TEST_LAT, RB_TEST_COUNT,
	     "--test: unknown");
	EDGE((void)0, inline_mode, RB_INLINE_OFF, RB_INLINE_COUNT, "--inline: unknown");
	EDGE((t_.verb = RB_VERB_FETCH_ADD, t_.size = 8), access, RB_ACCESS_RANDOM, RB_ACCESS_COUNT,
	     "--access: unknown");
	EDGE(t_.verb = RB_VERB_READ, read_completion, RB_READ_POLL, RB_READ_COUNT,
	     "--read-completion: unknown");
}

/* What each verb is (IB spec 9.4), one row per verb. */
static void verb_properties_per_verb(void **state)
{
	(void)state;
	static const struct { uint64_t v; bool atomic, recv, rdma; const char *lat; } want[] = {
		{ RB_VERB_READ,      false, false, true,  "rtt" },
		{ RB_VERB_WRITE,     false, false, true,  "one_way" },
		{ RB_VERB_WRITE_IMM, false, true,  true,  "one_way" },
		{ RB_VERB_SEND,      false, true,  false, "one_way" },
		{ RB_VERB_SEND_IMM,  false, true,  false, "one_way" },
		{ RB_VERB_FETCH_ADD, true,  false, false, "rtt" },
		{ RB_VERB_CMP_SWAP,  true,  false, false, "rtt" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t v = want[i].v;
		if (verb_is_atomic(v) != want[i].atomic || verb_needs_recv(v) != want[i].recv ||
		    verb_is_rdma(v) != want[i].rdma || strcmp(verb_lat_kind(v), want[i].lat) != 0)
			fail_msg("%s: atomic %d recv %d rdma %d lat %s", verb_name(v),
				 verb_is_atomic(v), verb_needs_recv(v), verb_is_rdma(v),
				 verb_lat_kind(v));
	}
	/* a window of 1 gets interval 1 by default */
	assert_int_equal(parse("-c h -w 1"), 0);
	assert_int_equal(o.t.signal_interval, 1);
}

/* -D / --warmup seconds: whole and up to 3 decimals, exactly, into ms. */
static void seconds_parse_to_milliseconds(void **state)
{
	(void)state;
	assert_int_equal(parse("-c h -D 12.5"), 0);
	assert_int_equal(o.t.duration_ms, 12500);
	assert_int_equal(parse("-c h -D 0.0010"), 0);      /* a 4th decimal 0 is fine */
	assert_int_equal(o.t.duration_ms, 1);
	assert_int_equal(parse("-c h -D 0.123"), 0);
	assert_int_equal(o.t.duration_ms, 123);
	assert_refused("-c h -D 0.0011", "-D", "millisecond precision", "must be 0.001..");
	/* 2^40 s passes the digit loop and is refused by the range; one more is too large */
	assert_refused("-c h -D 1099511627776", "must be");
	assert_refused("-c h -D 1099511627777", "too large; must be 0.001..86400 s (24 h)");
	/* the limit in seconds and hours, not 4294967.296 s (2^32 ms, 49.7 days) */
	assert_refused("-c h -D 5000000", "-D/--duration 5000000: must be 0.001..86400 s (24 h)");
	/* a size above the limit is said in the unit it was given in too */
	assert_refused("-c h --verb read -m 99T", "--size 108851651149824 (99 TiB): above the limit",
		       "give -m at most 1G");
	/* names of an enum option are listed, separated by '|', nothing after the last */
	assert_refused("-c h --verb nope", "--verb 'nope'",
		       "use read|write|write_imm|send|send_imm|fetch_add|cmp_swap");
	assert_null(strstr(err, "cmp_swap|"));
	/* every enum option refuses an unknown name, listing its names */
	assert_refused("-c h --test nope", "--test 'nope'", "use bw|lat");
	assert_refused("-c h --verb fetch_add --access nope", "--access 'nope'", "sequential");
	assert_refused("-c h --transport nope", "--transport 'nope'", "rc|uc|ud");
	assert_refused("-c h --inline nope", "--inline 'nope'", "auto|on|off");
	assert_refused("-c h --cpus 3-1", "--cpus '3-1'", "reversed");
	/* --json at its longest and one byte more */
	char json[1100];
	memset(json, 'j', sizeof(o.json) - 1);
	json[sizeof(o.json) - 1] = '\0';
	char *argv[] = { "rdma_bench", "-c", "h", "--json", json, NULL };
	assert_int_equal(opts_parse(5, argv, &o, err, sizeof(err)), 0);
	json[sizeof(o.json) - 1] = 'j';
	json[sizeof(o.json)] = '\0';
	assert_int_equal(opts_parse(5, argv, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--json: value longer than 1023 characters"));
}

/*
 * Every numeric option at the edges of its command-line range: the values
 * just outside are refused naming the option, the edges themselves are
 * accepted ("" = not checked: the edge needs other knobs, or there is no
 * value outside).
 */
static void numeric_options_at_the_edges_of_their_range(void **state)
{
	(void)state;
	static const struct {
		const char *pre, *opt, *name, *range, *lo_bad, *lo_ok, *hi_ok, *hi_bad;
	} e[] = {
		{ "-c h", "-p", "-p/--port", "from 1 to 65535", "0", "1", "65535", "65536" },
		{ "-s", "--max-sessions", "--max-sessions", "from 1 to 4096", "0", "1", "4096", "4097" },
		{ "-s", "--max-handshakes", "--max-handshakes", "from 1 to 4096", "0", "1", "4096", "4097" },
		{ "-s", "--prefix-v4", "--prefix-v4", "from 8 to 32", "7", "8", "32", "33" },
		{ "-s", "--prefix-v6", "--prefix-v6", "from 16 to 128", "15", "16", "128", "129" },
		{ "-c h", "-i", "-i/--ib-port", "from 1 to 255", "0", "1", "255", "256" },
		{ "-c h", "-x", "-x/--gid-index", "from 0 to 65535", "", "0", "65535", "65536" },
		{ "-c h", "-n", "-n/--iters", "from 1 to 281474976710656", "0", "1", "281474976710656", "281474976710657" },
		{ "-c h", "-D", "-D/--duration", "must be 0.001..86400 s (24 h)", "0", "0.001", "86400", "86400.001" },
		{ "-c h", "--warmup-iters", "--warmup-iters", "from 0 to 281474976710656", "", "0", "281474976710656",
		  "281474976710657" },
		{ "-c h", "--warmup", "--warmup", "must be 0..86400 s (24 h)", "", "0", "86400", "86400.001" },
		{ "-c h", "--reps", "--reps", "from 1 to 100000", "0", "1", "100000", "100001" },
		{ "-c h", "-l", "-l/--postlist", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "--signal-interval", "--signal-interval", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "-w", "-w/--window", "from 1 to --sq-depth x QPs per thread (128 x 1 unless given)", "0", "1", "", "4294967297" },
		{ "-c h", "-q", "-q/--qps", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "--qps-per-thread", "--qps-per-thread", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "--threads", "--threads", "from 1 to 256", "0", "1", "256", "257" },
		{ "-c h", "--emulated-peers", "--emulated-peers", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "--sq-depth", "--sq-depth", "from 1 to 65536", "0", "1", "65536", "65537" },
		{ "-c h --verb send", "--rq-depth", "--rq-depth", "from 1 to 65536", "0", "1", "65536", "65537" },
		{ "-c h", "--cq-depth", "--cq-depth", "from 1 to 16777216", "0", "1", "16777216", "16777217" },
		{ "-c h", "--mtu", "--mtu", "from 256 to 4096", "255", "256", "4096", "4097" },
		{ "-c h", "--ack-timeout", "--ack-timeout", "from 0 to 31", "", "0", "31", "32" },
		{ "-c h", "--retry-cnt", "--retry-cnt", "from 0 to 7", "", "0", "7", "8" },
		{ "-c h", "--rnr-retry", "--rnr-retry", "from 0 to 7", "", "0", "7", "8" },
		{ "-c h", "--min-rnr-timer", "--min-rnr-timer", "from 0 to 31", "", "0", "31", "32" },
		{ "-c h --verb read", "--max-rd-atomic", "--max-rd-atomic", "from 1 to 255", "0", "1", "255", "256" },
		{ "-c h", "--proc-index", "--proc-index", "from 0 to 1000000", "", "0", "1000000", "1000001" },
		{ "-c h", "--connect-timeout", "--connect-timeout", "from 1 to 3600", "0", "1", "3600", "3601" },
		{ "-c h", "--timeout", "--timeout", "must be 1..86400 s (24 h)", "0.999", "1", "86400", "86400.001" },
		{ "-c h --verb fetch_add", "--atomic-counters", "--atomic-counters", "from 1 to 16777216", "0", "1",
		  "16777216", "16777217" },
		{ "-c h --verb send", "--recv-batch", "--recv-batch", "from 1 to 65536", "0", "1", "", "65537" },
		{ "-c h", "--seed", "--seed", "from 0 to 18446744073709551615", "", "0", "18446744073709551615",
		  "18446744073709551616" },
	};
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		const char *vals[4] = { e[i].lo_bad, e[i].lo_ok, e[i].hi_ok, e[i].hi_bad };
		for (int k = 0; k < 4; k++) {
			char line[256];
			if (!vals[k][0])
				continue;
			snprintf(line, sizeof(line), "%s %s %s", e[i].pre, e[i].opt, vals[k]);
			int rc = parse(line);
			bool ok = k == 1 || k == 2;
			if (ok && rc != 0)
				fail_msg("'%s' refused: %s", line, err);
			if (!ok && rc != -1)
				fail_msg("'%s': %d, expected -1 (refused)", line, rc);
			if (!ok && (!strstr(err, e[i].name) || !strstr(err, e[i].range)))
				fail_msg("'%s': message \"%s\" lacks \"%s\" or \"%s\"", line, err,
					 e[i].name, e[i].range);
		}
	}
}

/* --run-id keeps CSV and JSON intact: each forbidden character is refused
 * alone; other punctuation is kept. --cpus: CPU 65535 is the last number. */
static void run_id_characters_and_cpu_numbers(void **state)
{
	(void)state;
	static const char *const bad[] = { "a,b", "a\"b", "a\nb", "a\rb" };
	for (size_t i = 0; i < 4; i++) {
		char *argv[] = { "rdma_bench", "-c", "h", "--run-id", (char *)bad[i], NULL };
		if (opts_parse(5, argv, &o, err, sizeof(err)) != -1)
			fail_msg("--run-id with character 0x%02x accepted", bad[i][1]);
		assert_non_null(strstr(err, "no commas, quotes, newlines or other control characters"));
	}
	assert_int_equal(parse("-c h --run-id a-b_c.d:e"), 0);
	assert_string_equal(o.run_id, "a-b_c.d:e");
	/* string options: the longest value that fits is kept, one more is refused */
	char csv[1100] = "-c h --csv ";
	size_t at = strlen(csv);
	memset(csv + at, 'f', sizeof(o.csv) - 1);
	csv[at + sizeof(o.csv) - 1] = '\0';
	char *argv[] = { "rdma_bench", "-c", "h", "--csv", csv + at, NULL };
	assert_int_equal(opts_parse(5, argv, &o, err, sizeof(err)), 0);
	assert_int_equal(strlen(o.csv), sizeof(o.csv) - 1);
	csv[at + sizeof(o.csv) - 1] = 'f';
	csv[at + sizeof(o.csv)] = '\0';
	assert_int_equal(opts_parse(5, argv, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--csv: value longer than 1023 characters"));
	int cpus[4], n = 0;
	assert_int_equal(opts_parse_cpus("65535", cpus, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(cpus[0], 65535);
	assert_int_equal(opts_parse_cpus("65536", cpus, 4, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "CPU 65536 is above the limit 65535"));
	/* a long number is quoted as given, not cut (a new user saw "CPU 999999") */
	assert_int_equal(opts_parse_cpus("0-99999999999", cpus, 4, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "CPU 99999999999 is above the limit 65535"));
	assert_int_equal(opts_parse_cpus("65534-65535", cpus, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(opts_parse_cpus("65535-65536", cpus, 4, &n, err, sizeof(err)), -1);
	assert_int_equal(opts_parse_cpus("9,19-21", cpus, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(cpus[0], 9);
	assert_int_equal(cpus[3], 21);
	assert_int_equal(opts_parse_cpus("0-3", cpus, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(opts_parse_cpus("0-4", cpus, 4, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 4 CPUs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secs_range_text_is_short_with_hours_from_one_hour),
		cmocka_unit_test(client_defaults_are_write_rc_bw_64),
		cmocka_unit_test(enum_names_stop_at_their_tables_end),
		cmocka_unit_test(help_and_version_return_1),
		cmocka_unit_test(print_options_still_refuse_unknown_ones),
		cmocka_unit_test(contradictions_are_refused),
		cmocka_unit_test(repeated_options_take_the_last_and_say_so),
		cmocka_unit_test(proc_index_is_below_procs),
		cmocka_unit_test(server_limits_and_cpus_at_their_edges),
		cmocka_unit_test(size_list_from_option_and_env),
		cmocka_unit_test(atomics_default_to_8_bytes_and_refuse_others),
		cmocka_unit_test(uc_has_no_read_or_atomics),
		cmocka_unit_test(ud_has_only_send),
		cmocka_unit_test(ud_size_above_mtu_is_refused),
		cmocka_unit_test(header_only_send_imm_is_allowed_zero_read_is_not),
		cmocka_unit_test(iters_and_duration_are_exclusive),
		cmocka_unit_test(zero_negative_and_non_numeric_are_refused),
		cmocka_unit_test(window_is_bounded_by_sq_depth),
		cmocka_unit_test(signal_interval_cannot_overflow_the_sq),
		cmocka_unit_test(postlist_fits_window_and_sq),
		cmocka_unit_test(lat_means_one_outstanding_op),
		cmocka_unit_test(uc_with_rdma_cm_is_refused_at_parse_time),
		cmocka_unit_test(inline_on_needs_send_or_write),
		cmocka_unit_test(knobs_of_other_verbs_are_refused_not_ignored),
		cmocka_unit_test(server_takes_no_test_flags),
		cmocka_unit_test(cpu_lists_parse_ranges),
		cmocka_unit_test(validate_needs_an_op_per_qp),
		cmocka_unit_test(wire_tests_outside_command_line_ranges_are_refused),
		cmocka_unit_test(device_limits_are_checked_before_qps),
		cmocka_unit_test(dependent_defaults_respect_qp_count),
		cmocka_unit_test(negotiation_takes_the_smaller_mtu_and_refuses_above),
		cmocka_unit_test(negotiation_ud_payload_fits_the_mtu),
		cmocka_unit_test(negotiation_rd_atomic_is_client_initiator_vs_server_responder),
		cmocka_unit_test(negotiation_refuses_link_local_against_ipv4_mapped),
		cmocka_unit_test(negotiation_refuses_mismatched_shapes),
		cmocka_unit_test(layout_covers_every_qp_region),
		cmocka_unit_test(read_completion_poll_is_read_bw_only),
		cmocka_unit_test(read_poll_replaces_the_window_rule_with_an_sq_rule),
		cmocka_unit_test(read_poll_accepts_the_swarm_grid),
		cmocka_unit_test(read_poll_defaults_fit_the_sq_rule),
		cmocka_unit_test(read_poll_layout_has_a_slot_per_outstanding_read),
		cmocka_unit_test(pattern_never_produces_the_read_sentinel),
		cmocka_unit_test(rows_record_the_read_completion),
		cmocka_unit_test(rows_record_the_server_receive_rate),
		cmocka_unit_test(procs_needs_a_run_id_and_a_range),
		cmocka_unit_test(rows_place_the_window_on_the_server_clock),
		cmocka_unit_test(rows_record_the_accelerator),
		cmocka_unit_test(rows_record_the_placement),
		cmocka_unit_test(rep_first_sets_the_first_repetition_index),
		cmocka_unit_test(help_text_is_printed_verbatim),
		cmocka_unit_test(every_limit_accepts_its_edge_and_refuses_one_beyond),
		cmocka_unit_test(device_limits_accept_their_edge_and_refuse_one_beyond),
		cmocka_unit_test(default_window_grows_to_a_postlist_the_sq_can_hold),
		cmocka_unit_test(enum_codes_end_at_their_count),
		cmocka_unit_test(verb_properties_per_verb),
		cmocka_unit_test(seconds_parse_to_milliseconds),
		cmocka_unit_test(numeric_options_at_the_edges_of_their_range),
		cmocka_unit_test(run_id_characters_and_cpu_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
