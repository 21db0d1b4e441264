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
#include "options.h"
#include "plan.h"
#include "qp.h"

/*
 * --inline on, QP creation refused: find by bisection the largest inline
 * size the device accepts with the attributes ia, to name both values.
 * -1 with err (a->refused) when that is the cause; 0 when it is not (no
 * size at all worked), errno kept for the caller's own message.
 */
static int inline_refused(struct rb_qp_attr *a, struct ibv_qp_init_attr ia, char *err,
			  size_t errlen)
{
	int e = errno;
	uint32_t lo = 0, hi = a->inline_req;
	bool any = false;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		ia.cap.max_inline_data = mid;
		struct ibv_qp *probe = ibv_create_qp(a->pd, &ia);
		if (probe) {
			ibv_destroy_qp(probe);
			lo = mid;
			any = true;
		} else {
			hi = mid;
		}
	}
	a->refused = any || lo == 0;
	if (a->refused)
		return rb_fail(err, errlen,
			    "--inline on with size %llu: the device refused max_inline_data %u "
			    "(ibv_create_qp: %s); the largest it accepts is %u bytes; use "
			    "--inline auto|off or -m <= %u", (unsigned long long)a->size,
			    a->inline_req, strerror(e), lo, lo);
	errno = e;
	return 0;
}

/* Create on id (rdma_cm takes the QP to INIT, UD to RTS) or on the PD;
 * with inline auto, once more without inline when the device refused it. */
static struct ibv_qp *create_once(struct rb_qp_attr *a, struct ibv_qp_init_attr *ia,
				  struct rdma_cm_id *id)
{
	struct ibv_qp *qp;

	if (id)
		qp = rdma_create_qp(id, a->pd, ia) ? NULL : id->qp;
	else
		qp = ibv_create_qp(a->pd, ia);
	if (!qp && a->inline_req && a->inline_mode == RB_INLINE_AUTO) {
		a->inline_req = 0;
		ia->cap.max_inline_data = 0;
		if (id)
			qp = rdma_create_qp(id, a->pd, ia) ? NULL : id->qp;
		else
			qp = ibv_create_qp(a->pd, ia);
	}
	return qp;
}

int qp_create(struct rb_qp_attr *a, struct ibv_qp **out, struct rdma_cm_id *id,
	      char *err, size_t errlen)
{
	bool recv = a->rcq != NULL;
	struct ibv_qp_init_attr ia = {
		.send_cq = a->scq,
		.recv_cq = recv ? a->rcq : a->scq,
		.cap = {
			.max_send_wr = a->sq_depth,
			.max_recv_wr = recv && a->rq_depth ? a->rq_depth : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = a->inline_req,
		},
		.qp_type = plan_qp_type(a->transport),
		.sq_sig_all = 0,
	};
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_qp *qp = create_once(a, &ia, id);

	if (!qp && a->inline_req && a->inline_mode == RB_INLINE_ON &&
	    inline_refused(a, ia, err, errlen))
		return -1;
	if (!qp)
		return rb_fail(err, errlen,
			    "%s(%s, send %u, recv %u, inline %u) for thread %u QP %u failed: "
			    "%s (device max_qp_wr %d, max_qp %d%s)",
			    id ? "rdma_create_qp" : "ibv_create_qp",
			    transport_name(a->transport), ia.cap.max_send_wr, ia.cap.max_recv_wr,
			    ia.cap.max_inline_data, a->thread, a->index, strerror(errno),
			    a->dev->attr.max_qp_wr, a->dev->attr.max_qp,
			    a->inline_req ? "; with --inline on, the size may exceed the device's "
					    "inline cap: try --inline off" : "");
	*out = qp;
	/* What the QP actually granted: never trust the request. */
	if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia))
		return rb_fail(err, errlen, "ibv_query_qp(IBV_QP_CAP, qpn 0x%x) failed: %s",
			    qp->qp_num, strerror(errno));
	if (qa.cap.max_inline_data < a->inline_cap)
		a->inline_cap = qa.cap.max_inline_data;
	return 0;
}

int qp_to_init(const struct rb_qp_attr *at, struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (at->transport == RB_TR_UD) {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_INIT,
			.pkey_index = at->pkey_index,
			.port_num = at->dev->port,
			.qkey = at->qkey,
		};
		mask = IBV_QP_STATE |
		       IBV_QP_PKEY_INDEX |
		       IBV_QP_PORT |
		       IBV_QP_QKEY;
	} else {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_INIT,
			.pkey_index = at->pkey_index,
			.port_num = at->dev->port,
			.qp_access_flags = (unsigned)at->access,
		};
		mask = IBV_QP_STATE |
		       IBV_QP_PKEY_INDEX |
		       IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
	}
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RESET->INIT, port %u, pkey "
			    "index %u) failed: %s%s", qp->qp_num, at->dev->port, at->pkey_index,
			    strerror(rc), at->pkey_index ? " (is --pkey-index within the port's "
			    "P_Key table? ibv_devinfo -v lists it)" : "");
	return 0;
}

struct ibv_ah_attr qp_peer_av(const struct rb_qp_attr *at, const struct ctrl_setup *r)
{
	struct ibv_ah_attr ah = {
		.dlid = r->lid,
		.sl = at->sl,
		.src_path_bits = 0,
		.is_global = at->dev->link_layer == 2 ? 1 : 0,
		.port_num = at->dev->port,
	};

	if (ah.is_global) {
		memcpy(ah.grh.dgid.raw, r->gid, 16);
		ah.grh.sgid_index = (uint8_t)at->dev->gid_index;
		ah.grh.hop_limit = 64;
		ah.grh.traffic_class = at->tclass;
		ah.grh.flow_label = 0;
	}
	return ah;
}

/* INIT -> RTR (RC/UC: towards the peer QP; UD: state only). */
static int to_rtr(const struct rb_qp_attr *at, struct ibv_qp *qp, const struct ctrl_setup *r,
		  uint32_t remote_qpn, uint32_t remote_psn, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (at->transport == RB_TR_UD) {
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
		mask = IBV_QP_STATE;
	} else {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = dev_mtu_enum(at->path_mtu),
			.dest_qp_num = remote_qpn,
			.rq_psn = remote_psn,
			.max_dest_rd_atomic = at->rd_resp,
			.min_rnr_timer = at->min_rnr_timer,
			.ah_attr = qp_peer_av(at, r),
		};
		mask = IBV_QP_STATE |
		       IBV_QP_AV |
		       IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN;
		if (at->transport == RB_TR_RC)
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
	}
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen,
			    "ibv_modify_qp(qpn 0x%x INIT->RTR, dest qpn 0x%x, path MTU %u, gid index %d, "
			    "sl %u, tclass %u) failed: %s", qp->qp_num, remote_qpn, at->path_mtu,
			    at->dev->gid_index, at->sl, at->tclass, strerror(rc));
	return 0;
}

int qp_to_rtr_rts(const struct rb_qp_attr *at, struct ibv_qp *qp, const struct ctrl_setup *r,
		  uint32_t remote_qpn, uint32_t remote_psn, uint32_t psn, struct ibv_ah **ah,
		  char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (at->transport == RB_TR_UD) {
		struct ibv_ah_attr av = qp_peer_av(at, r);
		*ah = ibv_create_ah(at->pd, &av);
		if (!*ah)
			return rb_fail(err, errlen, "ibv_create_ah(peer qpn 0x%x, gid index %d, sl %u, "
				    "tclass %u) failed: %s", remote_qpn, at->dev->gid_index, at->sl,
				    at->tclass, strerror(errno));
	}
	if (to_rtr(at, qp, r, remote_qpn, remote_psn, err, errlen))
		return -1;
	if (at->transport == RB_TR_RC) {
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTS,
			.timeout = at->timeout,
			.retry_cnt = at->retry_cnt,
			.rnr_retry = at->rnr_retry,
			.sq_psn = psn,
			.max_rd_atomic = at->rd_init,
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
			.sq_psn = psn,
		};
		mask = IBV_QP_STATE |
		       IBV_QP_SQ_PSN;
	}
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTR->RTS, sq psn 0x%x) failed: %s",
			    qp->qp_num, psn, strerror(rc));
	return 0;
}

int qp_ud_set_qkey(const struct rb_qp_attr *at, struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { .qkey = at->qkey };
	int rc = ibv_modify_qp(qp, &a, IBV_QP_QKEY);

	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTS, Q_Key 0x%x) for the point's "
			       "own UD Q_Key under rdma_cm failed: %s", qp->qp_num, at->qkey,
			       strerror(rc));
	return 0;
}

int qp_cm_rtr_rts(const struct rb_qp_attr *at, struct ibv_qp *qp, struct rdma_cm_id *id,
		  uint32_t *remote_qpn, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = 0, rc;

	if (rdma_init_qp_attr(id, &a, &mask))
		return rb_fail(err, errlen, "rdma_init_qp_attr(RTR, qpn 0x%x) failed: %s",
			    qp->qp_num, strerror(errno));
	/* the negotiated values, as on the TCP path (never the route's own MTU:
	 * it knows only this side's netdev) */
	a.path_mtu = dev_mtu_enum(at->path_mtu);
	a.max_dest_rd_atomic = at->rd_resp;
	a.min_rnr_timer = at->min_rnr_timer;
	/* SL and traffic class as on the TCP path (rdma_cm's own: 0 and the
	 * ToS set on the id, cm.c) */
	a.ah_attr.sl = at->sl;
	if (a.ah_attr.is_global)
		a.ah_attr.grh.traffic_class = at->tclass;
	mask |= IBV_QP_PATH_MTU |
		IBV_QP_MAX_DEST_RD_ATOMIC |
		IBV_QP_MIN_RNR_TIMER;
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen,
			    "ibv_modify_qp(qpn 0x%x INIT->RTR via rdma_cm, dest qpn 0x%x, path MTU %u) "
			    "failed: %s", qp->qp_num, a.dest_qp_num, at->path_mtu, strerror(rc));
	*remote_qpn = a.dest_qp_num;

	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	mask = 0;
	if (rdma_init_qp_attr(id, &a, &mask))
		return rb_fail(err, errlen, "rdma_init_qp_attr(RTS, qpn 0x%x) failed: %s",
			    qp->qp_num, strerror(errno));
	a.timeout = at->timeout;
	a.retry_cnt = at->retry_cnt;
	a.rnr_retry = at->rnr_retry;
	a.max_rd_atomic = at->rd_init;
	mask |= IBV_QP_TIMEOUT |
		IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY |
		IBV_QP_MAX_QP_RD_ATOMIC;
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc)
		return rb_fail(err, errlen, "ibv_modify_qp(qpn 0x%x RTR->RTS via rdma_cm, sq psn 0x%x) "
			    "failed: %s", qp->qp_num, a.sq_psn, strerror(rc));
	return 0;
}
