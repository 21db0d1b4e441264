/*
 * test_plan.c - the data path's pure rules (plan.h): wr_id encoding, the
 * signaling schedule, quotas, batch and send-queue credit, rings, QP types,
 * inline and CQ sizing (the verb table's own tests: test_verb.c). Boundaries first:
 * the last value a rule accepts and the first it refuses. A small model of
 * the bw loop (post by plan_batch_size, complete at signaled WRs) shows the
 * window rule of test_validate is exactly the bound below which the loop
 * stalls.
 */
#include "unit.h"

#include "options.h"
#include "plan.h"

static char err[512];

static void send_id_round_trips_at_its_limits(void **state)
{
	(void)state;
	assert_int_equal(plan_send_id(0, 0), 0);
	assert_int_equal(plan_send_id_qp(plan_send_id(0, 0)), 0);
	assert_int_equal(plan_send_id_upto(plan_send_id(0, 0)), 1);
	/* the largest seq keeps its QP; seq 2^40 wraps to 0, not into the QP bits */
	uint64_t id = plan_send_id(5, PLAN_ID_MASK);
	assert_int_equal(plan_send_id_qp(id), 5);
	assert_int_equal(plan_send_id_upto(id), UINT64_C(1) << 40);
	id = plan_send_id(5, UINT64_C(1) << 40);
	assert_int_equal(plan_send_id_qp(id), 5);
	assert_int_equal(plan_send_id_upto(id), 1);
	/* the largest QP index of a thread (RB_MAX_QPS_THREAD - 1) and a 24-bit one */
	id = plan_send_id(RB_MAX_QPS_THREAD - 1, 12345);
	assert_int_equal(plan_send_id_qp(id), RB_MAX_QPS_THREAD - 1);
	assert_int_equal(plan_send_id_upto(id), 12346);
	id = plan_send_id(0xffffff, 7);
	assert_int_equal(plan_send_id_qp(id), 0xffffff);
	assert_int_equal(id, (UINT64_C(0xffffff) << 40) | 7);
	/* neighbours differ */
	assert_true(plan_send_id(1, 0) != plan_send_id(0, 0));
	assert_int_equal(plan_send_id(1, 0) - plan_send_id(0, PLAN_ID_MASK), 1);
}

static void recv_id_round_trips_at_its_limits(void **state)
{
	(void)state;
	uint64_t id = plan_recv_id(0, 0);
	assert_int_equal(id, 0);
	id = plan_recv_id(RB_MAX_QPS_THREAD - 1, RB_MAX_DEPTH - 1);
	assert_int_equal(plan_recv_id_qp(id), RB_MAX_QPS_THREAD - 1);
	assert_int_equal(plan_recv_id_slot(id), RB_MAX_DEPTH - 1);
	id = plan_recv_id(3, 0xffffffffu);
	assert_int_equal(plan_recv_id_qp(id), 3);
	assert_int_equal(plan_recv_id_slot(id), 0xffffffffu);
	assert_int_equal(id, (UINT64_C(3) << 32) | 0xffffffffu);
	/* a slot above 32 bits does not leak into the QP */
	assert_int_equal(plan_recv_id_qp(plan_recv_id(3, UINT64_C(1) << 32)), 3);
	assert_int_equal(plan_recv_id(1, 0), UINT64_C(1) << 32);
}

static void every_sig_th_wr_and_the_last_are_signaled(void **state)
{
	(void)state;
	/* sig 4, quota 10: seqs 3, 7 (multiples) and 9 (the last) */
	const bool want[10] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1 };
	for (uint64_t s = 0; s < 10; s++)
		if (plan_signaled(s, 4, 10) != want[s])
			fail_msg("seq %llu: signaled %d, expected %d", (unsigned long long)s,
				 plan_signaled(s, 4, 10), want[s]);
	/* sig 1: every WR */
	for (uint64_t s = 0; s < 20; s++)
		assert_true(plan_signaled(s, 1, UINT64_MAX));
	/* no last WR in duration mode (quota UINT64_MAX) or quota 0 */
	assert_false(plan_signaled(0, 2, UINT64_MAX));
	assert_true(plan_signaled(1, 2, UINT64_MAX));
	assert_false(plan_signaled(0, 2, 0));
	/* a quota that is a multiple: the last is signaled once, by both reasons */
	assert_true(plan_signaled(7, 4, 8));
	assert_false(plan_signaled(6, 4, 8));
	/* the largest interval (sq_depth 65536) */
	assert_false(plan_signaled(RB_MAX_DEPTH - 2, RB_MAX_DEPTH, UINT64_MAX));
	assert_true(plan_signaled(RB_MAX_DEPTH - 1, RB_MAX_DEPTH, UINT64_MAX));
}

/* The posting loops' countdown (plan_sig_step) signals exactly the WRs of
 * plan_signaled's interval rule, for every interval up to a few hundred
 * WRs past several wraps, and the largest interval at its boundary. */
static void sig_countdown_matches_the_interval_rule(void **state)
{
	(void)state;
	for (uint64_t sig = 1; sig <= 33; sig++) {
		uint64_t left = sig;
		for (uint64_t s = 0; s < 10 * sig + 7; s++) {
			bool got = plan_sig_step(&left, sig);
			if (got != plan_signaled(s, sig, UINT64_MAX))
				fail_msg("sig %llu seq %llu: countdown %d, rule %d",
					 (unsigned long long)sig, (unsigned long long)s, got, !got);
			assert_true(left >= 1 && left <= sig);
		}
	}
	uint64_t left = RB_MAX_DEPTH;
	for (uint64_t s = 0; s < RB_MAX_DEPTH - 1; s++)
		assert_false(plan_sig_step(&left, RB_MAX_DEPTH));
	assert_true(plan_sig_step(&left, RB_MAX_DEPTH));
	assert_int_equal(left, RB_MAX_DEPTH);
}

/* Every WR below the quota has a signaled WR at or after it within sig WRs,
 * so selective signaling leaves no WR without a completion to come. */
static void no_wr_is_left_without_a_later_signaled_one(void **state)
{
	(void)state;
	for (uint64_t sig = 1; sig <= 9; sig++)
		for (uint64_t quota = 1; quota <= 30; quota++)
			for (uint64_t s = 0; s < quota; s++) {
				uint64_t k = s;
				while (k < quota && !plan_signaled(k, sig, quota))
					k++;
				if (k == quota || k - s >= sig)
					fail_msg("sig %llu quota %llu: WR %llu has no signaled WR "
						 "within %llu after it", (unsigned long long)sig,
						 (unsigned long long)quota, (unsigned long long)s,
						 (unsigned long long)sig);
			}
}

/* plan_signaled_in (the poll loop's count of CQEs to come) equals the
 * number of WRs plan_signaled marks in the batch, for batches that end
 * before, at and (duration mode) without the quota. */
static void signaled_in_a_batch_counts_what_post_marks(void **state)
{
	(void)state;
	for (uint64_t sig = 1; sig <= 8; sig++)
		for (uint64_t quota = 1; quota <= 24; quota++)
			for (uint64_t before = 0; before < quota; before++)
				for (uint64_t n = 1; before + n <= quota; n++) {
					uint64_t count = 0;
					for (uint64_t s = before; s < before + n; s++)
						count += plan_signaled(s, sig, quota);
					if (plan_signaled_in(before, n, sig, quota) != count)
						fail_msg("sig %llu quota %llu [%llu, +%llu): %llu, marked "
							 "%llu", (unsigned long long)sig,
							 (unsigned long long)quota,
							 (unsigned long long)before, (unsigned long long)n,
							 (unsigned long long)plan_signaled_in(before, n, sig,
											      quota),
							 (unsigned long long)count);
				}
	assert_int_equal(plan_signaled_in(0, 4, 4, UINT64_MAX), 1);
	assert_int_equal(plan_signaled_in(0, 3, 4, UINT64_MAX), 0);
	assert_int_equal(plan_signaled_in(3, 1, 4, UINT64_MAX), 1);
	assert_int_equal(plan_signaled_in(0, 5, 4, 5), 2);   /* seq 3 and the last, 4 */
	assert_int_equal(plan_signaled_in(0, 8, 4, 8), 2);   /* quota a multiple: no extra */
}

static void quotas_split_iterations_over_qps(void **state)
{
	(void)state;
	/* 10 over 3: 4, 3, 3 */
	assert_int_equal(plan_quota(10, 3, 0), 4);
	assert_int_equal(plan_quota(10, 3, 1), 3);
	assert_int_equal(plan_quota(10, 3, 2), 3);
	/* 11 over 3: 4, 4, 3 (the boundary of k < iters % nqp) */
	assert_int_equal(plan_quota(11, 3, 1), 4);
	assert_int_equal(plan_quota(11, 3, 2), 3);
	/* fewer iterations than QPs: the first ones get 1 */
	assert_int_equal(plan_quota(2, 4, 1), 1);
	assert_int_equal(plan_quota(2, 4, 2), 0);
	/* one QP takes all; an exact split has no remainder */
	assert_int_equal(plan_quota(7, 1, 0), 7);
	assert_int_equal(plan_quota(9, 3, 0), 3);
	assert_int_equal(plan_quota(9, 3, 2), 3);
	/* duration mode */
	assert_int_equal(plan_quota(0, 3, 0), UINT64_MAX);
	/* the quotas always sum to iters and differ by at most 1 */
	for (uint64_t nqp = 1; nqp <= 7; nqp++)
		for (uint64_t it = 1; it <= 40; it++) {
			uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
			for (uint64_t k = 0; k < nqp; k++) {
				uint64_t q = plan_quota(it, nqp, k);
				sum += q;
				lo = q < lo ? q : lo;
				hi = q > hi ? q : hi;
			}
			if (sum != it || hi - lo > 1)
				fail_msg("%llu over %llu QPs: sum %llu, spread %llu",
					 (unsigned long long)it, (unsigned long long)nqp,
					 (unsigned long long)sum, (unsigned long long)(hi - lo));
		}
}

static void stop_quota_rounds_up_to_a_signaled_wr(void **state)
{
	(void)state;
	assert_int_equal(plan_stop_quota(0, 4, false), 0);
	assert_int_equal(plan_stop_quota(0, 4, true), 1);     /* --validate: one op per QP */
	assert_int_equal(plan_stop_quota(1, 4, false), 4);
	assert_int_equal(plan_stop_quota(3, 4, false), 4);
	assert_int_equal(plan_stop_quota(4, 4, false), 4);    /* already a multiple */
	assert_int_equal(plan_stop_quota(4, 4, true), 4);
	assert_int_equal(plan_stop_quota(5, 4, false), 8);
	assert_int_equal(plan_stop_quota(5, 1, false), 5);
	assert_int_equal(plan_stop_quota(1, 1, true), 1);
	/* the new quota's last WR is signaled and nothing posted lies beyond it */
	for (uint64_t sig = 1; sig <= 8; sig++)
		for (uint64_t p = 1; p <= 30; p++) {
			uint64_t q = plan_stop_quota(p, sig, false);
			assert_true(q >= p && q < p + sig);
			assert_true(plan_signaled(q - 1, sig, q));
		}
}

static void batch_is_cut_by_every_limit(void **state)
{
	(void)state;
	assert_int_equal(plan_batch_size(16, 100, 100, 100), 16);
	assert_int_equal(plan_batch_size(16, 5, 100, 100), 5);    /* quota */
	assert_int_equal(plan_batch_size(16, 100, 6, 100), 6);    /* send queue */
	assert_int_equal(plan_batch_size(16, 100, 100, 7), 7);    /* window */
	assert_int_equal(plan_batch_size(16, 16, 16, 16), 16);    /* all equal: none cuts */
	assert_int_equal(plan_batch_size(16, 17, 17, 17), 16);
	assert_int_equal(plan_batch_size(16, 15, 17, 17), 15);
	assert_int_equal(plan_batch_size(16, 17, 15, 17), 15);
	assert_int_equal(plan_batch_size(16, 17, 17, 15), 15);
	assert_int_equal(plan_batch_size(16, 0, 100, 100), 0);
	assert_int_equal(plan_batch_size(16, 100, 0, 100), 0);
	assert_int_equal(plan_batch_size(16, 100, 100, 0), 0);
	assert_int_equal(plan_batch_size(1, UINT64_MAX, 128, 64), 1);
}

static void sq_room_counts_unfreed_wrs(void **state)
{
	(void)state;
	assert_int_equal(plan_sq_room(128, 0, 0), 128);
	assert_int_equal(plan_sq_room(128, 10, 3), 121);
	assert_int_equal(plan_sq_room(128, 131, 3), 0);          /* full */
	assert_int_equal(plan_sq_room(128, 131, 4), 1);
	assert_int_equal(plan_sq_room(1, 1000, 1000), 1);
}

static void rings_wrap_at_their_length(void **state)
{
	(void)state;
	assert_int_equal(plan_ring_next(0, 1), 0);
	assert_int_equal(plan_ring_next(0, 2), 1);
	assert_int_equal(plan_ring_next(1, 2), 0);
	assert_int_equal(plan_ring_next(62, 64), 63);
	assert_int_equal(plan_ring_next(63, 64), 0);
	/* n steps from any k come back to k, visiting every index once */
	for (uint64_t n = 1; n <= 9; n++) {
		uint64_t seen = 0, k = 0;
		for (uint64_t i = 0; i < n; i++) {
			seen |= UINT64_C(1) << k;
			k = plan_ring_next(k, n);
		}
		assert_int_equal(k, 0);
		assert_int_equal(seen, (UINT64_C(1) << n) - 1);
	}
}

static void ping_pong_tags_cycle_1_to_255(void **state)
{
	(void)state;
	assert_int_equal(plan_next_tag(0), 1);
	assert_int_equal(plan_next_tag(1), 2);
	assert_int_equal(plan_next_tag(254), 255);
	assert_int_equal(plan_next_tag(255), 1);
	uint8_t t = 0;
	for (int i = 0; i < 600; i++) {
		uint8_t n = plan_next_tag(t);
		assert_true(n != 0 && n != t);
		t = n;
	}
}

static void qp_types(void **state)
{
	(void)state;
	assert_int_equal(plan_qp_type(RB_TR_RC), IBV_QPT_RC);
	assert_int_equal(plan_qp_type(RB_TR_UC), IBV_QPT_UC);
	assert_int_equal(plan_qp_type(RB_TR_UD), IBV_QPT_UD);
}

static struct rb_test point(uint64_t verb, uint64_t size, uint64_t inline_mode)
{
	struct rb_test t;
	test_defaults(&t);
	t.verb = verb;
	t.size = size;
	t.inline_mode = inline_mode;
	return t;
}

static void inline_request_follows_mode_size_and_verb(void **state)
{
	(void)state;
	/* auto: up to 256 bytes inline (the documented rule, docs/rdma_bench.md) */
	struct rb_test t = point(RB_VERB_WRITE, 256, RB_INLINE_AUTO);
	assert_int_equal(plan_inline_request(&t), 256);
	t.size = 257;
	assert_int_equal(plan_inline_request(&t), 0);
	t.inline_mode = RB_INLINE_ON;
	assert_int_equal(plan_inline_request(&t), 257);
	t.inline_mode = RB_INLINE_OFF;
	t.size = 8;
	assert_int_equal(plan_inline_request(&t), 0);
	t = point(RB_VERB_SEND_IMM, 0, RB_INLINE_AUTO);
	assert_int_equal(plan_inline_request(&t), 0);
	t = point(RB_VERB_SEND, 32, RB_INLINE_AUTO);
	assert_int_equal(plan_inline_request(&t), 32);
	t = point(RB_VERB_WRITE_IMM, 32, RB_INLINE_ON);
	assert_int_equal(plan_inline_request(&t), 32);
	/* READ and atomics have no local payload to inline */
	t = point(RB_VERB_READ, 32, RB_INLINE_ON);
	assert_int_equal(plan_inline_request(&t), 0);
	t = point(RB_VERB_FETCH_ADD, 8, RB_INLINE_AUTO);
	assert_int_equal(plan_inline_request(&t), 0);
	t = point(RB_VERB_CMP_SWAP, 8, RB_INLINE_ON);
	assert_int_equal(plan_inline_request(&t), 0);

	assert_true(plan_use_inline(64, 64, 64));      /* the cap covers the size exactly */
	assert_false(plan_use_inline(64, 65, 64));
	assert_false(plan_use_inline(0, 0, 64));        /* not asked */
	assert_true(plan_use_inline(1, 0, 0));
}

static struct rb_test cq_point(uint64_t verb, uint64_t window, uint64_t qps, uint64_t rq,
			       uint64_t cq)
{
	struct rb_test t;
	test_defaults(&t);
	t.verb = verb;
	t.window = window;
	t.qps_per_thread = qps;
	t.rq_depth = rq;
	t.cq_depth = cq;
	return t;
}

#define assert_cq_refused(t, slots, max, ...)                                          \
	do {                                                                           \
		uint64_t s_ = 0, r_ = 0;                                               \
		err[0] = '\0';                                                         \
		assert_int_equal(plan_cq_depths(&(t), slots, max, &s_, &r_, err,        \
						sizeof(err)), -1);                     \
		const char *subs[] = { __VA_ARGS__ };                                  \
		for (size_t i_ = 0; i_ < sizeof(subs) / sizeof(subs[0]); i_++)         \
			if (!strstr(err, subs[i_]))                                    \
				fail_msg("message \"%s\" lacks \"%s\"", err, subs[i_]); \
	} while (0)

static void cq_sizes_cover_what_can_be_outstanding(void **state)
{
	(void)state;
	uint64_t s, r;
	/* WRITE, window 64, 2 QPs: send CQ 64 + 2 x 2 + 16 */
	struct rb_test t = cq_point(RB_VERB_WRITE, 64, 2, 128, 0);
	assert_int_equal(plan_cq_depths(&t, 1, 4096, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(s, 84);
	assert_int_equal(r, 2 * 1 + 16);
	/* clamped to the device's max_cqe, not refused, without --cq-depth */
	assert_int_equal(plan_cq_depths(&t, 1, 84, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(s, 84);
	assert_int_equal(plan_cq_depths(&t, 1, 83, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(s, 83);
	/* SEND: the receive CQ holds every posted receive */
	t = cq_point(RB_VERB_SEND, 64, 3, 100, 0);
	assert_int_equal(plan_cq_depths(&t, 100, 4096, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(r, 316);
	assert_int_equal(plan_cq_depths(&t, 100, 316, &s, &r, err, sizeof(err)), 0);
	assert_cq_refused(t, 100, 315, "receive CQ of 316", "max_cqe 315", "--rq-depth 100",
			  "lower --rq-depth");
	/* a non-receiving verb's receive CQ is never refused for its size */
	t = cq_point(RB_VERB_WRITE, 64, 3, 100, 0);
	assert_int_equal(plan_cq_depths(&t, 100, 200, &s, &r, err, sizeof(err)), 0);
}

static void cq_depth_option_boundaries(void **state)
{
	(void)state;
	uint64_t s, r;
	/* --cq-depth must cover window + 1 */
	struct rb_test t = cq_point(RB_VERB_WRITE, 64, 1, 128, 65);
	assert_int_equal(plan_cq_depths(&t, 1, 4096, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(s, 65);
	assert_int_equal(r, 65);
	t.cq_depth = 64;
	assert_cq_refused(t, 1, 4096, "--cq-depth 64", "-w/--window 64 + 1");
	/* and, for receiving verbs, every posted receive (QPs x rq_depth) */
	t = cq_point(RB_VERB_SEND, 16, 2, 100, 200);
	assert_int_equal(plan_cq_depths(&t, 100, 4096, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(r, 200);
	t.cq_depth = 199;
	assert_cq_refused(t, 100, 4096, "--cq-depth 199", "below 200 posted receives",
			  "--rq-depth 100 x 2 QPs");
	/* above the device: refused, naming both */
	t = cq_point(RB_VERB_WRITE, 64, 1, 128, 1000);
	assert_int_equal(plan_cq_depths(&t, 1, 1000, &s, &r, err, sizeof(err)), 0);
	assert_cq_refused(t, 1, 999, "--cq-depth 1000", "max_cqe 999");
}

/*
 * A model of bw_phase in cqe mode, duration mode (no quota): each round
 * posts round robin over the QPs by plan_batch_size (postlist 1) until the
 * window is full or a whole pass over the QPs posts nothing, then the
 * NIC completes every signaled WR posted; a CQE of seq n frees the QP's
 * WRs up to n. Returns true when a round neither posts nor completes
 * anything (the loop would wait for ever).
 */
static bool model_stalls(uint64_t nqp, uint64_t sig, uint64_t window, uint64_t sq)
{
	uint64_t posted[8] = { 0 }, completed[8] = { 0 }, last_sig[8] = { 0 };
	uint64_t outstanding = 0;
	unsigned cursor = 0;

	for (int round = 0; round < 200; round++) {
		bool progress = false;
		for (uint64_t idle = 0; idle < nqp && outstanding < window;) {
			unsigned q = cursor;
			cursor = (unsigned)plan_ring_next(cursor, nqp);
			uint64_t n = plan_batch_size(1, UINT64_MAX - posted[q],
						     plan_sq_room(sq, posted[q], completed[q]),
						     window - outstanding);
			idle = n ? 0 : idle + 1;
			for (uint64_t i = 0; i < n; i++, posted[q]++)
				if (plan_signaled(posted[q], sig, UINT64_MAX))
					last_sig[q] = plan_send_id(q, posted[q]) + 1;
			outstanding += n;
			progress |= n > 0;
		}
		for (unsigned q = 0; q < nqp; q++) {
			if (!last_sig[q])
				continue;
			uint64_t upto = plan_send_id_upto(last_sig[q] - 1);
			if (plan_send_id_qp(last_sig[q] - 1) != q)
				fail_msg("wr_id of QP %u decodes to QP %u", q,
					 plan_send_id_qp(last_sig[q] - 1));
			if (upto > completed[q]) {
				outstanding -= upto - completed[q];
				completed[q] = upto;
				progress = true;
			}
		}
		if (!progress)
			return true;
	}
	return false;
}

/* The window rule of test_validate (window >= QPs x (interval - 1) + 1) is
 * exactly where the loop stops stalling, and test_validate draws it there. */
static void window_rule_is_the_stall_bound(void **state)
{
	(void)state;
	for (uint64_t nqp = 1; nqp <= 4; nqp++)
		for (uint64_t sig = 1; sig <= 8; sig++) {
			uint64_t need = nqp * (sig - 1) + 1;
			struct rb_test t;
			test_defaults(&t);
			t.iters = 1000;
			t.qps_per_thread = nqp;
			t.signal_interval = sig;
			t.sq_depth = 64;
			t.window = need;
			if (model_stalls(nqp, sig, need, 64))
				fail_msg("%llu QPs, interval %llu: window %llu stalls",
					 (unsigned long long)nqp, (unsigned long long)sig,
					 (unsigned long long)need);
			if (test_validate(&t, err, sizeof(err)))
				fail_msg("window %llu refused: %s", (unsigned long long)need, err);
			if (need == 1)
				continue;
			if (!model_stalls(nqp, sig, need - 1, 64))
				fail_msg("%llu QPs, interval %llu: window %llu does not stall",
					 (unsigned long long)nqp, (unsigned long long)sig,
					 (unsigned long long)(need - 1));
			t.window = need - 1;
			if (!test_validate(&t, err, sizeof(err)))
				fail_msg("%llu QPs, interval %llu: window %llu accepted",
					 (unsigned long long)nqp, (unsigned long long)sig,
					 (unsigned long long)(need - 1));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(send_id_round_trips_at_its_limits),
		cmocka_unit_test(recv_id_round_trips_at_its_limits),
		cmocka_unit_test(every_sig_th_wr_and_the_last_are_signaled),
		cmocka_unit_test(sig_countdown_matches_the_interval_rule),
		cmocka_unit_test(no_wr_is_left_without_a_later_signaled_one),
		cmocka_unit_test(signaled_in_a_batch_counts_what_post_marks),
		cmocka_unit_test(quotas_split_iterations_over_qps),
		cmocka_unit_test(stop_quota_rounds_up_to_a_signaled_wr),
		cmocka_unit_test(batch_is_cut_by_every_limit),
		cmocka_unit_test(sq_room_counts_unfreed_wrs),
		cmocka_unit_test(rings_wrap_at_their_length),
		cmocka_unit_test(ping_pong_tags_cycle_1_to_255),
		cmocka_unit_test(qp_types),
		cmocka_unit_test(inline_request_follows_mode_size_and_verb),
		cmocka_unit_test(cq_sizes_cover_what_can_be_outstanding),
		cmocka_unit_test(cq_depth_option_boundaries),
		cmocka_unit_test(window_rule_is_the_stall_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
