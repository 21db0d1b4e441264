/*
 * test_ctrl.c - control channel messages (ctrl.h): encode/decode round trips
 * and every refusal of the decoder (bad magic or version, unknown type,
 * truncated, oversized, inconsistent lengths, fields out of range), and the
 * socket side (whole messages, timeouts, the peer closing, ERROR).
 */
#include "unit.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "be32.h"
#include "ctrl.h"

static uint8_t buf[1 << 16];
static char err[2048];
static struct ctrl_msg m;

static int decode(size_t len)
{
	err[0] = '\0';
	return ctrl_decode(buf, len, &m, err, sizeof(err));
}

static struct ctrl_setup sample_setup(uint32_t nqp, struct ctrl_qp_ep *eps)
{
	struct ctrl_setup s = {
		.port = 1, .link_layer = 2, .gid_type = 2, .gid_index = 1, .lid = 0,
		.active_mtu = 1024, .max_qp_rd_atom = 128, .max_qp_init_rd_atom = 64,
		.buf_addr = 0x7f0000001000ull, .rkey = 0xabcd, .qkey = 0x11111111,
		.buf_len = 8192, .nqp = nqp,
	};
	for (int i = 0; i < 16; i++)
		s.gid[i] = (uint8_t)i;
	for (uint32_t i = 0; i < nqp; i++)
		eps[i] = (struct ctrl_qp_ep){ .qpn = 0x100 + i, .psn = 0xabc000 + i };
	return s;
}

static void hello_round_trips(void **state)
{
	(void)state;
	struct ctrl_hello h = { .proc_index = 7, .pid = 1234 };
	snprintf(h.host, sizeof(h.host), "node-a");
	snprintf(h.run_id, sizeof(h.run_id), "run-42");
	snprintf(h.device, sizeof(h.device), "rxe0");
	size_t n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_true(n > CTRL_HDR_LEN);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_HELLO);
	assert_int_equal(m.u.hello.proc_index, 7);
	assert_int_equal(m.u.hello.pid, 1234);
	assert_string_equal(m.u.hello.host, "node-a");
	assert_string_equal(m.u.hello.run_id, "run-42");
	assert_string_equal(m.u.hello.device, "rxe0");
}

static void test_round_trips_every_field(void **state)
{
	(void)state;
	struct rb_test t, back;
	uint64_t *f = (uint64_t *)&t;
	for (unsigned i = 0; i < RB_TEST_NFIELDS; i++)
		f[i] = UINT64_C(0x0102030405060708) * (i + 1);
	size_t n = ctrl_encode_test(buf, sizeof(buf), &t);
	assert_int_equal(n, CTRL_HDR_LEN + 8 * RB_TEST_NFIELDS);
	/* big-endian on the wire: the first field's first byte is its top byte */
	assert_int_equal(buf[CTRL_HDR_LEN], 0x01);
	assert_int_equal(decode(n), 0);
	back = m.u.test;
	assert_memory_equal(&back, &t, sizeof(t));
}

/*
 * --read-completion travels in TEST (the server validates the point and
 * sizes its buffer like the client's) at its wire place; a TEST of an
 * older length (a field short) is refused naming both counts.
 */
static void test_carries_read_completion_last(void **state)
{
	(void)state;
	struct rb_test t;
	test_defaults(&t);
	assert_int_equal(t.read_completion, RB_READ_CQE);
	t.verb = RB_VERB_READ;
	t.size = 32;
	t.iters = 1000;
	t.emulated_peers = 6;
	t.window = 8;
	t.signal_interval = 16;
	t.read_completion = RB_READ_POLL;
	size_t n = ctrl_encode_test(buf, sizeof(buf), &t);
	assert_int_equal(n, CTRL_HDR_LEN + 8 * RB_TEST_NFIELDS);
	/* its u64 on the wire, big-endian: 1 */
	size_t at = CTRL_HDR_LEN + offsetof(struct rb_test, read_completion) + 8;
	assert_int_equal(buf[at - 1], RB_READ_POLL);
	assert_int_equal(buf[at - 2], 0);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.u.test.read_completion, RB_READ_POLL);
	/* what the server checks on arrival: this point is valid only with poll */
	assert_int_equal(test_validate(&m.u.test, err, sizeof(err)), 0);
	m.u.test.read_completion = RB_READ_CQE;
	assert_int_equal(test_validate(&m.u.test, err, sizeof(err)), -1);
	assert_err_has(err, "need window >= 91");
	/* an unknown mode from the wire is refused, not taken as cqe */
	m.u.test.read_completion = 2;
	assert_int_equal(test_validate(&m.u.test, err, sizeof(err)), -1);
	assert_err_has(err, "--read-completion: unknown mode 2");
	/* a TEST of the length before read_completion existed */
	n = ctrl_encode_test(buf, sizeof(buf), &t);
	be32_put(buf + 8, 8 * (RB_TEST_NFIELDS - 1));
	assert_int_equal(decode(n - 8), -1);
	assert_err_has(err, "TEST inconsistent");
	char want[64];
	snprintf(want, sizeof(want), "expected %u (%u fields)", 8 * RB_TEST_NFIELDS,
		 (unsigned)RB_TEST_NFIELDS);
	assert_err_has(err, want);
}

static void setup_round_trips_with_qps(void **state)
{
	(void)state;
	struct ctrl_qp_ep eps[300], ep;
	struct ctrl_setup s = sample_setup(300, eps);
	s.nonce = 0xfeedface12345678ull;
	size_t n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(n, ctrl_setup_size(300));
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.u.setup.nqp, 300);
	assert_int_equal(m.u.setup.nonce, 0xfeedface12345678ull);
	assert_int_equal(m.u.setup.rkey, 0xabcd);
	assert_int_equal(m.u.setup.buf_addr, 0x7f0000001000ull);
	assert_int_equal(m.u.setup.active_mtu, 1024);
	assert_memory_equal(m.u.setup.gid, s.gid, 16);
	ctrl_setup_qp(&m.u.setup, 299, &ep);
	assert_int_equal(ep.qpn, 0x100 + 299);
	assert_int_equal(ep.psn, 0xabc000 + 299);
}

/* A decoded SETUP copied out of the receive buffer survives the buffer's reuse. */
static void setup_copy_outlives_the_receive_buffer(void **state)
{
	(void)state;
	struct ctrl_qp_ep eps[3], ep;
	struct ctrl_setup s = sample_setup(3, eps), copy;
	uint8_t *qps = NULL;
	char err[64];
	size_t n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), 0);
	assert_int_equal(ctrl_setup_copy(&copy, &m.u.setup, &qps, err, sizeof(err)), 0);
	assert_ptr_equal(copy.qps, qps);
	memset(buf, 0xee, sizeof(buf));           /* the next receive overwrites the buffer */
	assert_int_equal(copy.nqp, 3);
	assert_int_equal(copy.rkey, 0xabcd);
	ctrl_setup_qp(&copy, 2, &ep);
	assert_int_equal(ep.qpn, 0x100 + 2);
	assert_int_equal(ep.psn, 0xabc000 + 2);
	free(qps);
}

static void done_error_and_empty_round_trip(void **state)
{
	(void)state;
	struct ctrl_done d = { .ops = 1, .sends = 2, .recvs = 3, .bad_payloads = 4,
			       .counter_sum = 5, .atomic_success = 6, .active_ns = 7,
			       .arrive_ns = 8, .send_ns = 9, .checked = 1 };
	snprintf(d.note, sizeof(d.note), "fine");
	size_t n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_int_equal(decode(n), 0);
	/* every field lands in its own place (distinct values: a swap shows) */
	assert_int_equal(m.u.done.ops, 1);
	assert_int_equal(m.u.done.sends, 2);
	assert_int_equal(m.u.done.recvs, 3);
	assert_int_equal(m.u.done.bad_payloads, 4);
	assert_int_equal(m.u.done.counter_sum, 5);
	assert_int_equal(m.u.done.atomic_success, 6);
	assert_int_equal(m.u.done.active_ns, 7);
	assert_int_equal(m.u.done.arrive_ns, 8);
	assert_int_equal(m.u.done.send_ns, 9);
	assert_int_equal(m.u.done.checked, 1);
	assert_string_equal(m.u.done.note, "fine");

	/* the server's DONE sent before the client's arrived: not one clock */
	d.arrive_ns = 10;
	n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "DONE: sent at 9 ns, before the client's DONE arrived at 10 ns");
	d.arrive_ns = 8;

	n = ctrl_encode_error(buf, sizeof(buf), "device on fire");
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_ERROR);
	assert_string_equal(m.u.error.reason, "device on fire");

	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_READY);
	assert_int_equal(n, CTRL_HDR_LEN);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_READY);
}

static void bad_magic_and_version_are_refused(void **state)
{
	(void)state;
	size_t n = ctrl_encode_empty(buf, sizeof(buf), CTRL_BYE);
	buf[0] = 'G';
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "magic");
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_BYE);
	buf[5] = 9; /* version 9 */
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "version 9");
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_BYE);
	buf[7] = 99; /* type 99 */
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "unknown control message type 99");
}

static void truncated_messages_are_refused(void **state)
{
	(void)state;
	struct ctrl_hello h = { .proc_index = 1 };
	snprintf(h.host, sizeof(h.host), "x");
	size_t n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(5), -1);
	assert_err_has(err, "truncated");
	assert_int_equal(decode(n - 1), -1);
	assert_err_has(err, "truncated");
	/* header claims fewer payload bytes than the fields need */
	be32_put(buf + 8, 10);
	assert_int_equal(decode(CTRL_HDR_LEN + 10), -1);
	assert_err_has(err, "truncated");
}

static void oversized_messages_are_refused(void **state)
{
	(void)state;
	size_t n = ctrl_encode_empty(buf, sizeof(buf), CTRL_TEST);
	be32_put(buf + 8, CTRL_MAX_PAYLOAD + 1);
	uint16_t type;
	uint32_t plen;
	assert_int_equal(ctrl_decode_header(buf, n, &type, &plen, err, sizeof(err)), -1);
	assert_err_has(err, "oversized");
}

static void inconsistent_lengths_are_refused(void **state)
{
	(void)state;
	struct rb_test t = { 0 };
	struct ctrl_qp_ep eps[4];
	size_t n = ctrl_encode_test(buf, sizeof(buf), &t);
	/* TEST with one field too few */
	be32_put(buf + 8, 8 * RB_TEST_NFIELDS - 8);
	assert_int_equal(decode(n - 8), -1);
	assert_err_has(err, "TEST inconsistent");
	/* one field too many: above the TEST's own size, refused by its header */
	n = ctrl_encode_test(buf, sizeof(buf), &t);
	be32_put(buf + 8, 8 * RB_TEST_NFIELDS + 8);
	memset(buf + n, 0, 8);
	assert_int_equal(decode(n + 8), -1);
	assert_err_has(err, "oversized control message: TEST payload");
	/* trailing bytes after the message the header describes */
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_READY);
	assert_int_equal(decode(n + 3), -1);
	assert_err_has(err, "inconsistent");
	/* SETUP whose QP count does not match its length */
	struct ctrl_setup s = sample_setup(4, eps);
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	be32_put(buf + CTRL_HDR_LEN + CTRL_SETUP_FIXED - 4, 5);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "SETUP inconsistent: 5 QPs");
	/* READY with a payload: its limit is 0 bytes */
	n = ctrl_encode_error(buf, sizeof(buf), "x");
	buf[7] = CTRL_READY;
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "oversized control message: READY payload of 3 bytes, limit 0");
}

static void setup_fields_out_of_range_are_refused(void **state)
{
	(void)state;
	struct ctrl_qp_ep eps[2];
	struct ctrl_setup s = sample_setup(2, eps);
	size_t n;

	s.active_mtu = 1000;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "active_mtu 1000");
	s = sample_setup(2, eps);
	eps[1].psn = 1u << 24;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "psn");
	/* 24-bit QPN and PSN (IB spec 9.2 BTH: DestQP and PSN are 24 bits):
	 * 0xffffff is the last accepted value, 2^24 the first refused */
	s = sample_setup(2, eps);
	eps[0].qpn = 0xffffff;
	eps[1].psn = 0xffffff;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), 0);
	struct ctrl_qp_ep got;
	ctrl_setup_qp(&m.u.setup, 0, &got);
	assert_int_equal(got.qpn, 0xffffff);
	ctrl_setup_qp(&m.u.setup, 1, &got);
	assert_int_equal(got.psn, 0xffffff);
	/* every active MTU of IB spec 9.7.6.1.1 (256..4096) is accepted */
	for (uint32_t mtu = 256; mtu <= 4096; mtu *= 2) {
		s = sample_setup(2, eps);
		s.active_mtu = mtu;
		n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
		if (decode(n) != 0)
			fail_msg("active_mtu %u refused: %s", mtu, err);
		assert_int_equal(m.u.setup.active_mtu, mtu);
	}
	s = sample_setup(2, eps);
	eps[1].qpn = 1u << 24;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "QP 1 qpn 0x1000000 above 24 bits");
	s = sample_setup(2, eps);
	s.port = 0;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "port 0");
	s = sample_setup(2, eps);
	s.buf_addr = UINT64_MAX - 10;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "wraps");
}

static void strings_over_their_cap_are_refused(void **state)
{
	(void)state;
	/* hand-built ERROR with a reason length above the cap */
	size_t n = ctrl_encode_error(buf, sizeof(buf), "x");
	uint16_t big = CTRL_REASON_CAP + 1;
	buf[CTRL_HDR_LEN] = (uint8_t)(big >> 8);
	buf[CTRL_HDR_LEN + 1] = (uint8_t)big;
	memset(buf + CTRL_HDR_LEN + 2, 'a', big);
	be32_put(buf + 8, 2u + CTRL_REASON_CAP);
	n = CTRL_HDR_LEN + 2 + CTRL_REASON_CAP;
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "too long");
	/* the whole string sent: above the ERROR's own size, refused by its header */
	be32_put(buf + 8, 2u + big);
	n = CTRL_HDR_LEN + 2 + big;
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "oversized control message: ERROR payload of 1027 bytes, limit 1026");
	/* the encoder truncates to the cap instead */
	char longs[CTRL_REASON_CAP + 100];
	memset(longs, 'b', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	n = ctrl_encode_error(buf, sizeof(buf), longs);
	assert_int_equal(decode(n), 0);
	assert_int_equal(strlen(m.u.error.reason), CTRL_REASON_CAP);
	/* NUL inside a string */
	n = ctrl_encode_error(buf, sizeof(buf), "abc");
	buf[CTRL_HDR_LEN + 3] = '\0';
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "NUL");
	n = ctrl_encode_error(buf, sizeof(buf), "abc");
	buf[CTRL_HDR_LEN + 2] = '\0';  /* as its first byte */
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "NUL");
}

/* GATE, GO and TIME (protocol 2): round trips, and the decoder's refusals. */
static void gate_and_go_round_trip_and_refusals(void **state)
{
	(void)state;
	struct ctrl_gate g = { .point = 0x0102030405060708ull, .procs = 4, .go_us = 0xa1b2c3d4u };
	size_t n = ctrl_encode_gate(buf, sizeof(buf), &g);
	assert_int_equal(n, CTRL_HDR_LEN + 16);
	assert_int_equal(buf[5], CTRL_VERSION);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_GATE);
	assert_int_equal(m.u.gate.point, 0x0102030405060708ull);
	assert_int_equal(m.u.gate.procs, 4);
	assert_int_equal(m.u.gate.go_us, 0xa1b2c3d4u);
	assert_string_equal(ctrl_type_name(CTRL_GATE), "GATE");

	struct ctrl_go go = { .arrive_ns = 1000, .release_ns = 3000000000ull,
			      .start_ns = 3100000000ull, .procs = 4 };
	n = ctrl_encode_go(buf, sizeof(buf), &go);
	assert_int_equal(n, CTRL_HDR_LEN + 28);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_GO);
	assert_int_equal(m.u.go.arrive_ns, 1000);
	assert_int_equal(m.u.go.release_ns, 3000000000ull);
	assert_int_equal(m.u.go.start_ns, 3100000000ull);
	assert_int_equal(m.u.go.procs, 4);
	assert_string_equal(ctrl_type_name(CTRL_GO), "GO");

	/* a barrier of one process, or above the cap */
	g.procs = 1;
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "GATE: procs 1 outside 2..4096");
	g.procs = CTRL_MAX_PROCS + 1;
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "procs 4097");
	/* released before it arrived; the window starting before the release */
	go.arrive_ns = go.release_ns + 1;
	n = ctrl_encode_go(buf, sizeof(buf), &go);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "arrive_ns");
	go.arrive_ns = 1000;
	go.start_ns = go.release_ns - 1;
	n = ctrl_encode_go(buf, sizeof(buf), &go);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "release_ns 3000000000 after start_ns 2999999999");
	go.start_ns = go.release_ns;
	/* cut by one byte: the length no longer covers go_us (a version 3
	 * GATE of 12 bytes is refused at the HELLO already) */
	g.procs = 2;
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	be32_put(buf + 8, 15);
	assert_int_equal(decode(n - 1), -1);
	assert_err_has(err, "GATE truncated");
	/* a version 1 peer is told to run the same binary */
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	buf[5] = 1;
	assert_int_equal(decode(n), -1);
	char want[64];
	snprintf(want, sizeof(want), "version 1 from the peer, this binary speaks %u", CTRL_VERSION);
	assert_err_has(err, want);
	/* TIME: one clock reading either way */
	n = ctrl_encode_time(buf, sizeof(buf), 0x1122334455667788ull);
	assert_int_equal(n, CTRL_HDR_LEN + 8);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_TIME);
	assert_int_equal(m.u.time.ns, 0x1122334455667788ull);
	be32_put(buf + 8, 4);
	assert_int_equal(decode(n - 4), -1);
	assert_err_has(err, "TIME truncated");
	/* the type after CONFIG (the last) is unknown */
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_READY);
	buf[7] = CTRL_TYPE_LAST + 1;
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "unknown control message type 13");
	/* encoders refuse a buffer one byte short */
	assert_int_equal(ctrl_encode_gate(buf, CTRL_HDR_LEN + 15, &g), 0);
	assert_int_equal(ctrl_encode_go(buf, CTRL_HDR_LEN + 27, &go), 0);
}

/* CPU: the server's counters round-trip, a perf sample goes through it
 * and back, and truncated or hostile ones are refused. */
static void cpu_round_trip_and_refusals(void **state)
{
	(void)state;
	struct pc_sample s, back;
	struct ctrl_cpu c = { .span_ns = 2000000000ull, .threads = 3,
			      .stat = { .ncpus = 2, .user = 50, .system = 30, .irq = 5,
					.softirq = 100, .total = 400 } };

	pc_sample_zero(&s);
	s.value[PC_TASK_CLOCK] = 1500000000ull;
	s.value[PC_CTX_SWITCHES] = 42;
	s.scaled[PC_CTX_SWITCHES] = 1;
	s.user_only[PC_PAGE_FAULTS] = 1;
	s.value[PC_PAGE_FAULTS] = 7;
	for (int i = PC_CYCLES; i < PC_NEVENTS; i++) {
		s.valid[i] = 0;
		snprintf(s.reason[i], PC_REASON_MAX, "%s: not offered by this CPU's PMU",
			 pc_event_name((enum pc_event)i));
	}
	ctrl_cpu_from_sample(&c, &s);
	assert_string_equal(c.reason, "cycles: not offered by this CPU's PMU");
	assert_int_equal(c.state[PC_CTX_SWITCHES], CTRL_CPU_STATE_COUNTED | CTRL_CPU_STATE_SCALED);
	assert_int_equal(c.state[PC_PAGE_FAULTS], CTRL_CPU_STATE_COUNTED | CTRL_CPU_STATE_USER_ONLY);
	assert_int_equal(c.state[PC_CYCLES], 0);
	size_t n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(n, CTRL_HDR_LEN + CTRL_CPU_LEN(strlen(c.reason)));
	assert_true(buf[5] >= 3);   /* CPU came with protocol version 3 */
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.type, CTRL_CPU);
	assert_int_equal(m.u.cpu.span_ns, 2000000000ull);
	assert_int_equal(m.u.cpu.threads, 3);
	assert_int_equal(m.u.cpu.stat.softirq, 100);
	assert_int_equal(m.u.cpu.stat.total, 400);
	ctrl_cpu_to_sample(&m.u.cpu, &back);
	for (int i = 0; i < PC_NEVENTS; i++) {
		assert_int_equal(back.valid[i], s.valid[i]);
		assert_int_equal(back.value[i], s.valid[i] ? s.value[i] : 0);
		assert_int_equal(back.scaled[i], s.scaled[i]);
		assert_int_equal(back.user_only[i], s.user_only[i]);
	}
	assert_string_equal(back.reason[PC_INSTRUCTIONS], "server: cycles: not offered by this CPU's PMU");
	assert_string_equal(back.reason[PC_TASK_CLOCK], "");

	/* truncated at every length short of the whole: refused, never read past */
	for (size_t k = CTRL_HDR_LEN; k < n; k++) {
		be32_put(buf + 8, (uint32_t)(k - CTRL_HDR_LEN));
		assert_int_equal(decode(k), -1);
		assert_err_has(err, "CPU truncated");
	}
	be32_put(buf + 8, (uint32_t)(n - CTRL_HDR_LEN));
	/* hostile: a control byte in the reason comes back as '?' */
	snprintf(c.reason, sizeof(c.reason), "a\nb\x1b");
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.cpu.reason, "a?b?");
	c.reason[0] = '\0';
	/* an uncounted event with a value; a state bit beyond the three */
	c.value[PC_CYCLES] = 9;
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "event 4 not counted but state 0 value 9");
	c.value[PC_CYCLES] = 0;
	c.state[PC_TASK_CLOCK] = 9;
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "event 0 state 9 unknown");
	/* all three bits at once (counted, scaled, user only) is a state; 8 is not */
	c.state[PC_TASK_CLOCK] = 7;
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), 0);
	assert_int_equal(m.u.cpu.state[PC_TASK_CLOCK], 7);
	c.state[PC_TASK_CLOCK] = 8;
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "event 0 state 8 unknown");
	c.state[PC_TASK_CLOCK] = 1;
	/* thread count: 0 and above the workers' cap + the control thread */
	c.threads = 0;
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "threads 0 outside 1..257");
	c.threads = 1;
	/* ticks: busy parts whose sum wraps, parts without a CPU */
	c.stat = (struct cs_delta){ .ncpus = 1, .user = UINT64_MAX / 2 + 1,
				    .softirq = UINT64_MAX / 2 + 1, .total = UINT64_MAX };
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "busy ticks above the total");
	c.stat = (struct cs_delta){ .ncpus = 0, .total = 5 };
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "ticks without a CPU");
	/* a header claiming more than CPU's own limit is refused before the payload */
	c.stat = (struct cs_delta){ 0 };
	n = ctrl_encode_cpu(buf, sizeof(buf), &c);
	be32_put(buf + 8, CTRL_CPU_LEN(CTRL_CPU_REASON_CAP) + 1);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "oversized control message: CPU payload");
	/* the encoder refuses a buffer one byte short */
	assert_int_equal(ctrl_encode_cpu(buf, n - 1, &c), 0);
}

/* HELLO carries the token; its strings are printed, so control bytes are refused. */
static void hello_token_and_control_bytes(void **state)
{
	(void)state;
	struct ctrl_hello h = { .proc_index = 1, .pid = 2 };
	size_t n;

	snprintf(h.host, sizeof(h.host), "node-a");
	snprintf(h.token, sizeof(h.token), "0123456789abcdef0123456789abcdef");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.hello.token, "0123456789abcdef0123456789abcdef");
	assert_string_equal(m.u.hello.run_key, "");
	/* the run key (protocol 7) travels after the token, checked as a string */
	snprintf(h.run_key, sizeof(h.run_key), "fedcba9876543210fedcba9876543210");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.hello.run_key, "fedcba9876543210fedcba9876543210");
	snprintf(h.run_key, sizeof(h.run_key), "key\nINFO forged");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "HELLO: run key holds a control character");
	h.run_key[0] = '\0';
	/* a newline in the host would forge a log line */
	snprintf(h.host, sizeof(h.host), "a\nINFO forged");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "HELLO: string holds a control character");
	/* an escape sequence in the run id */
	snprintf(h.host, sizeof(h.host), "node-a");
	snprintf(h.run_id, sizeof(h.run_id), "r\x1b[2J");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "control character");
	/* DEL in the device */
	h.run_id[0] = '\0';
	snprintf(h.device, sizeof(h.device), "rxe\x7f");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), -1);
	assert_err_has(err, "control character");
	/* printable bytes up to 0x7e pass */
	snprintf(h.device, sizeof(h.device), "~dev 0");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.hello.device, "~dev 0");
}

/* An ERROR reason or DONE note keeps its text, with control bytes as '?'. */
static void reasons_and_notes_are_escaped(void **state)
{
	(void)state;
	struct ctrl_done d = { .checked = 1 };
	size_t n = ctrl_encode_error(buf, sizeof(buf), "bad\r\nERROR forged\x1b]0;x\x07");
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.error.reason, "bad??ERROR forged?]0;x?");
	snprintf(d.note, sizeof(d.note), "line1\nline2\tx");
	n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_int_equal(decode(n), 0);
	assert_string_equal(m.u.done.note, "line1?line2?x");
}

/* Each type's own limit, checked on the header alone. */
static void per_type_limits_on_the_header(void **state)
{
	(void)state;
	uint16_t type;
	uint32_t plen;
	static const uint16_t types[] = { CTRL_HELLO, CTRL_TEST, CTRL_READY, CTRL_DONE,
					  CTRL_ERROR, CTRL_BYE, CTRL_SETUP, CTRL_GATE,
					  CTRL_GO, CTRL_TIME };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = ctrl_encode_empty(buf, sizeof(buf), types[i]);
		be32_put(buf + 8, ctrl_max_payload(types[i]));
		assert_int_equal(ctrl_decode_header(buf, n, &type, &plen, err, sizeof(err)), 0);
		assert_int_equal(plen, ctrl_max_payload(types[i]));
		be32_put(buf + 8, ctrl_max_payload(types[i]) + 1);
		assert_int_equal(ctrl_decode_header(buf, n, &type, &plen, err, sizeof(err)), -1);
		assert_err_has(err, "oversized");
	}
	/* a HELLO may not claim the SETUP's 2 MiB */
	assert_true(ctrl_max_payload(CTRL_HELLO) < 512);
	size_t n = ctrl_encode_empty(buf, sizeof(buf), CTRL_HELLO);
	be32_put(buf + 8, CTRL_MAX_PAYLOAD);
	assert_int_equal(ctrl_decode_header(buf, n, &type, &plen, err, sizeof(err)), -1);
	assert_err_has(err, "HELLO payload of");
}

static void encoders_refuse_small_buffers(void **state)
{
	(void)state;
	struct rb_test t = { 0 };
	assert_int_equal(ctrl_encode_test(buf, 20, &t), 0);
	assert_int_equal(ctrl_encode_empty(buf, 4, CTRL_BYE), 0);
}

static void sockets_carry_whole_messages_and_errors(void **state)
{
	(void)state;
	int sv[2];
	struct ctrl_rbuf rb = { 0 };
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

	struct ctrl_qp_ep eps[1000];
	struct ctrl_setup s = sample_setup(1000, eps);
	size_t n = ctrl_encode_setup(buf, sizeof(buf), &s, eps);
	assert_int_equal(ctrl_send(sv[0], buf, n, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, CTRL_SETUP, 1000, "a SETUP", err, sizeof(err)), 0);
	assert_int_equal(m.u.setup.nqp, 1000);

	/* a different type than expected */
	assert_int_equal(ctrl_send_simple(sv[0], CTRL_READY, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, CTRL_DONE, 1000, "the DONE", err, sizeof(err)), -1);
	assert_err_has(err, "got READY while waiting for DONE");

	/* ERROR from the peer is -2 with its reason */
	ctrl_send_error(sv[0], "no such device");
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, CTRL_DONE, 1000, "the DONE", err, sizeof(err)), -2);
	assert_err_has(err, "peer: no such device");

	/* nothing arrives: timeout names what was awaited */
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, 0, 100, "the client's HELLO", err, sizeof(err)), -1);
	assert_err_has(err, "timed out after 100 ms waiting for the client's HELLO");

	/* the peer closes in the middle of a message */
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_BYE);
	assert_int_equal(ctrl_send(sv[0], buf, 6, 1000, err, sizeof(err)), 0);
	close(sv[0]);
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, 0, 1000, "the BYE", err, sizeof(err)), -1);
	assert_err_has(err, "peer closed the control connection");
	assert_err_has(err, "cut short");
	close(sv[1]);
	ctrl_rbuf_free(&rb);
}

static int nodelay_of(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l), 0);
	return v;
}

/* Both ends of a TCP control connection run without Nagle (ctrl.h
 * ctrl_nodelay): the connecting side by ctrl_connect, an accepted socket
 * once the server calls ctrl_nodelay (loopback only). */
static void control_sockets_run_without_nagle(void **state)
{
	(void)state;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);

	int cfd = ctrl_connect("127.0.0.1", ntohs(a.sin_port), 2, err, sizeof(err));
	assert_true(cfd >= 0);
	assert_int_not_equal(nodelay_of(cfd), 0);
	int sfd = accept(lfd, NULL, NULL);
	assert_true(sfd >= 0);
	ctrl_nodelay(sfd);
	assert_int_not_equal(nodelay_of(sfd), 0);
	close(sfd);
	close(cfd);
	close(lfd);
}

static void oversized_header_on_a_socket_allocates_nothing(void **state)
{
	(void)state;
	int sv[2];
	struct ctrl_rbuf rb = { 0 };
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	size_t n = ctrl_encode_empty(buf, sizeof(buf), CTRL_SETUP);
	be32_put(buf + 8, 0xffffffffu);
	assert_int_equal(ctrl_send(sv[0], buf, n, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctrl_recv(sv[1], &rb, &m, 0, 1000, "x", err, sizeof(err)), -1);
	assert_err_has(err, "oversized");
	assert_true(rb.cap <= 4096);
	close(sv[0]);
	close(sv[1]);
	ctrl_rbuf_free(&rb);
}

/* A SETUP of many QPs, encoded and decoded (big_setup_round_trip). */
struct big_setup {
	struct ctrl_setup s;         /* sample_setup with nqp QPs */
	struct ctrl_qp_ep *eps;      /* QP i: qpn qpn0 + i, psn i */
	uint8_t *big;                /* the encoded message, cap bytes */
	size_t n;                    /* its length: cap, asserted */
	struct ctrl_msg *got;        /* the decoded message */
};

/* b: a SETUP of nqp QPs whose message fills cap bytes exactly, encoded and
 * decoded back (its QP count checked); big_setup_free releases it. */
static void big_setup_round_trip(struct big_setup *b, uint32_t nqp, size_t cap, uint32_t qpn0)
{
	b->eps = calloc(nqp, sizeof(*b->eps));
	b->big = malloc(cap);
	b->got = calloc(1, sizeof(*b->got));
	assert_non_null(b->eps);
	assert_non_null(b->big);
	assert_non_null(b->got);
	b->s = sample_setup(0, b->eps);
	b->s.nqp = nqp;
	for (uint32_t i = 0; i < nqp; i++)
		b->eps[i] = (struct ctrl_qp_ep){ .qpn = qpn0 + i, .psn = i };
	b->n = ctrl_encode_setup(b->big, cap, &b->s, b->eps);
	assert_int_equal(b->n, cap);
	err[0] = '\0';
	if (ctrl_decode(b->big, b->n, b->got, err, sizeof(err)))
		fail_msg("decode of %u QPs: %s", nqp, err);
	assert_int_equal(b->got->u.setup.nqp, nqp);
}

static void big_setup_free(struct big_setup *b)
{
	free(b->got);
	free(b->big);
	free(b->eps);
}

/* A SETUP above 64 KiB (9,000 QPs): all four length bytes of the header
 * count, and the last QP comes back intact. */
static void setup_above_64k_round_trips(void **state)
{
	(void)state;
	const uint32_t nqp = 9000;
	struct big_setup b;

	big_setup_round_trip(&b, nqp, CTRL_HDR_LEN + CTRL_SETUP_FIXED + (size_t)nqp * CTRL_QP_LEN,
			     0x10000);
	assert_true(b.n - CTRL_HDR_LEN > 65536);
	struct ctrl_qp_ep ep;
	ctrl_setup_qp(&b.got->u.setup, nqp - 1, &ep);
	assert_int_equal(ep.qpn, 0x10000 + nqp - 1);
	assert_int_equal(ep.psn, nqp - 1);
	big_setup_free(&b);
}

/* The largest SETUP (CTRL_MAX_QPS QPs, a CTRL_MAX_PAYLOAD payload) is
 * accepted; a header announcing one byte more is refused. */
static void largest_setup_is_accepted_one_byte_more_is_not(void **state)
{
	(void)state;
	const uint32_t nqp = CTRL_MAX_QPS;
	const size_t cap = CTRL_HDR_LEN + CTRL_MAX_PAYLOAD;
	struct big_setup b;
	uint16_t type;
	uint32_t plen;

	big_setup_round_trip(&b, nqp, cap, 0);
	assert_int_equal(ctrl_decode_header(b.big, CTRL_HDR_LEN, &type, &plen, err, sizeof(err)), 0);
	assert_int_equal(plen, CTRL_MAX_PAYLOAD);
	be32_put(b.big + 8, CTRL_MAX_PAYLOAD + 1);
	assert_int_equal(ctrl_decode_header(b.big, CTRL_HDR_LEN, &type, &plen, err, sizeof(err)),
			 -1);
	assert_err_has(err, "oversized control message");
	/* one QP more than the limit: refused by the encoder */
	b.s.nqp = nqp + 1;
	assert_int_equal(ctrl_encode_setup(b.big, cap, &b.s, b.eps), 0);
	big_setup_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hello_round_trips),
		cmocka_unit_test(setup_copy_outlives_the_receive_buffer),
		cmocka_unit_test(test_round_trips_every_field),
		cmocka_unit_test(test_carries_read_completion_last),
		cmocka_unit_test(setup_round_trips_with_qps),
		cmocka_unit_test(done_error_and_empty_round_trip),
		cmocka_unit_test(setup_above_64k_round_trips),
		cmocka_unit_test(largest_setup_is_accepted_one_byte_more_is_not),
		cmocka_unit_test(bad_magic_and_version_are_refused),
		cmocka_unit_test(gate_and_go_round_trip_and_refusals),
		cmocka_unit_test(truncated_messages_are_refused),
		cmocka_unit_test(oversized_messages_are_refused),
		cmocka_unit_test(inconsistent_lengths_are_refused),
		cmocka_unit_test(setup_fields_out_of_range_are_refused),
		cmocka_unit_test(strings_over_their_cap_are_refused),
		cmocka_unit_test(hello_token_and_control_bytes),
		cmocka_unit_test(reasons_and_notes_are_escaped),
		cmocka_unit_test(per_type_limits_on_the_header),
		cmocka_unit_test(encoders_refuse_small_buffers),
		cmocka_unit_test(cpu_round_trip_and_refusals),
		cmocka_unit_test(sockets_carry_whole_messages_and_errors),
		cmocka_unit_test(oversized_header_on_a_socket_allocates_nothing),
		cmocka_unit_test(control_sockets_run_without_nagle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
