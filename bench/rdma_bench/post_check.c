/*
 * post_check.c - end-of-test checks of buffer contents (post.h): the client's
 * READ and WRITE ping-pong data and READ slots, the server's WRITE data and
 * atomic counter sum, against rb_pattern (ctx.h).
 */
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "post.h"

static uint64_t check_region(struct rb_ctx *c, enum rb_role writer, uint64_t len,
			     char *note, size_t notelen)
{
	uint64_t bad = 0;

	for (uint64_t g = 0; g < c->lay.nqp_total; g++) {
		struct rb_qp *q = ctx_qp(c, g);
		for (uint64_t b = 0; b < len; b++)
			if (q->recv[b] != rb_pattern(c->t.seed, writer, q->gindex, b)) {
				if (!bad)
					snprintf(note, notelen,
						 "QP %u byte %llu is 0x%02x, expected 0x%02x", q->gindex,
						 (unsigned long long)b, q->recv[b],
						 rb_pattern(c->t.seed, writer, q->gindex, b));
				bad++;
				break;
			}
	}
	return bad;
}

/* --read-completion poll: every READ slot that took a READ holds the server's
 * pattern of the QP whose READ filled it last. Returns the bad slots. */
static uint64_t check_read_slots(struct rb_ctx *c, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;
	uint64_t bad = 0;

	for (unsigned i = 0; i < c->nw; i++)
		for (uint64_t k = 0; c->w[i].pslot && k < t->window; k++) {
			const struct rb_pslot *s = &c->w[i].pslot[k];
			if (!s->q)
				continue;
			for (uint64_t b = 0; b < t->size; b++) {
				uint8_t want = rb_pattern(t->seed, RB_ROLE_SERVER, s->q->gindex, b);
				if (s->buf[b] == want)
					continue;
				if (!bad)
					snprintf(note, notelen, "thread %u READ slot %llu (last filled by "
						 "QP %u) byte %llu is 0x%02x, expected 0x%02x", i,
						 (unsigned long long)k, s->q->gindex,
						 (unsigned long long)b, s->buf[b], want);
				bad++;
				break;
			}
		}
	return bad;
}

uint64_t ctx_check_client_buffers(struct rb_ctx *c, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;

	if (c->lay.poll_slots)
		return check_read_slots(c, note, notelen);
	const struct rb_verb_row *row = verb_row(t->verb);
	uint64_t len;

	if (row->region_check && row->region_check(false, t->test == RB_TEST_LAT, t->size, &len))
		return check_region(c, RB_ROLE_SERVER, len, note, notelen);
	return 0;
}

uint64_t ctx_check_server_buffers(struct rb_ctx *c, uint64_t *sum, char *note, size_t notelen)
{
	const struct rb_test *t = &c->t;

	*sum = 0;
	if (verb_is_atomic(t->verb)) {
		for (uint64_t i = 0; i < t->atomic_counters; i++)
			*sum += *(volatile uint64_t *)(c->buf + c->lay.counters_off + i * t->stride);
		return 0;
	}
	const struct rb_verb_row *row = verb_row(t->verb);
	uint64_t len;

	if (row->region_check && row->region_check(true, t->test == RB_TEST_LAT, t->size, &len))
		return check_region(c, RB_ROLE_CLIENT, len, note, notelen);
	return 0;
}

