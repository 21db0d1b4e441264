/*
 * seq_rt.c - the sequencer's shared verbs resources: PD, buffer and MR,
 * threads with their CQs, and QPs made and connected by the library's QP
 * stages (bench/lib/qp.c: qp_create, qp_to_init, qp_to_rtr_rts), so every
 * transition is the one rdma_bench uses. See seq_rt.h.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "errbuf.h"
#include "guard.h"
#include "log.h"
#include "qp.h"
#include "seq_rt.h"
#include "timing.h"

void *seq_thread_fail(struct seq_thread *th, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(th->err, sizeof(th->err), fmt, ap);
	va_end(ap);
	th->rc = -1;
	return NULL;
}

bool seq_client_start(struct seq_thread *th)
{
	int go;
	while ((go = atomic_load(&th->run->go)) == 0)
		sched_yield();
	return go > 0;
}

int seq_client_poll(struct seq_thread *th, struct ibv_cq *cq, const char *what,
		    struct ibv_wc *wc, uint64_t *now)
{
	int n = ibv_poll_cq(cq, RB_POLL_BATCH, wc);
	if (n > 0 || ++th->poll_idle % SEQ_IDLE_CLOCK == 0) {
		th->poll_now = timing_now_ns();
		th->poll_idle = 0;
	}
	*now = th->poll_now;
	if (n < 0) {
		seq_thread_fail(th, "ibv_poll_cq(%s) failed", what);
		return -1;
	}
	if (n == 0 && th->run->cfg.idle_yield)
		sched_yield();
	return n;
}

void seq_client_answered(struct seq_thread *th, uint64_t post_ns, uint64_t now)
{
	const struct seq_run *r = th->run;
	th->outstanding--;
	if (now >= r->win_start && now < r->win_end) {
		th->resp_window++;
		hist_add(th->hist, now - post_ns);
	}
}

void seq_client_took(struct seq_thread *th, uint64_t v, uint64_t post_ns, uint64_t now)
{
	seq_vals_add(&th->vals, v);
	seq_client_answered(th, post_ns, now);
}

bool seq_client_done(const struct seq_thread *th, uint64_t now)
{
	const struct seq_run *r = th->run;
	return now >= r->win_end &&
	       (th->outstanding == 0 || now >= r->win_end + (uint64_t)SEQ_DRAIN_MS * 1000000u);
}

void *seq_client_loop(struct seq_thread *th, unsigned rq, unsigned first,
		      int (*post)(struct seq_thread *th, unsigned k, uint64_t now),
		      int (*take)(struct seq_thread *th, const struct ibv_wc *wc, uint64_t now,
				  unsigned *k))
{
	struct seq_run *r = th->run;
	struct rb_qp *ud = &th->qps[rq];
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[RB_POLL_BATCH];

	if (!seq_client_start(th))
		return NULL;
	for (unsigned k = 0; k < first; k++)
		if (post(th, k, timing_now_ns()))
			return NULL;
	for (;;) {
		uint64_t now;
		int n = seq_client_poll(th, th->rcq, "receive CQ", wc, &now);
		if (n < 0)
			return NULL;
		for (int i = 0; i < n; i++) {
			unsigned k;
			if (wc[i].status != IBV_WC_SUCCESS)
				return seq_thread_fail(th, "response receive failed: %s (qpn 0x%x)",
						       ibv_wc_status_str(wc[i].status), wc[i].qp_num);
			if (wc[i].wr_id >= th->nrecv)
				return seq_thread_fail(th, "receive completion names slot %llu of %u",
						       (unsigned long long)wc[i].wr_id, th->nrecv);
			if (take(th, &wc[i], now, &k))
				return NULL;
			int rc = ibv_post_recv(ud->qp, &th->rwr[wc[i].wr_id], &rbad);
			if (rc)
				return seq_thread_fail(th, "ibv_post_recv(qpn 0x%x) failed: %s",
						       ud->qp->qp_num, strerror(rc));
			if (now < r->win_end && post(th, k, now))
				return NULL;
		}
		if (seq_client_done(th, now))
			break;
	}
	return NULL;
}

int seq_post_batch(struct seq_thread *th, struct rb_qp *q, unsigned m)
{
	struct ibv_send_wr *bad;
	for (unsigned j = 0; j < m; j++)
		th->wr[j].next = j + 1 < m ? &th->wr[j + 1] : NULL;
	int rc = ibv_post_send(q->qp, &th->wr[0], &bad);
	if (rc) {
		seq_thread_fail(th, "ibv_post_send(%u UD SEND_WITH_IMM, qpn 0x%x) failed: %s", m,
				q->qp->qp_num, strerror(rc));
		return -1;
	}
	seq_batch_add(&th->batch, m, 1);
	return 0;
}

int seq_run_charge(struct seq_run *r, uint64_t bytes, const char *what, char *err,
		   size_t errlen)
{
	if (r->mem_cap && (bytes > r->mem_cap || r->mem_used > r->mem_cap - bytes))
		return rb_fail(err, errlen, "%s%.1f MiB above what the server's --max-mem %.1f MiB "
			       "leaves (%.1f MiB charged to this point): %s", RB_REFUSED_PREFIX,
			       (double)bytes / 1048576.0, (double)r->mem_cap / 1048576.0,
			       (double)r->mem_used / 1048576.0, what);
	r->mem_used += bytes;
	return 0;
}

int seq_run_alloc(struct seq_run *r, uint64_t len, int access, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	bool huge = r->pl && r->pl->hugepages;
	char what[160];
	cpu_set_t saved;

	if (len > UINT64_MAX - RB_HUGE_PAGE)
		return rb_fail(err, errlen, "%sa buffer of %llu bytes", RB_REFUSED_PREFIX,
			       (unsigned long long)len);
	/* charged as mapped: whole pages (2 MiB ones with --hugepages) */
	pg = huge ? RB_HUGE_PAGE : pg;
	r->buf_len = (len + pg - 1) / pg * pg;
	snprintf(what, sizeof(what), "the %s's registered buffer (%s, --server-threads %llu, "
		 "clients x window %llu, --drtm items %llu)", seq_variant_name(r->cfg.variant),
		 r->role == RB_ROLE_SERVER ? "server" : "client",
		 (unsigned long long)r->cfg.server_threads,
		 (unsigned long long)(r->cfg.client_threads * r->cfg.window),
		 (unsigned long long)r->cfg.drtm.items);
	if (seq_run_charge(r, r->buf_len, what, err, errlen))
		return -1;
	r->pd = ibv_alloc_pd(r->dev->ctx);
	if (!r->pd)
		return rb_fail(err, errlen, "ibv_alloc_pd(%s) failed: %s", r->dev->name, strerror(errno));
	/* mapped, first touched and registered while this thread runs on the
	 * threads' CPUs (the placement's), so the pages land on their node */
	int moved = topo_pin_self(r->pl ? &r->pl->place : NULL, &saved);
	if (topo_buf_map(&r->mem, r->buf_len, huge)) {
		int e = errno;
		topo_unpin_self(moved, &saved);
		return rb_fail(err, errlen, "mmap(%llu bytes) for the sequencer buffer failed: %s",
			       (unsigned long long)r->buf_len, strerror(e));
	}
	if (huge && r->mem.why[0])
		rb_warn("--hugepages: the %s's buffer (%llu bytes) on %s pages: %s",
			r->role == RB_ROLE_SERVER ? "server" : "client",
			(unsigned long long)r->buf_len, r->mem.source, r->mem.why);
	r->buf = r->mem.p;
	r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_len, IBV_ACCESS_LOCAL_WRITE | access);
	topo_unpin_self(moved, &saved);
	if (!r->mr)
		return rb_fail(err, errlen, "ibv_reg_mr(%llu bytes, access 0x%x) failed: %s",
			       (unsigned long long)r->buf_len, IBV_ACCESS_LOCAL_WRITE | access,
			       strerror(errno));
	r->inline_cap = UINT32_MAX;
	return 0;
}

int seq_run_threads(struct seq_run *r, unsigned nth, unsigned nqp, unsigned scq_depth,
		    unsigned rcq_depth, char *err, size_t errlen)
{
	r->th = calloc(nth ? nth : 1, sizeof(*r->th));
	if (!r->th)
		return rb_fail(err, errlen, "out of memory for %u threads", nth);
	r->nth = nth;
	for (unsigned i = 0; i < nth; i++) {
		struct seq_thread *th = &r->th[i];
		th->run = r;
		th->index = i;
		th->nqp = nqp;
		th->qps = calloc(nqp, sizeof(*th->qps));
		th->hist = calloc(1, sizeof(*th->hist));
		if (!th->qps || !th->hist)
			return rb_fail(err, errlen, "out of memory for thread %u", i);
		th->scq = ibv_create_cq(r->dev->ctx, (int)scq_depth, NULL, NULL, 0);
		if (!th->scq)
			return rb_fail(err, errlen, "ibv_create_cq(%u entries) for thread %u failed: %s "
				       "(device max_cqe %d)", scq_depth, i, strerror(errno),
				       r->dev->attr.max_cqe);
		if (rcq_depth) {
			th->rcq = ibv_create_cq(r->dev->ctx, (int)rcq_depth, NULL, NULL, 0);
			if (!th->rcq)
				return rb_fail(err, errlen, "ibv_create_cq(%u entries) for thread %u "
					       "failed: %s (device max_cqe %d)", rcq_depth, i,
					       strerror(errno), r->dev->attr.max_cqe);
		}
	}
	return 0;
}

int seq_client_threads(struct seq_run *r, uint64_t area_bytes, int access, unsigned nqp,
		       unsigned scq_depth, unsigned rcq_depth, char *err, size_t errlen)
{
	unsigned nc = (unsigned)r->cfg.client_threads;

	if (seq_run_alloc(r, nc * area_bytes, access, err, errlen) ||
	    seq_run_threads(r, nc, nqp, scq_depth, rcq_depth, err, errlen))
		return -1;
	for (unsigned i = 0; i < nc; i++)
		r->th[i].area = r->buf + i * area_bytes;
	return 0;
}

/* The attributes the library's QP stages read (qp.h) for one of the
 * sequencer's QPs: transport, the verb's access, queue depths, the RC
 * timers' defaults (the knob table's), path MTU and the negotiated
 * READ/atomic depths. */
static struct rb_qp_attr seq_qp_attr(const struct seq_run *r, uint64_t transport, uint64_t verb,
				     struct ibv_cq *scq, struct ibv_cq *rcq, uint32_t sq, uint32_t rq)
{
	struct rb_qp_attr at = {
		.pd = r->pd,
		.dev = r->dev,
		.scq = scq,
		.rcq = rcq,
		.transport = transport,
		.sq_depth = sq,
		.rq_depth = rq ? rq : 1,
		.inline_req = transport == RB_TR_RC ? 0 : 8,  /* 8-byte request / response payloads */
		.inline_mode = RB_INLINE_AUTO,
		.size = 8,
		.inline_cap = UINT32_MAX,
		.access = verb_access(verb, r->role == RB_ROLE_SERVER, false),
		.qkey = RB_QKEY,
		.path_mtu = r->path_mtu,
		.rd_resp = (uint8_t)r->rd_resp,
		.rd_init = (uint8_t)r->rd_init,
	};
	qp_attr_timer_defaults(&at);
	return at;
}

int seq_client_arrays(struct seq_run *r, unsigned i, size_t nwr, char *err, size_t errlen)
{
	struct seq_thread *th = &r->th[i];

	th->post_ts = calloc((size_t)r->cfg.window, sizeof(*th->post_ts));
	th->wr = calloc(nwr, sizeof(*th->wr));
	th->sge = calloc(nwr, sizeof(*th->sge));
	if (!th->post_ts || !th->wr || !th->sge)
		return rb_fail(err, errlen, "out of memory for client thread %u", i);
	return 0;
}

int seq_connect_pairs(struct seq_run *r, int (*after)(struct rb_qp *q, char *err, size_t errlen),
		      char *err, size_t errlen)
{
	unsigned nc = (unsigned)r->cfg.client_threads;
	struct rb_qp *q;

	if (r->remote.nqp != nc)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %u (one per client thread)",
			       r->remote.nqp, nc);
	for (unsigned i = 0; i < nc; i++) {
		q = r->role == RB_ROLE_SERVER ? &r->passive[i] : &r->th[i].qps[0];
		if (seq_qp_connect(r, q, RB_TR_RC, RB_VERB_FETCH_ADD, &r->remote_eps[i], err,
				   errlen) ||
		    (r->role == RB_ROLE_SERVER && after && after(q, err, errlen)))
			return -1;
	}
	return 0;
}

int seq_passive_qps(struct seq_run *r, unsigned nc, char *err, size_t errlen)
{
	r->pcq = ibv_create_cq(r->dev->ctx, 16, NULL, NULL, 0);
	r->passive = calloc(nc, sizeof(*r->passive));
	if (!r->pcq || !r->passive)
		return rb_fail(err, errlen, "ibv_create_cq / memory for %u passive QPs failed: %s",
			       nc, strerror(errno));
	r->npassive = nc;
	for (unsigned i = 0; i < nc; i++)
		if (seq_qp_create(r, &r->passive[i], RB_TR_RC, RB_VERB_FETCH_ADD, r->pcq, NULL,
				  16, 0, i, err, errlen))
			return -1;
	return 0;
}

int seq_qp_create(struct seq_run *r, struct rb_qp *q, uint64_t transport, uint64_t verb,
		  struct ibv_cq *scq, struct ibv_cq *rcq, uint32_t sq, uint32_t rq, unsigned gindex,
		  char *err, size_t errlen)
{
	struct rb_qp_attr a = seq_qp_attr(r, transport, verb, scq, rq ? rcq : NULL, sq, rq);
	uint32_t psn;

	a.thread = gindex;
	q->index = gindex;
	q->gindex = gindex;
	if (qp_create(&a, &q->qp, NULL, err, errlen) || qp_to_init(&a, q->qp, err, errlen))
		return -1;
	if (a.inline_cap < r->inline_cap)
		r->inline_cap = a.inline_cap;
	if (guard_random(&psn, sizeof(psn), err, errlen))
		return -1;
	q->psn = psn & 0xffffffu;
	struct ctrl_qp_ep *eps = realloc(r->eps, (r->neps + 1) * sizeof(*eps));
	if (!eps)
		return rb_fail(err, errlen, "out of memory for the endpoint list");
	r->eps = eps;
	r->eps[r->neps++] = (struct ctrl_qp_ep){ .qpn = q->qp->qp_num, .psn = q->psn };
	return 0;
}

int seq_qp_connect(struct seq_run *r, struct rb_qp *q, uint64_t transport, uint64_t verb,
		   const struct ctrl_qp_ep *ep, char *err, size_t errlen)
{
	struct rb_qp_attr a = seq_qp_attr(r, transport, verb, NULL, NULL, SEQ_SQ_DEPTH, 0);

	q->remote_qpn = ep->qpn;
	q->remote_psn = ep->psn;
	return qp_to_rtr_rts(&a, q->qp, &r->remote, q->remote_qpn, q->remote_psn, q->psn, &q->ah,
			     err, errlen);
}

int seq_post_recv_all(struct seq_thread *th, struct rb_qp *q, char *err, size_t errlen)
{
	struct ibv_recv_wr *bad = NULL;
	for (unsigned i = 0; i < th->nrecv; i++)
		th->rwr[i].next = i + 1 < th->nrecv ? &th->rwr[i + 1] : NULL;
	int rc = th->nrecv ? ibv_post_recv(q->qp, &th->rwr[0], &bad) : 0;
	for (unsigned i = 0; i < th->nrecv; i++)
		th->rwr[i].next = NULL;
	if (rc)
		return rb_fail(err, errlen, "ibv_post_recv(%u receives, qpn 0x%x) failed: %s",
			       th->nrecv, q->qp->qp_num, strerror(rc));
	return 0;
}

int seq_sq_room(struct seq_thread *th, unsigned qi, uint64_t n, int timeout_ms, char *err,
		size_t errlen)
{
	struct rb_qp *q = &th->qps[qi];
	uint64_t deadline = 0;
	struct ibv_wc wc[RB_POLL_BATCH];

	while (q->posted + n - q->reaped > SEQ_SQ_DEPTH) {
		int got = ibv_poll_cq(th->scq, RB_POLL_BATCH, wc);
		if (got < 0)
			return rb_fail(err, errlen, "ibv_poll_cq(send CQ) failed");
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return rb_fail(err, errlen, "send completion failed: %s (qpn 0x%x)",
					       ibv_wc_status_str(wc[i].status), wc[i].qp_num);
			unsigned k = (unsigned)(wc[i].wr_id >> 48);
			if (k < th->nqp)
				th->qps[k].reaped = (wc[i].wr_id & ((UINT64_C(1) << 48) - 1)) + 1;
		}
		if (got == 0) {
			uint64_t now = timing_now_ns();
			if (!deadline)
				deadline = now + (uint64_t)timeout_ms * 1000000u;
			else if (now > deadline)
				return rb_fail(err, errlen, "timed out after %d ms waiting for send "
					       "completions to free the send queue of qpn 0x%x",
					       timeout_ms, q->qp->qp_num);
		}
	}
	return 0;
}

static void destroy_qp(struct rb_qp *q)
{
	if (q->ah)
		ibv_destroy_ah(q->ah);
	if (q->qp)
		ibv_destroy_qp(q->qp);
	q->ah = NULL;
	q->qp = NULL;
}

void seq_run_destroy(struct seq_run *r)
{
	for (unsigned i = 0; i < r->npassive; i++)
		destroy_qp(&r->passive[i]);
	free(r->passive);
	if (r->pcq)
		ibv_destroy_cq(r->pcq);
	for (unsigned i = 0; r->th && i < r->nth; i++) {
		struct seq_thread *th = &r->th[i];
		for (unsigned k = 0; th->qps && k < th->nqp; k++)
			destroy_qp(&th->qps[k]);
		if (th->scq)
			ibv_destroy_cq(th->scq);
		if (th->rcq)
			ibv_destroy_cq(th->rcq);
		free(th->qps);
		free(th->hist);
		free(th->post_ts);
		free(th->wr);
		free(th->sge);
		free(th->rwr);
		free(th->rsge);
		seq_vals_free(&th->vals);
		if (th->app_free)
			th->app_free(th->app);
	}
	free(r->th);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	topo_buf_unmap(&r->mem);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	free(r->eps);
	free(r->remote_eps);
	r->th = NULL;
	r->passive = NULL;
	r->mr = NULL;
	r->buf = NULL;
	r->pd = NULL;
	r->eps = NULL;
	r->remote_eps = NULL;
}
