/*
 * rpc.c - HERD's RPC pattern (Kalia et al., SIGCOMM 2014; the paper's
 * Sections 4.2 and 4.3.1), the part herd-rpc (seq_herd.c) and herd-kv
 * (seq_kv.c) share: the QPs of both ends, the client's UC WRITE of a
 * request, the server's UD SEND_WITH_IMM responses of one poll pass
 * (doorbell-batched or not) and the client's loop. What a request and a
 * response carry is the variant's (seq_rt.h lists the calls).
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "seq_rt.h"
#include "timing.h"

int rpc_server_alloc(struct seq_run *r, uint64_t len, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, nu = (unsigned)c->ud_qps;

	if (seq_run_alloc(r, len, IBV_ACCESS_REMOTE_WRITE, err, errlen) ||
	    seq_run_threads(r, (unsigned)c->server_threads, nu, nu * SEQ_SQ_DEPTH, 0, err, errlen))
		return -1;
	memcpy(r->buf, &c->start, sizeof(c->start));
	r->counter = (_Atomic uint64_t *)(void *)r->buf;
	r->pcq = ibv_create_cq(r->dev->ctx, 16, NULL, NULL, 0);
	r->passive = calloc(nc, sizeof(*r->passive));
	if (!r->pcq || !r->passive)
		return rb_fail(err, errlen, "ibv_create_cq / memory for %u UC QPs failed", nc);
	r->npassive = nc;
	for (unsigned i = 0; i < nc; i++)
		if (seq_qp_create(r, &r->passive[i], RB_TR_UC, RB_VERB_WRITE, r->pcq, NULL, 16, 0, i,
				  err, errlen))
			return -1;
	return 0;
}

int rpc_server_thread(struct seq_run *r, unsigned t, char *err, size_t errlen)
{
	struct seq_thread *th = &r->th[t];
	unsigned nu = (unsigned)r->cfg.ud_qps;

	th->wr = calloc(SEQ_BATCH_MAX, sizeof(*th->wr));
	th->sge = calloc(SEQ_BATCH_MAX, sizeof(*th->sge));
	if (!th->wr || !th->sge)
		return rb_fail(err, errlen, "out of memory for server thread %u", t);
	for (unsigned j = 0; j < nu; j++)
		if (seq_qp_create(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM, th->scq, NULL,
				  SEQ_SQ_DEPTH, 0, t * nu + j, err, errlen))
			return -1;
	return 0;
}

int rpc_client_thread(struct seq_run *r, unsigned i, unsigned nslots, char *err, size_t errlen)
{
	struct seq_thread *th = &r->th[i];

	th->post_ts = calloc(nslots, sizeof(*th->post_ts));
	th->wr = calloc(nslots, sizeof(*th->wr));
	th->sge = calloc(nslots, sizeof(*th->sge));
	th->rwr = calloc(th->nrecv, sizeof(*th->rwr));
	th->rsge = calloc(th->nrecv, sizeof(*th->rsge));
	if (!th->post_ts || !th->wr || !th->sge || !th->rwr || !th->rsge ||
	    seq_vals_init(&th->vals, r->values_cap))
		return rb_fail(err, errlen, "out of memory for client thread %u", i);
	if (seq_qp_create(r, &th->qps[0], RB_TR_UC, RB_VERB_WRITE, th->scq, NULL, SEQ_SQ_DEPTH, 0,
			  2 * i, err, errlen) ||
	    seq_qp_create(r, &th->qps[1], RB_TR_UD, RB_VERB_SEND_IMM, th->scq, th->rcq, SEQ_SQ_DEPTH,
			  th->nrecv, 2 * i + 1, err, errlen))
		return -1;
	return 0;
}

int rpc_server_connect(struct seq_run *r, char *err, size_t errlen)
{
	unsigned nc = (unsigned)r->cfg.client_threads;

	if (r->remote.nqp != 2 * nc)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %u (UC and UD per "
			       "client thread)", r->remote.nqp, 2 * nc);
	for (unsigned i = 0; i < nc; i++)
		if (seq_qp_connect(r, &r->passive[i], RB_TR_UC, RB_VERB_WRITE, &r->remote_eps[2 * i],
				   err, errlen))
			return -1;
	for (unsigned t = 0; t < r->nth; t++) {
		struct seq_thread *th = &r->th[t];
		for (unsigned j = 0; j < th->nqp; j++)
			if (seq_qp_connect(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM, &r->remote_eps[1],
					   err, errlen))
				return -1;
		for (unsigned k = 0; k < SEQ_BATCH_MAX; k++) {
			th->sge[k] = (struct ibv_sge){ .lkey = r->mr->lkey };
			th->wr[k] = (struct ibv_send_wr){
				.sg_list = &th->sge[k],
				.num_sge = 1,
				.opcode = IBV_WR_SEND_WITH_IMM,
				.wr.ud.remote_qkey = RB_QKEY,
			};
		}
	}
	return 0;
}

int rpc_client_connect(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads;

	if (r->remote.nqp != nc + c->server_threads * c->ud_qps)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %llu", r->remote.nqp,
			       (unsigned long long)(nc + c->server_threads * c->ud_qps));
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		if (seq_qp_connect(r, &th->qps[0], RB_TR_UC, RB_VERB_WRITE, &r->remote_eps[i], err,
				   errlen) ||
		    seq_qp_connect(r, &th->qps[1], RB_TR_UD, RB_VERB_SEND_IMM, &r->remote_eps[nc], err,
				   errlen))
			return -1;
	}
	return 0;
}

int rpc_client_recvs(struct seq_thread *th, uint8_t *recv, uint32_t slot_bytes, char *err,
		     size_t errlen)
{
	for (unsigned s = 0; s < th->nrecv; s++) {
		th->rsge[s] = (struct ibv_sge){
			.addr = (uintptr_t)(recv + (uint64_t)s * slot_bytes),
			.length = slot_bytes,
			.lkey = th->run->mr->lkey,
		};
		th->rwr[s] = (struct ibv_recv_wr){ .wr_id = s, .sg_list = &th->rsge[s], .num_sge = 1 };
	}
	return seq_post_recv_all(th, &th->qps[1], err, errlen);
}

int rpc_post_write(struct seq_thread *th, struct ibv_send_wr *wr, uint32_t len, uint64_t k,
		   uint64_t now)
{
	struct rb_qp *q = &th->qps[0];
	struct ibv_send_wr *bad;

	if (seq_sq_room(th, 0, 1, 10000, th->err, sizeof(th->err)))
		return th->rc = -1;
	wr->wr_id = SEQ_WRID(0, q->posted);
	wr->send_flags = (th->run->inline_cap >= len ? IBV_SEND_INLINE : 0) |
			 seq_sig_flag(q);
	th->post_ts[k] = now;
	int rc = ibv_post_send(q->qp, wr, &bad);
	if (rc) {
		seq_thread_fail(th, "ibv_post_send(UC WRITE, qpn 0x%x) failed: %s", q->qp->qp_num,
				strerror(rc));
		return -1;
	}
	q->posted++;
	th->outstanding++;
	return 0;
}

int rpc_respond(struct seq_thread *th, const struct rpc_resp *resp, unsigned n, uint32_t stride,
		unsigned *rr)
{
	struct seq_run *r = th->run;
	bool batch = r->cfg.batch != 0;
	uint64_t base = atomic_fetch_add(r->counter, n);
	unsigned i = 0;

	while (i < n) {
		unsigned qi = (*rr)++ % th->nqp;
		struct rb_qp *q = &th->qps[qi];
		unsigned m = batch ? n - i : 1;   /* WRs in this doorbell (n <= SEQ_BATCH_MAX) */
		if (seq_sq_room(th, qi, m, 10000, th->err, sizeof(th->err)))
			return th->rc = -1;
		for (unsigned j = 0; j < m; j++) {
			const struct rpc_resp *p = &resp[i + j];
			struct ibv_send_wr *wr = &th->wr[j];
			uint64_t v = base + i + j;
			uint32_t len = 8 + p->len;
			uint8_t *payload = th->area + ((uint64_t)qi * SEQ_SQ_DEPTH +
						       q->posted % SEQ_SQ_DEPTH) * stride;
			memcpy(payload, &v, 8);
			if (p->len)
				memcpy(payload + 8, p->data, p->len);
			th->sge[j].addr = (uintptr_t)payload;
			th->sge[j].length = len;
			wr->wr_id = SEQ_WRID(qi, q->posted);
			wr->imm_data = htonl(p->imm);
			wr->wr.ud.ah = q->ah;
			wr->wr.ud.remote_qpn = r->remote_eps[2 * p->client + 1].qpn;
			wr->send_flags = (r->inline_cap >= len ? IBV_SEND_INLINE : 0) |
					 seq_sig_flag(q);
			q->posted++;
		}
		if (seq_post_batch(th, q, m))
			return -1;
		i += m;
	}
	return 0;
}
