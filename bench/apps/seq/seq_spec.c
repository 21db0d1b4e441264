/*
 * seq_spec.c - the Spec-S0 sequencer (the paper's Section 4.2.1, "Spec-S0"):
 * header-only UD messages both ways. Client thread c keeps `window`
 * SEND_WITH_IMMs with no payload outstanding to server thread c % T's
 * receiving QP; the immediate names the client. The server thread polls its
 * receive CQ, takes numbers for the whole poll pass with one atomic add,
 * answers each request with a header-only UD SEND_WITH_IMM carrying the
 * number's low 32 bits, and re-posts the pass's receives with one
 * ibv_post_recv. The client rebuilds the 64-bit number from the last one it
 * saw (seq_s0_reconstruct).
 *   --batch on|off, --ud-qps N: as in seq_herd.c (response QPs round robin;
 *   server thread t receives on its first one).
 *
 * Latency: a header-only response cannot name its request, so each response
 * is matched to the client's oldest outstanding request (FIFO).
 *
 * Buffers. Server: [counter, 64 B][thread t: its receive slots]. Client
 * thread i: [window + 8 receive slots]. Receive slots are SEQ_RECV_BYTES
 * (the 40-byte GRH, no payload).
 * SETUP QP lists: client [UD 0..C-1]; server [UD t x ud_qps + j].
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errbuf.h"
#include "seq_rt.h"
#include "timing.h"

/* A client thread's own state (th->app): responses come back in the order
 * of the requests (one UD QP each way, FIFO), so latency pairs the n-th
 * response with the n-th request. */
struct spec_client {
	uint64_t head, tail;   /* requests posted / answered */
	uint64_t ref;          /* last full value seen (seq_s0_reconstruct) */
};

/* Receives server thread t keeps posted: every request its clients can
 * have outstanding, plus one poll pass (UD drops a message that finds no
 * receive: IB spec 9.7.5.1). */
static unsigned server_recvs(const struct seq_cfg *c, unsigned t)
{
	return (unsigned)(seq_clients_of_thread(t, c->client_threads, c->server_threads) *
			  c->window) + RB_POLL_BATCH;
}

static void fill_recvs(struct seq_run *r, struct seq_thread *th, uint8_t *slots)
{
	for (unsigned s = 0; s < th->nrecv; s++) {
		th->rsge[s] = (struct ibv_sge){
			.addr = (uintptr_t)(slots + (uint64_t)s * SEQ_RECV_BYTES),
			.length = SEQ_RECV_BYTES,
			.lkey = r->mr->lkey,
		};
		th->rwr[s] = (struct ibv_recv_wr){ .wr_id = s, .sg_list = &th->rsge[s], .num_sge = 1 };
	}
}

/* Server: the counter, then each thread's receive slots; ud_qps UD QPs per
 * thread (qps[0] receives). */
static int spec_create_server(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nt = (unsigned)c->server_threads, nu = (unsigned)c->ud_qps;
	uint64_t len = 64, off = 64;

	for (unsigned t = 0; t < nt; t++)
		len += (uint64_t)server_recvs(c, t) * SEQ_RECV_BYTES;
	if (server_recvs(c, 0) > (unsigned)r->dev->attr.max_qp_wr)
		return rb_fail(err, errlen, "%u receives per server thread (clients x window + "
			       "%u) exceed the device's max_qp_wr %d; use fewer clients per "
			       "server thread or a smaller window", server_recvs(c, 0),
			       RB_POLL_BATCH, r->dev->attr.max_qp_wr);
	if (seq_run_alloc(r, len, 0, err, errlen) ||
	    seq_run_threads(r, nt, nu, nu * SEQ_SQ_DEPTH, server_recvs(c, 0), err, errlen))
		return -1;
	memcpy(r->buf, &c->start, sizeof(c->start));
	r->counter = (_Atomic uint64_t *)(void *)r->buf;
	for (unsigned t = 0; t < nt; t++) {
		struct seq_thread *th = &r->th[t];
		th->nrecv = server_recvs(c, t);
		th->area = r->buf + off;
		off += (uint64_t)th->nrecv * SEQ_RECV_BYTES;
		th->wr = calloc(SEQ_BATCH_MAX, sizeof(*th->wr));
		th->rwr = calloc(th->nrecv, sizeof(*th->rwr));
		th->rsge = calloc(th->nrecv, sizeof(*th->rsge));
		if (!th->wr || !th->rwr || !th->rsge)
			return rb_fail(err, errlen, "out of memory for server thread %u", t);
		fill_recvs(r, th, th->area);
		for (unsigned j = 0; j < nu; j++)
			if (seq_qp_create(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM, th->scq,
					  th->rcq, SEQ_SQ_DEPTH, j == 0 ? th->nrecv : 0,
					  t * nu + j, err, errlen))
				return -1;
	}
	return 0;
}

/* Client: per thread, one UD QP, its receive slots and FIFO state. */
static int spec_create_client(struct seq_run *r, char *err, size_t errlen)
{
	unsigned w = (unsigned)r->cfg.window;

	/* each thread: w + 8 receive slots (the window and a margin) */
	if (seq_client_threads(r, (uint64_t)(w + 8) * SEQ_RECV_BYTES, 0, 1, SEQ_SQ_DEPTH, w + 8,
			       err, errlen))
		return -1;
	for (unsigned i = 0; i < r->nth; i++) {
		struct seq_thread *th = &r->th[i];
		th->nrecv = w + 8;
		th->post_ts = calloc(w, sizeof(*th->post_ts));
		th->wr = calloc(1, sizeof(*th->wr));
		th->rwr = calloc(th->nrecv, sizeof(*th->rwr));
		th->rsge = calloc(th->nrecv, sizeof(*th->rsge));
		struct spec_client *sc = calloc(1, sizeof(*sc));
		th->app = sc;
		th->app_free = free;
		if (!th->post_ts || !th->wr || !th->rwr || !th->rsge || !sc ||
		    seq_vals_init(&th->vals, r->values_cap))
			return rb_fail(err, errlen, "out of memory for client thread %u", i);
		sc->ref = r->cfg.start;
		fill_recvs(r, th, th->area);
		if (seq_qp_create(r, &th->qps[0], RB_TR_UD, RB_VERB_SEND_IMM, th->scq, th->rcq,
				  SEQ_SQ_DEPTH, th->nrecv, i, err, errlen))
			return -1;
	}
	return 0;
}

static int spec_create(struct seq_run *r, char *err, size_t errlen)
{
	return r->role == RB_ROLE_SERVER ? spec_create_server(r, err, errlen)
						 : spec_create_client(r, err, errlen);
}

static int spec_connect(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	unsigned nc = (unsigned)c->client_threads, nu = (unsigned)c->ud_qps;

	if (r->role == RB_ROLE_SERVER) {
		if (r->remote.nqp != nc)
			return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %u (one UD QP per "
				       "client thread)", r->remote.nqp, nc);
		for (unsigned t = 0; t < r->nth; t++) {
			struct seq_thread *th = &r->th[t];
			for (unsigned j = 0; j < nu; j++)
				if (seq_qp_connect(r, &th->qps[j], RB_TR_UD, RB_VERB_SEND_IMM,
						   &r->remote_eps[0], err, errlen))
					return -1;
			for (unsigned k = 0; k < SEQ_BATCH_MAX; k++)
				th->wr[k] = (struct ibv_send_wr){
					.num_sge = 0,                 /* header only */
					.opcode = IBV_WR_SEND_WITH_IMM,
					.wr.ud.remote_qkey = RB_QKEY,
				};
			if (seq_post_recv_all(th, &th->qps[0], err, errlen))
				return -1;
		}
		return 0;
	}
	if (r->remote.nqp != c->server_threads * nu)
		return rb_fail(err, errlen, "peer SETUP has %u QPs, expected %llu", r->remote.nqp,
			       (unsigned long long)(c->server_threads * nu));
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		const struct ctrl_qp_ep *dst =
			&r->remote_eps[seq_server_thread_of(i, c->server_threads) * nu];
		if (seq_qp_connect(r, &th->qps[0], RB_TR_UD, RB_VERB_SEND_IMM, dst, err, errlen))
			return -1;
		th->wr[0] = (struct ibv_send_wr){
			.num_sge = 0,                         /* header only */
			.opcode = IBV_WR_SEND_WITH_IMM,
			.imm_data = htonl(i),                 /* names the client */
			.wr.ud = {
				.ah = th->qps[0].ah,
				.remote_qpn = dst->qpn,
				.remote_qkey = RB_QKEY,
			},
		};
		if (seq_post_recv_all(th, &th->qps[0], err, errlen))
			return -1;
	}
	return 0;
}

/* Client: one header-only request (one in SEQ_SIG_EVERY signaled); k is
 * not used (requests are paired in FIFO order). */
static int post_request(struct seq_thread *th, unsigned k, uint64_t now)
{
	struct spec_client *sc = th->app;
	struct rb_qp *q = &th->qps[0];
	struct ibv_send_wr *wr = &th->wr[0], *bad;

	(void)k;
	if (seq_sq_room(th, 0, 1, 10000, th->err, sizeof(th->err))) {
		th->rc = -1;
		return -1;
	}
	wr->wr_id = SEQ_WRID(0, q->posted);
	wr->send_flags = seq_sig_flag(q);
	th->post_ts[sc->head % th->run->cfg.window] = now;
	int rc = ibv_post_send(q->qp, wr, &bad);
	if (rc) {
		seq_thread_fail(th, "ibv_post_send(UD SEND_WITH_IMM, qpn 0x%x) failed: %s",
				q->qp->qp_num, strerror(rc));
		return -1;
	}
	sc->head++;
	q->posted++;
	th->outstanding++;
	return 0;
}

/* Client: the response's immediate is the number's low 32 bits; rebuild
 * the 64-bit value from the last one seen (seq.h, seq_s0_reconstruct). */
static int take_response(struct seq_thread *th, const struct ibv_wc *wc, uint64_t now,
			 unsigned *kp)
{
	struct spec_client *sc = th->app;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM))
		return seq_thread_fail(th, "response without an immediate (flags 0x%x)",
				       wc->wc_flags), -1;
	uint64_t v = seq_s0_reconstruct(sc->ref, ntohl(wc->imm_data));
	if (v > sc->ref)
		sc->ref = v;
	seq_client_took(th, v, th->post_ts[sc->tail % th->run->cfg.window], now);
	sc->tail++;
	*kp = 0;
	return 0;
}

static void *spec_client_main(void *arg)
{
	struct seq_thread *th = arg;
	return seq_client_loop(th, 0, (unsigned)th->run->cfg.window, post_request, take_response);
}

/* Server: answer the n receives of one poll pass, then re-post them. */
static int respond(struct seq_thread *th, const struct ibv_wc *wc, unsigned n, unsigned *rr)
{
	struct seq_run *r = th->run;
	bool batch = r->cfg.batch != 0;
	unsigned nc = (unsigned)r->cfg.client_threads;
	struct ibv_recv_wr *rchain = NULL, *rbad;
	unsigned client[RB_POLL_BATCH], nv = 0;

	for (unsigned i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			seq_thread_fail(th, "request receive failed: %s (qpn 0x%x)",
					ibv_wc_status_str(wc[i].status), wc[i].qp_num);
			return -1;
		}
		struct ibv_recv_wr *rw = &th->rwr[wc[i].wr_id];
		rw->next = rchain;
		rchain = rw;
		th->requests++;
		uint32_t c = ntohl(wc[i].imm_data);
		if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || c >= nc)
			th->bad++;
		else
			client[nv++] = c;
	}
	/* the pass's receives back with one ibv_post_recv (batched re-post) */
	int rc = ibv_post_recv(th->qps[0].qp, rchain, &rbad);
	if (rc) {
		seq_thread_fail(th, "ibv_post_recv(%u receives, qpn 0x%x) failed: %s", n,
				th->qps[0].qp->qp_num, strerror(rc));
		return -1;
	}
	uint64_t base = nv ? atomic_fetch_add(r->counter, nv) : 0;
	unsigned i = 0;
	while (i < nv) {
		unsigned qi = (*rr)++ % th->nqp;
		struct rb_qp *q = &th->qps[qi];
		unsigned m = batch ? nv - i : 1;
		if (seq_sq_room(th, qi, m, 10000, th->err, sizeof(th->err))) {
			th->rc = -1;
			return -1;
		}
		for (unsigned j = 0; j < m; j++) {
			struct ibv_send_wr *wr = &th->wr[j];
			wr->wr_id = SEQ_WRID(qi, q->posted);
			wr->imm_data = htonl((uint32_t)(base + i + j));   /* low 32 bits */
			wr->wr.ud.ah = q->ah;
			wr->wr.ud.remote_qpn = r->remote_eps[client[i + j]].qpn;
			wr->send_flags = seq_sig_flag(q);
			q->posted++;
		}
		if (seq_post_batch(th, q, m))
			return -1;
		i += m;
	}
	return 0;
}

static void *spec_server_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	struct ibv_wc wc[RB_POLL_BATCH];
	unsigned rr = 0;
	struct timespec cpu;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		int n = ibv_poll_cq(th->rcq, RB_POLL_BATCH, wc);
		if (n < 0) {
			seq_thread_fail(th, "ibv_poll_cq(receive CQ) failed");
			break;
		}
		if (n > 0 && respond(th, wc, (unsigned)n, &rr))
			break;
		if (n == 0 && r->cfg.idle_yield)
			sched_yield();   /* nothing received: let the kernel's work run */
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	th->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
	return NULL;
}

const struct seq_variant_ops seq_spec_ops = {
	.name = "spec-s0",
	.create = spec_create,
	.connect = spec_connect,
	.client_main = spec_client_main,
	.server_main = spec_server_main,
};
