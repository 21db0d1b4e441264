/*
 * post_req.c - the requester loops (the client's worker threads): bw with
 * CQE or --read-completion poll, lat (round trip or ping-pong), the start
 * barrier and worker_client_main. The rules are in post.c's opening comment.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "post_int.h"

/* Atomic results of WRs [from, to) of q: cmp_swap successes and expectations. */
static void atomic_results(struct rb_worker *w, struct rb_qp *q, uint64_t from, uint64_t to)
{
	const uint64_t smask = w->ctx->lay.sq_ring - 1;
	const bool swap = w->ctx->atomic_swap;  /* the self-test's finding (ctx.h) */

	if (!w->row->counts_success)
		return;
	for (uint64_t s = from; s < to; s++) {
		uint64_t slot = s & smask;
		uint64_t old = *(volatile uint64_t *)(q->send + slot * 8);
		if (swap)
			old = __builtin_bswap64(old);
		uint32_t idx = q->ctr[slot];
		if (old == q->cmp[slot]) {
			w->atomic_success++;
			w->expect[idx] = old + 1;
		} else {
			w->expect[idx] = old;
		}
	}
}

/*
 * --read-completion poll: post n READs on q as one linked list, each into
 * the next free ring slot, whose last byte is set to the sentinel first
 * (ibv_post_send orders that store before the doorbell, so the NIC's write
 * of the data always comes after it).
 */
static inline int post_batch_poll(struct rb_worker *w, struct rb_qp *q, unsigned n,
				  unsigned sig, bool stamp, uint64_t *tail, uint64_t *nsig)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t window = t->window;
	struct ibv_send_wr *bad = NULL;
	uint64_t k = *tail, ts = 0, left = q->sig_left, sigs = 0;

	for (unsigned i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &q->swr[i];
		struct rb_pslot *s = &w->pslot[k];
		uint64_t seq = q->posted + i;
		/* plan_signaled by countdown, as post_batch */
		bool signaled = plan_sig_step(&left, sig) || seq + 1 == q->quota;
		sigs += signaled;
		wr->wr_id = plan_send_id(q->index, seq);
		wr->send_flags = signaled ? IBV_SEND_SIGNALED : 0;
		q->ssge[i].addr = (uintptr_t)s->buf;
		*(volatile uint8_t *)(s->buf + t->size - 1) = RB_READ_SENTINEL;
		s->q = q;
		if (stamp && signaled && !ts)
			ts = timing_now_ns(); /* one read per list with a signaled READ */
		s->ts = signaled ? ts : 0;
		k = plan_ring_next(k, window);
	}
	struct ibv_send_wr *const end = &q->swr[n - 1], *const link = end->next;
	end->next = NULL; /* the list cut after WR n - 1, as post_batch */
	int rc = ibv_post_send(q->qp, &q->swr[0], &bad);
	end->next = link;
	if (rc)
		return post_werr(w, "thread %u: ibv_post_send(%u READs, qpn 0x%x, %llu in its send queue) "
			    "failed: %s", w->index, n, q->qp->qp_num,
			    (unsigned long long)(q->posted - q->reaped), strerror(rc));
	q->posted += n;
	q->sig_left = left;
	*tail = k;
	*nsig = sigs;
	return 0;
}

/* Reap signaled READ completions without waiting: they free SQ slots.
 * Returns the CQEs reaped, or -1 with w->err. */
static inline int reap_read_sq(struct rb_worker *w, uint64_t *sig_out)
{
	struct ibv_wc wc[RB_POLL_BATCH];
	int ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc);

	if (ne < 0)
		return post_werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
	for (int i = 0; i < ne; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return post_wc_error(w, &wc[i], "read");
		struct rb_qp *q = &w->qps[plan_send_id_qp(wc[i].wr_id)];
		q->reaped = plan_send_id_upto(wc[i].wr_id);
	}
	*sig_out -= (uint64_t)ne;
	return ne;
}

/*
 * A poll-mode wait ran out of time (cold path): name what it waited for.
 * head: the oldest outstanding READ's slot, or NULL when none is
 * outstanding (then the wait was for signaled CQEs to free SQ slots).
 */
static __attribute__((cold, noinline)) int stall_poll(struct rb_worker *w,
						       const struct rb_pslot *head, bool measure)
{
	const struct rb_test *t = &w->ctx->t;
	char what[256];
	struct rb_qp *q = NULL;

	if (head) {
		q = head->q;
		uint8_t last = *(volatile uint8_t *)(head->buf + t->size - 1);
		snprintf(what, sizeof(what),
			 "the last byte of READ %llu of this QP (slot %llu of the thread's %llu) "
			 "to change from the sentinel 0x%02x (now 0x%02x)%s",
			 (unsigned long long)q->completed,
			 (unsigned long long)(head - w->pslot), (unsigned long long)t->window,
			 RB_READ_SENTINEL, last,
			 q->reaped > q->completed ?
			 ": its completion (CQE) did arrive, so its data landed and ends in the "
			 "sentinel (the same rdma_bench on both ends?)" :
			 "");
	} else {
		for (unsigned k = 0; k < w->nqp && !q; k++)
			if (w->qps[k].reaped < w->qps[k].posted)
				q = &w->qps[k];
		snprintf(what, sizeof(what),
			 "signaled READ completions to free send queue slots (%llu of its WRs freed)",
			 q ? (unsigned long long)q->reaped : 0ull);
	}
	return post_stall_error(w, what, q, measure);
}

/*
 * Duration mode: where a phase stops posting. A measured window gated by
 * the server's start barrier (--procs) ends where the common window ends;
 * else -D after the phase's own start.
 */
static inline uint64_t phase_deadline(const struct rb_ctx *c, bool measure, uint64_t t_start,
				      uint64_t dur_ns)
{
	return measure && c->win_end_ns ? c->win_end_ns : t_start + dur_ns;
}

/* Gated window: does a completion seen at now count? (Always false when
 * not gated: callers count those windows as before.) */
static inline bool in_window(const struct rb_ctx *c, bool measure, uint64_t now)
{
	return measure && c->win_end_ns && now >= c->win_start_ns && now <= c->win_end_ns;
}

/*
 * A gated measured window (--procs > 1) without --validate ends at its
 * deadline without draining: the WRs still in flight would complete after
 * the window and count nowhere (only completions inside it count:
 * in_window), and the point destroys the QPs next, which discards them
 * (ctx_destroy: QPs before the MR). Waiting for them costs up to one round
 * trip per point under load (the client timeline's drain; its size on the
 * soft-RoCE bed: docs/rdma_bench.md, "Measured costs"). With --validate they are drained, so that
 * both ends' totals (DONE, end_to_end) count the same operations; so is
 * the warm-up, whose QPs the window reuses.
 */
static inline bool abandon_at_end(const struct rb_ctx *c, bool measure)
{
	return measure && c->win_end_ns && !c->t.validate;
}

/*
 * Start of a bw phase: every QP's counters at 0 and its share of iters
 * (iters / QPs, the first iters % QPs one more; unlimited when iters is 0,
 * the -D mode). Returns the thread's total (UINT64_MAX when unlimited).
 */
static uint64_t phase_quotas(struct rb_worker *w, uint64_t iters)
{
	const unsigned nqp = w->nqp;
	for (unsigned k = 0; k < nqp; k++) {
		struct rb_qp *q = &w->qps[k];
		q->posted = q->completed = q->reaped = 0;
		q->sig_left = w->ctx->t.signal_interval;  /* WR sig - 1 is the first signaled */
		q->quota = plan_quota(iters, nqp, k);
	}
	return iters ? iters : UINT64_MAX;
}

/*
 * Duration mode, at the deadline: each QP's quota becomes its posts so far
 * rounded up to a signaled WR (its last CQE then covers all of them; at
 * least one op per QP with --validate). Returns the thread's new total.
 */
static uint64_t phase_stop_quotas(struct rb_worker *w)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t sig = t->signal_interval;
	uint64_t sum = 0;
	for (unsigned k = 0; k < w->nqp; k++) {
		struct rb_qp *q = &w->qps[k];
		uint64_t qq = plan_stop_quota(q->posted, sig, t->validate);
		q->quota = qq;
		sum += qq;
	}
	return sum;
}

/*
 * End of a phase: the window's numbers (measured phase only) and the
 * thread's running total. Gated (--procs): the common window and the ops
 * seen completing inside it (win_ops); else [t_start, t_last] and all.
 */
static void phase_record(struct rb_worker *w, bool measure, uint64_t t_start, uint64_t t_last,
			 uint64_t win_ops, uint64_t done)
{
	const struct rb_ctx *c = w->ctx;

	if (measure) {
		bool gated = c->win_end_ns != 0;
		uint64_t ops = gated ? win_ops : done;
		w->t_start = gated ? c->win_start_ns : t_start;
		w->t_end = gated ? c->win_end_ns : t_last;
		w->ops = ops;
		w->bytes = ops * c->t.size;
	}
	w->ops_total += done;
}

/*
 * The bw phases' check, every 64 loops (*loops counts them): a stop of the
 * session (an interrupt, the peer failed, the point's time is up) ends the
 * phase even while completions keep arriving (one relaxed load, no system
 * call); in duration mode, at the deadline each QP is finished at a
 * signaled WR (*stopping set, *quota_sum lowered to the new quotas),
 * except in a gated window without --validate (see abandon_at_end).
 * Returns -1 when the phase must end (recorded by wstopped), 1 when it
 * ends now without its drain, else 0.
 */
static inline int phase_tick(struct rb_worker *w, unsigned *loops, bool measure, bool duration,
			     uint64_t deadline, bool *stopping, uint64_t *quota_sum)
{
	if ((++*loops & 63) != 0)
		return 0;
	if (stopped(w->ctx))
		return post_wstopped(w, "thread %u: stopped by the session (interrupt, peer "
			    "failure or timeout)", w->index);
	if (duration && !*stopping && timing_now_ns() >= deadline) {
		if (abandon_at_end(w->ctx, measure))
			return 1;
		*stopping = true;
		*quota_sum = phase_stop_quotas(w);
	}
	return 0;
}

/* The running numbers of one --read-completion poll phase. */
struct poll_run {
	uint64_t outstanding;   /* READs posted, last byte not seen yet */
	uint64_t done, win;     /* READs landed; of them inside the window */
	uint64_t head, tail;    /* READ slot ring: oldest outstanding, next free */
	uint64_t sig_out;       /* signaled WRs posted, CQE not reaped yet */
	uint64_t t_last;        /* time of the last landing seen */
	unsigned cursor;        /* next QP to post on */
	bool measure;
};

/* Post: round robin over QPs with room in the window, the SQ and the CQ. */
static inline int poll_post(struct rb_worker *w, struct poll_run *r)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t window = t->window, cq_room = w->ctx->cq_depth_s;
	const unsigned sig = (unsigned)t->signal_interval;

	for (unsigned k = 0; k < w->nqp && r->outstanding < window; k++) {
		struct rb_qp *q = &w->qps[r->cursor];
		r->cursor = r->cursor + 1 == w->nqp ? 0 : r->cursor + 1;
		/* n WRs bring at most n CQEs: the CQ's room bounds them too */
		uint64_t n = plan_batch_size(t->postlist, q->quota - q->posted,
					     plan_sq_room(t->sq_depth, q->posted, q->reaped),
					     window - r->outstanding);
		if (cq_room - r->sig_out < n)
			n = cq_room - r->sig_out;
		if (!n)
			continue;
		uint64_t nsig = 0;
		if (post_batch_poll(w, q, (unsigned)n, sig, r->measure, &r->tail, &nsig))
			return -1;
		r->sig_out += nsig;   /* = plan_signaled_in(posted before, n, sig, quota) */
		r->outstanding += n;
	}
	return 0;
}

/* Has the oldest outstanding READ landed (its last byte left the sentinel)? */
static inline bool poll_head_landed(const struct rb_worker *w, const struct poll_run *r)
{
	const struct rb_pslot *s = &w->pslot[r->head];
	return r->outstanding &&
	       *(volatile const uint8_t *)(s->buf + w->ctx->t.size - 1) != RB_READ_SENTINEL;
}

/* Completions: the oldest outstanding READ's last byte, then the next;
 * true when any landed. */
static inline bool poll_landings(struct rb_worker *w, struct poll_run *r)
{
	if (!poll_head_landed(w, r))
		return false;
	uint64_t now = timing_now_ns();
	const bool inw = in_window(w->ctx, r->measure, now);
	do {
		struct rb_pslot *s = &w->pslot[r->head];
		struct rb_qp *q = s->q;
		if (r->measure && s->ts)
			hist_add(w->hist, now - s->ts);
		q->completed++;
		q->ops++;
		r->done++;
		r->win += inw;
		r->outstanding--;
		r->head = plan_ring_next(r->head, w->ctx->t.window);
	} while (poll_head_landed(w, r));
	r->t_last = now;
	return true;
}

/* Every QP's last WR is signaled: wait for those CQEs, so no SQ slot and
 * no CQE is left over for the next phase (which restarts counting). */
static int poll_drain(struct rb_worker *w, struct poll_run *r)
{
	const uint64_t timeout_ns = w->ctx->t.timeout_ms * 1000000ull;
	uint64_t t_busy = timing_now_ns(), idle = 0;

	while (r->sig_out) {
		int ne = reap_read_sq(w, &r->sig_out);
		if (ne < 0)
			return -1;
		if (ne > 0) {
			t_busy = timing_now_ns();
		} else if ((++idle & CHECK_MASK) == 0) {
			if (stopped(w->ctx))
				return post_wstopped(w, "thread %u: stopped by the session (peer failure or "
					    "timeout)", w->index);
			if (timing_now_ns() - t_busy > timeout_ns)
				return stall_poll(w, NULL, r->measure);
		}
	}
	return 0;
}

/*
 * One bw phase with --read-completion poll (READ only): iters ops per
 * thread (or until dur_ns). See the top of this file.
 */
static int bw_phase_poll(struct rb_worker *w, uint64_t iters, uint64_t dur_ns, bool measure)
{
	struct rb_ctx *c = w->ctx;
	const uint64_t timeout_ns = c->t.timeout_ms * 1000000ull;
	struct poll_run r = { .measure = measure };
	uint64_t quota_sum, t_start, t_busy, deadline, idle = 0;
	unsigned loops = 0;
	bool stopping = false;

	quota_sum = phase_quotas(w, iters);
	t_start = r.t_last = t_busy = timing_now_ns();
	deadline = phase_deadline(c, measure, t_start, dur_ns);

	while (r.done < quota_sum) {
		if (poll_post(w, &r))
			return -1;
		bool busy = poll_landings(w, &r);
		/* SQ slots: reap signaled completions, never waiting for one (polled
		 * even with none due: an unsignaled WR that fails still completes,
		 * with its error). */
		int ne = reap_read_sq(w, &r.sig_out);
		if (ne < 0)
			return -1;
		busy |= ne > 0;
		if (busy) {
			idle = 0;
			t_busy = 0;
		} else if ((++idle & CHECK_MASK) == 0) {
			uint64_t now = timing_now_ns();
			if (!t_busy)
				t_busy = now; /* idle since about now */
			if (stopped(c))
				return post_wstopped(w, "thread %u: stopped by the session (peer failure or "
					    "timeout)", w->index);
			if (now - t_busy > timeout_ns)
				return stall_poll(w, r.outstanding ? &w->pslot[r.head] : NULL, measure);
		}
		int tk = phase_tick(w, &loops, measure, dur_ns != 0, deadline, &stopping, &quota_sum);
		if (tk < 0)
			return -1;
		if (tk > 0) {
			r.sig_out = 0; /* abandoned with the rest (abandon_at_end) */
			break;
		}
	}
	if (poll_drain(w, &r))
		return -1;
	phase_record(w, measure, t_start, r.t_last, r.win, r.done);
	return 0;
}

/* One bw phase: iters ops per thread (or until dur_ns); atomic: the
 * verb's row says atomic (bw_phase passes it as a constant). */
static inline __attribute__((always_inline))
int bw_run(struct rb_worker *w, uint64_t iters, uint64_t dur_ns, bool measure, bool atomic)
{
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const unsigned nqp = w->nqp;
	const uint64_t window = t->window, sq = t->sq_depth, smask = c->lay.sq_ring - 1;
	const unsigned postlist = (unsigned)t->postlist, sig = (unsigned)t->signal_interval;
	const unsigned base_flags = c->use_inline ? IBV_SEND_INLINE : 0;
	const uint64_t timeout_ns = t->timeout_ms * 1000000ull;
	struct ibv_wc wc[RB_POLL_BATCH];
	uint64_t outstanding = 0, done = 0, quota_sum;
	uint64_t t_start, t_last, deadline, idle = 0, win = 0;
	unsigned cursor = 0, loops = 0;
	bool stopping = false;

	quota_sum = phase_quotas(w, iters);
	t_start = t_last = timing_now_ns();
	deadline = phase_deadline(c, measure, t_start, dur_ns);

	while (done < quota_sum) {
		/* Post: round robin over QPs with room, until the window is full
		 * or a whole round of the QPs posts nothing (quota reached, SQ full:
		 * only a CQE frees it); then poll. One poll per window, as
		 * perftest's ib_*_bw, not one per list: a poll costs the device
		 * about as much as a post (tens of instructions on the null
		 * device, a CQE read on mlx5). Ends: every post adds >= 1 WR to
		 * outstanding, bounded by window. */
		for (unsigned idle_qps = 0; idle_qps < nqp && outstanding < window;) {
			struct rb_qp *q = &w->qps[cursor];
			cursor = cursor + 1 == nqp ? 0 : cursor + 1;
			uint64_t n = plan_batch_size(postlist, q->quota - q->posted,
						     plan_sq_room(sq, q->posted, q->completed),
						     window - outstanding);
			if (!n) {
				idle_qps++;
				continue;
			}
			idle_qps = 0;
			if (post_batch(w, q, (unsigned)n, sig, base_flags, measure, atomic))
				return -1;
			outstanding += n;
		}
		/* Poll a batch. */
		int ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc);
		if (ne < 0)
			return post_werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
		if (ne > 0) {
			uint64_t now = timing_now_ns();
			const bool inw = in_window(c, measure, now);
			for (int i = 0; i < ne; i++) {
				if (wc[i].status != IBV_WC_SUCCESS)
					return post_wc_error(w, &wc[i], verb_name(t->verb));
				struct rb_qp *q = &w->qps[plan_send_id_qp(wc[i].wr_id)];
				uint64_t upto = plan_send_id_upto(wc[i].wr_id);
				uint64_t n = upto - q->completed;
				if (measure)
					hist_add(w->hist, now - q->post_ts[(upto - 1) & smask]);
				if (atomic)
					atomic_results(w, q, q->completed, upto);
				q->completed = upto;
				q->ops += n;
				outstanding -= n;
				done += n;
				if (inw)
					win += n;
			}
			t_last = now;
			idle = 0;
		} else if ((++idle & CHECK_MASK) == 0) {
			uint64_t now = timing_now_ns();
			if (stopped(c))
				return post_wstopped(w, "thread %u: stopped by the session (peer failure or "
					    "timeout)", w->index);
			if (now - t_last > timeout_ns) {
				char what[64];
				snprintf(what, sizeof(what), "%s completions", verb_name(t->verb));
				return post_stall_error(w, what, NULL, measure);
			}
		}
		int tk = phase_tick(w, &loops, measure, dur_ns != 0, deadline, &stopping, &quota_sum);
		if (tk < 0)
			return -1;
		if (tk > 0)
			break; /* the rest in flight is abandoned (abandon_at_end) */
	}
	phase_record(w, measure, t_start, t_last, win, done);
	if (verb_needs_recv(t->verb))
		w->sends_total += done;
	return 0;
}

/* One bw phase (bw_run), compiled twice: for atomic verbs and for the
 * others, so no list tests the verb's kind. */
static int bw_phase(struct rb_worker *w, uint64_t iters, uint64_t dur_ns, bool measure)
{
	if (w->row->atomic)
		return bw_run(w, iters, dur_ns, measure, true);
	return bw_run(w, iters, dur_ns, measure, false);
}

/* Wait for one completion on cq (for an op of q); 0, or -1 with w->err. */
static inline int wait_one(struct rb_worker *w, struct rb_qp *q, struct ibv_cq *cq,
			   struct ibv_wc *wc, const char *what, bool measure)
{
	struct rb_ctx *c = w->ctx;
	uint64_t start = 0, idle = 0;

	for (;;) {
		int ne = ibv_poll_cq(cq, 1, wc);
		if (ne > 0) {
			if (wc->status != IBV_WC_SUCCESS)
				return post_wc_error(w, wc, what);
			return 0;
		}
		if (ne < 0)
			return post_werr(w, "thread %u: ibv_poll_cq(%s) failed: %d", w->index, what, ne);
		if ((++idle & CHECK_MASK) == 0) {
			uint64_t now = timing_now_ns();
			if (!start)
				start = now;
			if (stopped(c))
				return post_wstopped(w, "thread %u: stopped by the session while waiting for %s",
					    w->index, what);
			if (now - start > c->t.timeout_ms * 1000000ull) {
				char desc[96];
				snprintf(desc, sizeof(desc), cq == w->scq ? "the %s completion" : "%s",
					 what);
				return post_stall_error(w, desc, q, measure);
			}
		}
	}
}

/* WRITE ping-pong, one op on q: write our tag into the server's last byte,
 * spin until its WRITE brings the tag back into ours (no CQE). *t0, *t1:
 * post and reply times. */
static inline int lat_write_pp(struct rb_worker *w, struct rb_qp *q, bool measure, uint64_t *t0,
			       uint64_t *t1)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t timeout_ns = t->timeout_ms * 1000000ull;
	const char *what = w->row->name;
	uint8_t tag = plan_next_tag(q->tag);

	q->tag = tag;
	q->send[t->size - 1] = tag;
	*t0 = timing_now_ns();
	if (post_armed(w, q, what))
		return -1;
	volatile uint8_t *flag = q->recv + t->size - 1;
	uint64_t spins = 0;
	while (*flag != tag) {
		if ((++spins & 4095) == 0) {
			uint64_t now = timing_now_ns();
			if (stopped(w->ctx))
				return post_wstopped(w, "thread %u: stopped while waiting for the WRITE reply",
						w->index);
			if (now - *t0 > timeout_ns)
				return post_stall_error(w, "the server's WRITE reply", q, measure);
		}
	}
	*t1 = timing_now_ns();
	return reap_sends(w, what);
}

/* One timed op on q: *t0, post it, wait for one completion on cq (*wc;
 * waitfor names it in the timeout message), *t1. 0, or -1 (w->err set). */
static inline __attribute__((always_inline))
int post_wait_timed(struct rb_worker *w, struct rb_qp *q, struct ibv_cq *cq, const char *waitfor,
		    bool measure, struct ibv_wc *wc, uint64_t *t0,
		    uint64_t *t1)
{
	*t0 = timing_now_ns();
	if (post_armed(w, q, w->row->name) ||
	    wait_one(w, q, cq, wc, waitfor, measure))
		return -1;
	*t1 = timing_now_ns();
	return 0;
}

/* READ or atomic, one op on q: post it and wait for its own CQE (the
 * response is the round trip). */
static inline int lat_rtt(struct rb_worker *w, struct rb_qp *q, bool measure,
			  uint64_t *t0, uint64_t *t1)
{
	struct ibv_wc wc;

	if (post_wait_timed(w, q, w->scq, w->row->name, measure, &wc, t0, t1))
		return -1;
	q->completed = plan_send_id_upto(wc.wr_id);
	if (w->row->atomic)
		atomic_results(w, q, q->completed - 1, q->completed);
	return 0;
}

/* SEND / WRITE_IMM ping-pong, one op on q: post it and wait for the
 * server's reply to consume one of our receives (checked, reposted). */
static inline int lat_recv_pp(struct rb_worker *w, struct rb_qp *q, bool measure,
			      uint64_t *t0, uint64_t *t1)
{
	const char *what = w->row->name;
	struct ibv_wc wc;

	if (post_wait_timed(w, q, w->rcq, "the ping-pong reply (receive)", measure, &wc,
			    t0, t1))
		return -1;
	struct rb_qp *rq = &w->qps[plan_recv_id_qp(wc.wr_id)];
	if (w->ctx->t.validate)
		check_recv(w, rq, &wc, RB_ROLE_SERVER);
	if (repost_recv(w, rq, plan_recv_id_slot(wc.wr_id)) || reap_sends(w, what))
		return -1;
	w->sends_total++;
	return 0;
}

/* Leave no send outstanding (ping-pong replies may still be acknowledged). */
static int lat_drain(struct rb_worker *w, bool measure)
{
	const uint64_t timeout_ns = w->ctx->t.timeout_ms * 1000000ull;
	const char *what = w->row->name;

	for (unsigned k = 0; k < w->nqp; k++) {
		struct rb_qp *q = &w->qps[k];
		uint64_t start = timing_now_ns();
		while (q->completed < q->posted) {
			if (reap_sends(w, what))
				return -1;
			if (timing_now_ns() - start > timeout_ns)
				return post_stall_error(w, "the last send completions", q, measure);
		}
	}
	return 0;
}

/* One lat phase on the client. */
static int lat_phase(struct rb_worker *w, uint64_t iters, uint64_t dur_ns, bool measure)
{
	struct rb_ctx *c = w->ctx;
	const unsigned flags = c->use_inline ? IBV_SEND_INLINE : 0;
	/* per phase, not per op (the stores of the loop could alias them) */
	const bool polls_byte = w->row->lat_polls_byte, rtt = w->row->lat == RB_LAT_RTT;
	struct rb_qp *const qps = w->qps;
	const unsigned nqp = w->nqp;
	uint64_t done = 0, win = 0, t_start, t_end, deadline;
	unsigned cursor = 0;
	int rc = 0;

	for (unsigned k = 0; k < nqp; k++) {
		qps[k].posted = qps[k].completed = 0;
		lat_arm(&qps[k], flags);  /* WR 0 signaled, alone: post_armed */
	}
	t_start = t_end = timing_now_ns();
	deadline = phase_deadline(c, measure, t_start, dur_ns);
	while (iters ? done < iters : true) {
		struct rb_qp *q = &qps[cursor];
		uint64_t t0 = 0, t1 = 0;

		cursor = (unsigned)plan_ring_next(cursor, nqp);
		if (polls_byte)
			rc = lat_write_pp(w, q, measure, &t0, &t1);
		else if (rtt)
			rc = lat_rtt(w, q, measure, &t0, &t1);
		else
			rc = lat_recv_pp(w, q, measure, &t0, &t1);
		if (rc)
			break;
		if (measure)
			hist_add(w->hist, t1 - t0);
		q->ops++;
		done++;
		win += in_window(c, measure, t1);
		t_end = t1;
		if (dur_ns && t1 >= deadline)
			break;
		if (stopped(c)) { /* an interrupt or the session: one relaxed load per op */
			rc = post_wstopped(w, "thread %u: stopped by the session (interrupt, peer "
					   "failure or timeout)", w->index);
			break;
		}
	}
	if (!rc)
		rc = lat_drain(w, measure);
	for (unsigned k = 0; k < nqp; k++)
		lat_disarm(&qps[k], flags, (unsigned)c->t.postlist);
	if (rc)
		return -1;
	phase_record(w, measure, t_start, t_end, win, done);
	return 0;
}

/*
 * Start barrier of the measured window: the last thread to arrive reads the
 * port counters (outside every window) and releases the others. Gated
 * (--procs > 1): it sets warm instead, and every thread waits for the
 * session thread's go (the server's GO, ctx_release); the session thread
 * bounds that wait, and threads sleep on go (futex(2)) rather than spin or
 * wake up periodically, so that the CPU goes to the processes still setting
 * up (ci/harness-overhead measured the futex below periodic sleeps:
 * docs/rdma_bench.md, "Measured costs").
 */
static int barrier(struct rb_worker *w)
{
	struct rb_ctx *c = w->ctx;
	uint64_t start = timing_now_ns();

	if (atomic_fetch_add(&c->arrived, 1) + 1 == c->nw) {
		if (c->ctr_before)
			dev_counters_read(c->dev->name, c->dev->port, c->ctr_before);
		if (c->cs_before)
			cs_take(c->cs_before);
		if (!c->gated) {
			atomic_store(&c->go, 1);
			return 0;
		}
		atomic_store(&c->warm, 1);
	}
	while (!atomic_load(&c->go)) {
		if (stopped(c))
			return post_wstopped(w, "thread %u: stopped at the start barrier", w->index);
		if (c->gated) {
			/* sleep until ctx_release wakes us (or 20 ms: look at stop) */
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 20000000 };
			(void)syscall(SYS_futex, (int *)&c->go, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
			continue;
		}
		if (timing_now_ns() - start > c->t.timeout_ms * 1000000ull)
			return post_werr(w, "thread %u: timed out waiting for the other threads to finish "
				    "warm-up", w->index);
		sched_yield();
	}
	return 0;
}

void *worker_client_main(void *arg)
{
	struct rb_worker *w = arg;
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	int (*phase)(struct rb_worker *, uint64_t, uint64_t, bool) =
		t->test == RB_TEST_LAT ? lat_phase : w->pslot ? bw_phase_poll : bw_phase;
	/* perf counters of this thread (perfcount.h): opened before the
	 * warm-up, read just before and just after the measured phase (one
	 * read(2) per event at each end, outside the phase); only when
	 * --explain asks, or --perf-counters on (options.h rb_perf_mode) */
	struct perfcount pc;
	if (c->perf_off)
		pc_none(&pc, c->perf_off);
	else
		pc_open(&pc, NULL, NULL);

	if (t->warmup_iters || t->warmup_ms)
		if (phase(w, t->warmup_iters, t->warmup_ms * 1000000ull, false))
			goto out;
	if (barrier(w))
		goto out;
	const uint64_t pc_ops0 = w->ops_total, pc_t0 = timing_now_ns();
	pc_start(&pc);
	(void)phase(w, t->iters, t->duration_ms * 1000000ull, true);
	pc_stop(&pc, &w->pc);
	w->pc_span_ns = timing_now_ns() - pc_t0;
	w->pc_ops = w->ops_total - pc_ops0;
	w->pc_done = true;
out:
	pc_close(&pc);
	if (w->rc)
		atomic_store(&c->stop, 1); /* one thread failed: the others stop too */
	atomic_fetch_add(&c->finished, 1);
	return NULL;
}

