/*
 * ctx_qp.c - rdma_bench's context over the library's QP stages (qp.h):
 * the attributes of this point's QPs (ctx_qp_attr), creation and INIT of
 * one worker QP, connection of every QP to the peer's, the remote fields of
 * the pre-built WRs, and (-R) what rdma_cm set read back into the context.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "ctx.h"
#include "errbuf.h"
#include "plan.h"
#include "qp.h"
#include "timing.h"

struct rb_qp_attr ctx_qp_attr(const struct rb_ctx *c, const struct rb_worker *w,
			      const struct rb_qp *q)
{
	const struct rb_test *t = &c->t;

	return (struct rb_qp_attr){
		.pd = w && w->pd ? w->pd : c->pd, /* the worker's (ctx.h: parent domain, own PD) */
		.dev = c->dev,
		.scq = w ? w->scq : NULL,
		.rcq = w ? w->rcq : NULL,
		.transport = t->transport,
		.sq_depth = (uint32_t)t->sq_depth,
		.rq_depth = (uint32_t)c->lay.recv_slots,
		.inline_req = c->inline_req,
		.inline_mode = t->inline_mode,
		.size = t->size,
		.thread = w ? w->index : 0,
		.index = q ? q->index : 0,
		.inline_cap = c->inline_cap,
		.pkey_index = (uint16_t)t->pkey_index,
		.access = ctx_qp_access(c),
		.qkey = c->qkey ? c->qkey : RB_QKEY, /* per point (ctx.h) */
		.sl = (uint8_t)t->sl,
		.tclass = (uint8_t)t->tclass,
		.path_mtu = c->path_mtu,
		.rd_resp = (uint8_t)c->rd_resp,
		.rd_init = (uint8_t)c->rd_init,
		.min_rnr_timer = (uint8_t)t->min_rnr_timer,
		.timeout = (uint8_t)t->ack_timeout,
		.retry_cnt = (uint8_t)t->retry_cnt,
		.rnr_retry = (uint8_t)t->rnr_retry,
	};
}

int ctx_qp_create(struct rb_ctx *c, struct rb_worker *w, struct rb_qp *q, struct rdma_cm_id *id,
		  bool init, char *err, size_t errlen)
{
	struct rb_qp_attr a = ctx_qp_attr(c, w, q);
	int rc = qp_create(&a, &q->qp, id, err, errlen);

	/* what the device granted or refused holds for the point's later QPs */
	c->inline_req = a.inline_req;
	c->inline_cap = a.inline_cap;
	if (a.refused)
		c->refused = true;
	if (rc)
		return -1;
	if (id)
		q->cm_id = id;
	return init ? qp_to_init(&a, q->qp, err, errlen) : 0;
}

int ctx_qp_cm_rtr_rts(struct rb_ctx *c, struct rb_qp *q, struct rdma_cm_id *id, char *err,
		      size_t errlen)
{
	struct rb_qp_attr a = ctx_qp_attr(c, NULL, q);

	return qp_cm_rtr_rts(&a, q->qp, id, &q->remote_qpn, err, errlen);
}

/* The one rule for both the MR and the QPs (IB spec 10.6.3.2 / 11.2.8.1;
 * verb_access, the verb table): the server grants what the verb needs; the client is a
 * target only of the WRITE ping-pong replies. */
int ctx_qp_access(const struct rb_ctx *c)
{
	return verb_access(c->t.verb, c->role == RB_ROLE_SERVER, c->t.test == RB_TEST_LAT);
}

void ctx_qp_set_remote(struct rb_ctx *c, struct rb_qp *q)
{
	const struct rb_test *t = &c->t;
	const struct rb_verb_row *row = verb_row(t->verb);

	q->remote_send = c->remote.buf_addr + c->lay.regions_off +
			 (uint64_t)q->gindex * c->lay.region_len;
	q->remote_recv = q->remote_send + c->lay.send_len;
	unsigned n = c->role == RB_ROLE_SERVER ? 1 : (unsigned)t->postlist;
	unsigned flags = c->use_inline ? IBV_SEND_INLINE : 0;

	for (unsigned i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &q->swr[i];
		wr->send_flags = flags;  /* what an unsignaled WR holds between posts (post_batch) */
		if (t->transport == RB_TR_UD) {
			wr->wr.ud.ah = q->ah;
			wr->wr.ud.remote_qpn = q->remote_qpn;
			wr->wr.ud.remote_qkey = c->remote_qkey;
		} else if (verb_is_atomic(t->verb)) {
			wr->wr.atomic.remote_addr = c->remote.buf_addr + c->lay.counters_off;
			wr->wr.atomic.rkey = c->remote.rkey;
			wr->wr.atomic.swap = 1;
			row->atomic_operands(wr, 0);
		} else if (row->slot == RB_SLOT_RECV) {  /* READ: from the peer's send slot */
			wr->wr.rdma.remote_addr = q->remote_send;
			wr->wr.rdma.rkey = c->remote.rkey;
		} else {
			wr->wr.rdma.remote_addr = q->remote_recv;
			wr->wr.rdma.rkey = c->remote.rkey;
		}
	}
	/* The server's ping-pong replies: WRITE back, or SEND / WRITE_IMM back. */
	if (c->role == RB_ROLE_SERVER && t->transport != RB_TR_UD &&
	    (row->client_lat_access & IBV_ACCESS_REMOTE_WRITE)) {
		q->swr[0].wr.rdma.remote_addr = q->remote_recv;
		q->swr[0].wr.rdma.rkey = c->remote.rkey;
	}
}

int ctx_connect(struct rb_ctx *c, const struct ctrl_setup *r, char *err, size_t errlen)
{
	uint64_t t0 = timing_now_ns();

	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		for (unsigned k = 0; k < w->nqp; k++) {
			struct rb_qp *q = &w->qps[k];
			struct ctrl_qp_ep ep;
			ctrl_setup_qp(r, q->gindex, &ep);
			q->remote_qpn = ep.qpn;
			q->remote_psn = ep.psn;
			struct rb_qp_attr a = ctx_qp_attr(c, w, q);
			if (qp_to_rtr_rts(&a, q->qp, r, q->remote_qpn, q->remote_psn, q->psn,
					  &q->ah, err, errlen))
				return -1;
			ctx_qp_set_remote(c, q);
		}
	}
	c->setup_ns = c->create_ns + (timing_now_ns() - t0);
	return 0;
}

int ctx_qp_cm_finish(struct rb_ctx *c, struct rb_qp *q, bool first, char *err, size_t errlen)
{
	struct rb_test *t = &c->t;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc;

	if (t->transport == RB_TR_RC) {
		a = (struct ibv_qp_attr){
			.qp_access_flags = (unsigned)ctx_qp_access(c),
			.min_rnr_timer = (uint8_t)t->min_rnr_timer,
		};
		rc = ibv_modify_qp(q->qp, &a,
				   IBV_QP_ACCESS_FLAGS |
				   IBV_QP_MIN_RNR_TIMER);
		if (rc)
			return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTS->RTS, access 0x%x, min RNR "
				    "timer %llu) failed: %s", q->qp->qp_num, a.qp_access_flags,
				    (unsigned long long)t->min_rnr_timer, strerror(rc));
	}
	if (!first)
		return 0;
	rc = ibv_query_qp(q->qp, &a,
			  IBV_QP_PATH_MTU |
			  IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC, &ia);
	if (rc)
		return rb_fail(err, errlen, "ibv_query_qp(qpn 0x%x) failed: %s", q->qp->qp_num,
			    strerror(rc));
	if (t->transport == RB_TR_UD) {
		c->path_mtu = c->dev->active_mtu < c->remote.active_mtu ? c->dev->active_mtu :
			      c->remote.active_mtu;
		return 0;
	}
	/* What rdma_cm set is what ran: report it, never the request. */
	c->path_mtu = dev_mtu_bytes(a.path_mtu);
	t->ack_timeout = a.timeout;
	t->retry_cnt = a.retry_cnt;
	t->rnr_retry = a.rnr_retry;
	if (t->transport == RB_TR_RC && c->role == RB_ROLE_CLIENT)
		c->rd_atomic = a.max_rd_atomic;
	return 0;
}

void qp_attr_timer_defaults(struct rb_qp_attr *at)
{
	struct rb_test t;

	test_defaults(&t);
	at->min_rnr_timer = (uint8_t)t.min_rnr_timer;
	at->timeout = (uint8_t)t.ack_timeout;
	at->retry_cnt = (uint8_t)t.retry_cnt;
	at->rnr_retry = (uint8_t)t.rnr_retry;
}

int ctx_atomic_order(uint64_t sent, uint64_t got)
{
	if (got == sent)
		return 0;
	if (got == __builtin_bswap64(sent))
		return 1;
	return -1;
}

/* One signaled fetch-and-add of add on QP q of worker w to the peer's
 * address raddr, its reply into *res (w's lkey); the completion polled on
 * w's send CQ within timeout_ms. 0, or -1 with err. */
static int faa_once(struct rb_ctx *c, const struct rb_worker *w, struct rb_qp *q, uint64_t raddr,
		    uint64_t add, uint64_t *res, int timeout_ms, char *err, size_t errlen)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)res,
		.length = 8,
		.lkey = w->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = UINT64_MAX,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = raddr, .compare_add = add, .rkey = c->remote.rkey },
	}, *bad = NULL;
	struct ibv_wc wc;
	uint64_t until = timing_now_ns() + (uint64_t)timeout_ms * 1000000u;
	int rc = ibv_post_send(q->qp, &wr, &bad);

	if (rc)
		return rb_fail(err, errlen, "atomic self-test: ibv_post_send(fetch_add, qpn 0x%x) "
			       "failed: %s", q->qp->qp_num, strerror(rc));
	while ((rc = ibv_poll_cq(w->scq, 1, &wc)) == 0)
		if (timing_now_ns() > until)
			return rb_fail(err, errlen, "atomic self-test: no completion of its "
				       "fetch_add on qpn 0x%x within %d ms; raise --timeout",
				       q->qp->qp_num, timeout_ms);
	if (rc < 0 || wc.status != IBV_WC_SUCCESS)
		return rb_fail(err, errlen, "atomic self-test: its fetch_add on qpn 0x%x completed "
			       "with %s", q->qp->qp_num,
			       rc < 0 ? "a failed ibv_poll_cq" : ibv_wc_status_str(wc.status));
	return 0;
}

int ctx_atomic_selftest(struct rb_ctx *c, bool refuse, char *order, size_t olen, char *err,
			size_t errlen)
{
	/* a value whose 8 bytes all differ, so either order is told apart */
	const uint64_t k = UINT64_C(0x0102030405060708);
	struct rb_qp *q = &c->w[0].qps[0];
	volatile uint64_t *res = (volatile uint64_t *)(void *)q->send;
	int ms = c->t.timeout_ms ? (int)c->t.timeout_ms : 5000;
	uint64_t got;

	c->atomic_swap = false;
	/* the peer's send slot of QP 0: zeroed at its creation and never an
	 * atomic's target; the first add returns 0 in either order, the
	 * second returns k as this host or the device orders it */
	if (faa_once(c, &c->w[0], q, q->remote_send, k, (uint64_t *)res, ms, err, errlen) ||
	    faa_once(c, &c->w[0], q, q->remote_send, k, (uint64_t *)res, ms, err, errlen))
		return -1;
	got = *res;
	*res = 0;
	switch (ctx_atomic_order(k, got)) {
	case 0:
		snprintf(order, olen, "host");
		return 0;
	case 1:
		snprintf(order, olen, "swapped");
		if (refuse)
			return rb_fail(err, errlen, "atomic self-test: %s replies to fetch_add in the "
				       "other byte order (0x%016llx back for 0x%016llx); "
				       "--atomic-order swap swaps the replies back",
				       c->dev->name, (unsigned long long)got, (unsigned long long)k);
		c->atomic_swap = true;
		return 0;
	default:
		if (olen)
			order[0] = '\0';
		return rb_fail(err, errlen, "atomic self-test: the second fetch_add of 0x%016llx "
			       "on %s returned 0x%016llx, neither the value nor its byte swap (the "
			       "peer's word was not 0x%016llx: the device's fetch_add does not return "
			       "the original value it added to)", (unsigned long long)k, c->dev->name,
			       (unsigned long long)got, (unsigned long long)k);
	}
}
