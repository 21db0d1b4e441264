/*
 * post.c - rdma_bench's data path (the program's, not the library's: its
 * workers run on its per-point context, ctx.h): the worker threads' start
 * and join (here) and the rules of their posting and polling loops
 * (post_req.c: requester, post_resp.c: responder; post_err.c error text,
 * post_check.c buffer checks).
 *
 * Client, --test bw: each thread keeps up to `window` ops outstanding over
 * its QPs (round robin), posting doorbell batches of up to `postlist` linked
 * WRs with one ibv_post_send. WR n of a QP (counted from 0 in the phase) is
 * signaled when (n + 1) % signal_interval == 0 or it is the QP's last of the
 * phase, so every WR is covered by a later signaled completion (IB spec
 * 10.8.6: an unsignaled WR's slot is freed by the next signaled completion).
 * The wr_id carries (QP index << 40 | n): a completion of WR n completes
 * every WR of that QP up to n. These per-WR rules (signaling, wr_id,
 * quotas, batch and send queue credit) are the inline functions of plan.h,
 * unit-tested on the host. The SQ never overflows: per QP, posted -
 * completed <= sq_depth; the window bounds the sum. The thread posts until
 * the window is full or no QP can post (quota reached, SQ full), then
 * polls up to RB_POLL_BATCH CQEs: one poll per window, as perftest's
 * ib_*_bw, rather than one per doorbell (on the null device an empty poll
 * cost about as much as the loop's own work per op).
 *
 * In the measured window the post time of every signaled WR is kept per SQ
 * slot, and its completion time minus that goes into the histogram:
 * latency under load, reported as lat_kind "completion" (post to CQE; the
 * CQE is seen at the next poll, after the window is refilled).
 *
 * Client, --test bw --verb read --read-completion poll (bw_phase_poll): as
 * the original rc-swarm artifact, a READ is complete when the last byte of
 * its own destination slot (a ring of `window` slots per thread) changes
 * from RB_READ_SENTINEL, which is written there just before the post; the
 * poller watches the oldest outstanding slot (volatile read) and each
 * change frees one unit of window credit. Signaled WRs (every
 * signal_interval-th per QP, and each QP's last of the phase) remain, only
 * to free send queue slots: their CQEs are reaped without waiting. So the
 * window and the signal interval are independent (test_validate has the SQ
 * rule that replaces the window rule). Latency samples: post to the last
 * byte, for the same signaled WRs cqe mode samples. Caveat: the IB spec
 * does not order the DMA writes of a READ response's bytes; this relies on
 * the last byte landing last, as on Mellanox NICs and rxe (in-order
 * packets, each written in order, no relaxed ordering on the MR).
 *
 * Client, --test lat: one op outstanding. READ and atomics: time from post
 * to the completion (a round trip). SEND, SEND_IMM, WRITE_IMM: ping-pong
 * through the receive CQ; WRITE: ping-pong by polling the last payload byte
 * (a tag, 1..255) of the receive slot. Samples go into the thread's
 * histogram as round-trip ns; the report halves them for one-way kinds.
 *
 * Phases: warm-up (iterations or time), a start barrier across threads,
 * then the measured window. Iteration mode divides n over the QPs in
 * quotas; duration mode stops posting at the deadline, finishes each QP at
 * its next signaled WR and drains. The window is [first post, last
 * completion] and is what the row reports (duration_s).
 * With --procs > 1 the start barrier spans processes (gate.h): the session
 * thread releases the workers on the server's GO, which names the common
 * window on the server's clock; the threads post from the release, stop
 * posting at the window's end, and count only the ops whose completion they
 * see inside the window, which is what the row reports: every process of
 * the point measures the same interval (to within the clock offset's error).
 * Without --validate they end at the window's end without waiting for the
 * WRs still in flight (abandon_at_end).
 *
 * Server: worker threads run only when this side has work: consume
 * receives (SEND, SEND_IMM, WRITE_IMM: count, check payloads, re-post, reply
 * in lat mode) or answer WRITE ping-pongs; they run until ctx->stop.
 *
 * Hot path rules: no allocation, no locks, no formatting. Errors are
 * formatted once, on the way out.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "post_int.h"

int workers_start(struct rb_ctx *c, void *(*fn)(void *), char *err, size_t errlen)
{
	const struct rb_place *pl = c->pl ? &c->pl->place : NULL;

	atomic_store(&c->stop, 0);
	atomic_store(&c->arrived, 0);
	atomic_store(&c->go, 0);
	atomic_store(&c->warm, 0);
	c->win_start_ns = c->win_end_ns = 0;
	atomic_store(&c->finished, 0);
	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		/* worker i on the placement's entry cpu_first + i (mod their count),
		 * from the list's end for a server (topo.h topo_worker_cpu) */
		w->cpu = topo_worker_cpu(pl, c->cpu_first, c->cpu_mirror, i);
		if (w->cpu >= 0 && w->cpu < CPU_SETSIZE) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(w->cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		int rc = pthread_create(&w->tid, &attr, fn, w);
		pthread_attr_destroy(&attr);
		if (rc) {
			atomic_store(&c->stop, 1);
			snprintf(err, errlen, "pthread_create(thread %u%s) failed: %s", i,
				 w->cpu >= 0 ? ", pinned" : "", strerror(rc));
			for (unsigned k = 0; k < i; k++)
				pthread_join(c->w[k].tid, NULL);
			for (unsigned k = 0; k < i; k++)
				c->w[k].started = false;
			return -1;
		}
		w->started = true;
	}
	return 0;
}

int workers_join(struct rb_ctx *c, char *err, size_t errlen)
{
	int rc = 0;

	if (c->stop_fd >= 0) { /* wake receive threads asleep on their channel */
		uint64_t one = 1;
		if (write(c->stop_fd, &one, sizeof(one)) < 0)
			rb_warn("eventfd write (stop): %s", strerror(errno));
	}

	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		if (!w->started)
			continue;
		pthread_join(w->tid, NULL);
		w->started = false;
	}
	/* Report the first real failure, not the "stopped" echoes of the others. */
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (unsigned i = 0; i < c->nw; i++) {
			struct rb_worker *w = &c->w[i];
			if (!w->rc)
				continue;
			if (pass == 0 && w->stopped_echo)
				continue;
			snprintf(err, errlen, "%s", w->err);
			rc = -1;
			break;
		}
	return rc;
}
