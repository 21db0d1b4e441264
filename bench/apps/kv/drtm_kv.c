/*
 * drtm_kv.c - emulated DrTM-KV (rdma_seq --variant drtm-kv; the paper's
 * Section 4.3.2, Figure 10): client threads run GETs and PUTs on the items in
 * the server's memory with one-sided verbs over RC, the server's CPU idle
 * (bench/apps/kv/drtm.h: the item layout, the lock word and the checks).
 *
 *   GET  READ of the item (DRTM_ITEM_BYTES) into the slot's copy
 *   PUT  CMP_AND_SWAP(header, compare, compare | owner), retried until it
 *        returns compare; [put-writes: WRITE of the value, unsignaled];
 *        FETCH_AND_ADD(header, DRTM_RELEASE_ADD(owner)) (posted with the
 *        WRITE in one list: RC runs them in order at the responder)
 *
 * Every client thread keeps `window` operations outstanding on its own RC
 * QP; each window slot k has its WRs (th->wr[4k .. 4k+3]: READ, CAS, WRITE,
 * FAA) and DRTM_SLOT_BYTES of th->area: [0, 64) the READ's copy, [64, 72)
 * the CAS result, [72, 80) the FAA result, [80, 128) the value a PUT WRITEs.
 *
 * Server: the items in one MR the clients may READ, WRITE and use atomics
 * on, one passive RC QP per client thread (QP i talks to QP i), no thread.
 * After the point it scans the items (drtm_scan) into its DONE:
 *   recvs items scanned, bad_payloads items left locked,
 *   counter_sum the versions' sum, atomic_success stale stamps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "log.h"
#include "seq_rt.h"
#include "timing.h"

#define DRTM_SLOT_BYTES 128u
#define DRTM_CAS_OFF    64u
#define DRTM_FAA_OFF    72u
#define DRTM_PUT_OFF    80u
enum { WR_READ = 0, WR_CAS, WR_WRITE, WR_FAA, WR_PER_SLOT };
enum drtm_state { ST_IDLE = 0, ST_GET, ST_LOCK, ST_RELEASE };

/* One outstanding operation of a client thread. */
struct drtm_slot {
	uint8_t state;             /* enum drtm_state */
	uint64_t key;
	uint64_t compare;          /* ST_LOCK: the unlocked word the CAS expects */
	uint64_t t0;               /* when the operation began (ns) */
};

/* A client thread's own state (th->app). */
struct drtm_client {
	struct drtm_slot *slot;    /* window entries */
	uint64_t *cache;           /* header words, drtm_cache_slots(items) */
	uint64_t ncache;
	struct drtm_gen gen;
	uint64_t owner;
	struct drtm_counts n;
};

static void client_free(void *p)
{
	struct drtm_client *c = p;
	if (!c)
		return;
	free(c->slot);
	free(c->cache);
	free(c);
}

static const int drtm_access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC;

static int drtm_create_server(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads;

	if (seq_run_alloc(r, drtm_region_bytes(c->drtm.items), drtm_access, err, errlen))
		return -1;
	for (uint64_t i = 0; i < c->drtm.items; i++)
		drtm_item_init(r->buf + drtm_item_offset(i), i);
	return seq_passive_qps(r, nc, err, errlen);
}

/* Client thread i's own state: slots, header cache, generator (seed: i). */
static int client_state(struct seq_run *r, struct seq_thread *th, char *err, size_t errlen)
{
	const struct drtm_cfg *d = &r->cfg.drtm;
	unsigned w = (unsigned)r->cfg.window;
	struct drtm_client *c = calloc(1, sizeof(*c));

	th->app = c;
	th->app_free = client_free;
	if (!c)
		return rb_fail(err, errlen, "out of memory for client thread %u", th->index);
	c->ncache = drtm_cache_slots(d->items);
	c->slot = calloc(w, sizeof(*c->slot));
	c->cache = calloc(c->ncache, sizeof(*c->cache));   /* 0: version 0, unlocked */
	c->owner = drtm_owner_of(th->index);
	if (!c->slot || !c->cache)
		return rb_fail(err, errlen, "out of memory for client thread %u's %llu cached "
			       "headers", th->index, (unsigned long long)c->ncache);
	if (drtm_gen_init(&c->gen, d, UINT64_C(0x5eed0000) + th->index))
		return rb_fail(err, errlen, "--drtm: no key generator for %llu items",
			       (unsigned long long)d->items);
	return 0;
}

static int drtm_create_client(struct seq_run *r, char *err, size_t errlen)
{
	unsigned w = (unsigned)r->cfg.window;

	/* per thread: a send CQ for the signaled READs, CASes and FAAs (one
	 * outstanding per slot) and an SQ for up to two WRs per slot */
	if (seq_client_threads(r, (uint64_t)w * DRTM_SLOT_BYTES, 0, 1, w + 16, 0, err, errlen))
		return -1;
	for (unsigned i = 0; i < r->nth; i++) {
		struct seq_thread *th = &r->th[i];
		if (seq_client_arrays(r, i, (size_t)w * WR_PER_SLOT, err, errlen))
			return -1;
		if (client_state(r, th, err, errlen) ||
		    seq_qp_create(r, &th->qps[0], RB_TR_RC, RB_VERB_FETCH_ADD, th->scq, NULL,
				  2 * w + 16, 0, i, err, errlen))
			return -1;
	}
	return 0;
}

static int drtm_create(struct seq_run *r, char *err, size_t errlen)
{
	return r->role == RB_ROLE_SERVER ? drtm_create_server(r, err, errlen)
					 : drtm_create_client(r, err, errlen);
}

/* Slot k's four WRs over its part of th->area; remote addresses per post. */
static void build_slot(struct seq_run *r, struct seq_thread *th, unsigned k)
{
	static const struct { enum ibv_wr_opcode op; uint32_t off, len; } w[WR_PER_SLOT] = {
		[WR_READ] = { IBV_WR_RDMA_READ, 0, DRTM_ITEM_BYTES },
		[WR_CAS] = { IBV_WR_ATOMIC_CMP_AND_SWP, DRTM_CAS_OFF, 8 },
		[WR_WRITE] = { IBV_WR_RDMA_WRITE, DRTM_PUT_OFF, DRTM_VALUE_BYTES },
		[WR_FAA] = { IBV_WR_ATOMIC_FETCH_AND_ADD, DRTM_FAA_OFF, 8 },
	};
	uint8_t *area = th->area + (uint64_t)k * DRTM_SLOT_BYTES;

	for (unsigned j = 0; j < WR_PER_SLOT; j++) {
		unsigned x = k * WR_PER_SLOT + j;
		th->sge[x] = (struct ibv_sge){
			.addr = (uintptr_t)(area + w[j].off), .length = w[j].len, .lkey = r->mr->lkey,
		};
		th->wr[x] = (struct ibv_send_wr){
			.wr_id = k, .sg_list = &th->sge[x], .num_sge = 1, .opcode = w[j].op,
			.send_flags = j == WR_WRITE ? 0 : IBV_SEND_SIGNALED,
		};
		if (j == WR_READ || j == WR_WRITE)
			th->wr[x].wr.rdma.rkey = r->remote.rkey;
		else
			th->wr[x].wr.atomic.rkey = r->remote.rkey;
	}
}

/* The server's QP, connected with the atomics verb's access (the verb
 * table grants one verb's): RTS -> RTS with READ, WRITE and atomics. */
static int grant_all(struct rb_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { .qp_access_flags = (unsigned)drtm_access };
	int rc = ibv_modify_qp(q->qp, &a, IBV_QP_ACCESS_FLAGS);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTS->RTS, access 0x%x) failed: %s",
			       q->qp->qp_num, (unsigned)drtm_access, strerror(rc));
	return 0;
}

static int drtm_connect(struct seq_run *r, char *err, size_t errlen)
{
	unsigned nc = (unsigned)r->cfg.client_threads;

	if (seq_connect_pairs(r, grant_all, err, errlen))
		return -1;
	if (r->role == RB_ROLE_SERVER)
		return 0;
	if (r->remote.buf_len < drtm_region_bytes(r->cfg.drtm.items))
		return rb_fail(err, errlen, "the server's region has %llu bytes, %llu items need %llu",
			       (unsigned long long)r->remote.buf_len,
			       (unsigned long long)r->cfg.drtm.items,
			       (unsigned long long)drtm_region_bytes(r->cfg.drtm.items));
	for (unsigned i = 0; i < nc; i++)
		for (unsigned k = 0; k < r->cfg.window; k++)
			build_slot(r, &r->th[i], k);
	return 0;
}

/* Post WR j of slot k (with the next ones linked: n WRs, one doorbell). */
static int post_wrs(struct seq_thread *th, unsigned k, unsigned j, unsigned n)
{
	struct ibv_send_wr *first = &th->wr[k * WR_PER_SLOT + j], *bad;
	for (unsigned i = 0; i < n; i++)
		first[i].next = i + 1 < n ? &first[i + 1] : NULL;
	int rc = ibv_post_send(th->qps[0].qp, first, &bad);
	if (rc) {
		seq_thread_fail(th, "ibv_post_send(drtm-kv %s, qpn 0x%x) failed: %s",
				j == WR_READ ? "READ" : j == WR_CAS ? "CMP_AND_SWAP" : "WRITE+FETCH_AND_ADD",
				th->qps[0].qp->qp_num, strerror(rc));
		return -1;
	}
	return 0;
}

static uint64_t remote_hdr(const struct seq_thread *th, uint64_t key)
{
	return th->run->remote.buf_addr + drtm_item_offset(key);
}

/* The CAS of slot k's PUT, comparing with s->compare. */
static int post_lock(struct seq_thread *th, struct drtm_client *c, unsigned k)
{
	struct drtm_slot *s = &c->slot[k];
	struct ibv_send_wr *w = &th->wr[k * WR_PER_SLOT + WR_CAS];

	w->wr.atomic.remote_addr = remote_hdr(th, s->key);
	w->wr.atomic.compare_add = s->compare;
	w->wr.atomic.swap = drtm_lock_swap(s->compare, c->owner);
	s->state = ST_LOCK;
	return post_wrs(th, k, WR_CAS, 1);
}

/* Begin slot k's next operation (a GET or a PUT's lock) at now. */
static int begin_op(struct seq_thread *th, struct drtm_client *c, unsigned k, uint64_t now)
{
	struct drtm_slot *s = &c->slot[k];

	s->key = drtm_next_key(&c->gen);
	s->t0 = now;
	th->outstanding++;
	if (drtm_next_is_put(&c->gen)) {
		s->compare = drtm_hdr(drtm_hdr_version(c->cache[s->key % c->ncache]), 0);
		return post_lock(th, c, k);
	}
	struct ibv_send_wr *w = &th->wr[k * WR_PER_SLOT + WR_READ];
	w->wr.rdma.remote_addr = remote_hdr(th, s->key);
	s->state = ST_GET;
	return post_wrs(th, k, WR_READ, 1);
}

/* The lock is held: [WRITE the value,] release with the FAA. */
static int post_release(struct seq_thread *th, struct drtm_client *c, unsigned k)
{
	struct drtm_slot *s = &c->slot[k];
	struct ibv_send_wr *wr = &th->wr[k * WR_PER_SLOT];
	uint8_t *area = th->area + (uint64_t)k * DRTM_SLOT_BYTES;
	bool writes = th->run->cfg.drtm.put_writes != 0;

	wr[WR_FAA].wr.atomic.remote_addr = remote_hdr(th, s->key);
	wr[WR_FAA].wr.atomic.compare_add = DRTM_RELEASE_ADD(c->owner);
	s->state = ST_RELEASE;
	if (!writes)
		return post_wrs(th, k, WR_FAA, 1);
	drtm_value_fill(area + DRTM_PUT_OFF, s->key, drtm_hdr_version(s->compare) + 1);
	wr[WR_WRITE].wr.rdma.remote_addr = remote_hdr(th, s->key) + DRTM_VALUE_OFF;
	return post_wrs(th, k, WR_WRITE, 2);
}

static uint64_t slot_word(const struct seq_thread *th, unsigned k, uint32_t off)
{
	uint64_t v;
	memcpy(&v, th->area + (uint64_t)k * DRTM_SLOT_BYTES + off, sizeof(v));
	return v;
}

/* Slot k's operation ended at now: count it, start the next one while the
 * window lasts. */
static int end_op(struct seq_thread *th, struct drtm_client *c, unsigned k, bool put,
		  uint64_t now)
{
	const struct seq_run *r = th->run;
	bool in = now >= r->win_start && now < r->win_end;

	if (put)
		c->n.puts_done++;
	if (in)
		*(put ? &c->n.puts : &c->n.gets) += 1;
	seq_client_answered(th, c->slot[k].t0, now);
	c->slot[k].state = ST_IDLE;
	return now < r->win_end ? begin_op(th, c, k, now) : 0;
}

/* A completion of slot k: the next step of its operation. */
static int step(struct seq_thread *th, struct drtm_client *c, unsigned k, uint64_t now)
{
	struct drtm_slot *s = &c->slot[k];
	uint64_t *cached = &c->cache[s->key % c->ncache];

	switch (s->state) {
	case ST_GET: {
		struct drtm_view v;
		drtm_item_view(th->area + (uint64_t)k * DRTM_SLOT_BYTES, &v);
		if (!drtm_hdr_owner(v.hdr))
			*cached = v.hdr;
		if (th->run->cfg.drtm.validate &&
		    !drtm_get_ok(&v, s->key, th->run->cfg.drtm.put_writes != 0))
			c->n.bad_gets++;
		return end_op(th, c, k, false, now);
	}
	case ST_LOCK: {
		uint64_t old = slot_word(th, k, DRTM_CAS_OFF);
		if (old == s->compare)
			return post_release(th, c, k);
		c->n.cas_failures++;
		c->n.cas_locked += drtm_hdr_owner(old) != 0;
		s->compare = drtm_cas_retry(old);
		*cached = s->compare;
		return post_lock(th, c, k);
	}
	case ST_RELEASE: {
		uint64_t old = slot_word(th, k, DRTM_FAA_OFF);
		if (old != drtm_lock_swap(s->compare, c->owner)) {
			seq_thread_fail(th, "release of item %llu found header 0x%llx, not the lock "
					"0x%llx it took", (unsigned long long)s->key,
					(unsigned long long)old,
					(unsigned long long)drtm_lock_swap(s->compare, c->owner));
			return -1;
		}
		*cached = drtm_hdr(drtm_hdr_version(s->compare) + 1, 0);
		return end_op(th, c, k, true, now);
	}
	default:
		seq_thread_fail(th, "completion for idle slot %u", k);
		return -1;
	}
}

/* Client thread: keep `window` operations outstanding until the window
 * ends, then finish them (SEQ_DRAIN_MS at most; a PUT ends with its
 * release). */
static void *drtm_client_main(void *arg)
{
	struct seq_thread *th = arg;
	struct drtm_client *c = th->app;
	struct ibv_wc wc[RB_POLL_BATCH];
	unsigned w = (unsigned)th->run->cfg.window;

	if (!seq_client_start(th))
		return NULL;
	for (unsigned k = 0; k < w; k++)
		if (begin_op(th, c, k, timing_now_ns()))
			return NULL;
	for (;;) {
		uint64_t now;
		const int n = seq_client_poll(th, th->scq, "drtm-kv send CQ", wc, &now);
		if (n < 0)
			return NULL;
		for (const struct ibv_wc *e = wc; e < wc + n; e++) {
			if (e->status != IBV_WC_SUCCESS)
				return seq_thread_fail(th, "drtm-kv completion failed: %s (opcode %d, "
						       "qpn 0x%x)", ibv_wc_status_str(e->status),
						       (int)e->opcode, e->qp_num);
			if (e->wr_id >= w || step(th, c, (unsigned)e->wr_id, now))
				return th->rc ? NULL
					      : seq_thread_fail(th, "completion names slot %llu of %u",
								(unsigned long long)e->wr_id, w);
		}
		if (seq_client_done(th, now))
			break;
	}
	return NULL;
}

static void drtm_server_done(struct seq_run *r, struct ctrl_done *d)
{
	struct drtm_tally t;
	drtm_scan(r->buf, r->cfg.drtm.items, r->cfg.drtm.put_writes != 0, &t);
	d->recvs = t.items;
	d->bad_payloads = t.locked;
	d->counter_sum = t.versions;
	d->atomic_success = t.stamp_stale;
	rb_info("drtm-kv items: %llu scanned, %llu left locked, versions sum %llu, "
		"%llu stale stamps", (unsigned long long)t.items, (unsigned long long)t.locked,
		(unsigned long long)t.versions, (unsigned long long)t.stamp_stale);
}

int drtm_client_done(const struct seq_run *r, const struct ctrl_done *srv,
		     struct drtm_counts *c, struct drtm_tally *t, char *err, size_t errlen)
{
	char why[256];

	*c = (struct drtm_counts){ 0 };
	for (unsigned i = 0; i < r->nth; i++) {
		const struct drtm_client *s = r->th[i].app;
		c->gets += s->n.gets;
		c->puts += s->n.puts;
		c->puts_done += s->n.puts_done;
		c->cas_failures += s->n.cas_failures;
		c->cas_locked += s->n.cas_locked;
		c->bad_gets += s->n.bad_gets;
	}
	*t = (struct drtm_tally){ .items = srv->recvs, .locked = srv->bad_payloads,
				  .versions = srv->counter_sum, .stamp_stale = srv->atomic_success };
	if (!drtm_check(t, c, why, sizeof(why)))
		return rb_fail(err, errlen, "drtm-kv check failed: %s", why);
	return 0;
}

const struct seq_variant_ops seq_drtm_ops = {
	.name = "drtm-kv",
	.create = drtm_create,
	.connect = drtm_connect,
	.client_main = drtm_client_main,
	.server_main = NULL,
	.server_done = drtm_server_done,
};
