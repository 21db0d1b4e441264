/*
 * seq_herd.c - the HERD-RPC sequencer (the paper's Section 5.1; the RPC
 * pattern of HERD, SIGCOMM 2014). Client thread c WRITEs (UC) a request
 * word into slot k of its own part of the server's request region
 * (seq_slot_offset); server thread c % T polls its clients' slots, zeroes
 * each request it finds, takes numbers for all of a poll pass with one
 * atomic add on the counter, and answers each with a UD SEND_WITH_IMM to the
 * client's UD QP: 8-byte payload = the number, immediate = the slot k.
 *   --batch on   a pass's responses go out as one linked list of WRs on one
 *                response QP: one ibv_post_send, one doorbell (Section 3.1)
 *   --batch off  one ibv_post_send per response
 *   --ud-qps N   response QPs per server thread, used round robin (per pass
 *                with batching, per response without)
 *
 * Buffers. Server: [counter, 64 B][request region, C x window slots]
 * [thread t: ud_qps x SEQ_SQ_DEPTH 8-byte response payloads].
 * Client thread i: [window request words, 8 B each][window + 8 UD receive
 * slots of SEQ_RECV_BYTES].
 * SETUP QP lists: client [UC 0, UD 0, UC 1, UD 1, ...]; server [UC 0..C-1,
 * then UD t x ud_qps + j]. Client UC i talks to server UC i; server UD QPs
 * send to client UD c (the client's UD QP only receives).
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errbuf.h"
#include "seq_rt.h"
#include "timing.h"

#define REGION_OFF 64u   /* request region after the counter's cache line */

static uint64_t client_area_len(uint64_t w)
{
	return (w * 8 + 63) / 64 * 64 + (w + 8) * SEQ_RECV_BYTES;
}

static int herd_create(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, w = (unsigned)c->window;

	if (r->role == RB_ROLE_SERVER) {
		unsigned nt = (unsigned)c->server_threads, nu = (unsigned)c->ud_qps;
		uint64_t ring = (uint64_t)nu * SEQ_SQ_DEPTH * 8;
		uint64_t len = REGION_OFF + seq_region_bytes(w, nc) + nt * ring;
		if (seq_run_alloc(r, len, IBV_ACCESS_REMOTE_WRITE, err, errlen) ||
		    seq_run_threads(r, nt, nu, nu * SEQ_SQ_DEPTH, 0, err, errlen))
			return -1;
		memcpy(r->buf, &c->start, sizeof(c->start));
		r->counter = (_Atomic uint64_t *)(void *)r->buf;
		r->pcq = ibv_create_cq(r->dev->ctx, 16, NULL, NULL, 0);
		r->passive = calloc(nc, sizeof(*r->passive));
		if (!r->pcq || !r->passive)
			return rb_fail(err, errlen, "ibv_create_cq / memory for %u UC QPs failed", nc);
		r->npassive = nc;
		for (unsigned i = 0; i < nc; i++)
			if (seq_qp_create(r, &r->passive[i], RB_TR_UC, RB_VERB_WRITE, r->pcq, NULL, 16,
					  0, i, err, errlen))
				return -1;
		for (unsigned t = 0; t < nt; t++) {
			struct seq_thread *th = &r->th[t];
			th->area = r->buf + REGION_OFF + seq_region_bytes(w, nc) + t * ring;
			th->wr = calloc(SEQ_BATCH_MAX, sizeof(*th->wr));
			th->sge = calloc(SEQ_BATCH_MAX, sizeof(*th->sge));
			if (!th->wr || !th->sge)
				return rb_fail(err, errlen, "out of memory for server thread %u", t);
			for (unsigned j = 0; j < nu; j++)
				if (seq_qp_create(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM, th->scq, NULL,
						  SEQ_SQ_DEPTH, 0, t * nu + j, err, errlen))
					return -1;
		}
		return 0;
	}
	if (seq_run_alloc(r, nc * client_area_len(w), IBV_ACCESS_REMOTE_WRITE, err, errlen) ||
	    seq_run_threads(r, nc, 2, SEQ_SQ_DEPTH, w + 8, err, errlen))
		return -1;
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		th->area = r->buf + i * client_area_len(w);
		th->nrecv = w + 8;
		th->post_ts = calloc(w, sizeof(*th->post_ts));
		th->wr = calloc(w, sizeof(*th->wr));
		th->sge = calloc(w, sizeof(*th->sge));
		th->rwr = calloc(th->nrecv, sizeof(*th->rwr));
		th->rsge = calloc(th->nrecv, sizeof(*th->rsge));
		if (!th->post_ts || !th->wr || !th->sge || !th->rwr || !th->rsge ||
		    seq_vals_init(&th->vals, r->values_cap))
			return rb_fail(err, errlen, "out of memory for client thread %u", i);
		if (seq_qp_create(r, &th->qps[0], RB_TR_UC, RB_VERB_WRITE, th->scq, NULL,
				  SEQ_SQ_DEPTH, 0, 2 * i, err, errlen) ||
		    seq_qp_create(r, &th->qps[1], RB_TR_UD, RB_VERB_SEND_IMM, th->scq, th->rcq,
				  SEQ_SQ_DEPTH, th->nrecv, 2 * i + 1, err, errlen))
			return -1;
	}
	return 0;
}

static int herd_connect(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, w = (unsigned)c->window;

	if (r->role == RB_ROLE_SERVER) {
		if (r->remote.nqp != 2 * nc)
			return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %u (UC and UD per "
				       "client thread)", r->remote.nqp, 2 * nc);
		for (unsigned i = 0; i < nc; i++)
			if (seq_qp_connect(r, &r->passive[i], RB_TR_UC, RB_VERB_WRITE,
					   &r->remote_eps[2 * i], err, errlen))
				return -1;
		for (unsigned t = 0; t < r->nth; t++) {
			struct seq_thread *th = &r->th[t];
			for (unsigned j = 0; j < th->nqp; j++)
				if (seq_qp_connect(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM,
						   &r->remote_eps[1], err, errlen))
					return -1;
			for (unsigned k = 0; k < SEQ_BATCH_MAX; k++) {
				th->sge[k] = (struct ibv_sge){ .length = 8, .lkey = r->mr->lkey };
				th->wr[k] = (struct ibv_send_wr){
					.sg_list = &th->sge[k],
					.num_sge = 1,
					.opcode = IBV_WR_SEND_WITH_IMM,
					.send_flags = r->inline_cap >= 8 ? IBV_SEND_INLINE : 0,
					.wr.ud.remote_qkey = RB_QKEY,
				};
			}
		}
		return 0;
	}
	if (r->remote.nqp != nc + c->server_threads * c->ud_qps)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %llu", r->remote.nqp,
			       (unsigned long long)(nc + c->server_threads * c->ud_qps));
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		uint8_t *words = th->area;
		uint8_t *recv = th->area + (w * 8 + 63) / 64 * 64;
		if (seq_qp_connect(r, &th->qps[0], RB_TR_UC, RB_VERB_WRITE, &r->remote_eps[i], err,
				   errlen) ||
		    seq_qp_connect(r, &th->qps[1], RB_TR_UD, RB_VERB_SEND_IMM, &r->remote_eps[nc], err,
				   errlen))
			return -1;
		for (unsigned k = 0; k < w; k++) {
			uint64_t word = k + 1;   /* non-zero: a request is waiting */
			memcpy(words + (uint64_t)k * 8, &word, 8);
			th->sge[k] = (struct ibv_sge){
				.addr = (uintptr_t)(words + (uint64_t)k * 8),
				.length = 8,
				.lkey = r->mr->lkey,
			};
			th->wr[k] = (struct ibv_send_wr){
				.sg_list = &th->sge[k],
				.num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.wr.rdma = {
					.remote_addr = r->remote.buf_addr + REGION_OFF +
						       seq_slot_offset(w, i, k),
					.rkey = r->remote.rkey,
				},
			};
		}
		for (unsigned s = 0; s < th->nrecv; s++) {
			th->rsge[s] = (struct ibv_sge){
				.addr = (uintptr_t)(recv + (uint64_t)s * SEQ_RECV_BYTES),
				.length = SEQ_RECV_BYTES,
				.lkey = r->mr->lkey,
			};
			th->rwr[s] = (struct ibv_recv_wr){ .wr_id = s, .sg_list = &th->rsge[s], .num_sge = 1 };
		}
		if (seq_post_recv_all(th, &th->qps[1], err, errlen))
			return -1;
	}
	return 0;
}

/* Client: WRITE the request word of slot k (one in SEQ_SIG_EVERY signaled). */
static int post_request(struct seq_thread *th, unsigned k, uint64_t now)
{
	struct rb_qp *q = &th->qps[0];
	struct ibv_send_wr *wr = &th->wr[k], *bad;

	if (seq_sq_room(th, 0, 1, 10000, th->err, sizeof(th->err)))
		return -1;
	wr->wr_id = SEQ_WRID(0, q->posted);
	wr->send_flags = (th->run->inline_cap >= 8 ? IBV_SEND_INLINE : 0) |
			 (q->posted % SEQ_SIG_EVERY == SEQ_SIG_EVERY - 1 ? IBV_SEND_SIGNALED : 0);
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

static void *herd_client_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	struct rb_qp *ud = &th->qps[1];
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[RB_POLL_BATCH];
	unsigned w = (unsigned)r->cfg.window;
	int go;

	while ((go = atomic_load(&r->go)) == 0)
		sched_yield();
	if (go < 0)
		return NULL;
	for (unsigned k = 0; k < w; k++)
		if (post_request(th, k, timing_now_ns()))
			return NULL;
	uint64_t drain_end = r->win_end + (uint64_t)SEQ_DRAIN_MS * 1000000u;
	for (;;) {
		int n = ibv_poll_cq(th->rcq, RB_POLL_BATCH, wc);
		uint64_t now = timing_now_ns();
		if (n < 0)
			return seq_thread_fail(th, "ibv_poll_cq(receive CQ) failed");
		if (n == 0 && r->cfg.idle_yield)
			sched_yield();
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return seq_thread_fail(th, "response receive failed: %s (qpn 0x%x)",
						       ibv_wc_status_str(wc[i].status), wc[i].qp_num);
			unsigned s = (unsigned)wc[i].wr_id;
			unsigned k = ntohl(wc[i].imm_data);
			uint64_t v;
			if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || k >= w || s >= th->nrecv)
				return seq_thread_fail(th, "response names slot %u (window %u, flags 0x%x)",
						       k, w, wc[i].wc_flags);
			memcpy(&v, (uint8_t *)(uintptr_t)th->rsge[s].addr + RB_UD_GRH_BYTES, 8);
			seq_vals_add(&th->vals, v);
			th->outstanding--;
			if (now >= r->win_start && now < r->win_end) {
				th->resp_window++;
				hist_add(th->hist, now - th->post_ts[k]);
			}
			int rc = ibv_post_recv(ud->qp, &th->rwr[s], &rbad);
			if (rc)
				return seq_thread_fail(th, "ibv_post_recv(qpn 0x%x) failed: %s",
						       ud->qp->qp_num, strerror(rc));
			if (now < r->win_end && post_request(th, k, now))
				return NULL;
		}
		if (now >= r->win_end && (th->outstanding == 0 || now >= drain_end))
			break;
	}
	return NULL;
}

/* Server: answer the n requests of a pass (clients pc[], slots pk[]). */
static int respond(struct seq_thread *th, const unsigned *pc, const unsigned *pk, unsigned n,
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
		struct ibv_send_wr *bad;
		if (seq_sq_room(th, qi, m, 10000, th->err, sizeof(th->err))) {
			th->rc = -1;
			return -1;
		}
		for (unsigned j = 0; j < m; j++) {
			struct ibv_send_wr *wr = &th->wr[j];
			uint64_t v = base + i + j;
			uint8_t *payload = th->area + ((uint64_t)qi * SEQ_SQ_DEPTH +
						       q->posted % SEQ_SQ_DEPTH) * 8;
			memcpy(payload, &v, 8);
			th->sge[j].addr = (uintptr_t)payload;
			wr->wr_id = SEQ_WRID(qi, q->posted);
			wr->imm_data = htonl(pk[i + j]);
			wr->wr.ud.ah = q->ah;
			wr->wr.ud.remote_qpn = r->remote_eps[2 * pc[i + j] + 1].qpn;
			wr->send_flags = (wr->send_flags & IBV_SEND_INLINE) |
					 (q->posted % SEQ_SIG_EVERY == SEQ_SIG_EVERY - 1 ?
					  IBV_SEND_SIGNALED : 0);
			wr->next = j + 1 < m ? &th->wr[j + 1] : NULL;
			q->posted++;
		}
		int rc = ibv_post_send(q->qp, &th->wr[0], &bad);
		if (rc) {
			seq_thread_fail(th, "ibv_post_send(%u UD SEND_WITH_IMM, qpn 0x%x) failed: %s",
					m, q->qp->qp_num, strerror(rc));
			return -1;
		}
		seq_batch_add(&th->batch, m, 1);
		i += m;
	}
	return 0;
}

static void *herd_server_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	unsigned nc = (unsigned)r->cfg.client_threads, nt = (unsigned)r->cfg.server_threads;
	unsigned w = (unsigned)r->cfg.window;
	unsigned pc[SEQ_BATCH_MAX], pk[SEQ_BATCH_MAX], n = 0, rr = 0;
	struct timespec cpu;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		for (unsigned c = th->index; c < nc; c += nt) {
			for (unsigned k = 0; k < w; k++) {
				uint64_t *slot = (uint64_t *)(void *)(r->buf + REGION_OFF +
								     seq_slot_offset(w, c, k));
				if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == 0)
					continue;
				__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
				th->requests++;
				pc[n] = c;
				pk[n] = k;
				if (++n == SEQ_BATCH_MAX) {
					if (respond(th, pc, pk, n, &rr))
						goto out;
					n = 0;
				}
			}
		}
		if (n) {
			if (respond(th, pc, pk, n, &rr))
				goto out;
			n = 0;
		} else if (r->cfg.idle_yield) {
			sched_yield();   /* a pass found nothing: let the kernel's work run */
		}
	}
out:
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	th->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
	return NULL;
}

const struct seq_variant_ops seq_herd_ops = {
	.name = "herd-rpc",
	.create = herd_create,
	.connect = herd_connect,
	.client_main = herd_client_main,
	.server_main = herd_server_main,
};
