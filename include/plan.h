/*
 * plan.h - the data path's pure rules: what the posting and polling loops
 * (rdma_bench's bench/rdma_bench/post*.c, rdma_seq's bench/apps/rt/), QP
 * setup (bench/lib/qp.c) and the context (bench/lib/ctx.c)
 * decide, as functions of plain numbers, so that each rule is unit-tested
 * on the host (tests/unit/test_plan.c) without a device.
 *
 * Two kinds:
 *  - hot-path rules (wr_id encoding, the signaling schedule, quotas, batch
 *    sizing, ring and window credit arithmetic): static inline below, no
 *    allocation, no locks, no formatting; the loops call them per WR;
 *  - setup rules (QP type, inline request, CQ sizes): bench/lib/plan.c, called
 *    once per point. What a verb is (opcode, transports, access, receives)
 *    is the verb table's (verb.h).
 *
 * Counting convention: a QP's WRs of one phase are numbered seq = 0, 1, ...
 * in posting order; "posted", "completed", "quota" count WRs of the phase.
 */
#ifndef RDMA_BENCH_PLAN_H
#define RDMA_BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "options.h"

/* Work completions per ibv_poll_cq in every polling loop (a struct ibv_wc
 * array of this many on the polling thread's stack). */
#define RB_POLL_BATCH 32

/* ---- wr_id of send WRs --------------------------------------------------
 * The wr_id is 64 bits the consumer chooses and gets back in the WC (IB spec
 * 11.4.1.1 Post Send Request, 11.4.2.1 Poll for Completion). A send WR
 * carries (QP index within the thread << 40) | (seq mod 2^40): with
 * selective signaling a CQE for seq n completes every WR of that QP up to n
 * (IB spec 10.8.6: WRs of one send queue complete in order).
 * Shapes: qp < 2^24 (RB_MAX_QPS_THREAD is 2^16), seq wraps at 2^40. */
#define PLAN_ID_SHIFT 40
#define PLAN_ID_MASK ((UINT64_C(1) << PLAN_ID_SHIFT) - 1)

static inline uint64_t plan_send_id(uint32_t qp, uint64_t seq)
{
	return ((uint64_t)qp << PLAN_ID_SHIFT) | (seq & PLAN_ID_MASK);
}

/* QP index within the thread of a send wr_id. */
static inline uint32_t plan_send_id_qp(uint64_t wr_id)
{
	return (uint32_t)(wr_id >> PLAN_ID_SHIFT);
}

/* WRs of the QP that a completion of wr_id covers: its seq + 1 (all WRs
 * up to and including it, IB spec 10.8.6). */
static inline uint64_t plan_send_id_upto(uint64_t wr_id)
{
	return (wr_id & PLAN_ID_MASK) + 1;
}

/* ---- wr_id of receive WRs -----------------------------------------------
 * (QP index within the thread << 32) | receive slot; slot < rq_depth
 * (RB_MAX_DEPTH, 2^16), so both halves fit 32 bits. */
static inline uint64_t plan_recv_id(uint32_t qp, uint64_t slot)
{
	return ((uint64_t)qp << 32) | (slot & 0xffffffffu);
}

static inline uint32_t plan_recv_id_qp(uint64_t wr_id)
{
	return (uint32_t)(wr_id >> 32);
}

static inline uint64_t plan_recv_id_slot(uint64_t wr_id)
{
	return wr_id & 0xffffffffu;
}

/* ---- signaling schedule -------------------------------------------------
 * Selective signaling (the paper's section 3.3 and 4.1, "unsignaled
 * verbs"; IB spec 10.8.6 / 11.4.1.1: an unsignaled WR's send queue slot is
 * freed by the next signaled completion of that queue): WR seq of a QP is
 * signaled when (seq + 1) is a multiple of sig, or it is the QP's last WR
 * of the phase (seq + 1 == quota), so no WR is left without a later CQE.
 * sig >= 1; quota 0 (or UINT64_MAX) means "no last WR". */
static inline bool plan_signaled(uint64_t seq, uint64_t sig, uint64_t quota)
{
	return (seq + 1) % sig == 0 || seq + 1 == quota;
}

/* plan_signaled's interval rule without a division, for the posting
 * loops: *left counts down the WRs up to the next multiple of sig (start
 * a phase at posted 0 with *left = sig); true when WR seq, the next one
 * posted, satisfies (seq + 1) % sig == 0, and *left starts over. */
static inline bool plan_sig_step(uint64_t *left, uint64_t sig)
{
	if (--*left)
		return false;
	*left = sig;
	return true;
}

/* Signaled WRs among seq in [before, before + n) by plan_signaled: the
 * multiples of sig in (before, before + n], plus the quota's last WR when
 * the batch ends at the quota and the quota is not itself a multiple. */
static inline uint64_t plan_signaled_in(uint64_t before, uint64_t n, uint64_t sig,
					uint64_t quota)
{
	uint64_t s = (before + n) / sig - before / sig;
	if (before + n == quota && quota % sig)
		s++;
	return s;
}

/* ---- quotas -------------------------------------------------------------
 * Iteration mode: a thread's iters WRs split over its nqp QPs, QP k gets
 * iters / nqp and the first iters % nqp QPs one more (sums to iters).
 * iters 0 is duration mode: unlimited (UINT64_MAX). nqp >= 1, k < nqp. */
static inline uint64_t plan_quota(uint64_t iters, uint64_t nqp, uint64_t k)
{
	if (!iters)
		return UINT64_MAX;
	return iters / nqp + (k < iters % nqp ? 1 : 0);
}

/* Duration mode, at the deadline: a QP's quota becomes its posts so far
 * rounded up to the next signaled WR (a multiple of sig), so its last CQE
 * covers them all; with --validate at least 1 (every QP carries data). */
static inline uint64_t plan_stop_quota(uint64_t posted, uint64_t sig, bool validate)
{
	uint64_t q = (posted + sig - 1) / sig * sig;
	if (q == 0 && validate)
		q = 1;
	return q;
}

/* ---- window and send queue credit ---------------------------------------
 * WRs of the next postlist (doorbell batch, the paper's section 3.1 and
 * 4.1) on a QP: the postlist cut to what the QP's quota, its send queue
 * and the thread's window have left. 0 = nothing to post now. */
static inline uint64_t plan_batch_size(uint64_t postlist, uint64_t quota_left,
				       uint64_t sq_room, uint64_t window_left)
{
	uint64_t n = postlist;
	if (quota_left < n)
		n = quota_left;
	if (sq_room < n)
		n = sq_room;
	if (window_left < n)
		n = window_left;
	return n;
}

/* Free send queue slots of a QP of sq_depth WRs with posted WRs of which
 * freed have been retired by a completion (IB spec 10.8.6: a WR holds its
 * slot until a CQE at or after it). Requires freed <= posted <= freed +
 * sq_depth (the loops keep it). */
static inline uint64_t plan_sq_room(uint64_t sq_depth, uint64_t posted, uint64_t freed)
{
	return sq_depth - (posted - freed);
}

/* Next index of a ring of n entries (READ slots, round robin over QPs). */
static inline uint64_t plan_ring_next(uint64_t k, uint64_t n)
{
	return k + 1 == n ? 0 : k + 1;
}

/* WRITE ping-pong: the tag after tag, cycling 1..255 (0 means "nothing
 * written yet" in a zeroed receive slot, so it is never used). */
static inline uint8_t plan_next_tag(uint8_t tag)
{
	return (uint8_t)(tag % 255 + 1);
}

/* ---- setup rules (bench/lib/plan.c) ----------------------------------------- */

/* QP type of a transport code (RC, UC, UD); IBV_QPT_RC for unknown. */
enum ibv_qp_type plan_qp_type(uint64_t transport);

/* max_inline_data asked at QP creation: 0 for verbs that carry no local
 * payload to inline (the row's inline_ok: READ, atomics) and with --inline off; the size with
 * --inline on; with auto the size when at most PLAN_INLINE_AUTO_MAX bytes
 * (inline saves the NIC a DMA read: the paper's section 3.3). */
#define PLAN_INLINE_AUTO_MAX 256u
uint32_t plan_inline_request(const struct rb_test *t);

/* Inline is used when it was asked (req > 0) and the smallest cap the QPs
 * granted (ibv_query_qp IBV_QP_CAP) covers the size. */
bool plan_use_inline(uint32_t req, uint64_t size, uint32_t cap);

/*
 * CQ sizes per thread (send CQ, receive CQ), in entries. Send CQ: window +
 * 2 x QPs + 16 (at most `window` signaled WRs outstanding, plus each QP's
 * last-of-phase WR and the ping-pong replies), clamped to max_cqe: the
 * loops never hold more signaled WRs than the CQ has room for. Receive CQ:
 * QPs x recv_slots + 16 (every posted receive can complete; IB spec
 * 11.2.9.1: a CQ overrun is an error). --cq-depth D replaces both; it must
 * be >= window + 1 and, for verbs that consume receives, >= QPs x
 * recv_slots. Refused above max_cqe. Returns 0, or -1 with err naming the
 * value, the limit and the fix.
 */
int plan_cq_depths(const struct rb_test *t, uint64_t recv_slots, uint64_t max_cqe,
		   uint64_t *send, uint64_t *recv, char *err, size_t errlen);

#endif /* RDMA_BENCH_PLAN_H */
