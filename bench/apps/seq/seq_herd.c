/*
 * seq_herd.c - the HERD-RPC sequencer (the paper's Section 4.2; the RPC
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
 * QPs, the request WRITE, the pass's responses and the client's loop are
 * HERD's RPC pattern shared with herd-kv (rpc.c; SETUP lists in seq_rt.h).
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

/* Server: request region, response rings and the threads (rpc.c). */
static int herd_create_server(struct seq_run *r, char *err, size_t errlen)
{
	const struct seq_cfg *c = &r->cfg;
	/* request region (one 8-byte slot per client and window entry), then
	 * each thread's response ring: 8-byte payloads, SEQ_SQ_DEPTH per QP */
	uint64_t rings_off = REGION_OFF + seq_region_bytes(c->window, c->client_threads);
	uint64_t ring = c->ud_qps * SEQ_SQ_DEPTH * 8;
	unsigned nt = (unsigned)c->server_threads;

	if (rpc_server_alloc(r, rings_off + nt * ring, err, errlen))
		return -1;
	for (unsigned t = 0; t < nt; t++) {
		r->th[t].area = r->buf + rings_off + t * ring;
		if (rpc_server_thread(r, t, err, errlen))
			return -1;
	}
	return 0;
}

/* Client: per thread, its request slots and receive slots (rpc.c). */
static int herd_create_client(struct seq_run *r, char *err, size_t errlen)
{
	unsigned w = (unsigned)r->cfg.window;

	if (seq_client_threads(r, client_area_len(w), IBV_ACCESS_REMOTE_WRITE, 2, SEQ_SQ_DEPTH,
			       w + 8, err, errlen))
		return -1;
	for (unsigned i = 0; i < r->nth; i++) {
		r->th[i].nrecv = w + 8;
		if (rpc_client_thread(r, i, w, err, errlen))
			return -1;
	}
	return 0;
}

static int herd_create(struct seq_run *r, char *err, size_t errlen)
{
	return r->role == RB_ROLE_SERVER ? herd_create_server(r, err, errlen)
						 : herd_create_client(r, err, errlen);
}

static int herd_connect(struct seq_run *r, char *err, size_t errlen)
{
	unsigned nc = (unsigned)r->cfg.client_threads, w = (unsigned)r->cfg.window;

	if (r->role == RB_ROLE_SERVER)
		return rpc_server_connect(r, err, errlen);
	if (rpc_client_connect(r, err, errlen))
		return -1;
	for (unsigned i = 0; i < nc; i++) {
		struct seq_thread *th = &r->th[i];
		uint8_t *words = th->area;
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
		if (rpc_client_recvs(th, th->area + (w * 8 + 63) / 64 * 64, SEQ_RECV_BYTES, err,
				     errlen))
			return -1;
	}
	return 0;
}

/* Client: WRITE the request word of slot k. */
static int post_request(struct seq_thread *th, unsigned k, uint64_t now)
{
	return rpc_post_write(th, &th->wr[k], 8, k, now);
}

/* Client: a response names its slot in the immediate; the payload is the number. */
static int take_response(struct seq_thread *th, const struct ibv_wc *wc, uint64_t now,
			 unsigned *kp)
{
	struct seq_run *r = th->run;
	unsigned w = (unsigned)r->cfg.window, s = (unsigned)wc->wr_id, k = ntohl(wc->imm_data);
	uint64_t v;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || k >= w)
		return seq_thread_fail(th, "response names slot %u (window %u, flags 0x%x)", k, w,
				       wc->wc_flags), -1;
	memcpy(&v, (uint8_t *)(uintptr_t)th->rsge[s].addr + RB_UD_GRH_BYTES, 8);
	seq_client_took(th, v, th->post_ts[k], now);
	*kp = k;
	return 0;
}

static void *herd_client_main(void *arg)
{
	struct seq_thread *th = arg;
	return seq_client_loop(th, 1, (unsigned)th->run->cfg.window, post_request, take_response);
}

static void *herd_server_main(void *arg)
{
	struct seq_thread *th = arg;
	struct seq_run *r = th->run;
	unsigned nc = (unsigned)r->cfg.client_threads, nt = (unsigned)r->cfg.server_threads;
	unsigned w = (unsigned)r->cfg.window;
	struct rpc_resp resp[SEQ_BATCH_MAX];
	unsigned n = 0, rr = 0;
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
				resp[n++] = (struct rpc_resp){ .client = c, .imm = k };
				if (n == SEQ_BATCH_MAX) {
					if (rpc_respond(th, resp, n, 8, &rr))
						goto out;
					n = 0;
				}
			}
		}
		if (n) {
			if (rpc_respond(th, resp, n, 8, &rr))
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
