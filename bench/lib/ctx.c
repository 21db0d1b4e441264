/*
 * ctx.c - build and free the test context (ctx.h): buffer, PD, MR, per-thread
 * CQs and QPs with their pre-built work requests, and the negotiation of
 * path MTU and max_rd_atomic with the peer.
 *
 * How it works: layout_compute() sizes one page-aligned buffer for the whole
 * process (counters, then one region per QP); the buffer is zeroed and the
 * send slots get this side's payload pattern before registration. The MR
 * exposes only the remote access the test needs on this side (a READ test
 * does not expose remote write). Each worker gets a send CQ, a receive CQ
 * when receives are consumed, and its QPs; every WR field that does not
 * change per post is filled here, so the post loops only patch wr_id, flags
 * and (atomics, READ slots) addresses. With --read-completion poll each
 * client worker also gets its ring of `window` READ slots (ctx.h).
 *
 * Placement (topo.h): the calling thread moves onto the workers' CPUs
 * while it maps and zeroes the buffer and allocates the workers' arrays
 * (first touch puts their pages on that node), then moves back; workers
 * are pinned when they start (workers_start). With --doorbell td each worker's
 * QPs are created on a parent domain of its own thread domain; with
 * --doorbell ctx (client) each worker opens a device context of its own,
 * with its own PD and MR of the buffer, and its CQs and QPs go there. A
 * worker's context, PD and lkey (w->vctx, w->pd, w->lkey) are set once at
 * its creation; nothing after reads the shared ones for its objects.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "errbuf.h"
#include "ctx.h"
#include "guard.h"
#include "log.h"
#include "plan.h"
#include "timing.h"

bool ctx_side_active(const struct rb_test *t, enum rb_role role)
{
	if (role == RB_ROLE_CLIENT)
		return true;
	return verb_server_works(t->verb, t->test == RB_TEST_LAT);
}

/* The send WRs of a QP: everything but per-post fields. */
static void prebuild_send(struct rb_ctx *c, struct rb_worker *w, struct rb_qp *q)
{
	const struct rb_test *t = &c->t;
	unsigned n = (unsigned)t->postlist;
	const struct rb_verb_row *row = verb_row(t->verb);

	/* The server only sends ping-pong replies, with the verb's reply opcode. */
	if (c->role == RB_ROLE_SERVER)
		n = 1;
	for (unsigned i = 0; i < n; i++) {
		struct ibv_sge *sge = &q->ssge[i];
		struct ibv_send_wr *wr = &q->swr[i];
		bool atomic = row->atomic;

		*sge = (struct ibv_sge){
			.addr = (uintptr_t)(row->slot == RB_SLOT_RECV ? q->recv : q->send),
			.length = atomic ? 8u : (uint32_t)t->size,
			.lkey = w->lkey,
		};
		*wr = (struct ibv_send_wr){
			.wr_id = 0,
			.next = i + 1 < n ? &q->swr[i + 1] : NULL,
			.sg_list = sge,
			.num_sge = t->size || atomic ? 1 : 0,
			.opcode = row->opcode,
			.imm_data = q->imm,
		};
	}
}

static void prebuild_recv(struct rb_ctx *c, const struct rb_worker *w, struct rb_qp *q)
{
	const struct rb_layout *l = &c->lay;

	for (uint64_t k = 0; k < l->recv_slots; k++) {
		q->rsge[k] = (struct ibv_sge){
			.addr = (uintptr_t)(q->recv + k * l->recv_slot),
			.length = (uint32_t)l->recv_slot,
			.lkey = w->lkey,
		};
		q->rwr[k] = (struct ibv_recv_wr){
			.wr_id = plan_recv_id(q->index, k),
			.next = NULL,
			.sg_list = &q->rsge[k],
			.num_sge = 1,
		};
	}
}

/* QP q of worker w: its region of the buffer, starting PSN, the WR and
 * SGE arrays of its postlist and receive slots, post times (client bw),
 * atomic slots; the QP itself unless rdma_cm makes it (-R); every WR
 * field that does not change per post. 0, or -1 with err. */
static int worker_qp_create(struct rb_ctx *c, struct rb_worker *w, unsigned q, bool recv,
			    char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	unsigned postlist = (unsigned)t->postlist;
	struct rb_qp *qp = &w->qps[q];

	qp->index = q;
	qp->gindex = w->index * w->nqp + q;
	uint8_t *region = c->buf + c->lay.regions_off + (uint64_t)qp->gindex * c->lay.region_len;
	qp->send = region;
	qp->recv = region + c->lay.send_len;
	/* starting PSN: 24 random bits (IB spec 9.7.1: any value both ends exchange);
	 * from getrandom, so another host cannot guess it */
	if (guard_random(&qp->psn, sizeof(qp->psn), err, errlen))
		return -1;
	qp->psn &= 0xffffff;
	qp->sig_left = 1;  /* every WR signaled until a bw phase sets its interval */
	qp->imm = htobe32((uint32_t)(t->seed + qp->gindex));
	qp->swr = calloc(postlist, sizeof(*qp->swr));
	qp->ssge = calloc(postlist, sizeof(*qp->ssge));
	if (!qp->swr || !qp->ssge)
		return rb_fail(err, errlen, "out of memory for work requests");
	if (recv) {
		qp->rwr = calloc(c->lay.recv_slots, sizeof(*qp->rwr));
		qp->rsge = calloc(c->lay.recv_slots, sizeof(*qp->rsge));
		if (!qp->rwr || !qp->rsge)
			return rb_fail(err, errlen, "out of memory for receive requests");
	}
	if (c->role == RB_ROLE_CLIENT && t->test == RB_TEST_BW) {
		qp->post_ts = calloc(c->lay.sq_ring, sizeof(*qp->post_ts));
		if (!qp->post_ts)
			return rb_fail(err, errlen, "out of memory for post times");
	}
	if (verb_is_atomic(t->verb)) {
		qp->cmp = calloc(c->lay.sq_ring, sizeof(*qp->cmp));
		qp->ctr = calloc(c->lay.sq_ring, sizeof(*qp->ctr));
		if (!qp->cmp || !qp->ctr)
			return rb_fail(err, errlen, "out of memory for atomic slots");
	}
	/* -R: rdma_cm creates the QP on its id later (bench/lib/cm.c). */
	if (!t->use_cm) {
		if (ctx_qp_create(c, w, qp, NULL, true, err, errlen))
			return -1;
	}
	prebuild_send(c, w, qp);
	if (recv)
		prebuild_recv(c, w, qp);
	return 0;
}

/*
 * --doorbell td: worker w's thread domain and a parent domain over c->pd
 * that its QPs are created on (rdma-core's ibv_alloc_td(3) and
 * ibv_alloc_parent_domain(3): on mlx5 a QP of a thread domain gets a
 * doorbell register of its own and posts without the doorbell lock).
 * When the device refuses either call (no thread domains: rxe, older
 * providers), the worker's QPs go on the shared PD and doorbell_why says
 * which call failed and why. c->doorbell "td" already.
 */
static void worker_domain(struct rb_ctx *c, struct rb_worker *w)
{
	struct ibv_td_init_attr ta = { .comp_mask = 0 };

	w->td = ibv_alloc_td(c->dev->ctx, &ta);
	if (!w->td) {
		snprintf(c->doorbell_why, sizeof(c->doorbell_why), "ibv_alloc_td: %s",
			 strerror(errno));
		return;
	}
	struct ibv_parent_domain_init_attr pa = {
		.pd = c->pd,
		.td = w->td,
		.comp_mask = 0,
	};
	w->dom = ibv_alloc_parent_domain(c->dev->ctx, &pa);
	if (w->dom) {
		w->pd = w->dom;
		return;
	}
	snprintf(c->doorbell_why, sizeof(c->doorbell_why), "ibv_alloc_parent_domain: %s",
		 strerror(errno));
	if (ibv_dealloc_td(w->td))
		rb_warn("ibv_dealloc_td failed: %s", strerror(errno));
	w->td = NULL;
}

/* Release what worker_own_ctx made (any of it: NULL ones skipped), in
 * reverse order: its MR, PD and device context. */
static void own_ctx_release(struct rb_worker *w)
{
	if (w->omr && ibv_dereg_mr(w->omr))
		rb_warn("ibv_dereg_mr(thread %u's own) failed: %s", w->index, strerror(errno));
	if (w->opd && ibv_dealloc_pd(w->opd))
		rb_warn("ibv_dealloc_pd(thread %u's own) failed: %s", w->index, strerror(errno));
	if (w->octx && ibv_close_device(w->octx))
		rb_warn("ibv_close_device(thread %u's own) failed: %s", w->index, strerror(errno));
	w->omr = NULL;
	w->opd = NULL;
	w->octx = NULL;
}

/*
 * --doorbell ctx (client): worker w's own device context (ibv_open_device
 * on the device of c->dev, as the original artifact's libhrd opens one per
 * thread: on mlx5 each context maps doorbell registers (UARs) of its own),
 * a PD on it, and the point's whole buffer registered on that PD with
 * local access only (its SGEs' lkey; the peer is sent the rkey of c->mr,
 * and a point where the peer writes into this side keeps the shared
 * context: ctx_build). Its CQs and QPs then go on that context. When a
 * call is refused, w stays on the shared context and doorbell_why names
 * the call and errno. c->doorbell "ctx" already.
 */
static void worker_own_ctx(struct rb_ctx *c, struct rb_worker *w)
{
	const char *call = "ibv_open_device";

	w->octx = ibv_open_device(c->dev->ctx->device);
	if (!w->octx)
		goto fail;
	call = "ibv_alloc_pd";
	w->opd = ibv_alloc_pd(w->octx);
	if (!w->opd)
		goto fail;
	call = "ibv_reg_mr";
	w->omr = ibv_reg_mr(w->opd, c->buf, c->lay.total, IBV_ACCESS_LOCAL_WRITE);
	if (w->omr) {
		w->vctx = w->octx;
		w->pd = w->opd;
		w->lkey = w->omr->lkey;
		return;
	}
fail:
	snprintf(c->doorbell_why, sizeof(c->doorbell_why), "%s: %s", call, strerror(errno));
	own_ctx_release(w);
}

/* c->doorbell after every worker, for --doorbell td (ctx): "td" ("ctx")
 * when each got its thread domain (context), "shared:no-td"
 * ("shared:no-ctx") when none did, "td:K/N" ("ctx:K/N") when K of N did;
 * one line per process names the refused call: a WARN when the user gave
 * --doorbell (the QPs are not what was asked for), an INFO when the mode
 * is the default td (nothing was asked; the doorbell column says it). */
static void doorbell_result(struct rb_ctx *c)
{
	bool ctx = strcmp(c->doorbell, "ctx") == 0;
	const char *mode = ctx ? "ctx" : "td";
	unsigned k = 0;

	if (!ctx && strcmp(c->doorbell, "td") != 0)
		return;
	for (unsigned i = 0; i < c->nw; i++)
		k += ctx ? c->w[i].octx != NULL : c->w[i].dom != NULL;
	if (k == c->nw)
		return;
	if (k == 0)
		snprintf(c->doorbell, sizeof(c->doorbell), "shared:no-%s", mode);
	else
		snprintf(c->doorbell, sizeof(c->doorbell), "%s:%u/%u", mode, k, c->nw);
	static atomic_flag said = ATOMIC_FLAG_INIT;  /* once per process: the doorbell
						      * column says it for each point */
	if (atomic_flag_test_and_set(&said))
		return;
	if (c->pl && c->pl->doorbell_given)
		rb_warn("--doorbell %s: %s on %s; %u of %u workers' QPs share the context's PD "
			"and doorbells (doorbell %s; later points: their doorbell column; "
			"--doorbell shared says so without this warning)", mode, c->doorbell_why,
			c->dev->name, c->nw - k, c->nw, c->doorbell);
	else
		rb_info("doorbell %s: the default --doorbell td falls back (%s on %s): %u of %u "
			"workers' QPs share the context's PD and doorbells; the doorbell column "
			"says so per point", c->doorbell, c->doorbell_why, c->dev->name, c->nw - k,
			c->nw);
}

/*
 * A CQ of depth entries for worker w (ch: its completion channel or NULL).
 * With a parent domain (--doorbell td) on it, single-threaded (rdma-core's
 * ibv_create_cq_ex(3): IBV_CQ_INIT_ATTR_MASK_PD, IBV_CREATE_CQ_ATTR_SINGLE_THREADED:
 * on mlx5 no lock on the CQ; each CQ is polled by its worker alone, the
 * atomics self-test before the workers start); where the device refuses,
 * an INFO line (once per process) names the call and errno and the CQ goes
 * on the context, as every CQ does without a parent domain.
 */
static struct ibv_cq *worker_cq(struct rb_worker *w, unsigned depth, struct ibv_comp_channel *ch)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;

	if (w->dom) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = depth,
			.channel = ch,
			.comp_vector = 0,
			.wc_flags = IBV_WC_STANDARD_FLAGS,
			.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD |
				     IBV_CQ_INIT_ATTR_MASK_FLAGS,
			.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
			.parent_domain = w->dom,
		};
		struct ibv_cq_ex *x = ibv_create_cq_ex(w->vctx, &a);
		if (x)
			return ibv_cq_ex_to_cq(x);
		if (!atomic_flag_test_and_set(&said))
			rb_info("--doorbell td: ibv_create_cq_ex(parent domain, single-threaded) "
				"failed: %s; the workers' CQs go on the device context",
				strerror(errno));
	}
	return ibv_create_cq(w->vctx, (int)depth, NULL, ch, 0);
}

/* Worker w's send CQ and (recv) receive CQ (worker_cq: on its parent
 * domain or its context w->vctx), with a completion channel for a bw
 * server's receive CQ. 0, or -1 with err. */
static int worker_cqs(struct rb_ctx *c, struct rb_worker *w, bool recv, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;

	w->scq = worker_cq(w, c->cq_depth_s, NULL);
	if (!w->scq)
		return rb_fail(err, errlen,
			    "ibv_create_cq(send, %u entries) for thread %u failed: %s (device max_cqe %d; "
			    "lower -w or --cq-depth)", c->cq_depth_s, w->index, strerror(errno),
			    c->dev->attr.max_cqe);
	if (!recv)
		return 0;
	/* a bw server's receive thread sleeps on this channel between
	 * windows (post.c recv_idle) */
	if (c->role == RB_ROLE_SERVER && t->test == RB_TEST_BW) {
		if (c->stop_fd < 0)
			c->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (c->stop_fd < 0)
			return rb_fail(err, errlen, "eventfd for the receive threads' stop "
				       "failed: %s", strerror(errno));
		w->rch = ibv_create_comp_channel(w->vctx);
		if (!w->rch)
			return rb_fail(err, errlen, "ibv_create_comp_channel for thread %u "
				       "failed: %s", w->index, strerror(errno));
	}
	w->rcq = worker_cq(w, c->cq_depth_r, w->rch);
	if (!w->rcq)
		return rb_fail(err, errlen,
			    "ibv_create_cq(recv, %u entries) for thread %u failed: %s (device "
			    "max_cqe %d; lower --rq-depth or QPs)", c->cq_depth_r, w->index,
			    strerror(errno), c->dev->attr.max_cqe);
	return 0;
}

static int worker_create(struct rb_ctx *c, struct rb_worker *w, unsigned index, char *err,
			 size_t errlen)
{
	const struct rb_test *t = &c->t;
	unsigned nqp = (unsigned)test_qps_per_thread(t);
	bool recv = verb_has_recv(t->verb, c->role == RB_ROLE_SERVER, t->test == RB_TEST_LAT);

	w->ctx = c;
	w->index = index;
	w->row = verb_row(t->verb);
	w->nqp = nqp;
	w->cpu = -1;
	w->rng = 0x9e3779b97f4a7c15ull ^ (t->seed * 0xbf58476d1ce4e5b9ull) ^ (index + 1);
	w->hist = calloc(1, sizeof(*w->hist));
	w->qps = calloc(nqp, sizeof(*w->qps));
	if (!w->hist || !w->qps)
		return rb_fail(err, errlen, "out of memory for thread %u (%u QPs)", index, nqp);
	if (verb_row(t->verb)->counts_success) {
		w->expect = calloc(t->atomic_counters, sizeof(uint64_t));
		if (!w->expect)
			return rb_fail(err, errlen, "out of memory for %llu counters",
				    (unsigned long long)t->atomic_counters);
	}
	if (c->role == RB_ROLE_CLIENT && c->lay.poll_slots) {
		w->pslot = calloc(t->window, sizeof(*w->pslot));
		if (!w->pslot)
			return rb_fail(err, errlen, "out of memory for %llu READ slots of thread %u",
				    (unsigned long long)t->window, index);
		for (uint64_t i = 0; i < t->window; i++)
			w->pslot[i].buf = c->buf + c->lay.poll_off +
					  ((uint64_t)index * t->window + i) * c->lay.poll_slot;
	}

	/* the shared objects, unless its own domain or context replaces them */
	w->vctx = c->dev->ctx;
	w->pd = c->pd;
	w->lkey = c->mr->lkey;
	if (strcmp(c->doorbell, "td") == 0)
		worker_domain(c, w);
	else if (strcmp(c->doorbell, "ctx") == 0)
		worker_own_ctx(c, w);
	if (worker_cqs(c, w, recv, err, errlen))
		return -1;
	for (unsigned q = 0; q < nqp; q++)
		if (worker_qp_create(c, w, q, recv, err, errlen))
			return -1;
	return 0;
}

static void worker_destroy(struct rb_worker *w)
{
	if (w->qps) {
		for (unsigned q = 0; q < w->nqp; q++) {
			struct rb_qp *qp = &w->qps[q];
			if (qp->ah && ibv_destroy_ah(qp->ah))
				rb_warn("ibv_destroy_ah failed: %s", strerror(errno));
			if (qp->cm_id)
				rdma_destroy_qp(qp->cm_id);
			else if (qp->qp && ibv_destroy_qp(qp->qp))
				rb_warn("ibv_destroy_qp(qpn 0x%x) failed: %s",
					qp->qp->qp_num, strerror(errno));
			free(qp->swr);
			free(qp->ssge);
			free(qp->rwr);
			free(qp->rsge);
			free(qp->cmp);
			free(qp->ctr);
			free(qp->post_ts);
		}
	}
	if (w->rcq && ibv_destroy_cq(w->rcq))
		rb_warn("ibv_destroy_cq(recv) failed: %s", strerror(errno));
	if (w->scq && ibv_destroy_cq(w->scq))
		rb_warn("ibv_destroy_cq(send) failed: %s", strerror(errno));
	if (w->rch && ibv_destroy_comp_channel(w->rch))
		rb_warn("ibv_destroy_comp_channel failed: %s", strerror(errno));
	if (w->dom && ibv_dealloc_pd(w->dom))
		rb_warn("ibv_dealloc_pd(parent domain) failed: %s", strerror(errno));
	if (w->td && ibv_dealloc_td(w->td))
		rb_warn("ibv_dealloc_td failed: %s", strerror(errno));
	own_ctx_release(w);
	free(w->qps);
	free(w->hist);
	free(w->expect);
	free(w->pslot);
	memset(w, 0, sizeof(*w));
}

/* CQ sizes (plan_cq_depths: the rule and its refusals). */
static int size_cqs(struct rb_ctx *c, char *err, size_t errlen)
{
	uint64_t s, r;

	if (plan_cq_depths(&c->t, c->lay.recv_slots, (uint64_t)c->dev->attr.max_cqe, &s, &r,
			   err, errlen))
		return -1;
	c->cq_depth_s = (unsigned)s;
	c->cq_depth_r = (unsigned)r;
	return 0;
}

/* The buffer of c->lay (topo_buf_map: mapped, zeroed by this thread, on
 * 2 MiB pages with --hugepages where the kernel gives them), this side's
 * payload pattern in every send slot (checked by the peer). 0, or -1 with
 * err. */
static int buffer_create(struct rb_ctx *c, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	bool huge = c->pl && c->pl->hugepages;

	if (topo_buf_map(&c->mem, c->lay.total, huge)) {
		c->buf = NULL;
		return rb_fail(err, errlen, "cannot map the %llu-byte buffer (%llu QPs x %llu B%s): %s; "
			    "lower the QP count, --rq-depth or the size",
			    (unsigned long long)c->lay.total, (unsigned long long)c->lay.nqp_total,
			    (unsigned long long)c->lay.region_len, huge ? ", --hugepages" : "",
			    strerror(errno));
	}
	c->buf = c->mem.p;
	if (huge && c->mem.why[0])
		rb_warn("--hugepages: %s; the buffer is on %s pages (%zu bytes)", c->mem.why,
			c->mem.source, c->mem.page_size);
	if (!verb_is_atomic(t->verb))
		for (uint64_t g = 0; g < c->lay.nqp_total; g++) {
			uint8_t *s = c->buf + c->lay.regions_off + g * c->lay.region_len;
			for (uint64_t i = 0; i < t->size; i++)
				s[i] = rb_pattern(t->seed, c->role, (uint32_t)g, i);
		}
	return 0;
}

/* Register the buffer with local write and the remote access this side
 * grants (ctx_qp_access); a failure names the locked-memory limit (the usual
 * cause). 0, or -1 with err. */
static int mr_register(struct rb_ctx *c, char *err, size_t errlen)
{
	int access = IBV_ACCESS_LOCAL_WRITE | ctx_qp_access(c);  /* c->t, c->role set */
	struct rlimit rl;
	char lim[96] = "unknown";

	c->mr = ibv_reg_mr(c->pd, c->buf, c->lay.total, access);
	if (c->mr)
		return 0;
	int e = errno;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%llu bytes = %llu KiB",
				 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_cur / 1024);
	}
	return rb_fail(err, errlen, "ibv_reg_mr(%llu bytes, access 0x%x) failed: %s; the "
		       "locked-memory limit (ulimit -l, RLIMIT_MEMLOCK) is %s: raise it (ulimit -l "
		       "unlimited, /etc/security/limits.conf) or use a smaller -m / fewer QPs",
		       (unsigned long long)c->lay.total, access, strerror(e), lim);
}

static void stop_fd_close(struct rb_ctx *c)
{
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->stop_fd = -1;
}

/*
 * c->doorbell as asked (pl->doorbell), before the workers: the server
 * keeps one context and takes ctx as td (the client was sent the one rkey
 * of c->mr); a client point whose peer writes into it (the WRITE
 * ping-pong's replies, ctx_qp_access) keeps the shared context too, as
 * that rkey is valid on c->pd's QPs only (IB spec 10.6, memory management: an R_Key is
 * checked against the QP's PD): "shared:no-ctx" with the reason.
 */
static void doorbell_mode(struct rb_ctx *c)
{
	uint64_t m = c->pl ? c->pl->doorbell : RB_DOORBELL_SHARED;

	if (m == RB_DOORBELL_CTX && c->role == RB_ROLE_SERVER)
		m = RB_DOORBELL_TD;
	snprintf(c->doorbell, sizeof(c->doorbell), "%s", doorbell_name(m));
	if (m == RB_DOORBELL_CTX && ctx_qp_access(c)) {
		snprintf(c->doorbell, sizeof(c->doorbell), "shared:no-ctx");
		snprintf(c->doorbell_why, sizeof(c->doorbell_why), "the peer's WRITE replies "
			 "carry the one rkey this side sent, its MR's on the shared PD");
		rb_info("--doorbell ctx with --verb %s --test lat: %s; the workers stay on the "
			"shared context (doorbell %s)", verb_name(c->t.verb), c->doorbell_why,
			c->doorbell);
	}
}

/* ctx_create's verbs objects and memory: buffer, PD, MR, workers. */
static int ctx_build(struct rb_ctx *c, char *err, size_t errlen)
{
	struct rb_dev *dev = c->dev;
	uint64_t t0;

	if (buffer_create(c, err, errlen))
		return -1;
	doorbell_mode(c);
	c->pd = ibv_alloc_pd(dev->ctx);
	if (!c->pd) {
		rb_fail(err, errlen, "ibv_alloc_pd(%s) failed: %s", dev->name, strerror(errno));
		goto clean_buf;
	}
	if (mr_register(c, err, errlen))
		goto clean_pd;
	c->w = calloc(c->nw, sizeof(*c->w));
	if (!c->w) {
		rb_fail(err, errlen, "out of memory for %u workers", c->nw);
		goto clean_mr;
	}
	t0 = timing_now_ns();
	c->inline_cap = UINT32_MAX;
	for (unsigned i = 0; i < c->nw; i++)
		if (worker_create(c, &c->w[i], i, err, errlen))
			goto clean_workers;
	c->create_ns = timing_now_ns() - t0;
	doorbell_result(c);
	if (!c->t.use_cm && ctx_inline_decide(c, err, errlen))
		goto clean_workers;
	return 0;

clean_workers:
	for (unsigned i = 0; i < c->nw; i++)
		worker_destroy(&c->w[i]);
	free(c->w);
	c->w = NULL;
	stop_fd_close(c);
clean_mr:
	ibv_dereg_mr(c->mr);
	c->mr = NULL;
clean_pd:
	ibv_dealloc_pd(c->pd);
	c->pd = NULL;
clean_buf:
	topo_buf_unmap(&c->mem);
	c->buf = NULL;
	return -1;
}

int ctx_create(struct rb_ctx *c, const struct rb_test *t, enum rb_role role, struct rb_dev *dev,
	       const struct rb_placement *pl, char *err, size_t errlen)
{
	cpu_set_t saved;

	memset(c, 0, sizeof(*c));
	c->pl = pl;
	c->stop_fd = -1;
	c->t = *t;
	c->role = role;
	c->dev = dev;
	c->nw = (unsigned)t->threads;
	c->inline_req = plan_inline_request(t);
	c->remote_qkey = RB_QKEY;
	layout_compute(t, &c->lay);
	/* the point's nonce (SETUP; -R: the server's is the key of its connect requests) */
	if (guard_random(&c->nonce, sizeof(c->nonce), err, errlen))
		return -1;
	/* UD: a Q_Key of its own per point, sent in SETUP over the authenticated
	 * control channel: the device drops a stranger's SENDs, whose Q_Key does
	 * not match (IB spec 10.2.4; bit 31 clear: the high half is "controlled"
	 * Q_Keys a non-privileged process may not send, 10.2.4.1); -R too:
	 * its QPs get it after rdma_cm's RTS (cm.c, qp_ud_set_qkey) */
	if (guard_random(&c->qkey, sizeof(c->qkey), err, errlen))
		return -1;
	c->qkey &= 0x7fffffffu;
	if (!c->qkey)
		c->qkey = RB_QKEY;

	if (size_cqs(c, err, errlen)) {
		c->refused = true; /* every size_cqs failure is a refused value */
		return -1;
	}
	/* IB spec 10.9.2: a QP's P_Key index names an entry of its port's table */
	if (t->pkey_index >= dev->pattr.pkey_tbl_len) {
		c->refused = true;
		return rb_fail(err, errlen, "--pkey-index %llu: %s port %u has a P_Key table of %u "
			       "entries (indexes 0..%u); give an index below %u (ibv_devinfo -v "
			       "lists the table)", (unsigned long long)t->pkey_index, dev->name,
			       dev->port, dev->pattr.pkey_tbl_len,
			       dev->pattr.pkey_tbl_len ? dev->pattr.pkey_tbl_len - 1u : 0u,
			       dev->pattr.pkey_tbl_len);
	}
	/* this thread on the workers' CPUs while it first touches their memory */
	int moved = topo_pin_self(pl ? &pl->place : NULL, &saved);
	int rc = ctx_build(c, err, errlen);
	topo_unpin_self(moved, &saved);
	return rc;
}

int ctx_placement_check(const struct rb_opts *o, char *err, size_t errlen)
{
	if (topo_check_cpus(o->cpus, o->ncpus, err, errlen))
		return -1;
	return topo_check_numa(topo_sysroot(), o->numa, err, errlen);
}

int ctx_placement(const struct rb_opts *o, const char *dev, struct rb_placement *pl, char *err,
		  size_t errlen)
{
	int allowed[RB_MAX_CPUS], nallowed = topo_allowed(allowed, RB_MAX_CPUS);
	enum rb_pin_mode mode = o->cpus_none ? RB_PIN_NONE : o->cpus_spread ? RB_PIN_SPREAD :
				o->ncpus > 0 ? RB_PIN_LIST : RB_PIN_AUTO;
	char list[256];

	pl->hugepages = o->hugepages;
	pl->doorbell = o->doorbell;
	pl->doorbell_given = o->given.doorbell;
	if (topo_place(topo_sysroot(), dev, mode, o->cpus, o->ncpus, o->numa, allowed, nallowed,
		       &pl->place, err, errlen))
		return -1;
	topo_cpus_text(&pl->place, list, sizeof(list));
	if (pl->place.ncpus > 0)
		rb_info("workers pinned to CPUs %s (%s; NUMA node %d of %s; buffers first touched "
			"there)", list, pl->place.source, pl->place.node, dev);
	else
		rb_info("workers not pinned (--cpus none)");
	return 0;
}

int ctx_inline_decide(struct rb_ctx *c, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;

	if (c->inline_cap == UINT32_MAX)
		c->inline_cap = 0;
	c->use_inline = plan_use_inline(c->inline_req, t->size, c->inline_cap);
	c->refused = t->inline_mode == RB_INLINE_ON && t->size > c->inline_cap;
	if (c->refused)
		return rb_fail(err, errlen, "--inline on with size %llu: the QP granted max_inline_data "
			    "%u (ibv_query_qp IBV_QP_CAP); use --inline auto|off or -m <= %u",
			    (unsigned long long)t->size, c->inline_cap, c->inline_cap);
	return 0;
}

void ctx_local_setup(const struct rb_ctx *c, struct ctrl_setup *s, struct ctrl_qp_ep *eps)
{
	memset(s, 0, sizeof(*s));
	s->port = c->dev->port;
	s->link_layer = c->dev->link_layer;
	s->gid_type = c->dev->gid_type;
	s->gid_index = (uint32_t)c->dev->gid_index;
	s->lid = c->dev->pattr.lid;
	memcpy(s->gid, c->dev->gid.raw, 16);
	s->active_mtu = c->dev->active_mtu;
	s->max_qp_rd_atom = (uint32_t)c->dev->attr.max_qp_rd_atom;
	s->max_qp_init_rd_atom = (uint32_t)c->dev->attr.max_qp_init_rd_atom;
	s->buf_addr = (uintptr_t)c->buf;
	s->rkey = c->mr->rkey;
	s->qkey = c->qkey ? c->qkey : RB_QKEY;
	s->buf_len = c->lay.total;
	s->nonce = c->nonce;
	s->nqp = (uint32_t)c->lay.nqp_total;
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned q = 0; q < c->w[i].nqp; q++) {
			const struct rb_qp *qp = &c->w[i].qps[q];
			eps[qp->gindex] = (struct ctrl_qp_ep){
				.qpn = qp->qp ? qp->qp->qp_num : 0,
				.psn = qp->psn,
			};
		}
}

int ctx_send_setup(const struct rb_ctx *c, int fd, int timeout_ms, char *err, size_t errlen)
{
	struct ctrl_setup mine;
	struct ctrl_qp_ep *eps = calloc(c->lay.nqp_total, sizeof(*eps));
	uint8_t *msg = malloc(ctrl_setup_size((uint32_t)c->lay.nqp_total));
	size_t n = 0;
	int rc = -1;

	if (!eps || !msg) {
		snprintf(err, errlen, "out of memory for the SETUP of %llu QPs",
			 (unsigned long long)c->lay.nqp_total);
		goto out;
	}
	ctx_local_setup(c, &mine, eps);
	n = ctrl_encode_setup(msg, ctrl_setup_size(mine.nqp), &mine, eps);
	if (!n)
		snprintf(err, errlen, "internal error: SETUP of %u QPs does not encode", mine.nqp);
	else
		rc = ctrl_send(fd, msg, n, timeout_ms, err, errlen);
out:
	free(msg);
	free(eps);
	return rc;
}

const char *ctx_worker_error(const struct rb_ctx *c)
{
	for (unsigned i = 0; i < c->nw; i++)
		if (c->w[i].rc)
			return c->w[i].err;
	return NULL;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * RoCE: both ends' GIDs, from the two SETUPs, must reach each other before
 * any QP is connected (else an RC point ends in retry timeouts): a
 * link-local GID (fe80::) does not route to an IPv4-mapped or global one;
 * RoCE v1 and v2 do not interwork (v1 is a link-layer packet, v2 a UDP/IP
 * one); on RoCE v2 an IPv4-mapped GID (::ffff:a.b.c.d, an IPv4 packet) and
 * an IPv6 GID are different IP families. 0, or -1 with err naming both
 * GIDs and the index to use.
 */
static int gid_pair_check(const struct rb_ctx *c, const struct ctrl_setup *remote, char *err,
			  size_t errlen)
{
	char mine[64], theirs[64];
	bool v4 = dev_gid_v4mapped(c->dev->gid.raw);

	dev_gid_str(c->dev->gid.raw, mine, sizeof(mine));
	dev_gid_str(remote->gid, theirs, sizeof(theirs));
	if (dev_gid_link_local(c->dev->gid.raw) != dev_gid_link_local(remote->gid))
		return rb_fail(err, errlen,
			    "GID index %d (%s) on this side and %u (%s) on the peer: a link-local "
			    "GID (fe80::) cannot reach a routable or IPv4-mapped one; use -x %d "
			    "(this port's %s GID) or the same kind of GID on both ends",
			    c->dev->gid_index, mine, remote->gid_index, theirs,
			    c->dev->auto_gid_index, dev_gid_v4mapped(remote->gid) ?
			    "IPv4-mapped" : "automatic");
	if (c->dev->gid_type != remote->gid_type)
		return rb_fail(err, errlen,
			    "GID types differ: this side index %d is %s, the peer's index %u is %s; "
			    "RoCE v1 and v2 do not interwork; use -x %d or a GID of type %s",
			    c->dev->gid_index, dev_gid_type_name(c->dev->gid_type),
			    remote->gid_index, dev_gid_type_name(remote->gid_type),
			    c->dev->auto_gid_index, dev_gid_type_name(remote->gid_type));
	if (c->dev->gid_type == 2 && v4 != dev_gid_v4mapped(remote->gid))
		return rb_fail(err, errlen,
			    "GID index %d (%s) on this side and %u (%s) on the peer: RoCE v2 over "
			    "IPv4 and over IPv6 do not reach each other; use -x %d or a GID of the "
			    "peer's family (%s) on both ends", c->dev->gid_index, mine,
			    remote->gid_index, theirs, c->dev->auto_gid_index,
			    dev_gid_v4mapped(remote->gid) ? "IPv4-mapped" : "IPv6");
	return 0;
}

/*
 * Path MTU: min of both active MTUs, or --mtu if smaller; above either
 * active MTU is refused (IB spec 9.7.6.1.1: the path MTU must fit the path).
 * max_rd_atomic: the client initiates every READ and atomic, so the depth is
 * min(client initiator cap, server responder cap) (IB spec 9.5: the
 * requester's outstanding RDMA READ/atomics must fit the responder's
 * resources), or --max-rd-atomic if not above it. Both ends compute the same
 * value; each clamps the direction it never uses to its own cap.
 */
int ctx_negotiate(struct rb_ctx *c, const struct ctrl_setup *remote, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	uint32_t m = min_u32(c->dev->active_mtu, remote->active_mtu);
	bool client = c->role == RB_ROLE_CLIENT;
	uint32_t init_cap = client ? (uint32_t)c->dev->attr.max_qp_init_rd_atom :
				     remote->max_qp_init_rd_atom;
	uint32_t resp_cap = client ? remote->max_qp_rd_atom : (uint32_t)c->dev->attr.max_qp_rd_atom;
	uint32_t rd = min_u32(init_cap, resp_cap);

	if (remote->nqp != c->lay.nqp_total)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, this side %llu", remote->nqp,
			    (unsigned long long)c->lay.nqp_total);
	if (remote->buf_len != c->lay.total)
		return rb_fail(err, errlen, "peer buffer is %llu bytes, this side expects %llu (same "
			    "rdma_bench on both ends?)", (unsigned long long)remote->buf_len,
			    (unsigned long long)c->lay.total);
	if (remote->link_layer != c->dev->link_layer)
		return rb_fail(err, errlen, "link layers differ: this side %s, peer %s",
			    dev_link_layer_name(c->dev->link_layer),
			    dev_link_layer_name(remote->link_layer));
	if (c->dev->link_layer == 2 && gid_pair_check(c, remote, err, errlen))
		return -1;
	if (t->mtu) {
		if (t->mtu > m)
			return rb_fail(err, errlen,
				    "--mtu %llu: above the active MTU (this side %u, peer %u); use "
				    "--mtu <= %u or leave it out", (unsigned long long)t->mtu,
				    c->dev->active_mtu, remote->active_mtu, m);
		m = (uint32_t)t->mtu;
	}
	if (t->transport == RB_TR_UD && t->size > m)
		return rb_fail(err, errlen,
			    "--size %llu with --transport ud: above the MTU %u (this side %u, peer %u); "
			    "a UD message is one packet; use -m <= %u", (unsigned long long)t->size, m,
			    c->dev->active_mtu, remote->active_mtu, m);
	if (rd < 1)
		rd = 1;
	if (t->max_rd_atomic) {
		if (t->max_rd_atomic > rd)
			return rb_fail(err, errlen,
				    "--max-rd-atomic %llu: above the negotiated maximum %u (client "
				    "initiator cap %u, server responder cap %u); use <= %u",
				    (unsigned long long)t->max_rd_atomic, rd, init_cap, resp_cap, rd);
		rd = (uint32_t)t->max_rd_atomic;
	}
	c->path_mtu = m;
	c->rd_atomic = rd;
	/* the unused direction, within this device's own cap */
	c->rd_init = client ? rd : min_u32(rd, (uint32_t)c->dev->attr.max_qp_init_rd_atom);
	c->rd_resp = client ? min_u32(rd, (uint32_t)c->dev->attr.max_qp_rd_atom) : rd;
	if (!c->rd_init)
		c->rd_init = 1;
	if (!c->rd_resp)
		c->rd_resp = 1;
	c->remote = *remote;
	c->remote.qps = NULL;
	if (remote->qkey)  /* UD: the peer's own Q_Key, from its SETUP (also -R) */
		c->remote_qkey = remote->qkey;
	return 0;
}

int ctx_post_recvs(struct rb_ctx *c, char *err, size_t errlen)
{
	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		if (!w->rcq)
			continue;
		for (unsigned q = 0; q < w->nqp; q++) {
			struct rb_qp *qp = &w->qps[q];
			struct ibv_recv_wr *bad = NULL;
			for (uint64_t k = 0; k < c->lay.recv_slots; k++)
				qp->rwr[k].next = k + 1 < c->lay.recv_slots ? &qp->rwr[k + 1] : NULL;
			int rc = ibv_post_recv(qp->qp, &qp->rwr[0], &bad);
			for (uint64_t k = 0; k < c->lay.recv_slots; k++)
				qp->rwr[k].next = NULL;
			if (rc)
				return rb_fail(err, errlen, "ibv_post_recv(%llu WRs, qpn 0x%x) failed: %s",
					    (unsigned long long)c->lay.recv_slots, qp->qp->qp_num,
					    strerror(rc));
		}
	}
	return 0;
}

void ctx_destroy(struct rb_ctx *c)
{
	if (c->w) {
		for (unsigned i = 0; i < c->nw; i++)
			worker_destroy(&c->w[i]);
		free(c->w);
		c->w = NULL;
	}
	stop_fd_close(c);
	if (c->mr && ibv_dereg_mr(c->mr))
		rb_warn("ibv_dereg_mr failed: %s", strerror(errno));
	c->mr = NULL;
	if (c->pd && ibv_dealloc_pd(c->pd))
		rb_warn("ibv_dealloc_pd failed: %s", strerror(errno));
	c->pd = NULL;
	topo_buf_unmap(&c->mem);
	c->buf = NULL;
}

void ctx_release(struct rb_ctx *c)
{
	atomic_store(&c->go, 1);
	(void)syscall(SYS_futex, (int *)&c->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

uint64_t ctx_sum_recvs(struct rb_ctx *c)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < c->nw; i++)
		s += atomic_load_explicit(&c->w[i].recvs, memory_order_relaxed);
	return s;
}

uint64_t ctx_last_recv_ns(struct rb_ctx *c)
{
	uint64_t last = 0;

	for (unsigned i = 0; i < c->nw; i++) {
		uint64_t t = atomic_load_explicit(&c->w[i].last_recv_ns, memory_order_relaxed);
		if (t > last)
			last = t;
	}
	return last;
}
