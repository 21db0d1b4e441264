/*
 * ctrl.c - encode and decode control channel messages (format in ctrl.h).
 *
 * How it works: a cursor over a byte buffer with put/get helpers for
 * big-endian integers and length-prefixed strings. Getters never read past
 * the end: a short buffer sets the cursor's error flag and the decoder
 * reports "truncated". Decoding is pure (no allocation, no I/O), so it can
 * be unit-tested and fuzzed directly.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "ctrl.h"
#include "guard.h"

struct cur {
	uint8_t *w;         /* encode: write position (NULL when decoding) */
	const uint8_t *r;   /* decode: read position */
	size_t left;        /* bytes left */
	int bad;            /* ran past the end */
};

static void put_bytes(struct cur *c, const void *p, size_t n)
{
	if (c->bad || c->left < n) {
		c->bad = 1;
		return;
	}
	memcpy(c->w, p, n);
	c->w += n;
	c->left -= n;
}

static void put_u8(struct cur *c, uint8_t v) { put_bytes(c, &v, 1); }

static void put_u16(struct cur *c, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	put_bytes(c, b, 2);
}

static void put_u32(struct cur *c, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	put_bytes(c, b, 4);
}

static void put_u64(struct cur *c, uint64_t v)
{
	put_u32(c, (uint32_t)(v >> 32));
	put_u32(c, (uint32_t)v);
}

static void put_str(struct cur *c, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	put_u16(c, (uint16_t)n);
	put_bytes(c, s, n);
}

static void get_bytes(struct cur *c, void *p, size_t n)
{
	if (c->bad || c->left < n) {
		c->bad = 1;
		memset(p, 0, n);
		return;
	}
	memcpy(p, c->r, n);
	c->r += n;
	c->left -= n;
}

static uint8_t get_u8(struct cur *c)
{
	uint8_t v;
	get_bytes(c, &v, 1);
	return v;
}

static uint16_t get_u16(struct cur *c)
{
	uint8_t b[2];
	get_bytes(c, b, 2);
	return (uint16_t)((b[0] << 8) | b[1]);
}

static uint32_t get_u32(struct cur *c)
{
	uint8_t b[4];
	get_bytes(c, b, 4);
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static uint64_t get_u64(struct cur *c)
{
	uint64_t hi = get_u32(c);
	return (hi << 32) | get_u32(c);
}

/* String of at most cap bytes into dst[cap + 1]; 0, or -1 if too long,
 * -2 if it holds a NUL byte. */
static int get_str(struct cur *c, char *dst, size_t cap)
{
	uint16_t n = get_u16(c);
	if (c->bad)
		return 0;
	if (n > cap)
		return -1;
	get_bytes(c, dst, n);
	dst[c->bad ? 0 : n] = '\0';
	for (size_t i = 0; i < n && !c->bad; i++)
		if (dst[i] == '\0')
			return -2;
	return 0;
}

/* A peer string that is printed as it is (host, run id, device, token):
 * as get_str, and -3 if it holds a control byte (guard_str_bad_byte). */
static int get_clean_str(struct cur *c, char *dst, size_t cap)
{
	int rc = get_str(c, dst, cap);
	if (rc || c->bad)
		return rc;
	return guard_str_bad_byte(dst, strlen(dst)) >= 0 ? -3 : 0;
}

static const char *str_problem(int rc)
{
	return rc == -1 ? "too long" : rc == -2 ? "holds a NUL byte" :
	       "holds a control character (below 0x20, or 0x7f)";
}

const char *ctrl_type_name(uint16_t type)
{
	switch (type) {
	case CTRL_HELLO: return "HELLO";
	case CTRL_TEST: return "TEST";
	case CTRL_SETUP: return "SETUP";
	case CTRL_READY: return "READY";
	case CTRL_DONE: return "DONE";
	case CTRL_ERROR: return "ERROR";
	case CTRL_BYE: return "BYE";
	case CTRL_GATE: return "GATE";
	case CTRL_GO: return "GO";
	case CTRL_TIME: return "TIME";
	case CTRL_CPU: return "CPU";
	case CTRL_CONFIG: return "CONFIG";
	default: return "unknown";
	}
}

uint32_t ctrl_max_payload(uint16_t type)
{
	switch (type) {
	case CTRL_HELLO: return CTRL_HELLO_MAX;
	case CTRL_TEST: return RB_TEST_NFIELDS * 8u;
	case CTRL_SETUP: return CTRL_MAX_PAYLOAD;
	case CTRL_READY:
	case CTRL_BYE: return 0;
	case CTRL_DONE: return CTRL_DONE_MAX;
	case CTRL_ERROR: return 2u + CTRL_REASON_CAP;
	case CTRL_GATE: return 16u;   /* u64 point, u32 procs, u32 go_us */
	case CTRL_GO: return 28u;     /* 3 x u64 clock readings, u32 procs */
	case CTRL_TIME: return 8u;    /* u64 clock reading */
	case CTRL_CPU: return CTRL_CPU_LEN(CTRL_CPU_REASON_CAP);
	case CTRL_CONFIG: return CTRL_CONFIG_FIXED + CTRL_CONFIG_MAX_FIELDS * 8u;
	default: return CTRL_MAX_PAYLOAD;
	}
}

static struct cur enc_begin(uint8_t *buf, size_t cap, uint16_t type)
{
	struct cur c = { .w = buf, .left = cap };
	put_u32(&c, CTRL_MAGIC);
	put_u16(&c, CTRL_VERSION);
	put_u16(&c, type);
	put_u32(&c, 0); /* length, patched by enc_end */
	return c;
}

static size_t enc_end(struct cur *c, uint8_t *buf)
{
	if (c->bad)
		return 0;
	size_t total = (size_t)(c->w - buf);
	uint32_t plen = (uint32_t)(total - CTRL_HDR_LEN);
	buf[8] = (uint8_t)(plen >> 24);
	buf[9] = (uint8_t)(plen >> 16);
	buf[10] = (uint8_t)(plen >> 8);
	buf[11] = (uint8_t)plen;
	return total;
}

size_t ctrl_encode_hello(uint8_t *buf, size_t cap, const struct ctrl_hello *h)
{
	struct cur c = enc_begin(buf, cap, CTRL_HELLO);
	put_u64(&c, h->proc_index);
	put_u32(&c, h->pid);
	put_str(&c, h->host, CTRL_STR_CAP);
	put_str(&c, h->run_id, CTRL_STR_CAP);
	put_str(&c, h->device, CTRL_STR_CAP);
	put_str(&c, h->token, CTRL_TOKEN_CAP);
	put_str(&c, h->run_key, CTRL_TOKEN_CAP);
	return enc_end(&c, buf);
}

size_t ctrl_encode_test(uint8_t *buf, size_t cap, const struct rb_test *t)
{
	struct cur c = enc_begin(buf, cap, CTRL_TEST);
#define RB_X_PUT(name) put_u64(&c, t->name);
	RB_TEST_FIELDS(RB_X_PUT)
#undef RB_X_PUT
	return enc_end(&c, buf);
}

const char *ctrl_program_name(uint16_t program)
{
	switch (program) {
#define CTRL_X_NAME(id, n, name) case n: return name;
	CTRL_PROGRAMS(CTRL_X_NAME)
#undef CTRL_X_NAME
	default: return "?";
	}
}

/* A CONFIG's program, version and count as the wire allows them. */
static bool config_shape_ok(uint16_t program, uint16_t version, uint32_t nfields)
{
	return program > CTRL_PROG_RDMA_BENCH && program <= CTRL_PROG_LAST && version >= 1 &&
	       nfields >= 1 && nfields <= CTRL_CONFIG_MAX_FIELDS;
}

size_t ctrl_encode_config(uint8_t *buf, size_t cap, const struct ctrl_config *cfg)
{
	if (!config_shape_ok(cfg->program, cfg->version, cfg->nfields))
		return 0;
	struct cur c = enc_begin(buf, cap, CTRL_CONFIG);
	put_u16(&c, cfg->program);
	put_u16(&c, cfg->version);
	put_u32(&c, cfg->nfields);
	for (uint32_t i = 0; i < cfg->nfields; i++)
		put_u64(&c, cfg->f[i]);
	return enc_end(&c, buf);
}

int ctrl_config_expect(const struct ctrl_config *c, uint16_t program, uint16_t version,
		       uint32_t nfields, char *err, size_t errlen)
{
	if (c->program != program)
		return rb_fail(err, errlen, "the client sent a %s point (program %u), and this "
			       "server is %s: start the client of the same program",
			       ctrl_program_name(c->program), c->program, ctrl_program_name(program));
	if (c->version != version || c->nfields != nfields)
		return rb_fail(err, errlen, "%s configuration version %u with %u fields, and this "
			       "server speaks version %u with %u fields: run the same %s build at "
			       "both ends", ctrl_program_name(program), c->version, c->nfields,
			       version, nfields, ctrl_program_name(program));
	return 0;
}

/* CONFIG: the shape only (ctrl.h); the fields are the program's. */
static int decode_config(struct cur *c, struct ctrl_config *cfg, uint32_t plen, char *err,
			 size_t errlen)
{
	cfg->program = get_u16(c);
	cfg->version = get_u16(c);
	cfg->nfields = get_u32(c);
	if (c->bad)
		return 0;   /* reported as truncated */
	if (cfg->program == CTRL_PROG_RDMA_BENCH || cfg->program > CTRL_PROG_LAST ||
	    cfg->program == 0)
		return rb_fail(err, errlen, "CONFIG: program %u is %s", cfg->program,
			       cfg->program == CTRL_PROG_RDMA_BENCH ?
			       "rdma_bench, whose point is a TEST" : "not assigned");
	if (!config_shape_ok(cfg->program, cfg->version, cfg->nfields))
		return rb_fail(err, errlen, "CONFIG: version %u, %u fields: expected version >= 1 "
			       "and 1..%u fields", cfg->version, cfg->nfields,
			       CTRL_CONFIG_MAX_FIELDS);
	if ((uint64_t)plen != CTRL_CONFIG_FIXED + (uint64_t)cfg->nfields * 8u)
		return rb_fail(err, errlen, "CONFIG inconsistent: %u payload bytes, expected %u "
			       "(%u fields)", plen, CTRL_CONFIG_FIXED + cfg->nfields * 8u,
			       cfg->nfields);
	for (uint32_t i = 0; i < cfg->nfields; i++)
		cfg->f[i] = get_u64(c);
	return 0;
}

size_t ctrl_setup_size(uint32_t nqp)
{
	return CTRL_HDR_LEN + CTRL_SETUP_FIXED + (size_t)nqp * CTRL_QP_LEN;
}

size_t ctrl_encode_setup(uint8_t *buf, size_t cap, const struct ctrl_setup *s,
			 const struct ctrl_qp_ep *qps)
{
	if (s->nqp > CTRL_MAX_QPS)
		return 0;
	struct cur c = enc_begin(buf, cap, CTRL_SETUP);
	put_u8(&c, s->port);
	put_u8(&c, s->link_layer);
	put_u8(&c, s->gid_type);
	put_u8(&c, 0);
	put_u32(&c, s->gid_index);
	put_u16(&c, s->lid);
	put_u16(&c, 0);
	put_bytes(&c, s->gid, 16);
	put_u32(&c, s->active_mtu);
	put_u32(&c, s->max_qp_rd_atom);
	put_u32(&c, s->max_qp_init_rd_atom);
	put_u64(&c, s->buf_addr);
	put_u32(&c, s->rkey);
	put_u32(&c, s->qkey);
	put_u64(&c, s->buf_len);
	put_u64(&c, s->nonce);
	put_u32(&c, s->nqp);
	for (uint32_t i = 0; i < s->nqp; i++) {
		put_u32(&c, qps[i].qpn);
		put_u32(&c, qps[i].psn);
	}
	return enc_end(&c, buf);
}

size_t ctrl_encode_done(uint8_t *buf, size_t cap, const struct ctrl_done *d)
{
	struct cur c = enc_begin(buf, cap, CTRL_DONE);
	put_u64(&c, d->ops);
	put_u64(&c, d->sends);
	put_u64(&c, d->recvs);
	put_u64(&c, d->bad_payloads);
	put_u64(&c, d->counter_sum);
	put_u64(&c, d->atomic_success);
	put_u64(&c, d->active_ns);
	put_u64(&c, d->arrive_ns);
	put_u64(&c, d->send_ns);
	put_u32(&c, d->checked);
	put_str(&c, d->note, CTRL_REASON_CAP);
	if (d->nctr > CTRL_MAX_CTRS)
		return 0;
	put_u64(&c, d->ctr_span_ns);
	put_u16(&c, d->nctr);
	for (unsigned i = 0; i < d->nctr; i++) {
		put_u16(&c, d->ctr_idx[i]);
		put_u64(&c, d->ctr_delta[i]);
	}
	put_u64(&c, d->foreign_recvs);
	return enc_end(&c, buf);
}

size_t ctrl_encode_error(uint8_t *buf, size_t cap, const char *reason)
{
	struct cur c = enc_begin(buf, cap, CTRL_ERROR);
	put_str(&c, reason, CTRL_REASON_CAP);
	return enc_end(&c, buf);
}

size_t ctrl_encode_empty(uint8_t *buf, size_t cap, uint16_t type)
{
	struct cur c = enc_begin(buf, cap, type);
	return enc_end(&c, buf);
}

size_t ctrl_encode_gate(uint8_t *buf, size_t cap, const struct ctrl_gate *g)
{
	struct cur c = enc_begin(buf, cap, CTRL_GATE);
	put_u64(&c, g->point);
	put_u32(&c, g->procs);
	put_u32(&c, g->go_us);
	return enc_end(&c, buf);
}

size_t ctrl_encode_go(uint8_t *buf, size_t cap, const struct ctrl_go *g)
{
	struct cur c = enc_begin(buf, cap, CTRL_GO);
	put_u64(&c, g->arrive_ns);
	put_u64(&c, g->release_ns);
	put_u64(&c, g->start_ns);
	put_u32(&c, g->procs);
	return enc_end(&c, buf);
}

size_t ctrl_encode_time(uint8_t *buf, size_t cap, uint64_t ns)
{
	struct cur c = enc_begin(buf, cap, CTRL_TIME);
	put_u64(&c, ns);
	return enc_end(&c, buf);
}

size_t ctrl_encode_cpu(uint8_t *buf, size_t cap, const struct ctrl_cpu *cp)
{
	struct cur c = enc_begin(buf, cap, CTRL_CPU);
	put_u64(&c, cp->span_ns);
	put_u32(&c, cp->threads);
	for (int i = 0; i < PC_NEVENTS; i++) {
		put_u8(&c, cp->state[i]);
		put_u64(&c, cp->value[i]);
	}
	put_u32(&c, cp->stat.ncpus);
	put_u64(&c, cp->stat.user);
	put_u64(&c, cp->stat.system);
	put_u64(&c, cp->stat.irq);
	put_u64(&c, cp->stat.softirq);
	put_u64(&c, cp->stat.total);
	put_str(&c, cp->reason, CTRL_CPU_REASON_CAP);
	return enc_end(&c, buf);
}

void ctrl_cpu_from_sample(struct ctrl_cpu *c, const struct pc_sample *s)
{
	for (int i = 0; i < PC_NEVENTS; i++) {
		c->state[i] = 0;
		c->value[i] = 0;
		if (!s->valid[i]) {
			if (c->reason[0] == '\0')
				snprintf(c->reason, sizeof(c->reason), "%s", s->reason[i]);
			continue;
		}
		c->state[i] = (uint8_t)(CTRL_CPU_STATE_COUNTED |
					(s->scaled[i] ? CTRL_CPU_STATE_SCALED : 0) |
					(s->user_only[i] ? CTRL_CPU_STATE_USER_ONLY : 0));
		c->value[i] = s->value[i];
	}
}

void ctrl_cpu_to_sample(const struct ctrl_cpu *c, struct pc_sample *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < PC_NEVENTS; i++) {
		s->valid[i] = (c->state[i] & CTRL_CPU_STATE_COUNTED) != 0;
		s->scaled[i] = (c->state[i] & CTRL_CPU_STATE_SCALED) != 0;
		s->user_only[i] = (c->state[i] & CTRL_CPU_STATE_USER_ONLY) != 0;
		s->value[i] = s->valid[i] ? c->value[i] : 0;
		if (!s->valid[i])
			snprintf(s->reason[i], PC_REASON_MAX, "server: %.100s",
				 c->reason[0] ? c->reason : "not counted");
	}
}

int ctrl_decode_header(const uint8_t *buf, size_t len, uint16_t *type, uint32_t *plen,
		       char *err, size_t errlen)
{
	struct cur c = { .r = buf, .left = len };

	if (len < CTRL_HDR_LEN)
		return rb_fail(err, errlen, "control message truncated: %zu bytes, header needs %u",
			    len, CTRL_HDR_LEN);
	uint32_t magic = get_u32(&c);
	uint16_t version = get_u16(&c);
	uint16_t t = get_u16(&c);
	uint32_t l = get_u32(&c);
	if (magic != CTRL_MAGIC)
		return rb_fail(err, errlen,
			    "bad control message magic 0x%08x (expected 0x%08x): the peer is not "
			    "rdma_bench, or the stream is out of step", magic, CTRL_MAGIC);
	if (version != CTRL_VERSION)
		return rb_fail(err, errlen,
			    "control protocol version %u from the peer, this binary speaks %u: run "
			    "the same rdma_bench on both ends", version, CTRL_VERSION);
	if (t < CTRL_HELLO || t > CTRL_TYPE_LAST)
		return rb_fail(err, errlen, "unknown control message type %u", t);
	if (l > ctrl_max_payload(t))
		return rb_fail(err, errlen,
			    "oversized control message: %s payload of %u bytes, limit %u",
			    ctrl_type_name(t), l, (unsigned)ctrl_max_payload(t));
	*type = t;
	*plen = l;
	return 0;
}

static int decode_setup(struct cur *c, struct ctrl_setup *s, uint32_t plen, char *err,
			size_t errlen)
{
	uint8_t r8;
	uint16_t r16;

	if (plen < CTRL_SETUP_FIXED)
		return rb_fail(err, errlen, "SETUP truncated: %u payload bytes, needs at least %u",
			    plen, CTRL_SETUP_FIXED);
	s->port = get_u8(c);
	s->link_layer = get_u8(c);
	s->gid_type = get_u8(c);
	r8 = get_u8(c);
	s->gid_index = get_u32(c);
	s->lid = get_u16(c);
	r16 = get_u16(c);
	get_bytes(c, s->gid, 16);
	s->active_mtu = get_u32(c);
	s->max_qp_rd_atom = get_u32(c);
	s->max_qp_init_rd_atom = get_u32(c);
	s->buf_addr = get_u64(c);
	s->rkey = get_u32(c);
	s->qkey = get_u32(c);
	s->buf_len = get_u64(c);
	s->nonce = get_u64(c);
	s->nqp = get_u32(c);
	if (c->bad)
		return rb_fail(err, errlen, "SETUP truncated");
	if (r8 || r16)
		return rb_fail(err, errlen, "SETUP: reserved fields not zero");
	if (s->port == 0)
		return rb_fail(err, errlen, "SETUP: port 0 (ports are numbered from 1)");
	if (s->link_layer < 1 || s->link_layer > 2)
		return rb_fail(err, errlen, "SETUP: link_layer %u unknown (1 IB, 2 Ethernet)",
			    s->link_layer);
	if (s->gid_type > 2)
		return rb_fail(err, errlen, "SETUP: gid_type %u unknown (0 IB, 1 RoCE v1, 2 RoCE v2)",
			    s->gid_type);
	if (s->active_mtu != 256 && s->active_mtu != 512 && s->active_mtu != 1024 &&
	    s->active_mtu != 2048 && s->active_mtu != 4096)
		return rb_fail(err, errlen, "SETUP: active_mtu %u is not 256..4096", s->active_mtu);
	if (s->nqp > CTRL_MAX_QPS)
		return rb_fail(err, errlen, "SETUP: %u QPs, limit %u", s->nqp, (unsigned)CTRL_MAX_QPS);
	if ((uint64_t)plen != CTRL_SETUP_FIXED + (uint64_t)s->nqp * CTRL_QP_LEN)
		return rb_fail(err, errlen,
			    "SETUP inconsistent: %u QPs need %llu payload bytes, message has %u",
			    s->nqp,
			    (unsigned long long)(CTRL_SETUP_FIXED + (uint64_t)s->nqp * CTRL_QP_LEN),
			    plen);
	if (s->buf_len && s->buf_addr + s->buf_len < s->buf_addr)
		return rb_fail(err, errlen, "SETUP: buffer address + length wraps around");
	s->qps = c->r;
	for (uint32_t i = 0; i < s->nqp; i++) {
		struct ctrl_qp_ep ep;
		ctrl_setup_qp(s, i, &ep);
		if (ep.psn >= (1u << 24))
			return rb_fail(err, errlen, "SETUP: QP %u psn 0x%x above 24 bits", i, ep.psn);
		if (ep.qpn >= (1u << 24))
			return rb_fail(err, errlen, "SETUP: QP %u qpn 0x%x above 24 bits", i, ep.qpn);
	}
	c->r += (size_t)s->nqp * CTRL_QP_LEN;
	c->left -= (size_t)s->nqp * CTRL_QP_LEN;
	return 0;
}

void ctrl_setup_qp(const struct ctrl_setup *s, uint32_t i, struct ctrl_qp_ep *out)
{
	const uint8_t *p = s->qps + (size_t)i * CTRL_QP_LEN;
	out->qpn = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
	out->psn = ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | p[7];
}

/* HELLO's fields; strings checked (no control characters). -1 with err. */
static int decode_hello(struct cur *c, struct ctrl_hello *h, char *err, size_t errlen)
{
	int rc;

	h->proc_index = get_u64(c);
	h->pid = get_u32(c);
	if ((rc = get_clean_str(c, h->host, CTRL_STR_CAP)) ||
	    (rc = get_clean_str(c, h->run_id, CTRL_STR_CAP)) ||
	    (rc = get_clean_str(c, h->device, CTRL_STR_CAP)))
		return rb_fail(err, errlen, "HELLO: string %s (cap %u)", str_problem(rc),
			    CTRL_STR_CAP);
	if ((rc = get_clean_str(c, h->token, CTRL_TOKEN_CAP)))
		return rb_fail(err, errlen, "HELLO: token %s (cap %u)", str_problem(rc),
			    CTRL_TOKEN_CAP);
	if ((rc = get_clean_str(c, h->run_key, CTRL_TOKEN_CAP)))
		return rb_fail(err, errlen, "HELLO: run key %s (cap %u)", str_problem(rc),
			    CTRL_TOKEN_CAP);
	return 0;
}

/* DONE's fields; the note's control characters escaped, checked in 0..2. */
static int decode_done(struct cur *c, struct ctrl_done *d, char *err, size_t errlen)
{
	int rc;

	d->ops = get_u64(c);
	d->sends = get_u64(c);
	d->recvs = get_u64(c);
	d->bad_payloads = get_u64(c);
	d->counter_sum = get_u64(c);
	d->atomic_success = get_u64(c);
	d->active_ns = get_u64(c);
	d->arrive_ns = get_u64(c);
	d->send_ns = get_u64(c);
	d->checked = get_u32(c);
	if ((rc = get_str(c, d->note, CTRL_REASON_CAP)))
		return rb_fail(err, errlen, "DONE: note %s (cap %u)", str_problem(rc),
			    CTRL_REASON_CAP);
	guard_str_escape(d->note);
	d->ctr_span_ns = get_u64(c);
	d->nctr = get_u16(c);
	if (!c->bad && d->nctr > CTRL_MAX_CTRS)
		return rb_fail(err, errlen, "DONE: %u counters, more than %u", d->nctr, CTRL_MAX_CTRS);
	for (unsigned i = 0; i < d->nctr && !c->bad; i++) {
		d->ctr_idx[i] = get_u16(c);
		d->ctr_delta[i] = get_u64(c);
		if (!c->bad && d->ctr_idx[i] >= CTRL_MAX_CTRS)
			return rb_fail(err, errlen, "DONE: counter index %u, at most %u",
				       d->ctr_idx[i], CTRL_MAX_CTRS - 1);
	}
	d->foreign_recvs = get_u64(c);
	if (!c->bad && d->checked > 2)
		return rb_fail(err, errlen, "DONE: checked %u unknown (0, 1 or 2)", d->checked);
	if (!c->bad && d->send_ns < d->arrive_ns)
		return rb_fail(err, errlen, "DONE: sent at %llu ns, before the client's DONE arrived "
			       "at %llu ns", (unsigned long long)d->send_ns,
			       (unsigned long long)d->arrive_ns);
	return 0;
}

/* GO's times, in order arrive <= release <= start, and its process count. */
static int decode_go(struct cur *c, struct ctrl_go *g, char *err, size_t errlen)
{
	g->arrive_ns = get_u64(c);
	g->release_ns = get_u64(c);
	g->start_ns = get_u64(c);
	g->procs = get_u32(c);
	if (!c->bad && g->arrive_ns > g->release_ns)
		return rb_fail(err, errlen, "GO: arrive_ns %llu after release_ns %llu",
			    (unsigned long long)g->arrive_ns, (unsigned long long)g->release_ns);
	if (!c->bad && g->release_ns > g->start_ns)
		return rb_fail(err, errlen, "GO: release_ns %llu after start_ns %llu",
			    (unsigned long long)g->release_ns, (unsigned long long)g->start_ns);
	if (!c->bad && (g->procs < 2 || g->procs > CTRL_MAX_PROCS))
		return rb_fail(err, errlen, "GO: procs %u outside 2..%u", g->procs, CTRL_MAX_PROCS);
	return 0;
}

/* CPU's counters: states known, an uncounted event 0, the ticks'
 * parts within their total, counts within their caps. */
static int decode_cpu(struct cur *c, struct ctrl_cpu *cp, char *err, size_t errlen)
{
	int rc;

	cp->span_ns = get_u64(c);
	cp->threads = get_u32(c);
	for (int i = 0; i < PC_NEVENTS; i++) {
		cp->state[i] = get_u8(c);
		cp->value[i] = get_u64(c);
	}
	struct cs_delta *d = &cp->stat;
	d->ncpus = get_u32(c);
	d->user = get_u64(c);
	d->system = get_u64(c);
	d->irq = get_u64(c);
	d->softirq = get_u64(c);
	d->total = get_u64(c);
	if ((rc = get_str(c, cp->reason, CTRL_CPU_REASON_CAP)))
		return rb_fail(err, errlen, "CPU: reason %s (cap %u)", str_problem(rc),
			    CTRL_CPU_REASON_CAP);
	guard_str_escape(cp->reason);
	if (c->bad)
		return 0;   /* ctrl_decode reports the truncation */
	if (cp->threads < 1 || cp->threads > RB_MAX_THREADS + 1)
		return rb_fail(err, errlen, "CPU: threads %u outside 1..%u", cp->threads,
			    RB_MAX_THREADS + 1);
	for (int i = 0; i < PC_NEVENTS; i++) {
		if (cp->state[i] > 7)
			return rb_fail(err, errlen, "CPU: event %d state %u unknown (bits 0..2)", i,
				    cp->state[i]);
		if (!(cp->state[i] & CTRL_CPU_STATE_COUNTED) && (cp->state[i] || cp->value[i]))
			return rb_fail(err, errlen, "CPU: event %d not counted but state %u value %llu",
				    i, cp->state[i], (unsigned long long)cp->value[i]);
	}
	if (d->ncpus > CTRL_CPU_MAX_CPUS)
		return rb_fail(err, errlen, "CPU: %u CPUs, limit %u", d->ncpus, CTRL_CPU_MAX_CPUS);
	if (d->ncpus == 0 && (d->user || d->system || d->irq || d->softirq || d->total))
		return rb_fail(err, errlen, "CPU: ticks without a CPU (ncpus 0)");
	/* each part within what the ones before left of the total: no sum
	 * is formed, so none can wrap */
	uint64_t left = d->total;
	const uint64_t parts[] = { d->user, d->system, d->irq, d->softirq };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (parts[i] > left)
			return rb_fail(err, errlen, "CPU: busy ticks above the total %llu",
				    (unsigned long long)d->total);
		left -= parts[i];
	}
	return 0;
}

int ctrl_decode(const uint8_t *buf, size_t len, struct ctrl_msg *out, char *err, size_t errlen)
{
	uint16_t type;
	uint32_t plen;
	int rc;

	if (ctrl_decode_header(buf, len, &type, &plen, err, errlen))
		return -1;
	if ((uint64_t)len < (uint64_t)CTRL_HDR_LEN + plen)
		return rb_fail(err, errlen, "%s truncated: header says %u payload bytes, %zu present",
			    ctrl_type_name(type), plen, len - CTRL_HDR_LEN);
	if ((uint64_t)len > (uint64_t)CTRL_HDR_LEN + plen)
		return rb_fail(err, errlen, "%s inconsistent: header says %u payload bytes, %zu present",
			    ctrl_type_name(type), plen, len - CTRL_HDR_LEN);

	memset(out, 0, sizeof(*out));
	out->type = type;
	out->len = plen;
	struct cur c = { .r = buf + CTRL_HDR_LEN, .left = plen };

	switch (type) {
	case CTRL_HELLO:
		if (decode_hello(&c, &out->u.hello, err, errlen))
			return -1;
		break;
	case CTRL_TEST:
		if (plen != RB_TEST_NFIELDS * 8u)
			return rb_fail(err, errlen,
				    "TEST inconsistent: %u payload bytes, expected %u (%u fields)",
				    plen, RB_TEST_NFIELDS * 8u, (unsigned)RB_TEST_NFIELDS);
#define RB_X_GET(name) out->u.test.name = get_u64(&c);
		RB_TEST_FIELDS(RB_X_GET)
#undef RB_X_GET
		break;
	case CTRL_SETUP:
		if (decode_setup(&c, &out->u.setup, plen, err, errlen))
			return -1;
		break;
	case CTRL_DONE:
		if (decode_done(&c, &out->u.done, err, errlen))
			return -1;
		break;
	case CTRL_ERROR:
		if ((rc = get_str(&c, out->u.error.reason, CTRL_REASON_CAP)))
			return rb_fail(err, errlen, "ERROR: reason %s (cap %u)", str_problem(rc),
				    CTRL_REASON_CAP);
		guard_str_escape(out->u.error.reason);
		break;
	case CTRL_GATE:
		out->u.gate.point = get_u64(&c);
		out->u.gate.procs = get_u32(&c);
		out->u.gate.go_us = get_u32(&c);
		if (!c.bad && (out->u.gate.procs < 2 || out->u.gate.procs > CTRL_MAX_PROCS))
			return rb_fail(err, errlen, "GATE: procs %u outside 2..%u",
				    out->u.gate.procs, CTRL_MAX_PROCS);
		break;
	case CTRL_GO:
		if (decode_go(&c, &out->u.go, err, errlen))
			return -1;
		break;
	case CTRL_TIME:
		out->u.time.ns = get_u64(&c);
		break;
	case CTRL_CPU:
		if (decode_cpu(&c, &out->u.cpu, err, errlen))
			return -1;
		break;
	case CTRL_CONFIG:
		if (decode_config(&c, &out->u.config, plen, err, errlen))
			return -1;
		break;
	case CTRL_READY:
	case CTRL_BYE:
		break;
	}
	if (c.bad)
		return rb_fail(err, errlen, "%s truncated: %u payload bytes are too few",
			    ctrl_type_name(type), plen);
	if (c.left)
		return rb_fail(err, errlen, "%s inconsistent: %zu bytes left over after the last field",
			    ctrl_type_name(type), c.left);
	return 0;
}

int ctrl_setup_copy(struct ctrl_setup *dst, const struct ctrl_setup *src, uint8_t **qps,
		    char *err, size_t errlen)
{
	*qps = malloc((size_t)src->nqp * CTRL_QP_LEN + 1);
	if (!*qps)
		return rb_fail(err, errlen, "out of memory");
	memcpy(*qps, src->qps, (size_t)src->nqp * CTRL_QP_LEN);
	*dst = *src;
	dst->qps = *qps;
	return 0;
}
