/*
 * post.c - the data path: posting and polling loops of the worker threads.
 *
 * Client, --test bw: each thread keeps up to `window` ops outstanding over
 * its QPs (round robin), posting doorbell batches of up to `postlist` linked
 * WRs with one ibv_post_send. WR n of a QP (counted from 0 in the phase) is
 * signaled when (n + 1) % signal_interval == 0 or it is the QP's last of the
 * phase, so every WR is covered by a later signaled completion (IB spec
 * 10.8.6: an unsignaled WR's slot is freed by the next signaled completion).
 * The wr_id carries (QP index << 40 | n): a completion of WR n completes
 * every WR of that QP up to n. These per-WR rules (signaling, wr_id,
 * quotas, batch and send queue credit) are the inline functions of plan.h,
 * unit-tested on the host. The SQ never overflows: per QP, posted -
 * completed <= sq_depth; the window bounds the sum.
 *
 * In the measured window the post time of every signaled WR is kept per SQ
 * slot, and its completion time minus that goes into the histogram:
 * latency under load, reported as lat_kind "completion" (post to CQE).
 *
 * Client, --test bw --verb read --read-completion poll (bw_phase_poll): as
 * the original rc-swarm artifact, a READ is complete when the last byte of
 * its own destination slot (a ring of `window` slots per thread) changes
 * from RB_READ_SENTINEL, which is written there just before the post; the
 * poller watches the oldest outstanding slot (volatile read) and each
 * change frees one unit of window credit. Signaled WRs (every
 * signal_interval-th per QP, and each QP's last of the phase) remain, only
 * to free send queue slots: their CQEs are reaped without waiting. So the
 * window and the signal interval are independent (test_validate has the SQ
 * rule that replaces the window rule). Latency samples: post to the last
 * byte, for the same signaled WRs cqe mode samples. Caveat: the IB spec
 * does not order the DMA writes of a READ response's bytes; this relies on
 * the last byte landing last, as on Mellanox NICs and rxe (in-order
 * packets, each written in order, no relaxed ordering on the MR).
 *
 * Client, --test lat: one op outstanding. READ and atomics: time from post
 * to the completion (a round trip). SEND, SEND_IMM, WRITE_IMM: ping-pong
 * through the receive CQ; WRITE: ping-pong by polling the last payload byte
 * (a tag, 1..255) of the receive slot. Samples go into the thread's
 * histogram as round-trip ns; the report halves them for one-way kinds.
 *
 * Phases: warm-up (iterations or time), a start barrier across threads,
 * then the measured window. Iteration mode divides n over the QPs in
 * quotas; duration mode stops posting at the deadline, finishes each QP at
 * its next signaled WR and drains. The window is [first post, last
 * completion] and is what the row reports (duration_s).
 * With --procs > 1 the start barrier spans processes (gate.h): the session
 * thread releases the workers on the server's GO, which names the common
 * window on the server's clock; the threads post from the release, stop
 * posting at the window's end, and count only the ops whose completion they
 * see inside the window, which is what the row reports: every process of
 * the point measures the same interval (to within the clock offset's error).
 * Without --validate they end at the window's end without waiting for the
 * WRs still in flight (abandon_at_end).
 *
 * Server: worker threads run only when this side has work: consume
 * receives (SEND, SEND_IMM, WRITE_IMM: count, check payloads, re-post, reply
 * in lat mode) or answer WRITE ping-pongs; they run until ctx->stop.
 *
 * Hot path rules: no allocation, no locks, no formatting. Errors are
 * formatted once, on the way out.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ctx.h"
#include "plan.h"
#include "timing.h"

#define CHECK_EVERY 256u    /* idle polls between clock / stop checks */

/* Record the worker's first error (later ones are echoes); echo marks a
 * thread stopped by the session or another thread, which workers_join
 * reports after a real failure. Returns -1. Error path only. */
static int wfail(struct rb_worker *w, bool echo, const char *fmt, va_list ap)
{
	if (w->rc)
		return -1;
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	w->rc = -1;
	w->stopped_echo = echo;
	return -1;
}

static int werr(struct rb_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int werr(struct rb_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wfail(w, false, fmt, ap);
	va_end(ap);
	return -1;
}

/* As werr, for a thread that ends because the session or another thread
 * stopped it. */
static int wstopped(struct rb_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int wstopped(struct rb_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wfail(w, true, fmt, ap);
	va_end(ap);
	return -1;
}

static int wc_error(struct rb_worker *w, const struct ibv_wc *wc, const char *what)
{
	const char *hint = "";

	if (wc->status == IBV_WC_RETRY_EXC_ERR)
		hint = " (no ACK from the peer within --ack-timeout x --retry-cnt: peer gone, or "
		       "path down)";
	else if (wc->status == IBV_WC_RNR_RETRY_EXC_ERR)
		hint = " (receiver had no receive posted: raise --rq-depth or --rnr-retry)";
	else if (wc->status == IBV_WC_REM_ACCESS_ERR)
		hint = " (remote access refused: rkey or address outside the peer's MR)";
	else if (wc->status == IBV_WC_WR_FLUSH_ERR)
		hint = " (QP in error state after an earlier failure)";
	return werr(w, "thread %u: %s completion error on qpn 0x%x: %s (status %d, vendor_err "
		    "0x%x)%s", w->index, what, wc->qp_num, ibv_wc_status_str(wc->status),
		    wc->status, wc->vendor_err, hint);
}

static const char *qp_state_name(enum ibv_qp_state st)
{
	switch (st) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "?";
	}
}

/* State of q read back from the QP (cold path), "unknown" if the query fails. */
static const char *qp_state_now(struct rb_qp *q)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return ibv_query_qp(q->qp, &a, IBV_QP_STATE, &ia) ? "unknown" : qp_state_name(a.qp_state);
}

/*
 * A wait of the client ran out of time: say where it stalled, most useful
 * facts first (the row's reason column keeps about 90 characters): the QP
 * waited on (focus, else the first with WRs outstanding) with its state read
 * back and its WRs posted and completed in this phase, what was awaited, up
 * to two other QPs with WRs outstanding and the thread's totals, and on RC
 * why no error came back. Cold path: formats once, on the way out.
 */
static __attribute__((cold, noinline)) int stall_error(struct rb_worker *w, const char *what,
							struct rb_qp *focus, bool measure)
{
	const struct rb_test *t = &w->ctx->t;
	uint64_t posted = 0, completed = 0;
	unsigned stuck = 0;
	char others[96] = "", more[256] = "";
	size_t off = 0;

	for (unsigned k = 0; k < w->nqp; k++) {
		struct rb_qp *q = &w->qps[k];
		posted += q->posted;
		completed += q->completed;
		if (!focus && q->posted > q->completed)
			focus = q;
		else if (q != focus && q->posted > q->completed && stuck++ < 2 &&
			 off < sizeof(others))
			off += (size_t)snprintf(others + off, sizeof(others) - off,
						", QP 0x%x %llu/%llu", q->qp->qp_num,
						(unsigned long long)q->posted,
						(unsigned long long)q->completed);
	}
	if (!focus)
		focus = &w->qps[0];
	if (stuck)
		snprintf(more, sizeof(more), "; %u more QP(s) with WRs outstanding (posted/completed"
			 "%s%s); thread total %llu posted, %llu completed", stuck, others,
			 stuck > 2 ? ", ..." : "", (unsigned long long)posted,
			 (unsigned long long)completed);
	/* RC: no ACK came back and no error either. The likely causes, in order:
	 * packets above what the path carries (a path MTU above a netdev MTU on
	 * the way: the peer drops every full-size packet), a peer gone without
	 * closing, and on RNR a peer without receives. Soft-RoCE (rxe) was seen
	 * to retry for ever with --retry-cnt 7, so no retry error ever comes. */
	char hint[512] = "";
	if (t->transport == RB_TR_RC)
		snprintf(hint, sizeof(hint), "; no ACK for %.1f s and no error came back: path MTU "
			 "%u above what the path carries (check both ends' netdev MTU)? peer "
			 "unreachable, paused or gone without closing?%s (--retry-cnt %llu x "
			 "--ack-timeout %llu had not ended it; soft-RoCE retries for ever at "
			 "--retry-cnt 7: use --retry-cnt 6 or less to get the retry error)",
			 (double)t->timeout_ms / 1e3, w->ctx->path_mtu,
			 verb_needs_recv(t->verb) && t->rnr_retry == 7 ?
			 " peer posts no receives (--rnr-retry 7 retries RNR for ever)?" : "",
			 (unsigned long long)t->retry_cnt, (unsigned long long)t->ack_timeout);
	return werr(w, "thread %u: timed out after %.1f s%s, QP 0x%x (%s): %llu WRs posted, %llu "
		    "completed; waiting for %s%s%s", w->index, (double)t->timeout_ms / 1e3,
		    measure ? "" : " in warm-up", focus->qp->qp_num, qp_state_now(focus),
		    (unsigned long long)focus->posted, (unsigned long long)focus->completed, what,
		    more, hint);
}

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

static inline uint32_t next_counter(struct rb_worker *w, const struct rb_test *t)
{
	if (t->access == RB_ACCESS_RANDOM)
		return (uint32_t)(next_rand(w) % t->atomic_counters);
	uint32_t i = (uint32_t)(w->seq_ctr % t->atomic_counters);
	w->seq_ctr++;
	return i;
}

/* Atomic results of WRs [from, to) of q: cmp_swap successes and expectations. */
static void atomic_results(struct rb_worker *w, struct rb_qp *q, uint64_t from, uint64_t to)
{
	const struct rb_test *t = &w->ctx->t;

	if (!w->row->counts_success)
		return;
	for (uint64_t s = from; s < to; s++) {
		uint64_t slot = s % t->sq_depth;
		uint64_t old = *(volatile uint64_t *)(q->send + slot * 8);
		uint32_t idx = q->ctr[slot];
		if (old == q->cmp[slot]) {
			w->atomic_success++;
			w->expect[idx] = old + 1;
		} else {
			w->expect[idx] = old;
		}
	}
}

/* An atomic WR i of q's list (WR seq of q): the next counter, its
 * result slot and the operands (the expected value with cmp_swap). */
static inline void prep_atomic(struct rb_worker *w, struct rb_qp *q, unsigned i, uint64_t seq)
{
	const struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const struct rb_verb_row *row = w->row;
	struct ibv_send_wr *wr = &q->swr[i];
	uint64_t slot = seq % t->sq_depth;
	uint32_t idx = next_counter(w, t);
	uint64_t expect = row->counts_success ? w->expect[idx] : 0;

	wr->wr.atomic.remote_addr = c->remote.buf_addr + c->lay.counters_off +
				    (uint64_t)idx * t->stride;
	q->ssge[i].addr = (uintptr_t)(q->send + slot * 8);
	q->ctr[slot] = idx;
	q->cmp[slot] = expect;
	row->atomic_operands(wr, expect);
}

/* A refused ibv_post_send of n WRs on q (error rc): -1 with w->err. */
static __attribute__((cold, noinline)) int post_failed(struct rb_worker *w, const struct rb_qp *q,
							unsigned n, int rc)
{
	return werr(w, "thread %u: ibv_post_send(%u WRs, qpn 0x%x, %llu outstanding on it) "
		    "failed: %s", w->index, n, q->qp->qp_num,
		    (unsigned long long)(q->posted - q->completed), strerror(rc));
}

/* Post n WRs on q as one linked list (one doorbell). With stamp, a
 * signaled WR's post time goes to q->post_ts (the completion-latency
 * histogram): one clock read per list that holds a signaled WR, none for
 * the others (with postlist 1 and a signal interval of 16, 1 read in 16
 * posts). */
static inline __attribute__((always_inline))
int post_batch(struct rb_worker *w, struct rb_qp *q, unsigned n, unsigned sig,
			     unsigned base_flags, bool stamp)
{
	const struct rb_test *t = &w->ctx->t;
	struct ibv_send_wr *bad = NULL;
	const bool atomic = w->row->atomic;
	uint64_t ts = 0;

	for (unsigned i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &q->swr[i];
		uint64_t seq = q->posted + i;
		bool signaled = plan_signaled(seq, sig, q->quota);
		wr->wr_id = plan_send_id(q->index, seq);
		wr->send_flags = base_flags | (signaled ? IBV_SEND_SIGNALED : 0);
		wr->next = i + 1 < n ? &q->swr[i + 1] : NULL;
		if (stamp && signaled) {
			if (!ts)
				ts = timing_now_ns();
			q->post_ts[seq % t->sq_depth] = ts;
		}
		if (atomic)
			prep_atomic(w, q, i, seq);
	}
	int rc = ibv_post_send(q->qp, &q->swr[0], &bad);
	if (rc)
		return post_failed(w, q, n, rc);
	q->posted += n;
	return 0;
}

/*
 * --read-completion poll: post n READs on q as one linked list, each into
 * the next free ring slot, whose last byte is set to the sentinel first
 * (ibv_post_send orders that store before the doorbell, so the NIC's write
 * of the data always comes after it).
 */
static inline int post_batch_poll(struct rb_worker *w, struct rb_qp *q, unsigned n,
				  unsigned sig, bool stamp, uint64_t *tail)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t window = t->window;
	struct ibv_send_wr *bad = NULL;
	uint64_t k = *tail, ts = 0;

	for (unsigned i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &q->swr[i];
		struct rb_pslot *s = &w->pslot[k];
		uint64_t seq = q->posted + i;
		bool signaled = plan_signaled(seq, sig, q->quota);
		wr->wr_id = plan_send_id(q->index, seq);
		wr->send_flags = signaled ? IBV_SEND_SIGNALED : 0;
		wr->next = i + 1 < n ? &q->swr[i + 1] : NULL;
		q->ssge[i].addr = (uintptr_t)s->buf;
		*(volatile uint8_t *)(s->buf + t->size - 1) = RB_READ_SENTINEL;
		s->q = q;
		if (stamp && signaled && !ts)
			ts = timing_now_ns(); /* one read per list with a signaled READ */
		s->ts = signaled ? ts : 0;
		k = plan_ring_next(k, window);
	}
	int rc = ibv_post_send(q->qp, &q->swr[0], &bad);
	if (rc)
		return werr(w, "thread %u: ibv_post_send(%u READs, qpn 0x%x, %llu in its send queue) "
			    "failed: %s", w->index, n, q->qp->qp_num,
			    (unsigned long long)(q->posted - q->reaped), strerror(rc));
	q->posted += n;
	*tail = k;
	return 0;
}

/* Reap signaled READ completions without waiting: they free SQ slots.
 * Returns the CQEs reaped, or -1 with w->err. */
static inline int reap_read_sq(struct rb_worker *w, uint64_t *sig_out)
{
	struct ibv_wc wc[RB_POLL_BATCH];
	int ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc);

	if (ne < 0)
		return werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
	for (int i = 0; i < ne; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_error(w, &wc[i], "read");
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
	return stall_error(w, what, q, measure);
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
 * (ctx_destroy: QPs before the MR). Waiting for them cost up to one round
 * trip per point under load (the client timeline's drain; ~120-700 ms on
 * the two-VM soft-RoCE bed). With --validate they are drained, so that
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
		return wstopped(w, "thread %u: stopped by the session (interrupt, peer "
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
		uint64_t before = q->posted;
		if (post_batch_poll(w, q, (unsigned)n, sig, r->measure,
				    &r->tail))
			return -1;
		/* signaled among [before, before + n): multiples of sig, and the last */
		r->sig_out += plan_signaled_in(before, n, sig, q->quota);
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
		} else if (++idle % CHECK_EVERY == 0) {
			if (stopped(w->ctx))
				return wstopped(w, "thread %u: stopped by the session (peer failure or "
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
		} else if (++idle % CHECK_EVERY == 0) {
			uint64_t now = timing_now_ns();
			if (!t_busy)
				t_busy = now; /* idle since about now */
			if (stopped(c))
				return wstopped(w, "thread %u: stopped by the session (peer failure or "
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

/* One bw phase: iters ops per thread (or until dur_ns). */
static int bw_phase(struct rb_worker *w, uint64_t iters, uint64_t dur_ns, bool measure)
{
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const unsigned nqp = w->nqp;
	const uint64_t window = t->window, sq = t->sq_depth;
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
		/* Post: round robin over QPs with room. */
		for (unsigned k = 0; k < nqp && outstanding < window; k++) {
			struct rb_qp *q = &w->qps[cursor];
			cursor = cursor + 1 == nqp ? 0 : cursor + 1;
			uint64_t n = plan_batch_size(postlist, q->quota - q->posted,
						     plan_sq_room(sq, q->posted, q->completed),
						     window - outstanding);
			if (!n)
				continue;
			if (post_batch(w, q, (unsigned)n, sig, base_flags, measure))
				return -1;
			outstanding += n;
		}
		/* Poll a batch. */
		int ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc);
		if (ne < 0)
			return werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
		if (ne > 0) {
			uint64_t now = timing_now_ns();
			const bool inw = in_window(c, measure, now);
			for (int i = 0; i < ne; i++) {
				if (wc[i].status != IBV_WC_SUCCESS)
					return wc_error(w, &wc[i], verb_name(t->verb));
				struct rb_qp *q = &w->qps[plan_send_id_qp(wc[i].wr_id)];
				uint64_t upto = plan_send_id_upto(wc[i].wr_id);
				uint64_t n = upto - q->completed;
				if (measure)
					hist_add(w->hist, now - q->post_ts[(upto - 1) % sq]);
				if (w->row->atomic)
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
		} else if (++idle % CHECK_EVERY == 0) {
			uint64_t now = timing_now_ns();
			if (stopped(c))
				return wstopped(w, "thread %u: stopped by the session (peer failure or "
					    "timeout)", w->index);
			if (now - t_last > timeout_ns) {
				char what[64];
				snprintf(what, sizeof(what), "%s completions", verb_name(t->verb));
				return stall_error(w, what, NULL, measure);
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
				return wc_error(w, wc, what);
			return 0;
		}
		if (ne < 0)
			return werr(w, "thread %u: ibv_poll_cq(%s) failed: %d", w->index, what, ne);
		if (++idle % CHECK_EVERY == 0) {
			uint64_t now = timing_now_ns();
			if (!start)
				start = now;
			if (stopped(c))
				return wstopped(w, "thread %u: stopped by the session while waiting for %s",
					    w->index, what);
			if (now - start > c->t.timeout_ms * 1000000ull) {
				char desc[96];
				snprintf(desc, sizeof(desc), cq == w->scq ? "the %s completion" : "%s",
					 what);
				return stall_error(w, desc, q, measure);
			}
		}
	}
}

/* Reap send completions without blocking (ping-pong SQ slots). */
static inline int reap_sends(struct rb_worker *w, const char *what)
{
	struct ibv_wc wc[RB_POLL_BATCH];
	int ne;

	while ((ne = ibv_poll_cq(w->scq, RB_POLL_BATCH, wc)) > 0)
		for (int i = 0; i < ne; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return wc_error(w, &wc[i], what);
			struct rb_qp *q = &w->qps[plan_send_id_qp(wc[i].wr_id)];
			q->completed = plan_send_id_upto(wc[i].wr_id);
		}
	if (ne < 0)
		return werr(w, "thread %u: ibv_poll_cq(send) failed: %d", w->index, ne);
	return 0;
}

/* Post one signaled WR (ping-pong or rtt op), waiting for SQ room if needed. */
static inline __attribute__((always_inline))
int post_one(struct rb_worker *w, struct rb_qp *q, unsigned flags, const char *what)
{
	const struct rb_test *t = &w->ctx->t;

	while (q->posted - q->completed >= t->sq_depth) {
		if (reap_sends(w, what))
			return -1;
		if (stopped(w->ctx))
			return wstopped(w, "thread %u: stopped while waiting for SQ room", w->index);
	}
	/* a list of one, signaled (signal interval 1 signals every WR), no
	 * time stamp (the lat and reply paths time around it) */
	return post_batch(w, q, 1, 1, flags, false);
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
		return werr(w, "thread %u: ibv_post_recv(qpn 0x%x) failed: %s", w->index,
			    q->qp->qp_num, strerror(rc));
	return 0;
}

/* WRITE ping-pong, one op on q: write our tag into the server's last byte,
 * spin until its WRITE brings the tag back into ours (no CQE). *t0, *t1:
 * post and reply times. */
static inline int lat_write_pp(struct rb_worker *w, struct rb_qp *q, unsigned flags, bool measure,
			       uint64_t *t0, uint64_t *t1)
{
	const struct rb_test *t = &w->ctx->t;
	const uint64_t timeout_ns = t->timeout_ms * 1000000ull;
	const char *what = w->row->name;
	uint8_t tag = plan_next_tag(q->tag);

	q->tag = tag;
	q->send[t->size - 1] = tag;
	*t0 = timing_now_ns();
	if (post_one(w, q, flags, what))
		return -1;
	volatile uint8_t *flag = q->recv + t->size - 1;
	uint64_t spins = 0;
	while (*flag != tag) {
		if (++spins % 4096 == 0) {
			uint64_t now = timing_now_ns();
			if (stopped(w->ctx))
				return wstopped(w, "thread %u: stopped while waiting for the WRITE reply",
						w->index);
			if (now - *t0 > timeout_ns)
				return stall_error(w, "the server's WRITE reply", q, measure);
		}
	}
	*t1 = timing_now_ns();
	return reap_sends(w, what);
}

/* One timed op on q: *t0, post it, wait for one completion on cq (*wc;
 * waitfor names it in the timeout message), *t1. 0, or -1 (w->err set). */
static inline __attribute__((always_inline))
int post_wait_timed(struct rb_worker *w, struct rb_qp *q, unsigned flags, struct ibv_cq *cq,
		    const char *waitfor, bool measure, struct ibv_wc *wc, uint64_t *t0,
		    uint64_t *t1)
{
	*t0 = timing_now_ns();
	if (post_one(w, q, flags, w->row->name) ||
	    wait_one(w, q, cq, wc, waitfor, measure))
		return -1;
	*t1 = timing_now_ns();
	return 0;
}

/* READ or atomic, one op on q: post it and wait for its own CQE (the
 * response is the round trip). */
static inline int lat_rtt(struct rb_worker *w, struct rb_qp *q, unsigned flags, bool measure,
			  uint64_t *t0, uint64_t *t1)
{
	struct ibv_wc wc;

	if (post_wait_timed(w, q, flags, w->scq, w->row->name, measure, &wc, t0, t1))
		return -1;
	q->completed = plan_send_id_upto(wc.wr_id);
	if (w->row->atomic)
		atomic_results(w, q, q->completed - 1, q->completed);
	return 0;
}

/* SEND / WRITE_IMM ping-pong, one op on q: post it and wait for the
 * server's reply to consume one of our receives (checked, reposted). */
static inline int lat_recv_pp(struct rb_worker *w, struct rb_qp *q, unsigned flags, bool measure,
			      uint64_t *t0, uint64_t *t1)
{
	const char *what = w->row->name;
	struct ibv_wc wc;

	if (post_wait_timed(w, q, flags, w->rcq, "the ping-pong reply (receive)", measure, &wc,
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
				return stall_error(w, "the last send completions", q, measure);
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

	for (unsigned k = 0; k < nqp; k++)
		qps[k].posted = qps[k].completed = 0;
	t_start = t_end = timing_now_ns();
	deadline = phase_deadline(c, measure, t_start, dur_ns);
	while (iters ? done < iters : true) {
		struct rb_qp *q = &qps[cursor];
		uint64_t t0 = 0, t1 = 0;
		int rc;

		cursor = (unsigned)plan_ring_next(cursor, nqp);
		if (polls_byte)
			rc = lat_write_pp(w, q, flags, measure, &t0, &t1);
		else if (rtt)
			rc = lat_rtt(w, q, flags, measure, &t0, &t1);
		else
			rc = lat_recv_pp(w, q, flags, measure, &t0, &t1);
		if (rc)
			return -1;
		if (measure)
			hist_add(w->hist, t1 - t0);
		q->ops++;
		done++;
		win += in_window(c, measure, t1);
		t_end = t1;
		if (dur_ns && t1 >= deadline)
			break;
		if (stopped(c)) /* an interrupt or the session: one relaxed load per op */
			return wstopped(w, "thread %u: stopped by the session (interrupt, peer failure "
				    "or timeout)", w->index);
	}
	if (lat_drain(w, measure))
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
 * up (ci/harness-overhead, 4 processes, 4 sizes, two runs each: 0.93 and
 * 0.95 s per point beyond the window with 50 us sleeps, 0.85 and 0.74 s
 * with the futex).
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
			return wstopped(w, "thread %u: stopped at the start barrier", w->index);
		if (c->gated) {
			/* sleep until ctx_release wakes us (or 20 ms: look at stop) */
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 20000000 };
			(void)syscall(SYS_futex, (int *)&c->go, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
			continue;
		}
		if (timing_now_ns() - start > c->t.timeout_ms * 1000000ull)
			return werr(w, "thread %u: timed out waiting for the other threads to finish "
				    "warm-up", w->index);
		sched_yield();
	}
	return 0;
}

void ctx_release(struct rb_ctx *c)
{
	atomic_store(&c->go, 1);
	(void)syscall(SYS_futex, (int *)&c->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
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

/* Server: answer WRITE ping-pongs by watching each QP's last payload byte. */
static int serve_write_pong(struct rb_worker *w)
{
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const unsigned flags = c->use_inline ? IBV_SEND_INLINE : 0;
	uint64_t idle = 0;

	while (!w->rc) {
		bool any = false;
		for (unsigned k = 0; k < w->nqp; k++) {
			struct rb_qp *q = &w->qps[k];
			uint8_t v = *(volatile uint8_t *)(q->recv + t->size - 1);
			if (v == 0 || v == q->tag)
				continue;
			q->tag = v;
			q->send[t->size - 1] = v;
			if (post_one(w, q, flags, "WRITE reply"))
				return -1;
			any = true;
			atomic_store_explicit(&w->recvs, atomic_load_explicit(&w->recvs,
				memory_order_relaxed) + 1, memory_order_relaxed);
		}
		if (reap_sends(w, "WRITE reply"))
			return -1;
		if (!any && ++idle % CHECK_EVERY == 0 && stopped(c))
			return 0;
	}
	return -1;
}

/*
 * A bw server's receive thread idle this long (no completion: a bw test's
 * traffic is continuous inside the client's window, so a gap is the time
 * between windows: the clients' setup, start barrier and DONE) sleeps on
 * its CQ's completion channel instead of spinning, RECV_BLOCK_MS at most
 * at a time (then it looks at stop; workers_join's write to the ctx's
 * stop eventfd wakes it at once). On the two-VM soft-RoCE bed four
 * spinning receive threads (UD SEND, 4 client processes) held the server
 * VM's CPUs while its session threads had GATE, TIME and DONE to answer:
 * ci/harness-overhead --ud.
 */
#define RECV_IDLE_NS  (5 * 1000000ull)
#define RECV_BLOCK_MS 20

/*
 * One step of an idle receive thread (*armed: its CQ armed). Not armed:
 * arm it (ibv_req_notify_cq, IB spec 11.4.2.2: an event at the next
 * completion) and return, so that the caller polls once more (a completion
 * that came before the arming raises no event). Armed: block in poll(2) on
 * the channel until its event (taken and acknowledged: *armed false again)
 * or a stop. 0, 1 when stopped, or -1 (werr).
 */
static int recv_idle(struct rb_worker *w, bool *armed)
{
	if (!*armed) {
		int rc = ibv_req_notify_cq(w->rcq, 0);
		if (rc)
			return werr(w, "thread %u: ibv_req_notify_cq(recv) failed: %s", w->index,
				    strerror(rc));
		*armed = true;
		return 0;
	}
	for (;;) {
		if (stopped(w->ctx))
			return 1;
		struct pollfd p[2] = { { .fd = w->rch->fd, .events = POLLIN },
				       { .fd = w->ctx->stop_fd, .events = POLLIN } };
		int rc = poll(p, 2, RECV_BLOCK_MS);
		if (rc < 0 && errno != EINTR)
			return werr(w, "thread %u: poll on the receive CQ's completion channel: %s",
				    w->index, strerror(errno));
		if (rc <= 0 || !(p[0].revents & POLLIN))
			continue; /* timeout, signal, or the stop's eventfd: look at stop */
		struct ibv_cq *cq;
		void *cq_ctx;
		if (ibv_get_cq_event(w->rch, &cq, &cq_ctx))
			return werr(w, "thread %u: ibv_get_cq_event(recv) failed: %s", w->index,
				    strerror(errno));
		ibv_ack_cq_events(cq, 1);
		*armed = false;
		return 0;
	}
}

/* Server: consume receives (SEND, SEND_IMM, WRITE_IMM), reply in lat mode. */
static int serve_recvs(struct rb_worker *w)
{
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const bool reply = t->test == RB_TEST_LAT;
	const unsigned flags = c->use_inline ? IBV_SEND_INLINE : 0;
	struct ibv_wc wc[RB_POLL_BATCH];
	uint64_t idle = 0, n = 0, idle_since = 0;
	bool armed = false;

	for (;;) {
		int ne = ibv_poll_cq(w->rcq, RB_POLL_BATCH, wc);
		if (ne < 0)
			return werr(w, "thread %u: ibv_poll_cq(recv) failed: %d", w->index, ne);
		if (ne == 0) {
			if (++idle % CHECK_EVERY == 0) {
				if (stopped(c))
					return 0;
				if (w->rch) { /* bw servers only (ctx.c): never the reply path */
					uint64_t now = timing_now_ns();
					if (!idle_since)
						idle_since = now;
					else if (now - idle_since >= RECV_IDLE_NS) {
						int rc = recv_idle(w, &armed);
						if (rc)
							return rc < 0 ? -1 : 0;
					}
				}
			}
			if (reply && reap_sends(w, "reply"))
				return -1;
			continue;
		}
		idle_since = 0;
		uint64_t now = timing_now_ns();
		if (!w->first_recv_ns)
			w->first_recv_ns = now;
		atomic_store_explicit(&w->last_recv_ns, now, memory_order_relaxed);
		for (int i = 0; i < ne; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return wc_error(w, &wc[i], "receive");
			struct rb_qp *q = &w->qps[plan_recv_id_qp(wc[i].wr_id)];
			if (t->validate)
				check_recv(w, q, &wc[i], RB_ROLE_CLIENT);
			if (repost_recv(w, q, plan_recv_id_slot(wc[i].wr_id)))
				return -1;
			if (reply && post_one(w, q, flags, "reply"))
				return -1;
			q->ops++;
		}
		n += (uint64_t)ne;
		atomic_store_explicit(&w->recvs, n, memory_order_relaxed);
		if (reply && reap_sends(w, "reply"))
			return -1;
	}
}

void *worker_server_main(void *arg)
{
	struct rb_worker *w = arg;
	const struct rb_test *t = &w->ctx->t;

	for (unsigned k = 0; k < w->nqp; k++)
		w->qps[k].posted = w->qps[k].completed = 0;
	enum rb_verb_serve serve = verb_row(t->verb)->serve;
	/* this thread's perf counters over its whole run (the server does not
	 * see the client's window): read once before the loop and once after
	 * it, nothing inside (the session thread sends the sum in CPU) */
	struct perfcount pc;
	uint64_t t0 = timing_now_ns();
	pc_open(&pc, NULL, NULL);
	pc_start(&pc);

	if (serve == RB_SERVE_RECVS)
		(void)serve_recvs(w);
	else if (t->test == RB_TEST_LAT && serve == RB_SERVE_PONG_LAT)
		(void)serve_write_pong(w);
	pc_stop(&pc, &w->pc);
	pc_close(&pc);
	w->pc_span_ns = timing_now_ns() - t0;
	w->pc_done = true;
	return NULL;
}

int workers_start(struct rb_ctx *c, void *(*fn)(void *), char *err, size_t errlen)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	atomic_store(&c->stop, 0);
	atomic_store(&c->arrived, 0);
	atomic_store(&c->go, 0);
	atomic_store(&c->warm, 0);
	c->win_start_ns = c->win_end_ns = 0;
	atomic_store(&c->finished, 0);
	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		w->cpu = -1;
		if (c->ncpus > 0)
			w->cpu = c->cpus[i % (unsigned)c->ncpus];
		else if (c->cpus_spread && online > 0)
			w->cpu = (int)(i % (unsigned)online);
		if (w->cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(w->cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		int rc = pthread_create(&w->tid, &attr, fn, w);
		pthread_attr_destroy(&attr);
		if (rc) {
			atomic_store(&c->stop, 1);
			snprintf(err, errlen, "pthread_create(thread %u%s) failed: %s", i,
				 w->cpu >= 0 ? ", pinned" : "", strerror(rc));
			for (unsigned k = 0; k < i; k++)
				pthread_join(c->w[k].tid, NULL);
			for (unsigned k = 0; k < i; k++)
				c->w[k].started = false;
			return -1;
		}
		w->started = true;
	}
	return 0;
}

int workers_join(struct rb_ctx *c, char *err, size_t errlen)
{
	int rc = 0;

	if (c->stop_fd >= 0) { /* wake receive threads asleep on their channel */
		uint64_t one = 1;
		if (write(c->stop_fd, &one, sizeof(one)) < 0)
			fprintf(stderr, "WARN eventfd write (stop): %s\n", strerror(errno));
	}

	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		if (!w->started)
			continue;
		pthread_join(w->tid, NULL);
		w->started = false;
	}
	/* Report the first real failure, not the "stopped" echoes of the others. */
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (unsigned i = 0; i < c->nw; i++) {
			struct rb_worker *w = &c->w[i];
			if (!w->rc)
				continue;
			if (pass == 0 && w->stopped_echo)
				continue;
			snprintf(err, errlen, "%s", w->err);
			rc = -1;
			break;
		}
	return rc;
}

static uint64_t check_region(struct rb_ctx *c, enum rb_role writer, uint64_t len,
			     char *note, size_t notelen)
{
	uint64_t bad = 0;

	for (uint64_t g = 0; g < c->lay.nqp_total; g++) {
		struct rb_qp *q = ctx_qp(c, g);
		for (uint64_t b = 0; b < len; b++)
			if (q->recv[b] != rb_pattern(c->t.seed, writer, q->gindex, b)) {
				if (!bad)
					snprintf(note, notelen,
						 "QP %u byte %llu is 0x%02x, expected 0x%02x", q->gindex,
						 (unsigned long long)b, q->recv[b],
						 rb_pattern(c->t.seed, writer, q->gindex, b));
				bad++;
				break;
			}
	}
	return bad;
}

/* --read-completion poll: every READ slot that took a READ holds the server's
 * pattern of the QP whose READ filled it last. Returns the bad slots. */
static uint64_t check_read_slots(struct rb_ctx *c, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;
	uint64_t bad = 0;

	for (unsigned i = 0; i < c->nw; i++)
		for (uint64_t k = 0; c->w[i].pslot && k < t->window; k++) {
			const struct rb_pslot *s = &c->w[i].pslot[k];
			if (!s->q)
				continue;
			for (uint64_t b = 0; b < t->size; b++) {
				uint8_t want = rb_pattern(t->seed, RB_ROLE_SERVER, s->q->gindex, b);
				if (s->buf[b] == want)
					continue;
				if (!bad)
					snprintf(note, notelen, "thread %u READ slot %llu (last filled by "
						 "QP %u) byte %llu is 0x%02x, expected 0x%02x", i,
						 (unsigned long long)k, s->q->gindex,
						 (unsigned long long)b, s->buf[b], want);
				bad++;
				break;
			}
		}
	return bad;
}

uint64_t ctx_check_client_buffers(struct rb_ctx *c, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;

	if (c->lay.poll_slots)
		return check_read_slots(c, note, notelen);
	const struct rb_verb_row *row = verb_row(t->verb);
	uint64_t len;

	if (row->region_check && row->region_check(false, t->test == RB_TEST_LAT, t->size, &len))
		return check_region(c, RB_ROLE_SERVER, len, note, notelen);
	return 0;
}

uint64_t ctx_check_server_buffers(struct rb_ctx *c, uint64_t *sum, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;

	*sum = 0;
	if (verb_is_atomic(t->verb)) {
		for (uint64_t i = 0; i < t->atomic_counters; i++)
			*sum += *(volatile uint64_t *)(c->buf + c->lay.counters_off + i * t->stride);
		return 0;
	}
	const struct rb_verb_row *row = verb_row(t->verb);
	uint64_t len;

	if (row->region_check && row->region_check(true, t->test == RB_TEST_LAT, t->size, &len))
		return check_region(c, RB_ROLE_CLIENT, len, note, notelen);
	return 0;
}
