/*
 * test_gate.c - the start barrier table and the clock offset of the
 * GATE/GO exchange (gate.h): release on the N-th arrival, one barrier per
 * run id and point, the timeout message, refusals, leaving early, slot
 * reuse, and the offset and its error bound.
 */
#include "unit.h"

#include "gate.h"

#define S 1000000000ull   /* ns per second */

static struct gate_table t;
static char err[512];

static int arrive(const char *run, uint64_t point, uint32_t procs, uint64_t now, int *slot,
		  uint64_t *rel)
{
	err[0] = '\0';
	return gate_arrive(&t, run, "", point, procs, now, 30 * S, 0, slot, rel, err, sizeof(err));
}

/* arrive() of a run whose processes share the run key key */
static int arrive_key(const char *run, const char *key, uint64_t point, uint32_t procs,
		      uint64_t now, int *slot, uint64_t *rel)
{
	err[0] = '\0';
	return gate_arrive(&t, run, key, point, procs, now, 30 * S, 0, slot, rel, err, sizeof(err));
}

/* arrive() with a known GO delay need (ns) from the process's previous barrier */
static int arrive_need(const char *run, uint64_t point, uint32_t procs, uint64_t now,
		       uint64_t need, int *slot, uint64_t *rel)
{
	err[0] = '\0';
	return gate_arrive(&t, run, "", point, procs, now, 30 * S, need, slot, rel, err, sizeof(err));
}

#define MS 1000000ull

/* The lead: the full 300 ms while any process has no previous GO (the
 * first point of its session), else 20 ms + 3 x the largest delay, capped. */
static void the_lead_follows_the_slowest_previous_go(void **state)
{
	(void)state;
	int a, b, c;
	uint64_t rel;

	/* one process without a previous GO: the full lead */
	assert_int_equal(arrive_need("R", 0, 2, S, 5 * MS, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive("R", 0, 2, S, &b, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == GATE_LEAD_MAX_NS);
	assert_true(GATE_LEAD_MAX_NS == 300 * MS);
	gate_leave(&t, a);
	gate_leave(&t, b);

	/* all known: 20 ms + 3 x the largest (13 ms) = 59 ms, whoever came last */
	assert_int_equal(arrive_need("R", 1, 3, S, 4 * MS, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("R", 1, 3, S, 13 * MS, &b, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("R", 1, 3, S, 2 * MS, &c, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == 59 * MS);
	assert_true(gate_lead_ns(&t, c) == 59 * MS);
	gate_leave(&t, a);
	gate_leave(&t, b);
	gate_leave(&t, c);

	/* a tiny delay still gets the floor; a slow one the cap (also past
	 * the point where 3 x need would overflow) */
	assert_int_equal(arrive_need("R", 2, 2, S, 1000, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("R", 2, 2, S, 1, &b, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == GATE_LEAD_MIN_NS + 3000);
	gate_leave(&t, a);
	gate_leave(&t, b);
	assert_int_equal(arrive_need("R", 3, 2, S, 95 * MS, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("R", 3, 2, S, 1 * MS, &b, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == 300 * MS);   /* 20 + 285 capped */
	gate_leave(&t, a);
	gate_leave(&t, b);
	assert_int_equal(arrive_need("R", 4, 2, S, UINT64_MAX / 2, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("R", 4, 2, S, 1 * MS, &b, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == 300 * MS);
	gate_leave(&t, a);
	gate_leave(&t, b);

	/* a reused slot forgets the previous barrier's needs */
	assert_int_equal(arrive_need("S", 0, 2, S, 1 * MS, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive_need("S", 0, 2, S, 1 * MS, &b, &rel), GATE_OPEN);
	assert_true(gate_lead_ns(&t, a) == 23 * MS);
	gate_leave(&t, a);
	gate_leave(&t, b);
}

static int setup(void **state)
{
	(void)state;
	memset(&t, 0, sizeof(t));
	return 0;
}

/* Four processes arriving seconds apart: the fourth releases all, at its time. */
static void the_last_arrival_releases_everyone(void **state)
{
	(void)state;
	int slot[4];
	uint64_t rel = 0;
	for (int k = 0; k < 3; k++) {
		assert_int_equal(arrive("R", 0, 4, (uint64_t)(k + 1) * S, &slot[k], &rel), GATE_WAIT);
		assert_int_equal(gate_poll(&t, slot[k], (uint64_t)(k + 1) * S, &rel, err,
					   sizeof(err)), GATE_WAIT);
	}
	assert_int_equal(slot[1], slot[0]);
	assert_int_equal(arrive("R", 0, 4, 9 * S, &slot[3], &rel), GATE_OPEN);
	assert_int_equal(rel, 9 * S);
	for (int k = 0; k < 3; k++) {
		rel = 0;
		assert_int_equal(gate_poll(&t, slot[k], 9 * S + 5, &rel, err, sizeof(err)), GATE_OPEN);
		assert_int_equal(rel, 9 * S);
	}
	for (int k = 0; k < 4; k++)
		gate_leave(&t, slot[k]);
	assert_int_equal(t.s[slot[0]].state, GATE_FREE);
}

/* Run ids and points are separate barriers (a -m list: one per size). */
static void run_ids_and_points_do_not_mix(void **state)
{
	(void)state;
	int a, b, c, d;
	uint64_t rel;
	assert_int_equal(arrive("R", 0, 2, S, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive("R", 1, 2, S, &b, &rel), GATE_WAIT);
	assert_int_equal(arrive("Q", 0, 2, S, &c, &rel), GATE_WAIT);
	assert_int_not_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(arrive("R", 1, 2, 2 * S, &d, &rel), GATE_OPEN);
	assert_int_equal(d, b);
	assert_int_equal(gate_poll(&t, a, 2 * S, &rel, err, sizeof(err)), GATE_WAIT);
	assert_int_equal(gate_poll(&t, c, 2 * S, &rel, err, sizeof(err)), GATE_WAIT);
}

/* A peer that knows a keyed run's id but not its key cannot poison its
 * barrier: another --procs, one arrival too many, or an early leave all
 * happen at a barrier of its own; the run's 3 processes are released by
 * their own third arrival, and the stranger's barrier still waits. */
static void a_stranger_with_the_run_id_but_not_the_key_is_apart(void **state)
{
	(void)state;
	const char *key = "0123456789abcdef0123456789abcdef";
	int a, b, c, x, y, z;
	uint64_t rel = 0;
	assert_int_equal(arrive_key("R", key, 0, 3, S, &a, &rel), GATE_WAIT);
	/* the stranger: another --procs (would have been refused as a
	 * mismatch, failing nothing, but a --procs 2 arrival ... */
	assert_int_equal(arrive_key("R", "", 0, 2, S, &x, &rel), GATE_WAIT);
	assert_int_not_equal(x, a);
	/* ... and with the same --procs and a guessed key, an extra arrival */
	assert_int_equal(arrive_key("R", "0123456789abcdef0123456789abcdeX", 0, 3, S, &y, &rel),
			 GATE_WAIT);
	assert_int_not_equal(y, a);
	gate_leave(&t, y);
	assert_int_equal(arrive_key("R", "0123456789abcdef0123456789abcdeX", 0, 3, S, &z, &rel),
			 GATE_WAIT);
	assert_int_equal(arrive_key("R", key, 0, 3, 2 * S, &b, &rel), GATE_WAIT);
	assert_int_equal(b, a);
	assert_int_equal(t.s[a].arrived, 2);
	assert_int_equal(arrive_key("R", key, 0, 3, 3 * S, &c, &rel), GATE_OPEN);
	assert_int_equal(c, a);
	assert_int_equal(rel, 3 * S);
	assert_int_equal(gate_poll(&t, x, 3 * S, &rel, err, sizeof(err)), GATE_WAIT);
	assert_int_equal(gate_poll(&t, z, 3 * S, &rel, err, sizeof(err)), GATE_WAIT);
	/* a keyless run of the same id keeps its own barrier: its second
	 * arrival releases it, not the keyed run's */
	assert_int_equal(arrive_key("R", "", 0, 2, 4 * S, &y, &rel), GATE_OPEN);
	assert_int_equal(y, x);
}

/* The timeout names who was ready, of how many, for which run and point. */
static void a_missing_process_times_out_with_the_count(void **state)
{
	(void)state;
	int slot[3];
	uint64_t rel;
	for (int k = 0; k < 3; k++)
		assert_int_equal(arrive("run-7", 2, 4, S, &slot[k], &rel), GATE_WAIT);
	assert_int_equal(gate_poll(&t, slot[0], 31 * S, &rel, err, sizeof(err)), GATE_WAIT);
	err[0] = '\0';
	assert_int_equal(gate_poll(&t, slot[0], 31 * S + 1, &rel, err, sizeof(err)), GATE_ERR);
	assert_err_has(err, "3 of 4 processes of run 'run-7' point 2 ready after 30.0 s");
	/* the others fail too, and a late fourth is told at once */
	err[0] = '\0';
	assert_int_equal(gate_poll(&t, slot[1], 31 * S + 2, &rel, err, sizeof(err)), GATE_ERR);
	assert_err_has(err, "3 of 4 processes");
	int late;
	assert_int_equal(arrive("run-7", 2, 4, 32 * S, &late, &rel), GATE_ERR);
	assert_err_has(err, "already failed");
	/* with no poll in between, the timeout is found by the late arrival
	 * itself: it fails the barrier, it does not complete it */
	int first, second;
	assert_int_equal(arrive("run-8", 0, 2, S, &first, &rel), GATE_WAIT);
	assert_int_equal(arrive("run-8", 0, 2, 32 * S, &second, &rel), GATE_ERR);
	assert_err_has(err, "already failed");
	assert_int_equal(gate_poll(&t, first, 32 * S, &rel, err, sizeof(err)), GATE_ERR);
}

/* The second process to take the table's lock may carry an earlier clock
 * reading than the first (both read it before the lock): the barrier opens,
 * it does not time out (the unsigned difference once wrapped to ~584 years). */
static void an_arrival_stamped_before_the_first_opens_the_barrier(void **state)
{
	(void)state;
	int a, b;
	uint64_t rel;
	assert_int_equal(arrive("R", 0, 2, 10 * S, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive("R", 0, 2, 10 * S - 3, &b, &rel), GATE_OPEN);
	assert_int_equal(b, a);
	assert_int_equal(gate_poll(&t, a, 10 * S - 1, &rel, err, sizeof(err)), GATE_OPEN);
	/* a poll stamped before the first arrival does not fail a waiting one */
	int c;
	assert_int_equal(arrive("Q", 0, 2, 20 * S, &c, &rel), GATE_WAIT);
	assert_int_equal(gate_poll(&t, c, 20 * S - 5, &rel, err, sizeof(err)), GATE_WAIT);
}

/* Another --procs than the processes already waiting, and one process too many. */
static void mismatched_counts_are_refused(void **state)
{
	(void)state;
	int a, b, c;
	uint64_t rel;
	assert_int_equal(arrive("R", 0, 2, S, &a, &rel), GATE_WAIT);
	assert_int_equal(arrive("R", 0, 3, S, &b, &rel), GATE_ERR);
	assert_err_has(err, "this process says --procs 3, the 1 already at the start barrier said 2");
	assert_int_equal(arrive("R", 0, 2, S, &b, &rel), GATE_OPEN);
	assert_int_equal(arrive("R", 0, 2, S, &c, &rel), GATE_ERR);
	assert_err_has(err, "one process more than --procs 2");
	assert_int_equal(arrive("R", 5, 1, S, &c, &rel), GATE_ERR);
	assert_err_has(err, "--procs 1");
	assert_int_equal(arrive("M", 0, CTRL_MAX_PROCS + 1, S, &c, &rel), GATE_ERR);
	assert_err_has(err, "--procs 4097: must be 2..4096");
	assert_int_equal(arrive("M", 0, CTRL_MAX_PROCS, S, &c, &rel), GATE_WAIT);  /* the most */
	gate_leave(&t, c);
	assert_int_equal(arrive("", 5, 2, S, &c, &rel), GATE_ERR);
	assert_err_has(err, "--run-id");
}

/* A process that leaves before the release no longer counts. */
static void leaving_early_takes_the_arrival_back(void **state)
{
	(void)state;
	int a, b, c;
	uint64_t rel;
	assert_int_equal(arrive("R", 0, 2, S, &a, &rel), GATE_WAIT);
	gate_leave(&t, a);                       /* its session failed */
	assert_int_equal(t.s[a].state, GATE_FREE);
	assert_int_equal(arrive("R", 0, 2, 2 * S, &b, &rel), GATE_WAIT);
	assert_int_equal(arrive("R", 0, 2, 3 * S, &c, &rel), GATE_OPEN);
	/* one of the two leaves after the release: the other still sees it open */
	gate_leave(&t, b);
	assert_int_equal(gate_poll(&t, c, 4 * S, &rel, err, sizeof(err)), GATE_OPEN);
	assert_int_equal(rel, 3 * S);
	/* of three, one leaves while others still wait: it takes its arrival back */
	int d, e, f, g;
	assert_int_equal(arrive("Q", 0, 3, 5 * S, &d, &rel), GATE_WAIT);
	assert_int_equal(arrive("Q", 0, 3, 5 * S, &e, &rel), GATE_WAIT);
	gate_leave(&t, d);
	assert_int_equal(arrive("Q", 0, 3, 6 * S, &f, &rel), GATE_WAIT);
	assert_int_equal(gate_poll(&t, e, 6 * S, &rel, err, sizeof(err)), GATE_WAIT);
	assert_int_equal(arrive("Q", 0, 3, 7 * S, &g, &rel), GATE_OPEN);
	assert_int_equal(rel, 7 * S);
}

/* A full table refuses with the limit; a failed barrier's slot is free again
 * once its last process left. */
static void a_full_table_refuses_then_reuses_failed_slots(void **state)
{
	(void)state;
	int slot;
	uint64_t rel;
	char run[16];
	for (int i = 0; i < GATE_SLOTS; i++) {
		snprintf(run, sizeof(run), "r%d", i);
		assert_int_equal(arrive(run, 0, 2, S, &slot, &rel), GATE_WAIT);
	}
	assert_int_equal(arrive("more", 0, 2, S, &slot, &rel), GATE_ERR);
	assert_err_has(err, "64 start barriers are open");
	assert_int_equal(gate_poll(&t, 0, 40 * S, &rel, err, sizeof(err)), GATE_ERR);
	gate_leave(&t, 0);
	assert_int_equal(arrive("more", 0, 2, 40 * S, &slot, &rel), GATE_WAIT);
	assert_int_equal(slot, 0);
}

/* NTP's rule: symmetric delays give the exact offset, the wait does not count. */
static void the_clock_offset_ignores_the_wait_at_the_barrier(void **state)
{
	(void)state;
	int64_t off;
	uint64_t e;
	/* server clock = client + 1000 s; 2 ms each way; held 5 s at the server */
	uint64_t c_send = 50 * S, s_arrive = c_send + 1000 * S + 2000000;
	uint64_t s_release = s_arrive + 5 * S, c_recv = s_release - 1000 * S + 2000000;
	assert_int_equal(gate_clock_offset(c_send, s_arrive, s_release, c_recv, &off, &e), 0);
	assert_int_equal(off, (int64_t)(1000 * S));
	assert_int_equal(e, 2000000);
	/* server behind the client; 1 ms out, 3 ms back: off by (1 - 3) / 2 ms, within e */
	c_send = 900 * S;
	s_arrive = c_send - 800 * S + 1000000;
	s_release = s_arrive + 7;
	c_recv = s_release + 800 * S + 3000000;
	assert_int_equal(gate_clock_offset(c_send, s_arrive, s_release, c_recv, &off, &e), 0);
	assert_int_equal(off, -(int64_t)(800 * S) - 1000000);
	assert_int_equal(e, 2000000);
	/* clocks running backwards are refused; a hold longer than the round trip: e = 0 */
	assert_int_equal(gate_clock_offset(10, 5, 6, 9, &off, &e), -1);
	assert_int_equal(gate_clock_offset(10, 7, 6, 20, &off, &e), -1);
	assert_int_equal(gate_clock_offset(10, 100, 200, 15, &off, &e), 0);
	assert_int_equal(e, 0);
	/* a coarse clock reads the same on send and receive: a zero round trip
	 * and hold are a sample (offset exact, bound 0), not clocks going back */
	assert_int_equal(gate_clock_offset(10, 40, 40, 10, &off, &e), 0);
	assert_int_equal(off, 30);
	assert_int_equal(e, 0);
	/* odd halves: the offset is (there + back) / 2 exactly, no half ns
	 * dropped from each side: out 1001 ns and back 999 ns (sum 2000),
	 * out 1001 and back -999 (server 1 ns ahead), both negative */
	assert_int_equal(gate_clock_offset(0, 1001, 2000, 1001, &off, &e), 0);
	assert_int_equal(off, 1000);
	assert_int_equal(gate_clock_offset(0, 1001, 1001, 2000, &off, &e), 0);
	assert_int_equal(off, 1);
	assert_int_equal(gate_clock_offset(3000, 1999, 2002, 3001, &off, &e), 0);
	assert_int_equal(off, -1000);
}

/* A reused offset sample's bound grows by the drift rate for its age. */
static void an_old_offset_sample_is_trusted_less(void **state)
{
	(void)state;
	/* 400 us bound, 2 s old: + 2 s x 500 ppm = 1 ms */
	assert_int_equal(gate_err_aged(400000, 10 * S, 12 * S), 1400000);
	/* fresh: unchanged; 1 ns old: rounded up to 1 ns more */
	assert_int_equal(gate_err_aged(400000, 10 * S, 10 * S), 400000);
	assert_int_equal(gate_err_aged(400000, 10 * S, 10 * S + 1), 400001);
	/* a clock that went backwards: the sample's own bound */
	assert_int_equal(gate_err_aged(7, 10 * S, 9 * S), 7);
	/* no wrap: a huge age or bound saturates */
	assert_true(gate_err_aged(5, 0, UINT64_MAX) == UINT64_MAX);
	assert_true(gate_err_aged(UINT64_MAX - 1, 0, 1 * S) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(the_last_arrival_releases_everyone, setup),
		cmocka_unit_test_setup(run_ids_and_points_do_not_mix, setup),
		cmocka_unit_test_setup(a_stranger_with_the_run_id_but_not_the_key_is_apart, setup),
		cmocka_unit_test_setup(a_missing_process_times_out_with_the_count, setup),
		cmocka_unit_test_setup(an_arrival_stamped_before_the_first_opens_the_barrier, setup),
		cmocka_unit_test_setup(mismatched_counts_are_refused, setup),
		cmocka_unit_test_setup(leaving_early_takes_the_arrival_back, setup),
		cmocka_unit_test_setup(a_full_table_refuses_then_reuses_failed_slots, setup),
		cmocka_unit_test_setup(the_clock_offset_ignores_the_wait_at_the_barrier, setup),
		cmocka_unit_test_setup(the_lead_follows_the_slowest_previous_go, setup),
		cmocka_unit_test_setup(an_old_offset_sample_is_trusted_less, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
