/*
 * seq_atomics.c - the atomics sequencer (the paper's Section 4.2.3, "one-sided
 * atomics"): every client thread keeps `window` FETCH_AND_ADD(+1) requests
 * outstanding on one 8-byte counter in the server's memory over its own RC
 * QP. The NIC does the work; the server's CPU only sets the counter up.
 * Each completion's result (the counter before the add) is the number.
 *
 * Buffers: server [counter: 8 bytes]; client thread i: `window` 8-byte
 * result slots at i * window * 8, one per outstanding FETCH_AND_ADD.
 * SETUP QP lists: client [RC QP of thread 0..C-1], server [RC QP 0..C-1];
 * QP i talks to QP i.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "seq_rt.h"
#include "timing.h"

/* Server: the counter in a 64-byte MR the clients may FETCH_AND_ADD, one
 * passive RC QP per client thread. */
static int atomics_create_server(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads;

	if (seq_run_alloc(r, 64, IBV_ACCESS_REMOTE_ATOMIC, err, errlen))
		return -1;
	memcpy(r->buf, &c->start, sizeof(c->start));   /* the counter */
	return seq_passive_qps(r, nc, err, errlen);
}

/* Client: per thread, one RC QP and window 8-byte slots the NIC writes the old values into. */
static int atomics_create_client(struct seq_run *r, char *err, size_t errlen)
{
	unsigned w = (unsigned)r->cfg.window;

	/* each thread: window slots of 8 bytes; a send CQ, no receive CQ */
	if (seq_client_threads(r, (uint64_t)w * 8, 0, 1, w + 16, 0, err, errlen))
		return -1;
	for (unsigned i = 0; i < r->nth; i++) {
		struct seq_thread *th = &r->th[i];
		if (seq_client_arrays(r, i, w, err, errlen))
			return -1;
		if (seq_vals_init(&th->vals, r->values_cap))
			return rb_fail(err, errlen, "out of memory for client thread %u", i);
		if (seq_qp_create(r, &th->qps[0], RB_TR_RC, RB_VERB_FETCH_ADD, th->scq, NULL,
				  w + 16, 0, i, err, errlen))
			return -1;
	}
	return 0;
}

static int atomics_create(struct seq_run *r, char *err, size_t errlen)
{
	return r->role == RB_ROLE_SERVER ? atomics_create_server(r, err, errlen)
						 : atomics_create_client(r, err, errlen);
}

static int atomics_connect(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads;

	if (seq_connect_pairs(r, NULL, err, errlen))
		return -1;
	if (r->role == RB_ROLE_SERVER)
		return 0;
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		for (unsigned k = 0; k < c->window; k++) {
			th->sge[k] = (struct ibv_sge){
				.addr = (uintptr_t)(th->area + (uint64_t)k * 8),
				.length = 8,
				.lkey = r->mr->lkey,
			};
			th->wr[k] = (struct ibv_send_wr){
				.wr_id = k,
				.sg_list = &th->sge[k],
				.num_sge = 1,
				.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.atomic = {
					.remote_addr = r->remote.buf_addr,   /* the counter */
					.compare_add = 1,
					.rkey = r->remote.rkey,
				},
			};
		}
	}
	return 0;
}

/* Client thread: keep `window` FETCH_AND_ADDs outstanding until the window
 * ends, then wait (SEQ_DRAIN_MS at most) for the outstanding ones. */
static void *atomics_client_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	struct rb_qp *q = &th->qps[0];
	struct ibv_send_wr *bad;
	struct ibv_wc wc[RB_POLL_BATCH];
	unsigned w = (unsigned)r->cfg.window;

	if (!seq_client_start(th))
		return NULL;
	for (unsigned k = 0; k < w; k++) {
		th->post_ts[k] = timing_now_ns();
		int rc = ibv_post_send(q->qp, &th->wr[k], &bad);
		if (rc)
			return seq_thread_fail(th, "ibv_post_send(FETCH_AND_ADD, qpn 0x%x) failed: %s",
					       q->qp->qp_num, strerror(rc));
		th->outstanding++;
	}
	for (;;) {
		uint64_t now;
		int n = seq_client_poll(th, th->scq, "send CQ", wc, &now);
		if (n < 0)
			return NULL;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return seq_thread_fail(th, "FETCH_AND_ADD completion failed: %s (qpn 0x%x)",
						       ibv_wc_status_str(wc[i].status), wc[i].qp_num);
			/* the NIC wrote the counter's old value into slot k */
			unsigned k = (unsigned)wc[i].wr_id;
			uint64_t v;
			memcpy(&v, th->area + (uint64_t)k * 8, sizeof(v));
			seq_client_took(th, v, th->post_ts[k], now);
			if (now < r->win_end) {
				th->post_ts[k] = now;
				int rc = ibv_post_send(q->qp, &th->wr[k], &bad);
				if (rc)
					return seq_thread_fail(th, "ibv_post_send(FETCH_AND_ADD, qpn 0x%x) "
							       "failed: %s", q->qp->qp_num, strerror(rc));
				th->outstanding++;
			}
		}
		if (seq_client_done(th, now))
			break;
	}
	return NULL;
}

const struct seq_variant_ops seq_atomics_ops = {
	.name = "atomics",
	.create = atomics_create,
	.connect = atomics_connect,
	.client_main = atomics_client_main,
	.server_main = NULL,
};
