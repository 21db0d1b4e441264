/*
 * post_resp.c - the responder loops (the server's worker threads): consume
 * receives (count, check payloads, re-post, reply in lat mode), sleep on the
 * CQ's channel when idle, answer WRITE ping-pongs; worker_server_main.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "post_int.h"

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
		if (!any && (++idle & CHECK_MASK) == 0 && stopped(c))
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
			return post_werr(w, "thread %u: ibv_req_notify_cq(recv) failed: %s", w->index,
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
			return post_werr(w, "thread %u: poll on the receive CQ's completion channel: %s",
				    w->index, strerror(errno));
		if (rc <= 0 || !(p[0].revents & POLLIN))
			continue; /* timeout, signal, or the stop's eventfd: look at stop */
		struct ibv_cq *cq;
		void *cq_ctx;
		if (ibv_get_cq_event(w->rch, &cq, &cq_ctx))
			return post_werr(w, "thread %u: ibv_get_cq_event(recv) failed: %s", w->index,
				    strerror(errno));
		ibv_ack_cq_events(cq, 1);
		*armed = false;
		return 0;
	}
}

/* Server: consume receives (SEND, SEND_IMM, WRITE_IMM), reply in lat mode.
 * UD: a receive whose source QP (wc.src_qp, IB spec 11.4.2.1) is not the
 * client's QP of this QP pair does not belong to the point (it passed the
 * point's random Q_Key, so it can only be a bug or a key that leaked): it
 * is re-posted and counted in foreign_recvs, never in recvs or ops. */
static int serve_recvs(struct rb_worker *w)
{
	struct rb_ctx *c = w->ctx;
	const struct rb_test *t = &c->t;
	const bool reply = t->test == RB_TEST_LAT;
	const bool ud = t->transport == RB_TR_UD;
	const unsigned flags = c->use_inline ? IBV_SEND_INLINE : 0;
	struct ibv_wc wc[RB_POLL_BATCH];
	uint64_t idle = 0, n = 0, idle_since = 0, foreign = 0;
	bool armed = false;

	for (;;) {
		int ne = ibv_poll_cq(w->rcq, RB_POLL_BATCH, wc);
		if (ne < 0)
			return post_werr(w, "thread %u: ibv_poll_cq(recv) failed: %d", w->index, ne);
		if (ne == 0) {
			if ((++idle & CHECK_MASK) == 0) {
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
				return post_wc_error(w, &wc[i], "receive");
			struct rb_qp *q = &w->qps[plan_recv_id_qp(wc[i].wr_id)];
			if (ud && wc[i].src_qp != q->remote_qpn) {
				if (repost_recv(w, q, plan_recv_id_slot(wc[i].wr_id)))
					return -1;
				foreign++;
				continue;
			}
			if (t->validate)
				check_recv(w, q, &wc[i], RB_ROLE_CLIENT);
			if (repost_recv(w, q, plan_recv_id_slot(wc[i].wr_id)))
				return -1;
			if (reply && post_one(w, q, flags, "reply"))
				return -1;
			q->ops++;
		}
		n += (uint64_t)ne;
		if (ud) {
			n -= foreign - atomic_load_explicit(&w->foreign_recvs, memory_order_relaxed);
			atomic_store_explicit(&w->foreign_recvs, foreign, memory_order_relaxed);
		}
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

