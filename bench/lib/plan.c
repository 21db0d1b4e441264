/*
 * plan.c - the data path's setup rules (plan.h): QP type, inline request
 * and CQ sizes. Pure
 * functions of the test description and the device's numbers; the verbs
 * calls that act on them are in bench/lib/ctx.c and bench/lib/qp.c. The per-WR
 * rules are static inline in include/plan.h.
 */
#include <stdio.h>

#include "errbuf.h"
#include "plan.h"

enum ibv_qp_type plan_qp_type(uint64_t transport)
{
	return transport == RB_TR_UC ? IBV_QPT_UC : transport == RB_TR_UD ? IBV_QPT_UD : IBV_QPT_RC;
}

uint32_t plan_inline_request(const struct rb_test *t)
{
	if (!verb_row(t->verb)->inline_ok || t->inline_mode == RB_INLINE_OFF)
		return 0;
	if (t->inline_mode == RB_INLINE_ON)
		return (uint32_t)t->size;
	return t->size <= PLAN_INLINE_AUTO_MAX ? (uint32_t)t->size : 0;
}

bool plan_use_inline(uint32_t req, uint64_t size, uint32_t cap)
{
	return req > 0 && size <= cap;
}

int plan_cq_depths(const struct rb_test *t, uint64_t recv_slots, uint64_t max_cqe,
		   uint64_t *send, uint64_t *recv, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);
	uint64_t s = t->window + 2 * nqp + 16;
	uint64_t posted = nqp * recv_slots;   /* receives posted per thread */
	uint64_t r = posted + 16;

	if (s > max_cqe)
		s = max_cqe; /* the loops never have more signaled WRs outstanding than the CQ holds */
	if (t->cq_depth) {
		if (t->cq_depth < t->window + 1)
			return rb_fail(err, errlen,
				    "--cq-depth %llu: below -w/--window %llu + 1: signaled completions "
				    "could overflow the CQ", (unsigned long long)t->cq_depth,
				    (unsigned long long)t->window);
		s = t->cq_depth;
		if (verb_needs_recv(t->verb) && t->cq_depth < posted)
			return rb_fail(err, errlen,
				    "--cq-depth %llu: below %llu posted receives per thread (--rq-depth "
				    "%llu x %llu QPs); raise --cq-depth or lower --rq-depth",
				    (unsigned long long)t->cq_depth, (unsigned long long)posted,
				    (unsigned long long)t->rq_depth, (unsigned long long)nqp);
		r = t->cq_depth;
	}
	if (verb_needs_recv(t->verb) && r > max_cqe)
		return rb_fail(err, errlen,
			    "receive CQ of %llu entries (--rq-depth %llu x %llu QPs per thread) is above "
			    "the device's max_cqe %llu; lower --rq-depth or the QPs per thread",
			    (unsigned long long)r, (unsigned long long)t->rq_depth,
			    (unsigned long long)nqp, (unsigned long long)max_cqe);
	if (s > max_cqe)
		return rb_fail(err, errlen, "--cq-depth %llu above the device's max_cqe %llu",
			    (unsigned long long)s, (unsigned long long)max_cqe);
	*send = s;
	*recv = r;
	return 0;
}
