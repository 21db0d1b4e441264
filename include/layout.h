/*
 * layout.h - the registered buffer's layout of one point (bench/lib/layout.c),
 * identical on both ends so that the remote address of any slot follows
 * from the peer's base address:
 *   [atomic counters: Z x stride] [QP region 0] [QP region 1] ... [READ slots]
 * (ctx.h describes each part). All sizes in bytes.
 */
#ifndef RDMA_BENCH_LAYOUT_H
#define RDMA_BENCH_LAYOUT_H

#include <stdint.h>

#include "options.h"

struct rb_layout {
	uint64_t counters_off, counters_len;
	uint64_t regions_off;
	uint64_t send_len;     /* send slot (or atomic result ring), 64-aligned */
	uint64_t sq_ring;      /* entries of the per-SQ-slot rings (atomic results, post
	                          times): sq_depth rounded up to a power of two, so
	                          the data path indexes them with seq & (sq_ring - 1)
	                          and never divides */
	uint64_t recv_slot;    /* bytes per receive slot, 64-aligned */
	uint64_t recv_slots;   /* rq_depth if the verb consumes receives, else 1 */
	uint64_t region_len;   /* send_len + recv_slot * recv_slots */
	uint64_t nqp_total;
	uint64_t poll_off;     /* READ slots (--read-completion poll), after the regions */
	uint64_t poll_slot;    /* bytes per READ slot, 64-aligned; 0 without poll */
	uint64_t poll_slots;   /* threads x window with poll, else 0 */
	uint64_t total;        /* bytes, multiple of the page size */
};

/* Pure: the layout for a test t (its verb, size, depths, QPs and
 * atomic counters); total rounded up to the page size. */
void layout_compute(const struct rb_test *t, struct rb_layout *l);

#endif /* RDMA_BENCH_LAYOUT_H */
