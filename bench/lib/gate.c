/*
 * gate.c - the start barrier table of fan-in points and the clock offset
 * of the GATE/GO exchange (include/gate.h says what and why).
 *
 * How it works: a fixed array of slots, found by (run_id, run_key, point)
 * with a linear scan (the key compared in constant time: guard.h) (at most GATE_SLOTS barriers are open at once: a handful of
 * runs, one point each). Counting: `arrived` goes up on GATE and down when
 * a process leaves before the release; the barrier opens when it reaches
 * `procs`. `inside` counts processes still holding the slot: the slot is
 * free when it drops to 0.
 */
#include <stdio.h>
#include <string.h>

#include "errbuf.h"
#include "gate.h"
#include "guard.h"

static struct gate_slot *find(struct gate_table *t, const char *run_id, const char *run_key,
			      uint64_t point)
{
	for (int i = 0; i < GATE_SLOTS; i++) {
		struct gate_slot *s = &t->s[i];
		if (s->state != GATE_FREE && s->point == point && strcmp(s->run_id, run_id) == 0 &&
		    guard_token_equal(s->run_key, run_key, CTRL_TOKEN_CAP))
			return s;
	}
	return NULL;
}

/* A free slot (a slot is freed when its last process leaves: one still
 * held by a waiting process is never handed out again). */
static struct gate_slot *take(struct gate_table *t)
{
	for (int i = 0; i < GATE_SLOTS; i++)
		if (t->s[i].state == GATE_FREE)
			return &t->s[i];
	return NULL;
}

/* Time since the slot's first arrival; 0 when now_ns is earlier. The
 * server reads the clock under the table's lock, but a caller that read it
 * before locking could pass a time earlier than first_ns: an unsigned
 * difference would then wrap and fail a barrier that had just opened (seen
 * as "already failed (1 of 2 processes were ready in time)"). */
static uint64_t waited_ns(const struct gate_slot *s, uint64_t now_ns)
{
	return now_ns > s->first_ns ? now_ns - s->first_ns : 0;
}

static int fail_timeout(struct gate_slot *s, uint64_t now_ns, char *err, size_t errlen)
{
	s->state = GATE_FAILED;
	return rb_fail(err, errlen, "%u of %u processes of run '%s' point %llu ready after %.1f s "
		       "(start barrier, --procs %u; --timeout bounds the wait)", s->arrived, s->procs,
		       s->run_id, (unsigned long long)s->point, (double)waited_ns(s, now_ns) / 1e9,
		       s->procs);
}

int gate_arrive(struct gate_table *t, const char *run_id, const char *run_key, uint64_t point,
		uint32_t procs, uint64_t now_ns, uint64_t timeout_ns, uint64_t need_ns, int *slot,
		uint64_t *release_ns, char *err, size_t errlen)
{
	struct gate_slot *s = find(t, run_id, run_key, point);

	if (procs < 2 || procs > CTRL_MAX_PROCS)
		return rb_fail(err, errlen, "--procs %u: must be 2..%u for a start barrier", procs,
			       CTRL_MAX_PROCS);
	if (!run_id[0])
		return rb_fail(err, errlen, "start barrier without a run id: give every process "
			       "of the point the same --run-id");
	if (s && s->state == GATE_WAITING && waited_ns(s, now_ns) > s->timeout_ns)
		(void)fail_timeout(s, now_ns, err, errlen);
	if (s && s->state == GATE_FAILED)
		return rb_fail(err, errlen, "the start barrier of run '%s' point %llu already failed "
			       "(%u of %u processes were ready in time)", run_id,
			       (unsigned long long)point, s->arrived, s->procs);
	if (s && s->state == GATE_RELEASED)
		return rb_fail(err, errlen, "run '%s' point %llu: one process more than --procs %u "
			       "reached the start barrier after its release; give each process its "
			       "own --proc-index and the same --procs", run_id,
			       (unsigned long long)point, s->procs);
	if (s && s->procs != procs)
		return rb_fail(err, errlen, "run '%s' point %llu: this process says --procs %u, the "
			       "%u already at the start barrier said %u; give every process of a run "
			       "the same --procs", run_id, (unsigned long long)point, procs,
			       s->arrived, s->procs);
	if (!s) {
		s = take(t);
		if (!s)
			return rb_fail(err, errlen, "run '%s' point %llu: %d start barriers are open "
				       "(the server's limit); wait for other runs to finish", run_id,
				       (unsigned long long)point, GATE_SLOTS);
		memset(s, 0, sizeof(*s));
		s->state = GATE_WAITING;
		snprintf(s->run_id, sizeof(s->run_id), "%s", run_id);
		snprintf(s->run_key, sizeof(s->run_key), "%s", run_key);
		s->point = point;
		s->procs = procs;
		s->first_ns = now_ns;
		s->timeout_ns = timeout_ns;
	}
	s->arrived++;
	s->inside++;
	if (need_ns == 0)
		s->need_unknown = true;
	else if (need_ns > s->need_max_ns)
		s->need_max_ns = need_ns;
	*slot = (int)(s - t->s);
	if (s->arrived == s->procs) {
		s->state = GATE_RELEASED;
		s->release_ns = now_ns;
		*release_ns = now_ns;
		return GATE_OPEN;
	}
	return GATE_WAIT;
}

int gate_poll(struct gate_table *t, int slot, uint64_t now_ns, uint64_t *release_ns, char *err,
	      size_t errlen)
{
	struct gate_slot *s = &t->s[slot];

	switch (s->state) {
	case GATE_RELEASED:
		*release_ns = s->release_ns;
		return GATE_OPEN;
	case GATE_WAITING:
		if (waited_ns(s, now_ns) > s->timeout_ns)
			return fail_timeout(s, now_ns, err, errlen);
		return GATE_WAIT;
	case GATE_FAILED:
		return rb_fail(err, errlen, "%u of %u processes of run '%s' point %llu ready before "
			       "the start barrier timed out (--timeout %.1f s)", s->arrived, s->procs,
			       s->run_id, (unsigned long long)s->point, (double)s->timeout_ns / 1e9);
	default:
		return rb_fail(err, errlen, "internal error: start barrier slot %d is free", slot);
	}
}

uint64_t gate_lead_ns(const struct gate_table *t, int slot)
{
	const struct gate_slot *s = &t->s[slot];

	if (s->need_unknown || s->need_max_ns >= GATE_LEAD_MAX_NS / GATE_LEAD_FACTOR)
		return GATE_LEAD_MAX_NS;
	uint64_t lead = GATE_LEAD_MIN_NS + GATE_LEAD_FACTOR * s->need_max_ns;
	return lead < GATE_LEAD_MAX_NS ? lead : GATE_LEAD_MAX_NS;
}

void gate_leave(struct gate_table *t, int slot)
{
	struct gate_slot *s = &t->s[slot];

	if (s->state == GATE_FREE || s->inside == 0)
		return;
	if (s->state == GATE_WAITING)
		s->arrived--;
	s->inside--;
	if (s->inside == 0) {
		s->state = GATE_FREE;
		memset(s->run_key, 0, sizeof(s->run_key));
	}
}

int gate_clock_offset(uint64_t c_send, uint64_t s_arrive, uint64_t s_release, uint64_t c_recv,
		      int64_t *offset_ns, uint64_t *err_ns)
{
	if (c_recv < c_send || s_release < s_arrive)
		return -1;
	/* both clocks count ns since their host's boot: well below 2^63 */
	int64_t there = (int64_t)s_arrive - (int64_t)c_send;   /* offset + one-way delay out */
	int64_t back = (int64_t)s_release - (int64_t)c_recv;   /* offset - one-way delay back */
	*offset_ns = there / 2 + back / 2 + (there % 2 + back % 2) / 2;
	uint64_t rtt = c_recv - c_send, hold = s_release - s_arrive;
	*err_ns = rtt > hold ? (rtt - hold) / 2 : 0;
	return 0;
}

uint64_t gate_err_aged(uint64_t err_ns, uint64_t at_ns, uint64_t now_ns)
{
	if (now_ns <= at_ns)
		return err_ns;
	uint64_t age = now_ns - at_ns;
	/* age * ppm / 10^6 without overflow: ages up to 2^64 / 500 ns (1 year) */
	if (age > UINT64_MAX / GATE_DRIFT_PPM)
		return UINT64_MAX;
	uint64_t grown = (age * GATE_DRIFT_PPM + 999999) / 1000000;
	return grown > UINT64_MAX - err_ns ? UINT64_MAX : err_ns + grown;
}
