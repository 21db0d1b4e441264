/*
 * seq_kv.c - HERD-KV (the paper's Section 4.3.1, case study 2; HERD, Kalia
 * et al. SIGCOMM 2014): herd-rpc's pattern (seq_herd.c) carrying GET/PUT
 * requests. A client thread draws a key (uniform or Zipf, zipf.h), finds
 * the server thread owning its partition (mica_thread_of), takes a free
 * slot of its ring at that thread (kv.h) and WRITEs (UC) the request; the
 * WRITE ends on the slot's arrival byte. Server thread t polls its slots of
 * every client, runs each request against its own MICA-style partition
 * (mica.h), zeroes the slot's control word and answers with a UD
 * SEND_WITH_IMM to the client's UD QP:
 *   immediate  (t << 16) | ring slot, bit 31 set for a GET that missed
 *   payload    8-byte number from the point's counter (one atomic add per
 *              poll pass, as herd-rpc: the uniqueness check then proves each
 *              request was answered once), then the GET's value
 *   --batch on|off, --ud-qps N: as herd-rpc.
 * Each partition starts with every key it owns (version 0) in a log of
 * twice that set (MICA_DEF_LOG_BYTES at least), so a GET misses only where
 * the lossy index dropped a key or PUTs wrapped the log past it. With --kv validate the
 * values carry key and version (mica_value_fill) and the client checks
 * every GET hit (mica_value_check): a wrong value fails the point.
 *
 * Buffers. Server: [counter, 64 B][request region, kv_region_bytes]
 * [thread t: ud_qps x SEQ_SQ_DEPTH response payloads of RESP_BYTES].
 * Client thread i: [T x W staging slots of KV_SLOT_BYTES][W + 8 UD receive
 * slots of RECV_BYTES]. QPs, the request WRITE, the pass's responses and
 * the client's loop are HERD's RPC pattern shared with herd-rpc (rpc.c).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errbuf.h"
#include "kv.h"
#include "log.h"
#include "mica.h"
#include "seq_rt.h"
#include "timing.h"
#include "zipf.h"

#define REGION_OFF  64u
#define RESP_BYTES  (8u + KV_MAX_VALUE)        /* number + value */
#define RECV_BYTES  128u                       /* 40-byte GRH + RESP_BYTES, rounded */
#define IMM_MISS    UINT32_C(0x80000000)
#define HASH_SEED   UINT64_C(0x6b76)           /* both ends hash keys with it */

/* Server thread state: its partition and one pass's responses. */
struct kv_server {
	struct mica m;
	unsigned n;
	struct rpc_resp resp[SEQ_BATCH_MAX];       /* data: val[i] */
	uint8_t val[SEQ_BATCH_MAX][KV_MAX_VALUE];
};

/* Client thread state: key choice, rings and what each slot asked. */
struct kv_client {
	struct zipf z;
	uint64_t rng;
	uint64_t ring[SEQ_MAX_SERVER_THREADS];     /* free slots per server thread */
	uint64_t *key_of;                          /* per (t, k): key number asked */
	uint8_t *op_of;                            /* per (t, k): KV_GET or KV_PUT */
	uint64_t version;                          /* PUTs posted: the next value's version */
	uint8_t mark;
};

static void server_free(void *p)
{
	struct kv_server *s = p;
	if (s)
		mica_free(&s->m);
	free(s);
}

static void client_free(void *p)
{
	struct kv_client *k = p;
	if (k) {
		free(k->key_of);
		free(k->op_of);
	}
	free(k);
}

/* Server thread t's MICA partition (index and log mapped by topo_buf_map,
 * --hugepages honoured, first touched on the placement's CPUs), charged
 * first, then every key thread t owns put at version 0. 0, or -1 with err. */
static int populate(struct seq_run *r, struct kv_server *s, const struct seq_cfg *c, unsigned t,
		    char *err, size_t errlen)
{
	uint64_t keys = c->kv.keys, per = keys / c->server_threads + 1;
	uint64_t log = mica_item_bytes((uint32_t)c->kv.value_bytes) * per * 2;   /* twice the set */
	uint8_t v[KV_MAX_VALUE];
	char what[160];

	if (log < MICA_DEF_LOG_BYTES)
		log = MICA_DEF_LOG_BYTES;
	/* the partition's index and log, charged before they are allocated */
	snprintf(what, sizeof(what), "the MICA partition of server thread %u (--kv keys %llu, "
		 "value %llu B)", t, (unsigned long long)keys,
		 (unsigned long long)c->kv.value_bytes);
	if (seq_run_charge(r, mica_bytes(per, log), what, err, errlen))
		return -1;
	bool huge = r->pl && r->pl->hugepages;
	cpu_set_t saved;
	/* mapped and first touched (zeroed, then filled) while this thread
	 * runs on the server threads' CPUs: the partition's pages land on
	 * their node */
	int moved = topo_pin_self(r->pl ? &r->pl->place : NULL, &saved);
	if (mica_init_map(&s->m, per, log, HASH_SEED, huge, err, errlen)) {
		topo_unpin_self(moved, &saved);
		return -1;
	}
	if (huge && s->m.log_mem.why[0] && t == 0)
		rb_warn("--hugepages: the MICA partitions' logs on %s pages: %s",
			s->m.log_mem.source, s->m.log_mem.why);
	for (uint64_t id = 0; id < keys; id++) {
		struct mica_key k = mica_key_of(id);
		if (mica_thread_of(mica_hash(&k, HASH_SEED), (unsigned)c->server_threads) != t)
			continue;
		mica_value_fill(v, (uint32_t)c->kv.value_bytes, id, 0);
		mica_put(&s->m, &k, v, (uint32_t)c->kv.value_bytes);
	}
	topo_unpin_self(moved, &saved);
	return 0;
}

static int server_create(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, w = (unsigned)c->window;
	unsigned nt = (unsigned)c->server_threads, nu = (unsigned)c->ud_qps;
	uint64_t ring = (uint64_t)nu * SEQ_SQ_DEPTH * RESP_BYTES;
	uint64_t region = kv_region_bytes(nt, nc, w);

	if (rpc_server_alloc(r, REGION_OFF + region + nt * ring, err, errlen))
		return -1;
	for (unsigned t = 0; t < nt; t++) {
		struct seq_thread *th = &r->th[t];
		struct kv_server *s = calloc(1, sizeof(*s));
		th->app = s;
		th->app_free = server_free;
		th->area = r->buf + REGION_OFF + region + t * ring;
		if (!s)
			return rb_fail(err, errlen, "out of memory for server thread %u", t);
		if (populate(r, s, c, t, err, errlen) || rpc_server_thread(r, t, err, errlen))
			return -1;
	}
	return 0;
}

static uint64_t client_area_len(const struct seq_cfg *c)
{
	return c->server_threads * c->window * KV_SLOT_BYTES + (c->window + 8) * RECV_BYTES;
}

static int client_state(struct seq_thread *th, const struct seq_cfg *c)
{
	struct kv_client *k = calloc(1, sizeof(*k));
	uint64_t slots = c->server_threads * c->window;

	th->app = k;
	th->app_free = client_free;
	if (!k)
		return -1;
	k->key_of = calloc(slots, sizeof(*k->key_of));
	k->op_of = calloc(slots, sizeof(*k->op_of));
	if (!k->key_of || !k->op_of)
		return -1;
	for (unsigned t = 0; t < c->server_threads; t++)
		k->ring[t] = kv_ring_init((unsigned)c->window);
	k->rng = UINT64_C(0x9e3779b97f4a7c15) * (th->index + 1) ^ (uint64_t)timing_now_ns();
	if (c->kv.zipf && zipf_init(&k->z, c->kv.keys, c->kv.theta))
		return -1;
	return 0;
}

static int kv_create(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, w = (unsigned)c->window;
	uint64_t slots = c->server_threads * w;

	if (r->role == RB_ROLE_SERVER)
		return server_create(r, err, errlen);
	if (seq_run_alloc(r, nc * client_area_len(c), IBV_ACCESS_LOCAL_WRITE, err, errlen) ||
	    seq_run_threads(r, nc, 2, SEQ_SQ_DEPTH, w + 8, err, errlen))
		return -1;
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		th->area = r->buf + i * client_area_len(c);
		th->nrecv = w + 8;
		if (client_state(th, c))
			return rb_fail(err, errlen, "out of memory for client thread %u", i);
		if (rpc_client_thread(r, i, (unsigned)slots, err, errlen))
			return -1;
	}
	return 0;
}

static int kv_connect(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;

	if (r->role == RB_ROLE_SERVER)
		return rpc_server_connect(r, err, errlen);
	if (rpc_client_connect(r, err, errlen))
		return -1;
	for (unsigned i = 0; i < c->client_threads; i++) {
		struct seq_thread *th = &r->th[i];
		for (uint64_t s = 0; s < c->server_threads * c->window; s++) {
			th->sge[s] = (struct ibv_sge){ .lkey = r->mr->lkey };
			th->wr[s] = (struct ibv_send_wr){
				.sg_list = &th->sge[s],
				.num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.wr.rdma.rkey = r->remote.rkey,
			};
		}
		if (rpc_client_recvs(th, th->area + c->server_threads * c->window * KV_SLOT_BYTES,
				     RECV_BYTES, err, errlen))
			return -1;
	}
	return 0;
}

/* Client: draw a key and an op, fill a free slot of the key's server thread, WRITE it. */
static int post_request(struct seq_thread *th, unsigned unused, uint64_t now)
{
	struct seq_run *r = th->run;
	const struct seq_cfg *c = &r->cfg;
	struct kv_client *kc = th->app;
	(void)unused;   /* the slot comes from the ring of the key's server thread */
	uint64_t id = c->kv.zipf ? zipf_next(&kc->z, &kc->rng) : zipf_uniform(c->kv.keys, &kc->rng);
	struct mica_key key = mica_key_of(id);
	unsigned t = mica_thread_of(mica_hash(&key, HASH_SEED), (unsigned)c->server_threads);
	int k = kv_ring_take(&kc->ring[t]);
	uint8_t op = zipf_u01(&kc->rng) < c->kv.get_fraction ? KV_GET : KV_PUT;
	uint8_t v[KV_MAX_VALUE], vlen = op == KV_PUT ? (uint8_t)c->kv.value_bytes : 0;
	uint32_t off, len;

	if (k < 0)
		return seq_thread_fail(th, "no free slot at server thread %u (window %" PRIu64 ")", t,
				       c->window), -1;
	uint64_t s = t * c->window + (unsigned)k;
	uint8_t *slot = th->area + s * KV_SLOT_BYTES;
	if (op == KV_PUT)
		mica_value_fill(v, vlen, id, ((uint64_t)th->index << 40) | ++kc->version);
	if (++kc->mark == 0)
		kc->mark = 1;
	kv_req_encode(slot, op, &key, v, vlen, kc->mark, &off, &len);
	kc->key_of[s] = id;
	kc->op_of[s] = op;
	th->sge[s].addr = (uintptr_t)(slot + off);
	th->sge[s].length = len;
	th->wr[s].wr.rdma.remote_addr = r->remote.buf_addr + REGION_OFF +
					kv_slot_offset(c->client_threads, c->window, t, th->index,
						       (unsigned)k) + off;
	return rpc_post_write(th, &th->wr[s], len, s, now);
}

/* Client: one response (wc of receive slot rs); 0, or -1 with th->err. */
static int take_response(struct seq_thread *th, const struct ibv_wc *wc, uint64_t now,
			 unsigned *unused)
{
	struct seq_run *r = th->run;
	const struct seq_cfg *c = &r->cfg;
	struct kv_client *kc = th->app;
	uint32_t imm = ntohl(wc->imm_data);
	unsigned t = (imm & ~IMM_MISS) >> 16, k = imm & 0xffff, rs = (unsigned)wc->wr_id;
	uint8_t *p = (uint8_t *)(uintptr_t)th->rsge[rs].addr + RB_UD_GRH_BYTES;
	uint32_t plen = wc->byte_len - RB_UD_GRH_BYTES;
	uint64_t v, ver;

	(void)unused;   /* the next request draws its own slot */

	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || t >= c->server_threads || k >= c->window ||
	    wc->byte_len < RB_UD_GRH_BYTES + 8)
		return seq_thread_fail(th, "response names server thread %u slot %u (%u bytes, "
				       "flags 0x%x)", t, k, wc->byte_len, wc->wc_flags), -1;
	uint64_t s = t * c->window + k;
	memcpy(&v, p, 8);
	seq_vals_add(&th->vals, v);
	if (kc->op_of[s] == KV_PUT)
		th->puts++;
	if (kc->op_of[s] == KV_GET) {
		th->gets++;
		if (!(imm & IMM_MISS)) {
			th->get_hits++;
			if (plen - 8 != c->kv.value_bytes)
				return seq_thread_fail(th, "GET of key %" PRIu64 " returned %u value bytes, "
						       "expected %" PRIu64, kc->key_of[s], plen - 8,
						       c->kv.value_bytes), -1;
			if (c->kv.validate && mica_value_check(p + 8, plen - 8, kc->key_of[s], &ver,
							       th->err, sizeof(th->err)))
				return th->rc = -1;
			th->checked += c->kv.validate;
		}
	}
	kc->op_of[s] = 0;
	kv_ring_put(&kc->ring[t], k);
	seq_client_answered(th, th->post_ts[s], now);
	return 0;
}

static void *kv_client_main(void *arg)
{
	struct seq_thread *th = arg;
	return seq_client_loop(th, 1, (unsigned)th->run->cfg.window, post_request, take_response);
}

/* Server: run the request in slot (client c, ring slot k) into the pass. */
static void execute(struct seq_thread *th, struct kv_server *s, uint8_t *slot, unsigned c,
		    unsigned k)
{
	struct kv_req req;
	int st = kv_req_decode(slot, &req);
	uint32_t vlen = 0;

	if (st == KV_SLOT_EMPTY)
		return;
	th->requests++;
	if (st == KV_SLOT_BAD) {
		th->bad++;   /* not answered: the client's point fails on its outstanding request */
		kv_req_clear(slot);
		return;
	}
	uint32_t imm = (th->index << 16) | k;
	if (req.op == KV_PUT)
		mica_put(&s->m, &req.key, req.value, req.vlen);
	else if (mica_get(&s->m, &req.key, s->val[s->n], KV_MAX_VALUE, &vlen) != MICA_OK)
		imm |= IMM_MISS;
	kv_req_clear(slot);
	s->resp[s->n] = (struct rpc_resp){ .client = c, .imm = imm, .len = vlen,
					   .data = s->val[s->n] };
	s->n++;
}

static void *kv_server_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	struct kv_server *s = th->app;
	uint64_t nc = r->cfg.client_threads, w = r->cfg.window;
	unsigned rr = 0;
	struct timespec cpu;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		for (unsigned c = 0; c < nc; c++)
			for (unsigned k = 0; k < w; k++) {
				execute(th, s, r->buf + REGION_OFF + kv_slot_offset(nc, w, th->index,
										     c, k), c, k);
				if (s->n == SEQ_BATCH_MAX) {
					if (rpc_respond(th, s->resp, s->n, RESP_BYTES, &rr))
						goto out;
					s->n = 0;
				}
			}
		if (s->n) {
			if (rpc_respond(th, s->resp, s->n, RESP_BYTES, &rr))
				goto out;
			s->n = 0;
		} else if (r->cfg.idle_yield) {
			sched_yield();
		}
	}
out:
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	th->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
	return NULL;
}

const struct seq_variant_ops seq_kv_ops = {
	.name = "herd-kv",
	.create = kv_create,
	.connect = kv_connect,
	.client_main = kv_client_main,
	.server_main = kv_server_main,
};
