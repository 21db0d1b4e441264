/*
 * gate.h - the start barrier of a fan-in point, kept by the server per run
 * id, and the clock arithmetic that puts each client's measured window on
 * the server's clock.
 *
 * Why: several client processes (possibly on several hosts) of one point
 * each set up their QPs and warm up for a different time. Their rates can
 * only be added when they measured the same interval, so every process
 * (started with --procs N and the same --run-id) reports ready (GATE, ctrl.h)
 * after setup and warm-up, and the server releases all N at once (GO). Each
 * then measures -D seconds from the release.
 *
 * The table is pure bookkeeping: no locks, no I/O, no clock reads (the
 * caller passes "now" in ns). bench/rdma_bench/server.c holds it under its mutex and
 * waits on a condition variable between calls. A barrier is keyed by
 * (run_id, run_key, point): point is the client's point number in its
 * session (size x repetition, from 0), so a -m list gets one barrier per
 * size; run_key is the secret the run's processes share (HELLO's run_key,
 * --run-key-file; "" = none), compared in constant time: a peer that
 * knows the run id but not the key arrives at a barrier of its own and
 * can neither join, fail nor release the run's (its --procs, its extra
 * arrivals and its early leaves count only there). Runs without a key
 * share the old (run_id, point) barrier among themselves only.
 *
 * Life of one barrier: the first gate_arrive() creates it (waiting); the
 * N-th releases it (release_ns = that arrival's now); gate_poll() tells a
 * waiter whether it was released, and fails it once timeout_ns passed since
 * the first arrival (the barrier is then failed for every process of it,
 * also late ones while any of its processes is still there). Every arrival
 * is matched by one gate_leave(); the slot is free again when the last
 * process left.
 */
#ifndef RDMA_BENCH_GATE_H
#define RDMA_BENCH_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"

#define GATE_SLOTS 64   /* barriers open at once (one per concurrent run id and point) */

enum gate_state { GATE_FREE = 0, GATE_WAITING, GATE_RELEASED, GATE_FAILED };

struct gate_slot {
	enum gate_state state;
	char run_id[CTRL_STR_CAP + 1];
	char run_key[CTRL_TOKEN_CAP + 1]; /* never printed */
	uint64_t point;
	uint32_t procs;              /* processes the barrier waits for */
	uint32_t arrived;            /* processes that sent GATE (and have not left early) */
	uint32_t inside;             /* processes that arrived and have not left */
	uint64_t first_ns;           /* first arrival (server clock) */
	uint64_t release_ns;         /* the N-th arrival; 0 while waiting */
	uint64_t timeout_ns;         /* from first_ns */
	uint64_t need_max_ns;        /* largest GO delay an arrival expects (gate_arrive) */
	bool need_unknown;           /* an arrival had no previous GO to judge by */
};

struct gate_table {
	struct gate_slot s[GATE_SLOTS];
};

/*
 * The lead: GO is sent at the release and every process's measured window
 * starts gate_lead_ns later, so that GO has reached every process and woken
 * its threads first. A process whose GO came after the start loses the
 * part of its window before it (the client warns; the runner's overlap
 * check flags the point). The lead follows what the processes measured at
 * their previous barrier of the same session (need_ns of gate_arrive):
 * GATE_LEAD_MIN_NS + GATE_LEAD_FACTOR x the largest, at most
 * GATE_LEAD_MAX_NS, which is also the lead while any process has no
 * previous GO to judge by (the first point of a session). Why 300 ms: the
 * two-VM soft-RoCE bed (TCG) delivered GO up to ~85 ms after the release
 * idle and 128 ms once under load (100 ms was too short); within a -m list
 * the same bed measured 4-13 ms, so a fixed 300 ms cost ~0.27 s per point
 * (ci/harness-overhead).
 */
#define GATE_LEAD_MAX_NS  (300ull * 1000000ull)
#define GATE_LEAD_MIN_NS  (20ull * 1000000ull)
#define GATE_LEAD_FACTOR  3u

/* Return values of gate_arrive and gate_poll. */
#define GATE_WAIT     0          /* not all processes there yet */
#define GATE_OPEN     1          /* released: *release_ns set */
#define GATE_ERR     (-1)        /* err says why (count mismatch, timeout, table full) */

/*
 * A process of (run_id, run_key) arrives at the barrier of point (run_key
 * NUL-terminated, at most CTRL_TOKEN_CAP bytes, "" = none), waiting for procs
 * processes (2..CTRL_MAX_PROCS), at now_ns; timeout_ns bounds the wait from
 * the first arrival. need_ns: how long this process's previous GO took from
 * the server's release to the process (the server's own wake-up plus the
 * client's bound of the network part, ctrl.h GATE go_us), 0 = unknown. On GATE_WAIT or GATE_OPEN, *slot is its barrier (pass
 * it to gate_poll and gate_leave); GATE_OPEN means this arrival was the
 * last one (*release_ns = now_ns). GATE_ERR: nothing is held (no leave);
 * err names the run id, point and the numbers: another --procs than the
 * processes already there, more arrivals than procs, a barrier that
 * already failed, or no free slot.
 */
int gate_arrive(struct gate_table *t, const char *run_id, const char *run_key, uint64_t point,
		uint32_t procs,
		uint64_t now_ns, uint64_t timeout_ns, uint64_t need_ns, int *slot,
		uint64_t *release_ns, char *err, size_t errlen);

/*
 * The lead of the barrier of slot (see GATE_LEAD_MAX_NS), from the needs of
 * the processes that arrived; read it after the release and before
 * gate_leave. In ns, GATE_LEAD_MIN_NS..GATE_LEAD_MAX_NS.
 */
uint64_t gate_lead_ns(const struct gate_table *t, int slot);

/*
 * Has the barrier of slot been released? GATE_OPEN with *release_ns,
 * GATE_WAIT, or GATE_ERR when it failed or now_ns is past its timeout (it
 * then fails for every process): err reads "3 of 4 processes of run 'R'
 * point 0 ready after 30.0 s".
 */
int gate_poll(struct gate_table *t, int slot, uint64_t now_ns, uint64_t *release_ns, char *err,
	      size_t errlen);

/*
 * The process leaves the barrier it arrived at (after GO was sent, or on
 * any failure). A process that leaves before the release no longer counts
 * as arrived (its session failed: the others keep waiting for a full
 * count, and time out if none comes).
 */
void gate_leave(struct gate_table *t, int slot);

/*
 * The offset of the server's clock from the client's, from the GATE/GO
 * exchange (NTP's on-wire rule, RFC 5905 section 8): the client sent GATE
 * at c_send and received GO at c_recv (client clock, ns); the server
 * received GATE at s_arrive and sent GO at s_release (server clock, ns).
 * server_time = client_time + *offset_ns. The error is at most
 * *err_ns = ((c_recv - c_send) - (s_release - s_arrive)) / 2, half the
 * network round trip (the wait at the barrier does not count).
 * When the server's hold exceeds the client's round trip (the two clocks
 * run at slightly different rates over a long wait) *err_ns is 0.
 * Returns 0, or -1 when the times are inconsistent (c_recv < c_send or
 * s_release < s_arrive: not two monotonic clocks).
 */
int gate_clock_offset(uint64_t c_send, uint64_t s_arrive, uint64_t s_release, uint64_t c_recv,
		      int64_t *offset_ns, uint64_t *err_ns);

/*
 * Two hosts' raw clocks drift apart at up to GATE_DRIFT_PPM (parts per
 * million: the largest frequency error NTP will still correct, RFC 5905
 * section 1; crystals are within 100): the client keeps its session's best
 * offset sample and reuses it for a later point, with its error bound grown
 * by that rate for the time since it was taken, instead of probing the
 * clock again before every start barrier.
 */
#define GATE_DRIFT_PPM 500

/*
 * The error bound (ns) of an offset sample whose bound was err_ns when it
 * was taken at at_ns, now at now_ns (the client's clock, ns): err_ns +
 * (now_ns - at_ns) * GATE_DRIFT_PPM / 10^6, rounded up; UINT64_MAX on
 * overflow. now_ns before at_ns (not a monotonic clock) gives err_ns.
 */
uint64_t gate_err_aged(uint64_t err_ns, uint64_t at_ns, uint64_t now_ns);

#endif /* RDMA_BENCH_GATE_H */
