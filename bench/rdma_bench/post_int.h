/*
 * post_int.h - what the data path's files (bench/rdma_bench/post*.c) share and no
 * caller outside them needs: the error recorders (post_err.c, cold) and the
 * per-WR inline helpers both the requester and the responder loops post
 * and poll with. Hot path rules (post.c): no allocation, no locks, no
 * formatting; errors are formatted once, on the way out.
 */
#ifndef RDMA_BENCH_POST_INT_H
#define RDMA_BENCH_POST_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ctx.h"
#include "plan.h"
#include "post.h"
#include "timing.h"

#define CHECK_EVERY 256u    /* idle polls between clock / stop checks, a power of two */
#define CHECK_MASK (CHECK_EVERY - 1u)  /* (++idle & CHECK_MASK) == 0: each CHECK_EVERY-th, no % */

/* Record the worker's first error (later ones are echoes) in w->err and
 * w->rc; returns -1. post_wstopped: for a thread that ends because the
 * session or another thread stopped it (workers_join reports a real
 * failure first). */
int post_werr(struct rb_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int post_wstopped(struct rb_worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A completion with an error status: the status, vendor_err and its likely cause. */
int post_wc_error(struct rb_worker *w, const struct ibv_wc *wc, const char *what);
/* A wait that ran out of time: where it stalled (focus: the QP waited on,
 * NULL: the first with WRs outstanding). */
int post_stall_error(struct rb_worker *w, const char *what, struct rb_qp *focus, bool measure)
	__attribute__((cold, noinline));
/* A refused ibv_post_send of n WRs on q (error rc). */
int post_failed(struct rb_worker *w, const struct rb_qp *q, unsigned n, int rc)
	__attribute__((cold, noinline));

static inline bool stopped(struct rb_ctx *c)
{
	return atomic_load_explicit(&c->stop, memory_order_relaxed) != 0;
}

/* xorshift64: the next random counter index. */
static inline uint64_t next_rand(struct rb_worker *w)
{
	uint64_t x = w->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	w->rng = x;
	return x;
}

/* The next atomic counter index, < Z = --atomic-counters (< 2^32, checked
 * by test_validate). Random: the high 32 bits of the xorshift value scaled
 * to [0, Z) by a multiply and a shift (Lemire's multiply-shift range
 * reduction: no division; bias below Z / 2^32). Sequential: a counter that
 * wraps at Z. */
static inline uint32_t next_counter(struct rb_worker *w, const struct rb_test *t)
{
	if (t->access == RB_ACCESS_RANDOM)
		return (uint32_t)(((next_rand(w) >> 32) * t->atomic_counters) >> 32);
	uint32_t i = (uint32_t)w->seq_ctr;
	if (++w->seq_ctr == t->atomic_counters)
		w->seq_ctr = 0;
	return i;
}

/* An atomic WR i of q's list (WR seq of q): the next counter, its
 * result slot and the operands (the expected value with cmp_swap). */
static inline void prep_atomic(struct rb_worker *w, struct rb_qp *q, unsigned i, uint64_t seq)
{
	const struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const struct rb_verb_row *row = w->row;
	struct ibv_send_wr *wr = &q->swr[i];
	uint64_t slot = seq & (c->lay.sq_ring - 1);
	uint32_t idx = next_counter(w, t);
	uint64_t expect = row->counts_success ? w->expect[idx] : 0;

	wr->wr.atomic.remote_addr = c->remote.buf_addr + c->lay.counters_off +
				    (uint64_t)idx * t->stride;
	q->ssge[i].addr = (uintptr_t)(q->send + slot * 8);
	q->ctr[slot] = idx;
	q->cmp[slot] = expect;
	row->atomic_operands(wr, expect);
}

/* WR i of q's list (WR seq of q) signaled: its flag, its wr_id (what its
 * CQE reports, plan_send_id) and, with stamp, its post time in q->post_ts
 * (*ts: read once per list). */
static inline __attribute__((always_inline))
void mark_signaled(struct rb_worker *w, struct rb_qp *q, uint64_t i, uint64_t seq,
		   unsigned base_flags, bool stamp, uint64_t *ts)
{
	struct ibv_send_wr *wr = &q->swr[i];

	wr->send_flags = base_flags | IBV_SEND_SIGNALED;
	wr->wr_id = plan_send_id(q->index, seq);
	if (stamp) {
		if (!*ts)
			*ts = timing_now_ns();
		q->post_ts[seq & (w->ctx->lay.sq_ring - 1)] = *ts;
	}
}

/*
 * Post n WRs on q as one linked list (one doorbell). Signaled by
 * plan_signaled(seq, sig, q->quota), found per list rather than tested per
 * WR: q->sig_left - 1 is the list's first WR signaled by the interval, then
 * every sig-th; the quota's last WR too. A signaled WR gets
 * IBV_SEND_SIGNALED and its wr_id (what its CQE reports, plan_send_id);
 * an unsignaled one keeps a stale wr_id (no CQE of it is counted: only an
 * error CQE could carry it, and post_wc_error does not read it).
 * Flags: between posts a WR holds base_flags (ctx_qp_set_remote sets them,
 * the point's: inline or not). Not atomic: only the signaled WRs are
 * written, and given base_flags back after the post (ibv_post_send has
 * read the list when it returns), so an unsignaled WR is not touched.
 * Atomic: every WR gets its counter and operands (prep_atomic) and its
 * flags with them. atomic is w->row->atomic, a constant where the caller
 * is compiled for one kind (bw_phase), so no list tests it.
 * q->swr is chained once at setup (ctx.c): the list is cut after WR n - 1
 * for the post and the link put back (no per-WR store of next). With
 * stamp, a signaled WR's post time goes to q->post_ts (the
 * completion-latency histogram): one clock read per list that holds a
 * signaled WR, none for the others.
 */
static inline __attribute__((always_inline))
int post_batch(struct rb_worker *w, struct rb_qp *q, unsigned n, unsigned sig,
	       unsigned base_flags, bool stamp, bool atomic)
{
	struct ibv_send_wr *bad = NULL;
	struct ibv_send_wr *const end = &q->swr[n - 1], *const link = end->next;
	const uint64_t posted = q->posted;
	uint64_t ts = 0;

	if (atomic)
		for (unsigned i = 0; i < n; i++) {
			q->swr[i].send_flags = base_flags;
			prep_atomic(w, q, i, posted + i);
		}
	const uint64_t first = q->sig_left - 1;  /* the first signaled by the interval */
	uint64_t i = first;
	for (; i < n; i += sig)
		mark_signaled(w, q, i, posted + i, base_flags, stamp, &ts);
	uint64_t last = q->quota - 1 - posted;  /* the quota's last WR (none: UINT64_MAX) */
	if (last < n)
		mark_signaled(w, q, last, posted + last, base_flags, stamp, &ts);
	end->next = NULL;  /* the chain (ctx.c) cut after WR n - 1, put back after the post */
	int rc = ibv_post_send(q->qp, &q->swr[0], &bad);
	end->next = link;
	if (!atomic) {  /* the signaled ones unsignaled again */
		for (uint64_t j = first; j < n; j += sig)
			q->swr[j].send_flags = base_flags;
		if (last < n)
			q->swr[last].send_flags = base_flags;
	}
	if (rc)
		return post_failed(w, q, n, rc);
	q->posted = posted + n;
	q->sig_left = i - n + 1;  /* WRs to the next signaled one, as plan_sig_step counts */
	return 0;
}

/* Reap send completions without blocking (ping-pong SQ slots). */
static inline int reap_sends(struct rb_worker *w, const char *what)
{
	struct ibv_wc wc[RB_POLL_BATCH];
	int ne;

	while ((ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc)) > 0)
		for (int i = 0; i < ne; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return post_wc_error(w, &wc[i], what);
			struct rb_qp *q = &w->qps[plan_send_id_qp(wc[i].wr_id)];
			q->completed = plan_send_id_upto(wc[i].wr_id);
		}
	if (ne < 0)
		return post_werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
	return 0;
}

/* Wait until q's SQ has room for one more WR (its completions reaped).
 * 0, or -1 with w->err (a failed poll, or the session stopped). */
static inline __attribute__((always_inline))
int sq_room_one(struct rb_worker *w, struct rb_qp *q, const char *what)
{
	const struct rb_test *t = &w->ctx->t;

	while (q->posted - q->completed >= t->sq_depth) {
		if (reap_sends(w, what))
			return -1;
		if (stopped(w->ctx))
			return post_wstopped(w, "thread %u: stopped while waiting for SQ room", w->index);
	}
	return 0;
}

/* Post one signaled WR (ping-pong or rtt op), waiting for SQ room if needed. */
static inline __attribute__((always_inline))
int post_one(struct rb_worker *w, struct rb_qp *q, unsigned flags, const char *what)
{
	if (sq_room_one(w, q, what))
		return -1;
	/* a list of one, signaled (signal interval 1 signals every WR), no
	 * time stamp (the lat and reply paths time around it): post_batch's
	 * work for n = 1, sig = 1 without its loops over the list (~30 user
	 * instructions per op fewer in the lat loop, callgrind on the null
	 * device) */
	struct ibv_send_wr *const wr = &q->swr[0], *const link = wr->next;
	struct ibv_send_wr *bad = NULL;
	const uint64_t seq = q->posted;

	if (w->row->atomic)
		prep_atomic(w, q, 0, seq);
	wr->send_flags = flags | IBV_SEND_SIGNALED;
	wr->wr_id = plan_send_id(q->index, seq);
	wr->next = NULL;  /* the chain (ctx.c) cut after WR 0, put back after the post */
	int rc = ibv_post_send(q->qp, wr, &bad);
	wr->next = link;
	wr->send_flags = flags;  /* between posts a WR holds the point's flags */
	if (rc)
		return post_failed(w, q, 1, rc);
	q->posted = seq + 1;
	q->sig_left = 1;  /* the next WR is signaled too, as post_batch(.., 1, 1, ..) leaves it */
	return 0;
}

/* The lat loop's WR 0 of q, set once per phase (lat_arm) rather than per op:
 * signaled and a list of one (the chain of ctx.c cut after it); lat_disarm
 * puts the chain and the point's flags back. Between the two, WR 0 may be
 * posted only by post_armed. */
static inline void lat_arm(struct rb_qp *q, unsigned flags)
{
	q->swr[0].send_flags = flags | IBV_SEND_SIGNALED;
	q->swr[0].next = NULL;
}

static inline void lat_disarm(struct rb_qp *q, unsigned flags, unsigned postlist)
{
	q->swr[0].send_flags = flags;
	q->swr[0].next = postlist > 1 ? &q->swr[1] : NULL;  /* as ctx.c chains them */
	q->sig_left = 1;  /* every WR signaled, as post_one leaves it */
}

/* post_one for the lat loop, on a QP armed by lat_arm: the same work
 * without the per-op flag and chain stores (8 user instructions per op
 * fewer, callgrind on the null device). 0, or -1 with w->err. */
static inline __attribute__((always_inline))
int post_armed(struct rb_worker *w, struct rb_qp *q, const char *what)
{
	if (sq_room_one(w, q, what))
		return -1;
	struct ibv_send_wr *const wr = &q->swr[0];
	struct ibv_send_wr *bad = NULL;
	const uint64_t seq = q->posted;

	if (w->row->atomic)
		prep_atomic(w, q, 0, seq);
	wr->wr_id = plan_send_id(q->index, seq);
	int rc = ibv_post_send(q->qp, wr, &bad);
	if (rc)
		return post_failed(w, q, 1, rc);
	q->posted = seq + 1;
	return 0;
}

/* Check one received payload against the peer's pattern; counts mismatches. */
static inline void check_recv(struct rb_worker *w, struct rb_qp *q, const struct ibv_wc *wc,
			      enum rb_role peer)
{
	const struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	uint64_t slot = plan_recv_id_slot(wc->wr_id);
	const uint8_t *p = q->recv + slot * c->lay.recv_slot;
	uint32_t grh = t->transport == RB_TR_UD ? RB_UD_GRH_BYTES : 0;

	const struct rb_verb_row *row = verb_row(t->verb);

	if (row->imm) {
		if (!(wc->wc_flags & IBV_WC_WITH_IMM) ||
		    wc->imm_data != htobe32((uint32_t)(t->seed + q->gindex))) {
			w->bad_payloads++;
			return;
		}
	}
	if (row->rdma)
		return; /* the data went to the WRITE target, checked at the end */
	if (wc->byte_len != t->size + grh) {
		w->bad_payloads++;
		return;
	}
	for (uint64_t i = 0; i < t->size; i++)
		if (p[grh + i] != rb_pattern(t->seed, peer, q->gindex, i)) {
			w->bad_payloads++;
			return;
		}
}

/* Re-post receive slot of wc on q (batched by --recv-batch). */
static inline int repost_recv(struct rb_worker *w, struct rb_qp *q, uint64_t slot)
{
	const struct rb_test *t = &w->ctx->t;
	struct ibv_recv_wr *wr = &q->rwr[slot];
	struct ibv_recv_wr *bad = NULL;

	wr->next = q->rchain;
	q->rchain = wr;
	if (++q->rchain_n < t->recv_batch)
		return 0;
	int rc = ibv_post_recv(q->qp, q->rchain, &bad);
	q->rchain = NULL;
	q->rchain_n = 0;
	if (rc)
		return post_werr(w, "thread %u: ibv_post_recv(qpn 0x%x) failed: %s", w->index,
			    q->qp->qp_num, strerror(rc));
	return 0;
}


#endif /* RDMA_BENCH_POST_INT_H */
