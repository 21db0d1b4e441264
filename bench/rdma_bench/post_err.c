/*
 * post_err.c - the data path's error text (post_int.h): a worker's first
 * error kept with its QP state, posted and completed counts and the likely
 * cause. Cold paths: formatted once, on the way out, never per op.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "post_int.h"

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

int post_werr(struct rb_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wfail(w, false, fmt, ap);
	va_end(ap);
	return -1;
}

/* As werr, for a thread that ends because the session or another thread
 * stopped it. */
int post_wstopped(struct rb_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wfail(w, true, fmt, ap);
	va_end(ap);
	return -1;
}

int post_wc_error(struct rb_worker *w, const struct ibv_wc *wc, const char *what)
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
	return post_werr(w, "thread %u: %s completion error on qpn 0x%x: %s (status %d, vendor_err "
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
int post_stall_error(struct rb_worker *w, const char *what, struct rb_qp *focus, bool measure)
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
	return post_werr(w, "thread %u: timed out after %.1f s%s, QP 0x%x (%s): %llu WRs posted, %llu "
		    "completed; waiting for %s%s%s", w->index, (double)t->timeout_ms / 1e3,
		    measure ? "" : " in warm-up", focus->qp->qp_num, qp_state_now(focus),
		    (unsigned long long)focus->posted, (unsigned long long)focus->completed, what,
		    more, hint);
}

/* A refused ibv_post_send of n WRs on q (error rc): -1 with w->err. */
int post_failed(struct rb_worker *w, const struct rb_qp *q, unsigned n, int rc)
{
	return post_werr(w, "thread %u: ibv_post_send(%u WRs, qpn 0x%x, %llu outstanding on it) "
		    "failed: %s", w->index, n, q->qp->qp_num,
		    (unsigned long long)(q->posted - q->completed), strerror(rc));
}

