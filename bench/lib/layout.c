/*
 * layout.c - the registered buffer's layout of a test (layout_compute,
 * layout.h): a pure function of the test, shared by the context that
 * allocates the buffer (bench/lib/ctx.c) and the server's memory accounting
 * before it (bench/lib/guard.c).
 */
#include <string.h>

#include "layout.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

void layout_compute(const struct rb_test *t, struct rb_layout *l)
{
	uint64_t page = 4096;
	uint64_t nqp = test_qps_per_thread(t) * t->threads;
	uint64_t grh = t->transport == RB_TR_UD ? RB_UD_GRH_BYTES : 0;

	memset(l, 0, sizeof(*l));
	l->counters_off = 0;
	l->counters_len = verb_is_atomic(t->verb) ? align_up(t->atomic_counters * t->stride, 64) : 0;
	l->regions_off = align_up(l->counters_len, 64);
	l->send_len = align_up(t->size ? t->size : 1, 64);
	l->sq_ring = 1;
	while (l->sq_ring < t->sq_depth)
		l->sq_ring <<= 1;
	if (verb_is_atomic(t->verb))
		l->send_len = align_up(l->sq_ring * 8, 64);
	l->recv_slot = align_up(t->size + grh ? t->size + grh : 1, 64);
	l->recv_slots = verb_needs_recv(t->verb) ? t->rq_depth : 1;
	l->region_len = l->send_len + l->recv_slot * l->recv_slots;
	l->nqp_total = nqp;
	l->poll_off = l->regions_off + l->region_len * nqp;  /* a multiple of 64 */
	if (test_read_poll(t)) {
		l->poll_slot = align_up(t->size, 64);
		l->poll_slots = t->window * t->threads;
	}
	l->total = align_up(l->poll_off + l->poll_slot * l->poll_slots, page);
}
