/*
 * gen_ctrl_corpus.c - write the seed corpus of the control-channel fuzz
 * target: valid messages of every type (made by the project's encoders) and
 * malformed ones (made byte by byte), one small file each.
 *
 *   gen_ctrl_corpus DIR
 *
 * File names say what the replay test (tests/unit/test_ctrl_corpus.c)
 * expects:
 *   ok-TYPE-WHAT    decodes, respects every cap, re-encodes to the same bytes
 *   bad-WHAT        refused with a message (-1)
 *   stream-WHAT     several messages back to back or cut mid-way: for the
 *                   receive path (ctrl_recv); the pure decoder may refuse it
 * Files the fuzzer adds (named by content hash) only have to decode cleanly.
 * Run by `make fuzz-corpus`; the output is committed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "options.h"
#include "seq.h"

static const char *dir;
static int nfiles;

static void write_file(const char *name, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f)) {
		fprintf(stderr, "gen_ctrl_corpus: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	nfiles++;
}

/* A byte builder for hand-made (often malformed) messages. */
struct bb {
	uint8_t b[4096];
	size_t n;
};

static void bb_u8(struct bb *b, uint8_t v) { b->b[b->n++] = v; }
static void bb_u16(struct bb *b, uint16_t v) { bb_u8(b, (uint8_t)(v >> 8)); bb_u8(b, (uint8_t)v); }
static void bb_u32(struct bb *b, uint32_t v) { bb_u16(b, (uint16_t)(v >> 16)); bb_u16(b, (uint16_t)v); }
static void bb_u64(struct bb *b, uint64_t v) { bb_u32(b, (uint32_t)(v >> 32)); bb_u32(b, (uint32_t)v); }
static void bb_bytes(struct bb *b, const void *p, size_t n) { memcpy(b->b + b->n, p, n); b->n += n; }

static void bb_hdr(struct bb *b, uint32_t magic, uint16_t ver, uint16_t type, uint32_t plen)
{
	b->n = 0;
	bb_u32(b, magic);
	bb_u16(b, ver);
	bb_u16(b, type);
	bb_u32(b, plen);
}

/* Patch the header's payload length to what follows it. */
static void bb_fix_len(struct bb *b)
{
	uint32_t plen = (uint32_t)(b->n - CTRL_HDR_LEN);
	b->b[8] = (uint8_t)(plen >> 24);
	b->b[9] = (uint8_t)(plen >> 16);
	b->b[10] = (uint8_t)(plen >> 8);
	b->b[11] = (uint8_t)plen;
}

static void bb_write(const char *name, const struct bb *b) { write_file(name, b->b, b->n); }

/* A SETUP's 64 fixed bytes with the given fields. */
static void bb_setup_fixed(struct bb *b, uint8_t port, uint8_t ll, uint8_t gt, uint8_t r8,
			   uint16_t r16, uint32_t mtu, uint64_t addr, uint64_t len, uint32_t nqp)
{
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1 };
	bb_u8(b, port);
	bb_u8(b, ll);
	bb_u8(b, gt);
	bb_u8(b, r8);
	bb_u32(b, 1);        /* gid_index */
	bb_u16(b, 0);        /* lid */
	bb_u16(b, r16);
	bb_bytes(b, gid, 16);
	bb_u32(b, mtu);
	bb_u32(b, 128);
	bb_u32(b, 128);
	bb_u64(b, addr);
	bb_u32(b, 0x1234);   /* rkey */
	bb_u32(b, 0x11111111);
	bb_u64(b, len);
	bb_u64(b, 0x0123456789abcdefull);  /* nonce */
	bb_u32(b, nqp);
}

/* DONE's tail after its u64 fields: checked, an empty note, no server
 * counters (ctr_span_ns 0, nctr 0) and foreign_recvs 0; the length fixed */
static void bb_done_tail(struct bb *b, uint32_t checked)
{
	bb_u32(b, checked);
	bb_u16(b, 0);
	bb_u64(b, 0); /* ctr_span_ns */
	bb_u16(b, 0); /* nctr */
	bb_u64(b, 0); /* foreign_recvs */
	bb_fix_len(b);
}

static struct rb_test test_point(uint64_t verb, uint64_t transport, uint64_t kind, uint64_t size)
{
	struct rb_test t;

	test_defaults(&t);
	t.verb = verb;
	t.transport = transport;
	t.test = kind;
	t.size = size;
	t.iters = 1000;
	test_resolve_defaults(&t, NULL);
	return t;
}

static void put_test(const char *name, const struct rb_test *t)
{
	uint8_t buf[CTRL_HDR_LEN + RB_TEST_NFIELDS * 8];
	size_t n = ctrl_encode_test(buf, sizeof(buf), t);

	if (!n) {
		fprintf(stderr, "gen_ctrl_corpus: encoding %s failed\n", name);
		exit(1);
	}
	write_file(name, buf, n);
}

static void valid_messages(void)
{
	uint8_t buf[8192];
	size_t n;
	struct ctrl_hello h = { .proc_index = 3, .pid = 4242 };
	struct ctrl_setup s = {
		.port = 1, .link_layer = 2, .gid_type = 2, .gid_index = 1, .lid = 0,
		.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1 },
		.active_mtu = 1024, .max_qp_rd_atom = 128, .max_qp_init_rd_atom = 128,
		.buf_addr = 0x7f0000001000ull, .rkey = 0xabcd, .qkey = 0x11111111,
		.buf_len = 1u << 20,
	};
	struct ctrl_qp_ep qps[8];
	struct ctrl_done d = { .ops = 1000, .sends = 1000, .checked = 1 };
	struct rb_test t;
	char reason[CTRL_REASON_CAP + 1];

	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("ok-hello-empty-strings", buf, n);
	snprintf(h.host, sizeof(h.host), "client-01.example");
	snprintf(h.run_id, sizeof(h.run_id), "run-20240101");
	snprintf(h.device, sizeof(h.device), "rxe0");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("ok-hello-typical", buf, n);
	memset(h.host, 'h', CTRL_STR_CAP);
	memset(h.run_id, 'r', CTRL_STR_CAP);
	memset(h.device, 'd', CTRL_STR_CAP);
	h.proc_index = UINT64_MAX;
	h.pid = UINT32_MAX;
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("ok-hello-strings-at-cap", buf, n);
	snprintf(h.token, sizeof(h.token), "0123456789abcdef0123456789abcdef");
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("ok-hello-with-token", buf, n);
	memset(h.token, 't', CTRL_TOKEN_CAP);
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("ok-hello-token-at-cap", buf, n);
	n = ctrl_encode_error(buf, sizeof(buf), "line one\nERROR forged\x1b[2J");
	write_file("ok-error-reason-with-control-bytes", buf, n);  /* decoded with '?' */
	memset(h.token, 0, sizeof(h.token));

	t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);
	put_test("ok-test-write-rc-bw", &t);
	t = test_point(RB_VERB_READ, RB_TR_RC, RB_TEST_LAT, 4096);
	put_test("ok-test-read-rc-lat", &t);
	t = test_point(RB_VERB_SEND, RB_TR_UD, RB_TEST_BW, 1024);
	t.mtu = 1024;
	put_test("ok-test-send-ud-bw", &t);
	t = test_point(RB_VERB_FETCH_ADD, RB_TR_RC, RB_TEST_BW, 8);
	t.atomic_counters = 1024;
	t.stride = 8;
	t.access = RB_ACCESS_RANDOM;
	put_test("ok-test-fetch-add-counters", &t);
	t = test_point(RB_VERB_SEND_IMM, RB_TR_UC, RB_TEST_BW, 0);
	t.iters = 0;
	t.duration_ms = 2000;
	put_test("ok-test-send-imm-uc-duration", &t);

	for (uint32_t i = 0; i < 8; i++)
		qps[i] = (struct ctrl_qp_ep){ .qpn = 0x11 + i, .psn = (0xabcdefu * (i + 1)) & 0xffffff };
	s.nqp = 0;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, qps);
	write_file("ok-setup-no-qps", buf, n);
	s.nqp = 1;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, qps);
	write_file("ok-setup-one-qp", buf, n);
	s.nqp = 8;
	s.link_layer = 1;
	s.gid_type = 0;
	s.lid = 7;
	s.active_mtu = 4096;
	n = ctrl_encode_setup(buf, sizeof(buf), &s, qps);
	write_file("ok-setup-eight-qps-ib", buf, n);

	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_READY);
	write_file("ok-ready", buf, n);
	n = ctrl_encode_empty(buf, sizeof(buf), CTRL_BYE);
	write_file("ok-bye", buf, n);

	n = ctrl_encode_done(buf, sizeof(buf), &d);
	write_file("ok-done-client", buf, n);
	d = (struct ctrl_done){ .recvs = 999, .bad_payloads = 1, .counter_sum = 42,
				.active_ns = 123456789, .arrive_ns = 5000000000ull,
				.send_ns = 5000250000ull, .checked = 2 };
	memset(d.note, 'n', CTRL_REASON_CAP);
	n = ctrl_encode_done(buf, sizeof(buf), &d);
	write_file("ok-done-note-at-cap", buf, n);

	struct ctrl_gate g = { .point = 3, .procs = 4, .go_us = 12000 };
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	write_file("ok-gate", buf, n);
	g = (struct ctrl_gate){ .point = UINT64_MAX, .procs = CTRL_MAX_PROCS, .go_us = UINT32_MAX };
	n = ctrl_encode_gate(buf, sizeof(buf), &g);
	write_file("ok-gate-at-caps", buf, n);
	struct ctrl_go go = { .arrive_ns = 5000000000ull, .release_ns = 5000000000ull,
			      .start_ns = 5100000000ull, .procs = 2 };
	n = ctrl_encode_go(buf, sizeof(buf), &go);
	write_file("ok-go-last-arrival", buf, n);
	go = (struct ctrl_go){ .arrive_ns = 1000, .release_ns = UINT64_MAX, .start_ns = UINT64_MAX,
			       .procs = 4 };
	n = ctrl_encode_go(buf, sizeof(buf), &go);
	write_file("ok-go-waited", buf, n);
	n = ctrl_encode_time(buf, sizeof(buf), 0);
	write_file("ok-time-probe", buf, n);
	n = ctrl_encode_time(buf, sizeof(buf), UINT64_MAX);
	write_file("ok-time-max", buf, n);

	n = ctrl_encode_error(buf, sizeof(buf), "--size 9000 with --transport ud: above MTU 1024");
	write_file("ok-error-reason", buf, n);
	n = ctrl_encode_error(buf, sizeof(buf), "");
	write_file("ok-error-empty-reason", buf, n);
	memset(reason, 'e', CTRL_REASON_CAP);
	reason[CTRL_REASON_CAP] = '\0';
	n = ctrl_encode_error(buf, sizeof(buf), reason);
	write_file("ok-error-reason-at-cap", buf, n);
}

/*
 * TEST points that decode and that test_validate() accepts, but that no
 * client command line can produce: the server must refuse them (see the
 * test-caps and layout checks in ctrl_check.h).
 */
static void wire_only_tests(void)
{
	struct rb_test t;

	/* qps_per_thread x emulated_peers = 3 x (inverse of 3 mod 2^64) = 1 */
	t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);
	t.qps_per_thread = 3;
	t.emulated_peers = UINT64_C(0xAAAAAAAAAAAAAAAB);
	t.window = 64;
	t.signal_interval = 16;
	put_test("ok-test-wire-qp-product-wraps", &t);

	t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);
	t.timeout_ms = UINT64_MAX;
	put_test("ok-test-wire-timeout-huge", &t);

	t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);
	t.iters = 0;
	t.duration_ms = UINT64_MAX / 2;
	t.warmup_ms = UINT64_MAX / 2;
	put_test("ok-test-wire-duration-huge", &t);

	t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);
	t.iters = UINT64_MAX;
	put_test("ok-test-wire-iters-huge", &t);

	/* 262144 QPs x (1 GiB send slot + 65536 x 1 GiB receive slots) wraps */
	t = test_point(RB_VERB_SEND, RB_TR_RC, RB_TEST_BW, RB_MAX_SIZE);
	t.threads = 4;
	t.qps_per_thread = 65536;
	t.rq_depth = 65536;
	t.window = 64;
	t.signal_interval = 1;
	put_test("ok-test-wire-layout-wraps", &t);
}

static void malformed_messages(void)
{
	struct bb b;
	uint8_t buf[8192];
	size_t n;
	struct ctrl_hello h = { .proc_index = 1, .pid = 2 };
	struct rb_test t = test_point(RB_VERB_WRITE, RB_TR_RC, RB_TEST_BW, 64);

	/* header */
	write_file("bad-empty", buf, 0);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_READY, 0);
	b.n = CTRL_HDR_LEN - 1;
	bb_write("bad-header-cut-11-bytes", &b);
	bb_hdr(&b, 0x47455420, CTRL_VERSION, CTRL_READY, 0); /* "GET " */
	bb_write("bad-magic-http", &b);
	bb_hdr(&b, 0x31434252, CTRL_VERSION, CTRL_READY, 0); /* magic little-endian */
	bb_write("bad-magic-byte-swapped", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION + 1, CTRL_READY, 0);
	bb_write("bad-version-next", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION - 1, CTRL_READY, 0);
	bb_write("bad-version-previous", &b);
	bb_hdr(&b, CTRL_MAGIC, 0, CTRL_READY, 0);
	bb_write("bad-version-0", &b);
	bb_hdr(&b, CTRL_MAGIC, 0x0100, CTRL_READY, 0); /* version little-endian */
	bb_write("bad-version-byte-swapped", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, 0, 0);
	bb_write("bad-type-0", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_TYPE_LAST + 1, 0);
	bb_write("bad-type-after-last", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, 0xffff, 0);
	bb_write("bad-type-ffff", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, CTRL_MAX_PAYLOAD + 1);
	bb_write("bad-oversized-length-header-only", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_ERROR, UINT32_MAX);
	bb_u16(&b, 2);
	bb_bytes(&b, "hi", 2);
	bb_write("bad-length-ffffffff", &b);

	/* payload length vs bytes present */
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	write_file("bad-hello-cut-mid-payload", buf, n - 3);
	buf[n] = 0;
	write_file("bad-hello-trailing-byte", buf, n + 1);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_READY, 1);
	bb_u8(&b, 0);
	bb_write("bad-ready-with-payload", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_BYE, 4);
	bb_write("bad-bye-length-without-bytes", &b);

	/* HELLO strings */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, CTRL_STR_CAP + 1);
	memset(b.b + b.n, 'x', CTRL_STR_CAP + 1);
	b.n += CTRL_STR_CAP + 1;
	bb_u16(&b, 0);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-hello-host-above-cap", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, 3);
	bb_bytes(&b, "a\0b", 3);
	bb_u16(&b, 0);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-hello-host-with-nul", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, 9);
	bb_bytes(&b, "a\nINFO ok", 9);   /* a forged log line */
	bb_u16(&b, 0);
	bb_u16(&b, 0);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-hello-host-with-newline", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, 0);
	bb_u16(&b, 4);
	bb_bytes(&b, "r\x1b[m", 4);      /* a terminal escape in the run id */
	bb_u16(&b, 0);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-hello-run-id-with-escape", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, CTRL_HELLO_MAX + 1);
	bb_write("bad-hello-header-above-its-limit", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, 40);      /* claims 40 bytes, 4 follow */
	bb_bytes(&b, "host", 4);
	bb_fix_len(&b);
	bb_write("bad-hello-string-longer-than-payload", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_HELLO, 0);
	bb_u64(&b, 1);
	bb_u32(&b, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-hello-missing-strings", &b);

	/* TEST length */
	n = ctrl_encode_test(buf, sizeof(buf), &t);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_TEST, 0);
	bb_bytes(&b, buf + CTRL_HDR_LEN, n - CTRL_HDR_LEN - 8);
	bb_fix_len(&b);
	bb_write("bad-test-one-field-short", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_TEST, 0);
	bb_bytes(&b, buf + CTRL_HDR_LEN, n - CTRL_HDR_LEN);
	bb_u64(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-test-one-field-long", &b);

	/* SETUP */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 3);
	bb_u64(&b, 0x0000001100000001ull);
	bb_u64(&b, 0x0000001200000002ull);
	bb_fix_len(&b);
	bb_write("bad-setup-nqp-3-with-2-qps", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 1);
	bb_u64(&b, 0x0000001100000001ull);
	bb_u64(&b, 0x0000001200000002ull);
	bb_fix_len(&b);
	bb_write("bad-setup-nqp-1-with-2-qps", &b);
	/* found by fuzzing: QP list 4 bytes short of nqp x 8 (the fixed part
	 * was once counted as 64 bytes, and the last QP read ran past the end) */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 2);
	bb_u64(&b, 0x0000001100000001ull);
	bb_u32(&b, 0x12);
	bb_fix_len(&b);
	bb_write("bad-setup-qp-list-4-bytes-short", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, CTRL_MAX_QPS + 1);
	bb_fix_len(&b);
	bb_write("bad-setup-nqp-above-cap", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, UINT32_MAX);
	bb_fix_len(&b);
	bb_write("bad-setup-nqp-ffffffff", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 0);
	b.n -= 1;
	bb_fix_len(&b);
	bb_write("bad-setup-fixed-part-cut", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 1, 0, 1024, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-reserved8-set", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0x8000, 1024, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-reserved16-set", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 0, 2, 2, 0, 0, 1024, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-port-0", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 3, 2, 0, 0, 1024, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-link-layer-3", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 3, 0, 0, 1024, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-gid-type-3", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1500, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-mtu-1500", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 8192, 0x1000, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-mtu-8192", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, UINT64_MAX - 100, 4096, 0);
	bb_fix_len(&b);
	bb_write("bad-setup-buffer-wraps", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 1);
	bb_u32(&b, 0x11);
	bb_u32(&b, 1u << 24);
	bb_fix_len(&b);
	bb_write("bad-setup-psn-25-bits", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_SETUP, 0);
	bb_setup_fixed(&b, 1, 2, 2, 0, 0, 1024, 0x1000, 4096, 2);
	bb_u32(&b, 0x11);
	bb_u32(&b, 1);
	bb_u32(&b, 0xffffffff);
	bb_u32(&b, 2);
	bb_fix_len(&b);
	bb_write("bad-setup-qpn-32-bits-second", &b);

	/* GATE and GO (start barrier) */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GATE, 0);
	bb_u64(&b, 0);
	bb_u32(&b, 1);
	bb_u32(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-gate-procs-1", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GATE, 0);
	bb_u64(&b, 0);
	bb_u32(&b, CTRL_MAX_PROCS + 1);
	bb_u32(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-gate-procs-above-max", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GATE, 0);
	bb_u64(&b, 7);
	bb_u32(&b, 2);
	bb_fix_len(&b);
	bb_write("bad-gate-cut-before-go-us", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GATE, 0);
	bb_u64(&b, 7);
	bb_fix_len(&b);
	bb_write("bad-gate-cut-before-procs", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GO, 0);
	bb_u64(&b, 2000);
	bb_u64(&b, 1000);
	bb_u64(&b, 3000);
	bb_u32(&b, 4);
	bb_fix_len(&b);
	bb_write("bad-go-arrive-after-release", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GO, 0);
	bb_u64(&b, 1000);
	bb_u64(&b, 3000);
	bb_u64(&b, 2000);
	bb_u32(&b, 4);
	bb_fix_len(&b);
	bb_write("bad-go-release-after-start", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_GO, 0);
	bb_u64(&b, 1000);
	bb_u64(&b, 2000);
	bb_u64(&b, 3000);
	bb_u32(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-go-procs-0", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_TIME, 0);
	bb_u32(&b, 7);
	bb_fix_len(&b);
	bb_write("bad-time-cut-at-4-bytes", &b);

	/* DONE and ERROR */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_DONE, 0);
	for (int i = 0; i < 9; i++)
		bb_u64(&b, (uint64_t)i);
	bb_done_tail(&b, 3);
	bb_write("bad-done-checked-3", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_DONE, 0);
	for (int i = 0; i < 9; i++)
		bb_u64(&b, (uint64_t)i);
	bb_u32(&b, 1);
	/* a note long enough that the message is above DONE's own limit
	 * (CTRL_DONE_MAX: the note's cap plus the most counters) */
	bb_u16(&b, CTRL_DONE_MAX);
	memset(b.b + b.n, 'n', CTRL_DONE_MAX);
	b.n += CTRL_DONE_MAX;
	bb_fix_len(&b);
	bb_write("bad-done-note-above-cap", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_DONE, 0);
	for (int i = 0; i < 3; i++)
		bb_u64(&b, (uint64_t)i);
	bb_fix_len(&b);
	bb_write("bad-done-cut-after-3-counters", &b);
	/* the server's DONE sent (8) before the client's arrived (9) */
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_DONE, 0);
	for (int i = 0; i < 7; i++)
		bb_u64(&b, (uint64_t)i);
	bb_u64(&b, 9);
	bb_u64(&b, 8);
	bb_done_tail(&b, 1);
	bb_write("bad-done-sent-before-arrival", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_ERROR, 0);
	bb_u16(&b, CTRL_REASON_CAP + 1);
	memset(b.b + b.n, 'e', CTRL_REASON_CAP + 1);
	b.n += CTRL_REASON_CAP + 1;
	bb_fix_len(&b);
	bb_write("bad-error-reason-above-cap", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_ERROR, 0);
	bb_u16(&b, 5);
	bb_bytes(&b, "ab\0cd", 5);
	bb_fix_len(&b);
	bb_write("bad-error-reason-with-nul", &b);
	bb_hdr(&b, CTRL_MAGIC, CTRL_VERSION, CTRL_ERROR, 0);
	bb_fix_len(&b);
	bb_write("bad-error-no-reason", &b);
}

/* A CPU message's bytes before its reason: span, threads, the events
 * (state, value), the ticks. */
static void bb_cpu_fixed(struct bb *b, uint32_t threads, uint8_t state0, uint64_t value0,
			 uint32_t ncpus, uint64_t busy, uint64_t total)
{
	bb_hdr(b, CTRL_MAGIC, CTRL_VERSION, CTRL_CPU, 0);
	bb_u64(b, 1000000000ull);
	bb_u32(b, threads);
	bb_u8(b, state0);
	bb_u64(b, value0);
	for (int i = 1; i < PC_NEVENTS; i++) {
		bb_u8(b, 0);
		bb_u64(b, 0);
	}
	bb_u32(b, ncpus);
	bb_u64(b, busy);   /* user */
	bb_u64(b, 0);
	bb_u64(b, 0);
	bb_u64(b, busy);   /* softirq */
	bb_u64(b, total);
}

/* CPU (the server's counters): valid ones from the encoder, and each of
 * the decoder's refusals made byte by byte. */
static void cpu_messages(void)
{
	uint8_t buf[1024];
	struct bb b;
	struct ctrl_cpu c = { .span_ns = 1500000000ull, .threads = 2,
			      .stat = { .ncpus = 2, .user = 10, .system = 20, .irq = 3,
					.softirq = 60, .total = 200 } };

	c.state[PC_TASK_CLOCK] = CTRL_CPU_STATE_COUNTED;
	c.value[PC_TASK_CLOCK] = 1400000000ull;
	c.state[PC_CTX_SWITCHES] = CTRL_CPU_STATE_COUNTED | CTRL_CPU_STATE_USER_ONLY;
	c.value[PC_CTX_SWITCHES] = 17;
	snprintf(c.reason, sizeof(c.reason), "cycles: not offered by this CPU's PMU");
	write_file("ok-cpu-software-only", buf, ctrl_encode_cpu(buf, sizeof(buf), &c));
	for (int i = 0; i < PC_NEVENTS; i++) {
		c.state[i] = CTRL_CPU_STATE_COUNTED | CTRL_CPU_STATE_SCALED;
		c.value[i] = UINT64_MAX;
	}
	c.threads = RB_MAX_THREADS + 1;
	c.stat = (struct cs_delta){ .ncpus = CTRL_CPU_MAX_CPUS, .user = UINT64_MAX / 4,
				    .system = UINT64_MAX / 4, .irq = UINT64_MAX / 4,
				    .softirq = UINT64_MAX / 4, .total = UINT64_MAX };
	memset(c.reason, 'r', CTRL_CPU_REASON_CAP);
	write_file("ok-cpu-at-caps", buf, ctrl_encode_cpu(buf, sizeof(buf), &c));
	c = (struct ctrl_cpu){ .threads = 1 };
	snprintf(c.reason, sizeof(c.reason), "line\nCPU forged\x1b[2J");
	write_file("ok-cpu-nothing-counted-reason-escaped", buf, ctrl_encode_cpu(buf, sizeof(buf), &c));

	bb_cpu_fixed(&b, 0, 1, 5, 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-threads-0", &b);
	bb_cpu_fixed(&b, RB_MAX_THREADS + 2, 1, 5, 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-threads-above-max", &b);
	bb_cpu_fixed(&b, 1, 8, 5, 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-state-8", &b);
	bb_cpu_fixed(&b, 1, 0, 5, 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-uncounted-with-value", &b);
	bb_cpu_fixed(&b, 1, 2, 0, 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-uncounted-but-scaled", &b);
	bb_cpu_fixed(&b, 1, 1, 5, CTRL_CPU_MAX_CPUS + 1, 1, 2);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-ncpus-above-cap", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 0, 0, 7);
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-ticks-without-cpus", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, 2, 3);   /* user 2 + softirq 2 > total 3 */
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-busy-above-total", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, UINT64_MAX / 2 + 1, UINT64_MAX);  /* the sum wraps */
	bb_u16(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-busy-sum-wraps", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, 1, 2);
	bb_u16(&b, CTRL_CPU_REASON_CAP + 1);
	memset(b.b + b.n, 'r', CTRL_CPU_REASON_CAP + 1);
	b.n += CTRL_CPU_REASON_CAP + 1;
	bb_fix_len(&b);
	bb_write("bad-cpu-reason-above-cap", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, 1, 2);
	bb_u16(&b, 3);
	bb_bytes(&b, "a\0b", 3);
	bb_fix_len(&b);
	bb_write("bad-cpu-reason-with-nul", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, 1, 2);
	b.n -= 8;
	bb_fix_len(&b);
	bb_write("bad-cpu-cut-in-ticks", &b);
	bb_cpu_fixed(&b, 1, 1, 5, 1, 1, 2);
	bb_u16(&b, 0);
	bb_u8(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-cpu-trailing-byte", &b);
}

/* A CONFIG header and fixed part by hand (bb_fix_len after the fields). */
static void bb_config_fixed(struct bb *b, uint16_t program, uint16_t version, uint32_t nfields)
{
	bb_hdr(b, CTRL_MAGIC, CTRL_VERSION, CTRL_CONFIG, 0);
	bb_u16(b, program);
	bb_u16(b, version);
	bb_u32(b, nfields);
}

/* rdma_seq's CONFIG (seq.h, SEQ_CFG_FIELDS): one per variant as its client
 * sends it, one its server refuses by value, and malformed shapes. */
static void config_messages(void)
{
	uint8_t buf[CTRL_HDR_LEN + CTRL_CONFIG_FIXED + CTRL_CONFIG_MAX_FIELDS * 8];
	struct ctrl_config cfg;
	struct seq_cfg c;
	struct bb b;
	char name[64];

	for (uint64_t v = 0; v < SEQ_VARIANT_COUNT; v++) {
		seq_cfg_defaults(&c);
		c.variant = v;
		if (v == SEQ_ATOMICS || v == SEQ_DRTM_KV)
			c.server_threads = 0;
		if (v == SEQ_HERD_KV) {
			c.kv.zipf = 1;
			c.kv.get_fraction = 0.5;
		}
		if (v == SEQ_DRTM_KV) {
			c.drtm.put_fraction = 0.25;
			c.drtm.put_writes = 1;
		}
		seq_cfg_to_config(&c, &cfg);
		snprintf(name, sizeof(name), "ok-config-seq-%s", seq_variant_name(v));
		write_file(name, buf, ctrl_encode_config(buf, sizeof(buf), &cfg));
	}
	/* decodes (the shape is right), refused by rdma_seq's checks */
	seq_cfg_defaults(&c);
	seq_cfg_to_config(&c, &cfg);
	cfg.f[4] = 7;   /* batch */
	write_file("ok-config-seq-refused-batch-7", buf, ctrl_encode_config(buf, sizeof(buf), &cfg));
	seq_cfg_to_config(&c, &cfg);
	cfg.version = SEQ_CFG_VERSION + 1;
	write_file("ok-config-seq-refused-version", buf, ctrl_encode_config(buf, sizeof(buf), &cfg));
	seq_cfg_to_config(&c, &cfg);
	cfg.nfields = CTRL_CONFIG_MAX_FIELDS;
	write_file("ok-config-seq-refused-at-field-cap", buf,
		   ctrl_encode_config(buf, sizeof(buf), &cfg));

	bb_config_fixed(&b, CTRL_PROG_RDMA_BENCH, 1, 1);
	bb_u64(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-config-program-rdma-bench", &b);
	bb_config_fixed(&b, CTRL_PROG_LAST + 1, 1, 1);
	bb_u64(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-config-program-unassigned", &b);
	bb_config_fixed(&b, 0, 1, 1);
	bb_u64(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-config-program-0", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 0, 1);
	bb_u64(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-config-version-0", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 1, 0);
	bb_fix_len(&b);
	bb_write("bad-config-no-fields", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 1, CTRL_CONFIG_MAX_FIELDS + 1);
	for (unsigned i = 0; i < CTRL_CONFIG_MAX_FIELDS; i++)
		bb_u64(&b, i);
	bb_fix_len(&b);
	bb_write("bad-config-fields-above-cap", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 1, 3);
	bb_u64(&b, 1);
	bb_u64(&b, 2);
	bb_fix_len(&b);
	bb_write("bad-config-fields-2-of-3", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 1, 1);
	bb_u64(&b, 1);
	bb_u8(&b, 0);
	bb_fix_len(&b);
	bb_write("bad-config-trailing-byte", &b);
	bb_config_fixed(&b, CTRL_PROG_RDMA_SEQ, 1, 1);
	b.n -= 2;
	bb_fix_len(&b);
	bb_write("bad-config-cut-in-count", &b);
}

/* Streams for the receive path: messages back to back, cut, or garbage after. */
static void streams(void)
{
	uint8_t buf[8192];
	size_t n = 0;
	struct ctrl_hello h = { .proc_index = 0, .pid = 1 };
	struct rb_test t = test_point(RB_VERB_READ, RB_TR_RC, RB_TEST_BW, 64);

	snprintf(h.host, sizeof(h.host), "c");
	n += ctrl_encode_hello(buf + n, sizeof(buf) - n, &h);
	n += ctrl_encode_test(buf + n, sizeof(buf) - n, &t);
	n += ctrl_encode_empty(buf + n, sizeof(buf) - n, CTRL_BYE);
	write_file("stream-hello-test-bye", buf, n);
	write_file("stream-hello-test-cut", buf, n - CTRL_HDR_LEN - 20);
	memcpy(buf + n, "GET / HTTP/1.0\r\n\r\n", 18);
	write_file("stream-bye-then-http", buf, n + 18);
	n = ctrl_encode_error(buf, sizeof(buf), "server: no ACTIVE port");
	n += ctrl_encode_empty(buf + n, sizeof(buf) - n, CTRL_READY);
	write_file("stream-error-then-ready", buf, n);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_ctrl_corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	valid_messages();
	wire_only_tests();
	malformed_messages();
	cpu_messages();
	config_messages();
	streams();
	printf("gen_ctrl_corpus: wrote %d files to %s\n", nfiles, dir);
	return 0;
}
