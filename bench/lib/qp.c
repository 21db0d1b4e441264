/*
 * qp.c - create a QP, read back its granted caps, and walk it through
 * RESET -> INIT -> RTR -> RTS (IB spec 10.3, table 91: the attributes each
 * transition requires or allows, per transport).
 *
 * Every transition is one designated initialiser plus its attribute mask,
 * one flag per line, so a reader sees exactly what is set:
 *   INIT: RC/UC pkey, port, access flags; UD pkey, port, Q_Key
 *   RTR:  RC path MTU, dest QPN, RQ PSN, responder resources, RNR timer,
 *         address vector; UC the same without the last two; UD state only
 *   RTS:  RC ACK timeout, retry counts, SQ PSN, initiator depth;
 *         UC and UD SQ PSN only
 * UD reaches its peer through an address handle per peer QP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "errbuf.h"
#include "ctx.h"
#include "plan.h"
#include "timing.h"

/*
 * --inline on, QP creation refused: find by bisection the largest inline
 * size the device accepts with the attributes ia, to name both values.
 * -1 with err (c->refused) when that is the cause; 0 when it is not (no
 * size at all worked), errno kept for the caller's own message.
 */
static int inline_refused(struct rb_ctx *c, struct ibv_qp_init_attr ia, char *err, size_t errlen)
{
	int e = errno;
	uint32_t lo = 0, hi = c->inline_req;
	bool any = false;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		ia.cap.max_inline_data = mid;
		struct ibv_qp *probe = ibv_create_qp(c->pd, &ia);
		if (probe) {
			ibv_destroy_qp(probe);
			lo = mid;
			any = true;
		} else {
			hi = mid;
		}
	}
	c->refused = any || lo == 0;
	if (c->refused)
		return rb_fail(err, errlen,
			    "--inline on with size %llu: the device refused max_inline_data %u "
			    "(ibv_create_qp: %s); the largest it accepts is %u bytes; use "
			    "--inline auto|off or -m <= %u", (unsigned long long)c->t.size,
			    c->inline_req, strerror(e), lo, lo);
	errno = e;
	return 0;
}

int qp_create(struct rb_ctx *c, struct rb_worker *w, struct rb_qp *q, struct rdma_cm_id *id,
	      char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	bool recv = w->rcq != NULL;
	struct ibv_qp_init_attr ia = {
		.send_cq = w->scq,
		.recv_cq = recv ? w->rcq : w->scq,
		.cap = {
			.max_send_wr = (uint32_t)t->sq_depth,
			.max_recv_wr = recv ? (uint32_t)c->lay.recv_slots : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = c->inline_req,
		},
		.qp_type = plan_qp_type(t->transport),
		.sq_sig_all = 0,
	};
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;

	if (id) {
		/* rdma_cm creates the QP on its id and takes it to INIT (UD: RTS). */
		if (rdma_create_qp(id, c->pd, &ia) && c->inline_req &&
		    t->inline_mode == RB_INLINE_AUTO) {
			c->inline_req = 0;
			ia.cap.max_inline_data = 0;
			(void)rdma_create_qp(id, c->pd, &ia);
		}
		if (!id->qp)
			return rb_fail(err, errlen,
				    "rdma_create_qp(%s, send %u, recv %u, inline %u) for thread %u QP %u "
				    "failed: %s", transport_name(t->transport), ia.cap.max_send_wr,
				    ia.cap.max_recv_wr, ia.cap.max_inline_data, w->index, q->index,
				    strerror(errno));
		q->qp = id->qp;
		q->cm_id = id;
	} else {
		q->qp = ibv_create_qp(c->pd, &ia);
		if (!q->qp && c->inline_req && t->inline_mode == RB_INLINE_AUTO) {
			/* auto: the device refused the inline size; go without inline. */
			c->inline_req = 0;
			ia.cap.max_inline_data = 0;
			q->qp = ibv_create_qp(c->pd, &ia);
		}
	}
	if (!q->qp && c->inline_req && t->inline_mode == RB_INLINE_ON &&
	    inline_refused(c, ia, err, errlen))
		return -1;
	if (!q->qp)
		return rb_fail(err, errlen,
			    "ibv_create_qp(%s, send %u, recv %u, inline %u) for thread %u QP %u failed: "
			    "%s (device max_qp_wr %d, max_qp %d%s)",
			    transport_name(t->transport), ia.cap.max_send_wr, ia.cap.max_recv_wr,
			    ia.cap.max_inline_data, w->index, q->index, strerror(errno),
			    c->dev->attr.max_qp_wr, c->dev->attr.max_qp,
			    c->inline_req ? "; with --inline on, the size may exceed the device's "
					    "inline cap: try --inline off" : "");
	/* What the QP actually granted: never trust the request. */
	if (ibv_query_qp(q->qp, &qa, IBV_QP_CAP, &qia))
		return rb_fail(err, errlen, "ibv_query_qp(IBV_QP_CAP, qpn 0x%x) failed: %s",
			    q->qp->qp_num, strerror(errno));
	if (qa.cap.max_inline_data < c->inline_cap)
		c->inline_cap = qa.cap.max_inline_data;
	return 0;
}

/* The one rule for both the MR and the QPs (IB spec 10.6.3.2 / 11.2.8.1;
 * verb_access, the verb table): the server grants what the verb needs; the client is a
 * target only of the WRITE ping-pong replies. */
int qp_access(const struct rb_ctx *c)
{
	return verb_access(c->t.verb, c->role == RB_ROLE_SERVER, c->t.test == RB_TEST_LAT);
}

int qp_to_init(struct rb_ctx *c, struct rb_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (c->t.transport == RB_TR_UD) {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_INIT,
			.pkey_index = 0,
			.port_num = c->dev->port,
			.qkey = c->qkey ? c->qkey : RB_QKEY, /* per point (ctx.h) */
		};
		mask = IBV_QP_STATE |
		       IBV_QP_PKEY_INDEX |
		       IBV_QP_PORT |
		       IBV_QP_QKEY;
	} else {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_INIT,
			.pkey_index = 0,
			.port_num = c->dev->port,
			.qp_access_flags = (unsigned)qp_access(c),
		};
		mask = IBV_QP_STATE |
		       IBV_QP_PKEY_INDEX |
		       IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
	}
	rc = ibv_modify_qp(q->qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RESET->INIT, port %u) failed: %s",
			    q->qp->qp_num, c->dev->port, strerror(rc));
	return 0;
}

struct ibv_ah_attr qp_peer_av(const struct rb_ctx *c, const struct ctrl_setup *r)
{
	struct ibv_ah_attr ah = {
		.dlid = r->lid,
		.sl = 0,
		.src_path_bits = 0,
		.is_global = c->dev->link_layer == 2 ? 1 : 0,
		.port_num = c->dev->port,
	};

	if (ah.is_global) {
		memcpy(ah.grh.dgid.raw, r->gid, 16);
		ah.grh.sgid_index = (uint8_t)c->dev->gid_index;
		ah.grh.hop_limit = 64;
		ah.grh.traffic_class = 0;
		ah.grh.flow_label = 0;
	}
	return ah;
}

int qp_to_rtr_rts(struct rb_ctx *c, struct rb_qp *q, const struct ctrl_setup *r,
		  char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	struct ibv_qp_attr a;
	int mask, rc;

	if (t->transport == RB_TR_UD) {
		struct ibv_ah_attr av = qp_peer_av(c, r);
		q->ah = ibv_create_ah(c->pd, &av);
		if (!q->ah)
			return rb_fail(err, errlen, "ibv_create_ah(peer qpn 0x%x, gid index %d) failed: %s",
				    q->remote_qpn, c->dev->gid_index, strerror(errno));
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
		mask = IBV_QP_STATE;
	} else {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = dev_mtu_enum(c->path_mtu),
			.dest_qp_num = q->remote_qpn,
			.rq_psn = q->remote_psn,
			.max_dest_rd_atomic = (uint8_t)c->rd_resp,
			.min_rnr_timer = (uint8_t)t->min_rnr_timer,
			.ah_attr = qp_peer_av(c, r),
		};
		mask = IBV_QP_STATE |
		       IBV_QP_AV |
		       IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN;
		if (t->transport == RB_TR_RC)
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
	}
	rc = ibv_modify_qp(q->qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen,
			    "ibv_modify_qp(qpn 0x%x INIT->RTR, dest qpn 0x%x, path MTU %u, gid index %d) "
			    "failed: %s", q->qp->qp_num, q->remote_qpn, c->path_mtu, c->dev->gid_index,
			    strerror(rc));

	if (t->transport == RB_TR_RC) {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTS,
			.timeout = (uint8_t)t->ack_timeout,
			.retry_cnt = (uint8_t)t->retry_cnt,
			.rnr_retry = (uint8_t)t->rnr_retry,
			.sq_psn = q->psn,
			.max_rd_atomic = (uint8_t)c->rd_init,
		};
		mask = IBV_QP_STATE |
		       IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY |
		       IBV_QP_SQ_PSN |
		       IBV_QP_MAX_QP_RD_ATOMIC;
	} else {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTS,
			.sq_psn = q->psn,
		};
		mask = IBV_QP_STATE |
		       IBV_QP_SQ_PSN;
	}
	rc = ibv_modify_qp(q->qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTR->RTS, sq psn 0x%x) failed: %s",
			    q->qp->qp_num, q->psn, strerror(rc));
	return 0;
}

void qp_set_remote(struct rb_ctx *c, struct rb_qp *q)
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
		wr->send_flags = flags;
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
			if (qp_to_rtr_rts(c, q, r, err, errlen))
				return -1;
			qp_set_remote(c, q);
		}
	}
	c->setup_ns = c->create_ns + (timing_now_ns() - t0);
	return 0;
}

int qp_cm_rtr_rts(struct rb_ctx *c, struct rb_qp *q, struct rdma_cm_id *id, char *err,
		  size_t errlen)
{
	const struct rb_test *t = &c->t;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = 0, rc;

	if (rdma_init_qp_attr(id, &a, &mask))
		return rb_fail(err, errlen, "rdma_init_qp_attr(RTR, qpn 0x%x) failed: %s",
			    q->qp->qp_num, strerror(errno));
	/* the negotiated values, as on the TCP path (never the route's own MTU:
	 * it knows only this side's netdev) */
	a.path_mtu = dev_mtu_enum(c->path_mtu);
	a.max_dest_rd_atomic = (uint8_t)c->rd_resp;
	a.min_rnr_timer = (uint8_t)t->min_rnr_timer;
	mask |= IBV_QP_PATH_MTU |
		IBV_QP_MAX_DEST_RD_ATOMIC |
		IBV_QP_MIN_RNR_TIMER;
	rc = ibv_modify_qp(q->qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen,
			    "ibv_modify_qp(qpn 0x%x INIT->RTR via rdma_cm, dest qpn 0x%x, path MTU %u) "
			    "failed: %s", q->qp->qp_num, a.dest_qp_num, c->path_mtu, strerror(rc));
	q->remote_qpn = a.dest_qp_num;

	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	mask = 0;
	if (rdma_init_qp_attr(id, &a, &mask))
		return rb_fail(err, errlen, "rdma_init_qp_attr(RTS, qpn 0x%x) failed: %s",
			    q->qp->qp_num, strerror(errno));
	a.timeout = (uint8_t)t->ack_timeout;
	a.retry_cnt = (uint8_t)t->retry_cnt;
	a.rnr_retry = (uint8_t)t->rnr_retry;
	a.max_rd_atomic = (uint8_t)c->rd_init;
	mask |= IBV_QP_TIMEOUT |
		IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY |
		IBV_QP_MAX_QP_RD_ATOMIC;
	rc = ibv_modify_qp(q->qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTR->RTS via rdma_cm, sq psn 0x%x) "
			    "failed: %s", q->qp->qp_num, a.sq_psn, strerror(rc));
	return 0;
}

int qp_cm_finish(struct rb_ctx *c, struct rb_qp *q, bool first, char *err, size_t errlen)
{
	struct rb_test *t = &c->t;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc;

	if (t->transport == RB_TR_RC) {
		a = (struct ibv_qp_attr){
			.qp_access_flags = (unsigned)qp_access(c),
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
