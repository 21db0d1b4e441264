/*
 * ctrl_check.h - invariants of the control-channel decoder, shared by the
 * fuzz target (tests/fuzz/fuzz_ctrl.c) and the corpus replay unit test
 * (tests/unit/test_ctrl_corpus.c).
 *
 * How it works: each check takes one input (the raw bytes) and returns NULL
 * when every invariant holds, or a message naming the one that broke. The
 * fuzz target aborts on a message; the unit test fails the case with it.
 * Checks are named ("decode", "roundtrip", "test-caps", "layout") so a
 * fuzzing run can leave out a check whose bug is already reported
 * (RB_FUZZ_SKIP=test-caps,layout) and keep looking for new ones.
 *
 *   decode     ctrl_decode_header/ctrl_decode return 0, or -1 with a
 *              non-empty NUL-terminated message that stays inside errlen;
 *              a decoded message respects the caps of ctrl.h (string
 *              lengths, QP count, 24-bit QPN/PSN, MTU, checked flag).
 *   roundtrip  a decoded message re-encodes to the same bytes (the wire
 *              format has one encoding per message).
 *   test-caps  a TEST that test_validate() accepts (what the server checks
 *              on every TEST it receives) stays inside the ranges the client
 *              command line accepts: the wire must not reach further than
 *              the command line.
 *   layout     for such a TEST, layout_compute() covers every QP region
 *              without unsigned wrap (the server allocates and fills
 *              lay.total bytes).
 *   config     a CONFIG of rdma_seq (seq.h) goes through what its server
 *              runs on it (seq_cfg_from_config, seq_cfg_validate): 0, or -1
 *              with a message; one both accept re-encodes to the same
 *              fields through seq_cfg (no field is lost or rounded). Every
 *              program that sends CONFIG gets such a check here.
 */
#ifndef RDMA_BENCH_CTRL_CHECK_H
#define RDMA_BENCH_CTRL_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "ctx.h"
#include "options.h"
#include "seq.h"

#define CC_ERRLEN    512u   /* the err buffer every check passes */
#define CC_SMALL_ERR 16u    /* a short err buffer: messages must be cut, not overrun */

struct cc_result {
	int rc;              /* ctrl_decode's return */
	uint16_t type;       /* decoded type (rc == 0) */
	bool test_valid;     /* TEST accepted by test_validate */
	bool config_valid;   /* CONFIG accepted by its program's checks */
	char err[CC_ERRLEN]; /* decoder's message (rc == -1) */
	char why[768];       /* the broken invariant, "" if none */
};

static inline bool cc_skipped(const char *skip, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = skip; p && *p; p++) {
		if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ','))
			return true;
		p = strchr(p, ',');
		if (!p)
			break;
	}
	return false;
}

static inline int cc_fail(struct cc_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int cc_fail(struct cc_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -1;
}

static inline bool cc_in(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v >= lo && v <= hi;
}

static inline bool cc_mtu_ok(uint64_t m)
{
	return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096;
}

/* The message must be non-empty (when there is room), terminated inside
 * errlen, and nothing past errlen written (canary). */
static inline int cc_check_err(struct cc_result *r, const char *who, const char *err,
			       size_t errlen, size_t bufsize)
{
	if (!memchr(err, '\0', errlen))
		return cc_fail(r, "%s: error message not NUL-terminated inside errlen %zu", who,
			       errlen);
	if (errlen >= 2 && err[0] == '\0')
		return cc_fail(r, "%s returned -1 with an empty error message", who);
	for (size_t i = errlen; i < bufsize; i++)
		if ((unsigned char)err[i] != 0xA5)
			return cc_fail(r, "%s wrote past errlen %zu (byte %zu)", who, errlen, i);
	return 0;
}

/* A byte below 0x20 or 0x7f (what peer strings must never carry into logs). */
static inline int cc_has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return 1;
	return 0;
}

/* Caps of ctrl.h on a decoded message. */
static inline int cc_check_fields(struct cc_result *r, const uint8_t *buf, size_t len,
				  const struct ctrl_msg *m)
{
	if (m->type < CTRL_HELLO || m->type > CTRL_TYPE_LAST)
		return cc_fail(r, "decoded type %u outside 1..CTRL_TYPE_LAST", m->type);
	if ((size_t)m->len + CTRL_HDR_LEN != len)
		return cc_fail(r, "decoded len %u + header != input length %zu", m->len, len);
	if (m->len > CTRL_MAX_PAYLOAD)
		return cc_fail(r, "decoded len %u above CTRL_MAX_PAYLOAD", m->len);
	if (m->len > ctrl_max_payload(m->type))
		return cc_fail(r, "decoded len %u above the %s limit %u", m->len,
			       ctrl_type_name(m->type), ctrl_max_payload(m->type));
	switch (m->type) {
	case CTRL_HELLO:
		if (strlen(m->u.hello.host) > CTRL_STR_CAP || strlen(m->u.hello.run_id) > CTRL_STR_CAP ||
		    strlen(m->u.hello.device) > CTRL_STR_CAP)
			return cc_fail(r, "HELLO string above CTRL_STR_CAP");
		if (strlen(m->u.hello.token) > CTRL_TOKEN_CAP)
			return cc_fail(r, "HELLO token above CTRL_TOKEN_CAP");
		if (cc_has_ctl(m->u.hello.host) || cc_has_ctl(m->u.hello.run_id) ||
		    cc_has_ctl(m->u.hello.device) || cc_has_ctl(m->u.hello.token))
			return cc_fail(r, "HELLO string with a control byte accepted");
		break;
	case CTRL_SETUP: {
		const struct ctrl_setup *s = &m->u.setup;
		if (s->port == 0 || s->link_layer < 1 || s->link_layer > 2 || s->gid_type > 2)
			return cc_fail(r, "SETUP port/link_layer/gid_type out of range: %u/%u/%u",
				       s->port, s->link_layer, s->gid_type);
		if (!cc_mtu_ok(s->active_mtu))
			return cc_fail(r, "SETUP active_mtu %u accepted", s->active_mtu);
		if (s->nqp > CTRL_MAX_QPS)
			return cc_fail(r, "SETUP nqp %u above CTRL_MAX_QPS", s->nqp);
		if (ctrl_setup_size(s->nqp) != len)
			return cc_fail(r, "SETUP nqp %u needs %zu bytes, input has %zu", s->nqp,
				       ctrl_setup_size(s->nqp), len);
		if (s->nqp && s->qps != buf + CTRL_HDR_LEN + CTRL_SETUP_FIXED)
			return cc_fail(r, "SETUP qps pointer not at the QP list in the input");
		if (s->buf_len && s->buf_addr + s->buf_len < s->buf_addr)
			return cc_fail(r, "SETUP buffer wraps around");
		for (uint32_t i = 0; i < s->nqp; i++) {
			struct ctrl_qp_ep ep;
			ctrl_setup_qp(s, i, &ep);
			if (ep.qpn >= (1u << 24) || ep.psn >= (1u << 24))
				return cc_fail(r, "SETUP QP %u qpn 0x%x psn 0x%x above 24 bits", i,
					       ep.qpn, ep.psn);
		}
		break;
	}
	case CTRL_DONE:
		if (m->u.done.checked > 2)
			return cc_fail(r, "DONE checked %u accepted", m->u.done.checked);
		if (strlen(m->u.done.note) > CTRL_REASON_CAP)
			return cc_fail(r, "DONE note above CTRL_REASON_CAP");
		if (m->u.done.send_ns < m->u.done.arrive_ns)
			return cc_fail(r, "DONE sent before the client's DONE arrived accepted");
		if (cc_has_ctl(m->u.done.note))
			return cc_fail(r, "DONE note keeps a control byte");
		break;
	case CTRL_ERROR:
		if (strlen(m->u.error.reason) > CTRL_REASON_CAP)
			return cc_fail(r, "ERROR reason above CTRL_REASON_CAP");
		if (cc_has_ctl(m->u.error.reason))
			return cc_fail(r, "ERROR reason keeps a control byte");
		break;
	case CTRL_GATE:
		if (m->u.gate.procs < 2 || m->u.gate.procs > CTRL_MAX_PROCS)
			return cc_fail(r, "GATE procs %u accepted", m->u.gate.procs);
		break;
	case CTRL_GO:
		if (m->u.go.procs < 2 || m->u.go.procs > CTRL_MAX_PROCS)
			return cc_fail(r, "GO procs %u accepted", m->u.go.procs);
		if (m->u.go.arrive_ns > m->u.go.release_ns || m->u.go.release_ns > m->u.go.start_ns)
			return cc_fail(r, "GO times out of order accepted");
		break;
	case CTRL_CPU: {
		const struct ctrl_cpu *c = &m->u.cpu;
		if (c->threads < 1 || c->threads > RB_MAX_THREADS + 1)
			return cc_fail(r, "CPU threads %u accepted", c->threads);
		for (int i = 0; i < PC_NEVENTS; i++)
			if (c->state[i] > 7 || (!(c->state[i] & CTRL_CPU_STATE_COUNTED) &&
						(c->state[i] || c->value[i])))
				return cc_fail(r, "CPU event %d state %u value %llu accepted", i,
					       c->state[i], (unsigned long long)c->value[i]);
		if (c->stat.ncpus > CTRL_CPU_MAX_CPUS)
			return cc_fail(r, "CPU ncpus %u accepted", c->stat.ncpus);
		if ((unsigned __int128)c->stat.user + c->stat.system + c->stat.irq +
		    c->stat.softirq > c->stat.total)
			return cc_fail(r, "CPU busy ticks above the total accepted");
		if (strlen(c->reason) > CTRL_CPU_REASON_CAP || cc_has_ctl(c->reason))
			return cc_fail(r, "CPU reason above its cap or with a control byte");
		break;
	}
	default:
		break;
	}
	return 0;
}

/* A CONFIG through its program's checks (rdma_seq: seq.h). */
static inline int cc_check_config(struct cc_result *r, const struct ctrl_config *c)
{
	char verr[CC_ERRLEN] = "";
	struct seq_cfg cfg;
	struct ctrl_config back;

	if (c->program != CTRL_PROG_RDMA_SEQ)
		return cc_fail(r, "CONFIG of program %u decoded: no program but rdma_seq sends one",
			       c->program);
	int rc = seq_cfg_from_config(c, &cfg, verr, sizeof(verr));
	if (!rc)
		rc = seq_cfg_validate(&cfg, 0, verr, sizeof(verr));
	if (rc != 0 && rc != -1)
		return cc_fail(r, "rdma_seq's CONFIG checks returned %d", rc);
	if (rc)
		return verr[0] ? 0 : cc_fail(r, "rdma_seq's CONFIG refused with an empty message");
	r->config_valid = true;
	seq_cfg_to_config(&cfg, &back);
	if (back.nfields != c->nfields || memcmp(back.f, c->f, c->nfields * sizeof(c->f[0])))
		return cc_fail(r, "an rdma_seq CONFIG its server accepts does not re-encode to the "
			       "same fields");
	return 0;
}

/* Re-encode a decoded message into exactly len bytes; must equal the input. */
static inline int cc_check_roundtrip(struct cc_result *r, const uint8_t *buf, size_t len,
				     const struct ctrl_msg *m)
{
	uint8_t *out = malloc(len + 1);
	struct ctrl_qp_ep *qps = NULL;
	size_t n = 0;
	int rc = 0;

	if (!out)
		return cc_fail(r, "out of memory");
	switch (m->type) {
	case CTRL_HELLO:
		n = ctrl_encode_hello(out, len, &m->u.hello);
		break;
	case CTRL_TEST:
		n = ctrl_encode_test(out, len, &m->u.test);
		break;
	case CTRL_SETUP:
		qps = malloc(((size_t)m->u.setup.nqp + 1) * sizeof(*qps));
		if (!qps) {
			free(out);
			return cc_fail(r, "out of memory");
		}
		for (uint32_t i = 0; i < m->u.setup.nqp; i++)
			ctrl_setup_qp(&m->u.setup, i, &qps[i]);
		n = ctrl_encode_setup(out, len, &m->u.setup, qps);
		break;
	case CTRL_DONE:
		n = ctrl_encode_done(out, len, &m->u.done);
		break;
	case CTRL_ERROR:
		n = ctrl_encode_error(out, len, m->u.error.reason);
		break;
	case CTRL_GATE:
		n = ctrl_encode_gate(out, len, &m->u.gate);
		break;
	case CTRL_GO:
		n = ctrl_encode_go(out, len, &m->u.go);
		break;
	case CTRL_TIME:
		n = ctrl_encode_time(out, len, m->u.time.ns);
		break;
	case CTRL_CPU:
		n = ctrl_encode_cpu(out, len, &m->u.cpu);
		break;
	case CTRL_CONFIG:
		n = ctrl_encode_config(out, len, &m->u.config);
		break;
	default:
		n = ctrl_encode_empty(out, len, m->type);
		break;
	}
	if (n != len)
		rc = cc_fail(r, "%s re-encodes to %zu bytes, input was %zu", ctrl_type_name(m->type),
			     n, len);
	else if (memcmp(out, buf, len) != 0) {
		/* ERROR, DONE and CPU text: a control byte of the input comes back as '?' */
		int escaped_only = m->type == CTRL_ERROR || m->type == CTRL_DONE ||
				   m->type == CTRL_CPU;
		for (size_t i = 0; i < len && escaped_only; i++)
			if (out[i] != buf[i] &&
			    !(out[i] == '?' && (buf[i] < 0x20 || buf[i] == 0x7f)))
				escaped_only = 0;
		if (!escaped_only)
			rc = cc_fail(r, "%s re-encodes to different bytes", ctrl_type_name(m->type));
	}
	/* An encoder given one byte less must refuse (return 0), not overrun. */
	if (!rc && len > 0) {
		size_t n2 = 0;
		switch (m->type) {
		case CTRL_HELLO: n2 = ctrl_encode_hello(out, len - 1, &m->u.hello); break;
		case CTRL_TEST: n2 = ctrl_encode_test(out, len - 1, &m->u.test); break;
		case CTRL_SETUP: n2 = ctrl_encode_setup(out, len - 1, &m->u.setup, qps); break;
		case CTRL_DONE: n2 = ctrl_encode_done(out, len - 1, &m->u.done); break;
		case CTRL_ERROR: n2 = ctrl_encode_error(out, len - 1, m->u.error.reason); break;
		case CTRL_GATE: n2 = ctrl_encode_gate(out, len - 1, &m->u.gate); break;
		case CTRL_GO: n2 = ctrl_encode_go(out, len - 1, &m->u.go); break;
		case CTRL_TIME: n2 = ctrl_encode_time(out, len - 1, m->u.time.ns); break;
		case CTRL_CPU: n2 = ctrl_encode_cpu(out, len - 1, &m->u.cpu); break;
		case CTRL_CONFIG: n2 = ctrl_encode_config(out, len - 1, &m->u.config); break;
		default: n2 = ctrl_encode_empty(out, len - 1, m->type); break;
		}
		if (n2 != 0)
			rc = cc_fail(r, "%s encoder given %zu bytes of room for a %zu-byte message "
				     "returned %zu, not 0", ctrl_type_name(m->type), len - 1, len, n2);
	}
	free(qps);
	free(out);
	return rc;
}

/*
 * A TEST that test_validate() accepts must stay inside the ranges that
 * opts_parse() enforces on the command line (bench/lib/options.c): the server
 * runs test_validate() on what arrives, so anything wider reaches it.
 */
static inline int cc_check_test_caps(struct cc_result *r, const struct rb_test *t)
{
	uint64_t nqp;
#define CC_RANGE(f, lo, hi)                                                              \
	do {                                                                               \
		if (!cc_in(t->f, (uint64_t)(lo), (uint64_t)(hi)))                          \
			return cc_fail(r, "test_validate accepted " #f " %llu, the command "      \
				       "line allows %llu..%llu", (unsigned long long)t->f,         \
				       (unsigned long long)(lo), (unsigned long long)(hi));        \
	} while (0)
	CC_RANGE(verb, 0, RB_VERB_COUNT - 1);
	CC_RANGE(transport, 0, RB_TR_COUNT - 1);
	CC_RANGE(test, 0, RB_TEST_COUNT - 1);
	CC_RANGE(size, 0, RB_MAX_SIZE);
	CC_RANGE(iters, 0, UINT64_C(1) << 48);
	CC_RANGE(duration_ms, 0, UINT64_C(1) << 32);
	CC_RANGE(warmup_iters, 0, UINT64_C(1) << 48);
	CC_RANGE(warmup_ms, 0, UINT64_C(1) << 32);
	CC_RANGE(postlist, 1, RB_MAX_DEPTH);
	CC_RANGE(signal_interval, 1, RB_MAX_DEPTH);
	CC_RANGE(inline_mode, 0, RB_INLINE_COUNT - 1);
	CC_RANGE(window, 1, UINT64_C(1) << 32);
	CC_RANGE(threads, 1, RB_MAX_THREADS);
	CC_RANGE(qps_per_thread, 1, RB_MAX_QPS_THREAD);
	CC_RANGE(emulated_peers, 1, RB_MAX_QPS_THREAD);
	CC_RANGE(sq_depth, 1, RB_MAX_DEPTH);
	CC_RANGE(rq_depth, 1, RB_MAX_DEPTH);
	CC_RANGE(cq_depth, 0, UINT64_C(1) << 24);
	CC_RANGE(mtu, 0, 4096);
	CC_RANGE(ack_timeout, 0, 31);
	CC_RANGE(retry_cnt, 0, 7);
	CC_RANGE(rnr_retry, 0, 7);
	CC_RANGE(min_rnr_timer, 0, 31);
	CC_RANGE(max_rd_atomic, 0, 255);
	CC_RANGE(validate, 0, 1);
	CC_RANGE(atomic_counters, 1, UINT64_C(1) << 24);
	CC_RANGE(stride, 8, UINT64_C(1) << 20);
	CC_RANGE(access, 0, RB_ACCESS_COUNT - 1);
	CC_RANGE(recv_batch, 1, RB_MAX_DEPTH);
	CC_RANGE(use_cm, 0, 1);
	CC_RANGE(timeout_ms, 1000, UINT64_C(86400000));
#undef CC_RANGE
	if (t->mtu && !cc_mtu_ok(t->mtu))
		return cc_fail(r, "test_validate accepted mtu %llu", (unsigned long long)t->mtu);
	if (__builtin_mul_overflow(t->qps_per_thread, t->emulated_peers, &nqp) ||
	    nqp > RB_MAX_QPS_THREAD)
		return cc_fail(r, "test_validate accepted qps_per_thread %llu x emulated_peers %llu "
			       "(product above %u or wraps)", (unsigned long long)t->qps_per_thread,
			       (unsigned long long)t->emulated_peers, RB_MAX_QPS_THREAD);
	if (nqp * t->threads > RB_MAX_QPS_TOTAL)
		return cc_fail(r, "test_validate accepted %llu QPs in total",
			       (unsigned long long)(nqp * t->threads));
	return 0;
}

/* The buffer layout of a validated TEST: no unsigned wrap anywhere. */
static inline int cc_check_layout(struct cc_result *r, const struct rb_test *t)
{
	struct rb_layout l;
	uint64_t nqp, span, end;

	layout_compute(t, &l);
	if (__builtin_mul_overflow(t->qps_per_thread, t->emulated_peers, &nqp) ||
	    __builtin_mul_overflow(nqp, t->threads, &nqp))
		return 0; /* reported by test-caps */
	if (l.nqp_total != nqp)
		return cc_fail(r, "layout nqp_total %llu, test has %llu QPs",
			       (unsigned long long)l.nqp_total, (unsigned long long)nqp);
	if (l.send_len < (verb_is_atomic(t->verb) ? 8 : t->size) ||
	    l.recv_slot < t->size)
		return cc_fail(r, "layout slot smaller than the payload (send %llu, recv %llu, "
			       "size %llu): size arithmetic wrapped", (unsigned long long)l.send_len,
			       (unsigned long long)l.recv_slot, (unsigned long long)t->size);
	if (__builtin_mul_overflow(l.recv_slot, l.recv_slots, &span) ||
	    __builtin_add_overflow(span, l.send_len, &span) || span != l.region_len)
		return cc_fail(r, "layout region_len wraps (size %llu, rq_depth %llu)",
			       (unsigned long long)t->size, (unsigned long long)t->rq_depth);
	if (__builtin_mul_overflow(l.region_len, nqp, &span) ||
	    __builtin_add_overflow(span, l.regions_off, &end) || l.total < end)
		return cc_fail(r, "layout total %llu bytes does not cover %llu QP regions of %llu "
			       "bytes (unsigned wrap): the buffer would be allocated short",
			       (unsigned long long)l.total, (unsigned long long)nqp,
			       (unsigned long long)l.region_len);
	return 0;
}

/*
 * Run every check not named in skip on one input. Returns 0 when all hold;
 * -1 with r->why otherwise. r->rc, r->type, r->err describe the decode.
 */
static inline int cc_check_input(const uint8_t *buf, size_t len, const char *skip,
				 struct cc_result *r)
{
	static struct ctrl_msg m;   /* large (TEST, reasons): not on the stack */
	char small[CC_SMALL_ERR * 2];
	uint16_t htype = 0;
	uint32_t hplen = 0;
	int hrc, src;

	memset(r, 0, sizeof(*r));
	memset(r->err, 0xA5, sizeof(r->err));
	hrc = ctrl_decode_header(buf, len, &htype, &hplen, r->err, sizeof(r->err) - 8);
	if (hrc != 0 && hrc != -1)
		return cc_fail(r, "ctrl_decode_header returned %d", hrc);
	if (hrc && cc_check_err(r, "ctrl_decode_header", r->err, sizeof(r->err) - 8, sizeof(r->err)))
		return -1;
	if (!hrc && (htype < CTRL_HELLO || htype > CTRL_TYPE_LAST || hplen > ctrl_max_payload(htype)))
		return cc_fail(r, "ctrl_decode_header accepted type %u length %u", htype, hplen);

	memset(r->err, 0xA5, sizeof(r->err));
	r->rc = ctrl_decode(buf, len, &m, r->err, sizeof(r->err) - 8);
	if (r->rc != 0 && r->rc != -1)
		return cc_fail(r, "ctrl_decode returned %d", r->rc);
	if (r->rc && cc_check_err(r, "ctrl_decode", r->err, sizeof(r->err) - 8, sizeof(r->err)))
		return -1;
	if (r->rc == 0 && hrc != 0)
		return cc_fail(r, "ctrl_decode accepted what ctrl_decode_header refused: %s", r->err);

	/* The same input with a short err buffer: same verdict, message cut. */
	memset(small, 0xA5, sizeof(small));
	src = ctrl_decode(buf, len, &m, small, CC_SMALL_ERR);
	if (src != r->rc)
		return cc_fail(r, "ctrl_decode returned %d with a %u-byte err buffer, %d with %zu",
			       src, CC_SMALL_ERR, r->rc, sizeof(r->err) - 8);
	if (src && cc_check_err(r, "ctrl_decode (short err)", small, CC_SMALL_ERR, sizeof(small)))
		return -1;

	/* The full decode again, so m holds it for the checks below. */
	if (ctrl_decode(buf, len, &m, r->err, sizeof(r->err) - 8) != r->rc)
		return cc_fail(r, "ctrl_decode is not deterministic");
	if (r->rc)
		return 0;
	r->type = m.type;
	if (m.type != htype || m.len != hplen)
		return cc_fail(r, "ctrl_decode type/len %u/%u differ from the header's %u/%u", m.type,
			       m.len, htype, hplen);
	if (!cc_skipped(skip, "decode") && cc_check_fields(r, buf, len, &m))
		return -1;
	if (!cc_skipped(skip, "roundtrip") && cc_check_roundtrip(r, buf, len, &m))
		return -1;
	if (m.type == CTRL_CONFIG && !cc_skipped(skip, "config") && cc_check_config(r, &m.u.config))
		return -1;
	if (m.type == CTRL_TEST) {
		char verr[CC_ERRLEN];
		int vrc = test_validate(&m.u.test, verr, sizeof(verr));
		if (vrc != 0 && vrc != -1)
			return cc_fail(r, "test_validate returned %d", vrc);
		if (vrc && !verr[0])
			return cc_fail(r, "test_validate refused with an empty message");
		r->test_valid = vrc == 0;
		if (vrc)
			return 0;
		if (!cc_skipped(skip, "test-caps") && cc_check_test_caps(r, &m.u.test))
			return -1;
		if (!cc_skipped(skip, "layout") && cc_check_layout(r, &m.u.test))
			return -1;
	}
	return 0;
}

#endif /* RDMA_BENCH_CTRL_CHECK_H */
