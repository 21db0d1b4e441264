/*
 * ctx_cm.c - rdma_bench's point over rdma_cm (-R; ctx_cm.h): the
 * context's QPs made for the library's rdma_cm ids (cm.h, bench/lib/cm.c),
 * taken to RTS with the point's negotiated values, and read back.
 *
 * Client: ctx_cm_create_qps after the ids resolved, ctx_cm_connect after
 * the SETUPs crossed. Server: ctx_cm_accept once the point's session is
 * registered with the listener. The rdma_cm protocol (private data,
 * events, waits, the listener) is the library's; what is here is which
 * QP of the context goes with which id and what is done to it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_cm.h"
#include "errbuf.h"

/* What c's rdma_connect / rdma_accept carry (qpn: RC QP numbers by
 * process-wide index, or NULL). */
static struct rb_cm_conn conn_of(const struct rb_ctx *c, const uint32_t *qpn)
{
	return (struct rb_cm_conn){
		.transport = c->t.transport,
		.rd_resp = c->rd_resp,
		.rd_init = c->rd_init,
		.retry_cnt = (uint32_t)c->t.retry_cnt,
		.rnr_retry = (uint32_t)c->t.rnr_retry,
		.timeout_ms = (unsigned)c->t.timeout_ms,
		.qpn = qpn,
		.rkey = c->remote.rkey,
		.addr = c->remote.buf_addr,
		.nonce = c->remote.nonce,
	};
}

/*
 * The QP of one rdma_cm id. UD: created on the id (rdma_cm takes it to RTS
 * with its fixed Q_Key), then given the point's own (qp_ud_set_qkey).
 * RC: created on the id's device but not attached to the id, and taken to
 * INIT here, so that rdma_connect/rdma_accept leave its state alone and
 * qp_cm_rtr_rts applies the negotiated path MTU and the other values of
 * the TCP path: rdma_cm alone would set the route's MTU, which knows only
 * this side's netdev (IB spec 9.7.6.1.1: the path MTU must fit the whole
 * path).
 */
static int cm_qp_create(struct rb_ctx *c, struct rb_worker *w, struct rb_qp *q,
			struct rdma_cm_id *id, char *err, size_t errlen)
{
	if (c->t.transport == RB_TR_UD) {
		struct rb_qp_attr a = ctx_qp_attr(c, w, q);
		/* then the point's own Q_Key instead of rdma_cm's fixed one (qp.h) */
		return ctx_qp_create(c, w, q, id, false, err, errlen) ||
		       qp_ud_set_qkey(&a, q->qp, err, errlen) ? -1 : 0;
	}
	return ctx_qp_create(c, w, q, NULL, true, err, errlen);
}

int ctx_cm_create_qps(struct rb_cm_client *cc, struct rb_ctx *c, char *err, size_t errlen)
{
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned k = 0; k < c->w[i].nqp; k++) {
			struct rb_qp *q = &c->w[i].qps[k];
			if (q->gindex >= cc->n)
				return rb_fail(err, errlen, "internal: QP %u beyond %u rdma_cm ids", q->gindex,
					    cc->n);
			if (c->t.transport == RB_TR_RC) {
				uint8_t to = (uint8_t)c->t.ack_timeout;
				if (rdma_set_option(cc->ids[q->gindex], RDMA_OPTION_ID,
						    RDMA_OPTION_ID_ACK_TIMEOUT, &to, sizeof(to)))
					return rb_fail(err, errlen, "rdma_set_option(ACK_TIMEOUT %u) failed: %s",
						    to, strerror(errno));
			}
			if (cm_qp_create(c, &c->w[i], q, cc->ids[q->gindex], err, errlen))
				return -1;
		}
	return ctx_inline_decide(c, err, errlen);
}

/* The client's QPs by process-wide index (cm_client_connect's ids). */
struct client_qps {
	struct rb_ctx *c;
	struct rb_qp **byg;          /* n of them; NULL: none of ours */
	uint32_t n;
};

/* The server's answer ev for QP g (rb_cm_answered; arg a struct
 * client_qps): UD, the address handle and remote QPN / Q_Key from the
 * SIDR reply; RC, our QP to RTR and RTS with the negotiated values, then
 * the RTU (rdma_establish). The caller acks ev. 0, or -1 with err. */
static int client_connected(void *arg, uint32_t g, struct rdma_cm_event *ev, char *err,
			    size_t errlen)
{
	const struct client_qps *cq = arg;
	struct rb_ctx *c = cq->c;
	struct rb_qp *q = g < cq->n ? cq->byg[g] : NULL;

	if (!q)
		return 0;
	if (c->t.transport == RB_TR_UD) {
		q->ah = ibv_create_ah(c->pd, &ev->param.ud.ah_attr);
		q->remote_qpn = ev->param.ud.qp_num;
		/* the Q_Key stays the server's own from its SETUP (ctx_set_remote):
		 * the SIDR reply's is rdma_cm's fixed RDMA_UDP_QKEY */
		if (!q->ah)
			return rb_fail(err, errlen, "ibv_create_ah from the rdma_cm UD reply (QP %u) "
				       "failed: %s", g, strerror(errno));
		return 0;
	}
	if (ctx_qp_cm_rtr_rts(c, q, ev->id, err, errlen))
		return -1;
	if (rdma_establish(ev->id))
		return rb_fail(err, errlen, "rdma_establish(QP %u) failed: %s", g, strerror(errno));
	return 0;
}

int ctx_cm_connect(struct rb_cm_client *cc, struct rb_ctx *c, const struct rb_cm_ctrl *ctl,
		   char *err, size_t errlen)
{
	struct rb_qp **byg = calloc(cc->n, sizeof(*byg));
	uint32_t *qpn = calloc(cc->n, sizeof(*qpn));
	int rc = -1;

	if (!byg || !qpn) {
		free(byg);
		free(qpn);
		return rb_fail(err, errlen, "out of memory for %u rdma_cm QPs", cc->n);
	}
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned k = 0; k < c->w[i].nqp; k++) {
			struct rb_qp *q = &c->w[i].qps[k];
			byg[q->gindex] = q;
			qpn[q->gindex] = q->qp->qp_num;
		}
	struct rb_cm_conn p = conn_of(c, qpn);
	struct client_qps cq = { .c = c, .byg = byg, .n = cc->n };
	if (cm_client_connect(cc, &p, client_connected, &cq, ctl, err, errlen))
		goto out;
	for (uint32_t g = 0; g < cc->n; g++) {
		if (ctx_qp_cm_finish(c, byg[g], g == 0, err, errlen))
			goto out;
		ctx_qp_set_remote(c, byg[g]);
	}
	rc = 0;
out:
	free(byg);
	free(qpn);
	return rc;
}

/* ---- server ------------------------------------------------------------ */

/* The connect request of QP q (s->child[q->gindex]): on the point's
 * device, its QP made (RC: ACK timeout set on the id first), UD: the
 * address handle and QPN of the client's QP from its SETUP. 0, or -1 with
 * err (the client told, accept_failed, where it waits for us). */
static int accept_qp(struct rb_cm_session *s, struct rb_ctx *c, struct rb_worker *w,
		     struct rb_qp *q, const struct ctrl_setup *client,
		     const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	struct rdma_cm_id *id = s->child[q->gindex];

	if (id->verbs != c->dev->ctx)
		return rb_fail(err, errlen, "rdma_cm connect request for QP %u arrived on "
			    "device %s, the point runs on %s", q->gindex,
			    ibv_get_device_name(id->verbs->device), c->dev->name);
	if (t->transport == RB_TR_RC) {
		uint8_t to = (uint8_t)t->ack_timeout;
		(void)rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &to,
				      sizeof(to));
	}
	if (t->tclass) {  /* the client's --tclass; the QP attributes set it too */
		uint8_t tos = (uint8_t)t->tclass;
		(void)rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos));
	}
	if (cm_qp_create(c, w, q, id, err, errlen))
		return cm_accept_failed(ctl, err, errlen);
	if (t->transport == RB_TR_UD) {
		struct ctrl_qp_ep ep;
		struct rb_qp_attr qa = ctx_qp_attr(c, w, q);
		struct ibv_ah_attr av = qp_peer_av(&qa, client);
		ctrl_setup_qp(client, q->gindex, &ep);
		q->remote_qpn = ep.qpn;
		q->ah = ibv_create_ah(c->pd, &av);
		if (!q->ah) {
			rb_fail(err, errlen, "ibv_create_ah(client QP %u) failed: %s",
			     q->gindex, strerror(errno));
			return cm_accept_failed(ctl, err, errlen);
		}
	}
	return 0;
}

/* RC: this side's QPs to RTR/RTS with the negotiated values before the
 * REP (as rdma_accept does for a QP on the id, but with our path MTU);
 * then every request accepted. 0, or -1 with err. */
static int accept_all(struct rb_cm_session *s, struct rb_ctx *c, const struct rb_cm_ctrl *ctl,
		      char *err, size_t errlen)
{
	uint32_t *qpn = calloc(s->nqp, sizeof(*qpn));

	if (!qpn)
		return rb_fail(err, errlen, "out of memory for %u rdma_cm QPs", s->nqp);
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned k = 0; k < c->w[i].nqp; k++) {
			struct rb_qp *q = &c->w[i].qps[k];
			qpn[q->gindex] = q->qp->qp_num;
			if (c->t.transport == RB_TR_RC &&
			    ctx_qp_cm_rtr_rts(c, q, s->child[q->gindex], err, errlen)) {
				free(qpn);
				return cm_accept_failed(ctl, err, errlen);
			}
		}
	struct rb_cm_conn p = conn_of(c, qpn);
	int rc = cm_session_accept(s, &p, ctl, err, errlen);
	free(qpn);
	return rc;
}

int ctx_cm_accept(struct rb_cm_listener *l, struct rb_cm_session *s, struct rb_ctx *c,
		  const struct ctrl_setup *client, const struct rb_cm_ctrl *ctl, char *err,
		  size_t errlen)
{
	unsigned timeout_ms = (unsigned)c->t.timeout_ms;

	if (cm_session_wait_requests(l, s, timeout_ms, ctl, err, errlen))
		return -1;
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned k = 0; k < c->w[i].nqp; k++)
			if (accept_qp(s, c, &c->w[i], &c->w[i].qps[k], client, ctl, err, errlen))
				return -1;
	if (ctx_inline_decide(c, err, errlen))
		return -1;
	if (ctx_post_recvs(c, err, errlen))
		return cm_accept_failed(ctl, err, errlen);
	if (accept_all(s, c, ctl, err, errlen))
		return -1;
	if (c->t.transport != RB_TR_UD &&
	    cm_session_wait_established(l, s, timeout_ms, ctl, err, errlen))
		return -1;
	for (uint64_t g = 0; g < c->lay.nqp_total; g++) {
		struct rb_qp *q = ctx_qp(c, g);
		if (ctx_qp_cm_finish(c, q, g == 0, err, errlen))
			return cm_accept_failed(ctl, err, errlen);
		ctx_qp_set_remote(c, q);
	}
	return 0;
}
