/*
 * options.c - command line parsing and the validation rules of a test point.
 *
 * How it works: opts_parse() walks argv with getopt_long, converting every
 * number with units_parse_u64/units_parse_size (range-checked, no strtoul),
 * records which knobs were given (some defaults depend on others), then
 * test_resolve_defaults() fills the dependent defaults and test_validate()
 * checks the template once per message size. Nothing here touches a device:
 * the rules that need one are in test_validate_device(), called right after
 * ibv_query_device/ibv_query_port and before any QP is created.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "errbuf.h"
#include "options.h"
#include "units.h"

static const char *const transport_names[RB_TR_COUNT] = { "rc", "uc", "ud" };
static const char *const test_names[RB_TEST_COUNT] = { "bw", "lat" };
static const char *const inline_names[RB_INLINE_COUNT] = { "auto", "on", "off" };
static const char *const access_names[RB_ACCESS_COUNT] = { "sequential", "random" };
static const char *const read_completion_names[RB_READ_COUNT] = { "cqe", "poll" };

#define NAME_OF(tab, v) ((v) < sizeof(tab) / sizeof(tab[0]) ? tab[v] : "?")

const char *transport_name(uint64_t t) { return NAME_OF(transport_names, t); }
const char *testkind_name(uint64_t t) { return NAME_OF(test_names, t); }
const char *inline_name(uint64_t m) { return NAME_OF(inline_names, m); }
const char *access_name(uint64_t a) { return NAME_OF(access_names, a); }
const char *read_completion_name(uint64_t m) { return NAME_OF(read_completion_names, m); }

uint64_t test_qps_per_thread(const struct rb_test *t)
{
	return t->qps_per_thread * t->emulated_peers;
}

bool test_read_poll(const struct rb_test *t)
{
	return t->read_completion == RB_READ_POLL && verb_row(t->verb)->slot == RB_SLOT_RECV &&
	       t->test == RB_TEST_BW;
}

void test_defaults(struct rb_test *t)
{
#define RB_X_DEF(name, def) t->name = (def);
	RB_TEST_FIELDS(RB_X_DEF)
#undef RB_X_DEF
}

void test_resolve_defaults(struct rb_test *t, const struct rb_given *given)
{
	static const struct rb_given none;
	uint64_t nqp = test_qps_per_thread(t);

	if (!given)
		given = &none;
	if (t->test == RB_TEST_LAT) {
		if (!given->window)
			t->window = 1;
		if (!given->signal_interval)
			t->signal_interval = 1;
		return;
	}
	if (test_read_poll(t)) {
		/* The SQ rule of test_validate: window + signal_interval - 1 <= sq_depth. */
		if (!given->window) {
			uint64_t tail = given->signal_interval && t->signal_interval >= 1 ?
					t->signal_interval - 1 : 0;
			uint64_t cap = t->sq_depth > tail ? t->sq_depth - tail : 1;
			t->window = cap < 64 ? cap : 64;
			if (t->window < t->postlist && t->postlist <= cap)
				t->window = t->postlist;
		}
		if (!given->signal_interval) {
			uint64_t s = 16;
			if (t->window <= t->sq_depth && t->sq_depth - t->window + 1 < s)
				s = t->sq_depth - t->window + 1;
			else if (t->window > t->sq_depth)
				s = 1; /* refused by test_validate, which names the window */
			t->signal_interval = s;
		}
		return;
	}
	if (!given->window) {
		uint64_t cap = t->sq_depth * (nqp ? nqp : 1);
		t->window = cap < 64 ? cap : 64;
		if (t->window < t->postlist && t->postlist <= cap)
			t->window = t->postlist;
	}
	if (!given->signal_interval) {
		uint64_t s = 16;
		if (nqp && t->window >= 1 && (t->window - 1) / nqp + 1 < s)
			s = (t->window - 1) / nqp + 1;
		if (s > t->sq_depth)
			s = t->sq_depth;
		t->signal_interval = s ? s : 1;
	}
}

static bool mtu_valid(uint64_t m)
{
	return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096;
}

/* The ranges the command line enforces; a TEST from the wire must stay inside them. */
static int check_ranges(const struct rb_test *t, char *err, size_t errlen)
{
	static const struct {
		const char *opt;
		size_t off;
		uint64_t lo, hi;
	} r[] = {
#define R(f, o, lo, hi) { o, offsetof(struct rb_test, f), lo, hi }
		R(iters, "-n/--iters", 0, UINT64_C(1) << 48),
		R(duration_ms, "-D/--duration (ms)", 0, UINT64_C(1) << 32),
		R(warmup_iters, "--warmup-iters", 0, UINT64_C(1) << 48),
		R(warmup_ms, "--warmup (ms)", 0, UINT64_C(1) << 32),
		R(postlist, "-l/--postlist", 1, RB_MAX_DEPTH),
		R(signal_interval, "--signal-interval", 1, RB_MAX_DEPTH),
		R(window, "-w/--window", 1, UINT64_C(1) << 32),
		R(qps_per_thread, "-q/--qps-per-thread", 1, RB_MAX_QPS_THREAD),
		R(emulated_peers, "--emulated-peers", 1, RB_MAX_QPS_THREAD),
		R(validate, "--validate", 0, 1),
		R(use_cm, "-R/--rdma-cm", 0, 1),
		R(recv_batch, "--recv-batch", 1, RB_MAX_DEPTH),
		R(timeout_ms, "--timeout (ms)", 1000, UINT64_C(86400000)),
#undef R
	};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		uint64_t v;
		memcpy(&v, (const char *)t + r[i].off, sizeof(v));
		if (v < r[i].lo || v > r[i].hi)
			return rb_fail(err, errlen, "%s %llu: must be %llu..%llu", r[i].opt,
				    (unsigned long long)v, (unsigned long long)r[i].lo,
				    (unsigned long long)r[i].hi);
	}
	return 0;
}

int test_validate(const struct rb_test *t, char *err, size_t errlen)
{
	uint64_t nqp;

	if (check_ranges(t, err, errlen))
		return -1;
	nqp = test_qps_per_thread(t);

	if (t->verb >= RB_VERB_COUNT)
		return rb_fail(err, errlen, "--verb: unknown verb code %llu", (unsigned long long)t->verb);
	if (t->transport >= RB_TR_COUNT)
		return rb_fail(err, errlen, "--transport: unknown transport code %llu",
			    (unsigned long long)t->transport);
	if (t->test >= RB_TEST_COUNT)
		return rb_fail(err, errlen, "--test: unknown test kind %llu", (unsigned long long)t->test);
	if (t->inline_mode >= RB_INLINE_COUNT)
		return rb_fail(err, errlen, "--inline: unknown mode %llu", (unsigned long long)t->inline_mode);
	if (t->access >= RB_ACCESS_COUNT)
		return rb_fail(err, errlen, "--access: unknown mode %llu", (unsigned long long)t->access);
	if (t->read_completion >= RB_READ_COUNT)
		return rb_fail(err, errlen, "--read-completion: unknown mode %llu",
			    (unsigned long long)t->read_completion);

	/* What each transport can do: IB spec 9.4 / table 9.7.1 (the verb table, verb.c). */
	char on[128];
	if (t->transport == RB_TR_UC && !verb_on_transport(t->verb, RB_TR_UC))
		return rb_fail(err, errlen,
			    "--verb %s with --transport uc: UC has no RDMA READ or atomics "
			    "(IB spec 9.4); use --transport rc, or --verb %s",
			    verb_name(t->verb), verb_names_on(RB_TR_UC, on, sizeof(on)));
	if (t->transport == RB_TR_UD && !verb_on_transport(t->verb, RB_TR_UD))
		return rb_fail(err, errlen,
			    "--verb %s with --transport ud: UD has only SEND and SEND with immediate "
			    "(IB spec 9.4); use --verb %s, or --transport rc",
			    verb_name(t->verb), verb_names_on(RB_TR_UD, on, sizeof(on)));
	/* Polling a destination byte sees a READ's data only: a WRITE, SEND or
	 * atomic leaves nothing in the local buffer to watch, and lat times one
	 * READ to its CQE. READ itself is RC only (refused above on UC/UD). */
	if (t->read_completion == RB_READ_POLL && verb_row(t->verb)->slot != RB_SLOT_RECV)
		return rb_fail(err, errlen,
			    "--read-completion poll with --verb %s: polling the last byte of the local "
			    "destination detects READ completions only (a %s brings no data into the "
			    "local buffer); use --verb read (RC), or --read-completion cqe",
			    verb_name(t->verb), verb_name(t->verb));
	if (t->read_completion == RB_READ_POLL && t->test != RB_TEST_BW)
		return rb_fail(err, errlen,
			    "--read-completion poll with --test %s: poll counts many outstanding READs "
			    "by their data; lat times one READ to its completion (CQE); use --test bw, "
			    "or --read-completion cqe", testkind_name(t->test));
	if (t->use_cm && t->transport == RB_TR_UC)
		return rb_fail(err, errlen,
			    "-R/--rdma-cm with --transport uc: rdma_cm connects RC (RDMA_PS_TCP) and "
			    "UD (RDMA_PS_UDP) only; drop -R (TCP exchange connects UC) or use rc");

	if (t->use_cm && t->mtu)
		return rb_fail(err, errlen,
			    "--mtu %llu with -R/--rdma-cm: rdma_cm sets the path MTU from the resolved "
			    "route; drop --mtu (the row reports the MTU used) or drop -R",
			    (unsigned long long)t->mtu);

	/* Sizes. */
	if (verb_is_atomic(t->verb) && t->size != 8)
		return rb_fail(err, errlen,
			    "--size %llu with --verb %s: atomics operate on 8 bytes (IB spec 9.4.5); "
			    "use -m 8 or leave -m out",
			    (unsigned long long)t->size, verb_name(t->verb));
	if (t->size > RB_MAX_SIZE)
		return rb_fail(err, errlen, "--size %llu: above the limit %llu (1 GiB)",
			    (unsigned long long)t->size, (unsigned long long)RB_MAX_SIZE);
	if (t->size < verb_row(t->verb)->min_size)
		return rb_fail(err, errlen,
			    "--size 0 with --verb read: a zero-byte READ moves nothing; use a size >= 1");
	if (t->size == 0 && verb_row(t->verb)->lat_polls_byte && t->test == RB_TEST_LAT)
		return rb_fail(err, errlen,
			    "--size 0 with --verb write --test lat: the WRITE ping-pong polls the last "
			    "payload byte; use a size >= 1, or --verb write_imm for header-only");
	if (t->transport == RB_TR_UD && t->mtu && t->size > t->mtu)
		return rb_fail(err, errlen,
			    "--size %llu with --transport ud --mtu %llu: a UD message is one packet, "
			    "payload at most the MTU; use -m <= %llu or --transport rc",
			    (unsigned long long)t->size, (unsigned long long)t->mtu,
			    (unsigned long long)t->mtu);

	/* Iterations or duration, never both, never zero. */
	if (t->iters && t->duration_ms)
		return rb_fail(err, errlen,
			    "-n/--iters %llu and -D/--duration %.3f s both given: choose one "
			    "(iterations or a timed window)",
			    (unsigned long long)t->iters, (double)t->duration_ms / 1000.0);
	if (!t->iters && !t->duration_ms)
		return rb_fail(err, errlen,
			    "zero iterations and zero duration: give -n N >= 1 or -D SECS > 0");
	if (t->warmup_iters && t->warmup_ms)
		return rb_fail(err, errlen,
			    "--warmup-iters %llu and --warmup %.3f s both given: choose one",
			    (unsigned long long)t->warmup_iters, (double)t->warmup_ms / 1000.0);

	/* Shape: threads and QPs. */
	if (t->threads < 1 || t->threads > RB_MAX_THREADS)
		return rb_fail(err, errlen, "--threads %llu: must be 1..%u",
			    (unsigned long long)t->threads, RB_MAX_THREADS);
	if (t->qps_per_thread < 1 || t->emulated_peers < 1 || nqp > RB_MAX_QPS_THREAD)
		return rb_fail(err, errlen,
			    "-q/--qps-per-thread %llu x --emulated-peers %llu = %llu QPs per thread: "
			    "must be 1..%u",
			    (unsigned long long)t->qps_per_thread,
			    (unsigned long long)t->emulated_peers, (unsigned long long)nqp,
			    RB_MAX_QPS_THREAD);
	if (nqp * t->threads > RB_MAX_QPS_TOTAL)
		return rb_fail(err, errlen, "%llu QPs per thread x --threads %llu = %llu QPs: above %u",
			    (unsigned long long)nqp, (unsigned long long)t->threads,
			    (unsigned long long)(nqp * t->threads), RB_MAX_QPS_TOTAL);
	if (t->sq_depth < 1 || t->sq_depth > RB_MAX_DEPTH)
		return rb_fail(err, errlen, "--sq-depth %llu: must be 1..%u",
			    (unsigned long long)t->sq_depth, RB_MAX_DEPTH);
	if (t->rq_depth < 1 || t->rq_depth > RB_MAX_DEPTH)
		return rb_fail(err, errlen, "--rq-depth %llu: must be 1..%u",
			    (unsigned long long)t->rq_depth, RB_MAX_DEPTH);
	if (t->cq_depth > (UINT64_C(1) << 24))
		return rb_fail(err, errlen, "--cq-depth %llu: must be 0 (auto) or 1..%u",
			    (unsigned long long)t->cq_depth, 1u << 24);

	/* Posting: postlist, window, signal interval (SQ must never overflow). */
	if (t->postlist < 1 || t->postlist > t->sq_depth)
		return rb_fail(err, errlen,
			    "-l/--postlist %llu: must be 1..--sq-depth (%llu): a doorbell batch "
			    "cannot hold more WRs than the send queue; raise --sq-depth or lower -l",
			    (unsigned long long)t->postlist, (unsigned long long)t->sq_depth);
	if (t->window < 1 || t->window > t->sq_depth * nqp)
		return rb_fail(err, errlen,
			    "-w/--window %llu: must be 1..%llu (--sq-depth %llu x %llu QPs per thread): "
			    "more outstanding ops than send queue slots; raise --sq-depth or -q, or lower -w",
			    (unsigned long long)t->window, (unsigned long long)(t->sq_depth * nqp),
			    (unsigned long long)t->sq_depth, (unsigned long long)nqp);
	if (t->signal_interval < 1 || t->signal_interval > t->sq_depth)
		return rb_fail(err, errlen,
			    "--signal-interval %llu: must be 1..--sq-depth (%llu): unsignaled WRs hold "
			    "their SQ slot until a later signaled one completes (IB spec 10.8.6), so "
			    "more than the SQ depth in a row overflows the send queue",
			    (unsigned long long)t->signal_interval, (unsigned long long)t->sq_depth);
	/*
	 * --read-completion cqe: the window is counted by CQEs, and only every
	 * signal_interval-th WR of a QP has one; with window <= qps x (s - 1)
	 * every QP could hold s - 1 unsignaled WRs whose data has arrived and no
	 * completion to come would free window credit: a stall.
	 */
	if (!test_read_poll(t) && t->window < nqp * (t->signal_interval - 1) + 1)
		return rb_fail(err, errlen,
			    "-w/--window %llu with --signal-interval %llu over %llu QPs per thread: every "
			    "QP could hold %llu unsignaled WRs with no completion to come; need window "
			    ">= %llu, or a smaller --signal-interval%s",
			    (unsigned long long)t->window, (unsigned long long)t->signal_interval,
			    (unsigned long long)nqp, (unsigned long long)(t->signal_interval - 1),
			    (unsigned long long)(nqp * (t->signal_interval - 1) + 1),
			    verb_row(t->verb)->slot == RB_SLOT_RECV && t->test == RB_TEST_BW ?
			    ", or --read-completion poll (READ completions seen in the data: the window "
			    "no longer waits on signaled WRs)" : "");
	/*
	 * --read-completion poll: window credit comes back when a READ's data
	 * lands, but its send queue slot only when a signaled completion at or
	 * after it is reaped (IB spec 10.8.6: an unsignaled WR's slot is freed
	 * by the completion of a later signaled WR of that QP). So a QP's SQ
	 * holds every WR posted since its last reaped signaled WR: up to the
	 * whole window still in flight (nothing keeps the window spread over
	 * the QPs: at the end of a phase, or when the others have no room, it
	 * can all sit on one) plus up to signal_interval - 1 WRs that finished
	 * after that signaled WR and wait for the next one. Hence
	 * window + signal_interval - 1 <= sq_depth: the send queue then never
	 * holds a post back once the finished signaled WRs' CQEs are reaped,
	 * and the window asked is the window run (a smaller SQ would throttle
	 * it and the point would measure something else). Progress alone needs
	 * only signal_interval <= sq_depth (checked above: a full send queue
	 * then always holds a signaled WR whose CQE will come). The rc-swarm
	 * grids (experiments/swarm-*: window and signal interval up to 64) fit
	 * the default --sq-depth 128: 64 + 64 - 1 = 127.
	 */
	if (test_read_poll(t) && t->window + t->signal_interval - 1 > t->sq_depth)
		return rb_fail(err, errlen,
			    "-w/--window %llu with --signal-interval %llu and --read-completion poll: a "
			    "QP's send queue holds the window in flight (all of it may sit on one QP) "
			    "plus %llu finished unsignaled WRs waiting for the next signaled one; need "
			    "--sq-depth >= %llu (window + signal interval - 1; it is %llu): raise "
			    "--sq-depth, or lower -w or --signal-interval",
			    (unsigned long long)t->window, (unsigned long long)t->signal_interval,
			    (unsigned long long)(t->signal_interval - 1),
			    (unsigned long long)(t->window + t->signal_interval - 1),
			    (unsigned long long)t->sq_depth);
	if (t->postlist > t->window)
		return rb_fail(err, errlen,
			    "-l/--postlist %llu above -w/--window %llu: a batch cannot exceed the "
			    "outstanding ops allowed; raise -w or lower -l",
			    (unsigned long long)t->postlist, (unsigned long long)t->window);
	if (t->test == RB_TEST_LAT && (t->window != 1 || t->postlist != 1 || t->signal_interval != 1))
		return rb_fail(err, errlen,
			    "--test lat measures one outstanding op at a time: -w %llu, -l %llu, "
			    "--signal-interval %llu must all be 1 (use --test bw for batching)",
			    (unsigned long long)t->window, (unsigned long long)t->postlist,
			    (unsigned long long)t->signal_interval);
	if (t->inline_mode == RB_INLINE_ON &&
	    !verb_row(t->verb)->inline_ok)
		return rb_fail(err, errlen,
			    "--inline on with --verb %s: only SEND and WRITE carry inline data "
			    "(IBV_SEND_INLINE); use --inline auto|off",
			    verb_name(t->verb));
	if (t->recv_batch < 1 || t->recv_batch > t->rq_depth)
		return rb_fail(err, errlen,
			    "--recv-batch %llu: must be 1..--rq-depth (%llu)",
			    (unsigned long long)t->recv_batch, (unsigned long long)t->rq_depth);

	/* Path and QP attributes (IB spec 9.7.6 and the ibv_modify_qp ranges). */
	if (t->mtu && !mtu_valid(t->mtu))
		return rb_fail(err, errlen, "--mtu %llu: must be one of 256 512 1024 2048 4096",
			    (unsigned long long)t->mtu);
	if (t->ack_timeout > 31)
		return rb_fail(err, errlen,
			    "--ack-timeout %llu: must be 0..31 (timeout = 4.096 us x 2^v; 0 = infinite)",
			    (unsigned long long)t->ack_timeout);
	if (t->retry_cnt > 7)
		return rb_fail(err, errlen, "--retry-cnt %llu: must be 0..7 (3-bit field)",
			    (unsigned long long)t->retry_cnt);
	if (t->rnr_retry > 7)
		return rb_fail(err, errlen, "--rnr-retry %llu: must be 0..7 (7 = infinite)",
			    (unsigned long long)t->rnr_retry);
	if (t->min_rnr_timer > 31)
		return rb_fail(err, errlen, "--min-rnr-timer %llu: must be 0..31 (IB spec table 45 code)",
			    (unsigned long long)t->min_rnr_timer);
	if (t->max_rd_atomic > 255)
		return rb_fail(err, errlen, "--max-rd-atomic %llu: must be 0 (auto) or 1..255",
			    (unsigned long long)t->max_rd_atomic);

	/* Atomics: counters and stride. */
	if (t->atomic_counters < 1 || t->atomic_counters > (UINT64_C(1) << 24))
		return rb_fail(err, errlen, "--atomic-counters %llu: must be 1..%u",
			    (unsigned long long)t->atomic_counters, 1u << 24);
	if (t->stride < 8 || t->stride % 8 || t->stride > (UINT64_C(1) << 20))
		return rb_fail(err, errlen,
			    "--stride %llu: must be a multiple of 8 in 8..1048576 (atomics need "
			    "8-byte aligned targets, IB spec 9.4.5)",
			    (unsigned long long)t->stride);
	if (t->atomic_counters * t->stride > (UINT64_C(1) << 32))
		return rb_fail(err, errlen,
			    "--atomic-counters %llu x --stride %llu: above 4 GiB of counters",
			    (unsigned long long)t->atomic_counters, (unsigned long long)t->stride);
	if (t->validate && t->duration_ms == 0 && t->iters < nqp)
		return rb_fail(err, errlen,
			    "--validate with -n %llu below %llu QPs per thread: every QP needs at least "
			    "one op to be checked; raise -n",
			    (unsigned long long)t->iters, (unsigned long long)nqp);
	/* The buffer (ctx.h layout): per QP a send slot and its receive slots. */
	{
		uint64_t grh = t->transport == RB_TR_UD ? RB_UD_GRH_BYTES : 0;
		uint64_t slots = verb_needs_recv(t->verb) ? t->rq_depth : 1;
		uint64_t send = verb_is_atomic(t->verb) ? t->sq_depth * 8 : t->size;
		uint64_t per_qp = send + 64 + (t->size + grh + 64) * slots;
		/* --read-completion poll: one destination slot per outstanding READ */
		uint64_t poll = 0;
		uint64_t total;
		if (test_read_poll(t) &&
		    (__builtin_mul_overflow(t->size + 64, t->window, &poll) ||
		     __builtin_mul_overflow(poll, t->threads, &poll)))
			poll = UINT64_MAX;
		if (__builtin_mul_overflow(per_qp, nqp * t->threads, &total) ||
		    __builtin_add_overflow(total, poll, &total) || total > RB_MAX_BUFFER)
			return rb_fail(err, errlen,
				    "buffer of about %llu bytes per QP x %llu QPs%s is above %llu GiB "
				    "(--size %llu, --rq-depth %llu for receive slots); lower the size, "
				    "--rq-depth%s or the QP count",
				    (unsigned long long)per_qp, (unsigned long long)(nqp * t->threads),
				    poll ? " plus a READ slot per outstanding op (-w x --threads)" : "",
				    (unsigned long long)(RB_MAX_BUFFER >> 30),
				    (unsigned long long)t->size, (unsigned long long)t->rq_depth,
				    poll ? ", -w" : "");
	}
	if (t->timeout_ms < 1000)
		return rb_fail(err, errlen, "--timeout %.3f s: must be >= 1 s",
			    (double)t->timeout_ms / 1000.0);
	return 0;
}

static const char *mtu_hint(uint32_t m)
{
	return m ? "" : " (port reports no active MTU)";
}

int test_validate_device(const struct rb_test *t, const struct rb_caps *c,
			 char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);

	if (t->sq_depth > c->max_qp_wr)
		return rb_fail(err, errlen, "--sq-depth %llu: device allows at most %u WRs per queue "
			    "(max_qp_wr); lower --sq-depth",
			    (unsigned long long)t->sq_depth, c->max_qp_wr);
	if (verb_needs_recv(t->verb) && t->rq_depth > c->max_qp_wr)
		return rb_fail(err, errlen, "--rq-depth %llu: device allows at most %u WRs per queue "
			    "(max_qp_wr); lower --rq-depth",
			    (unsigned long long)t->rq_depth, c->max_qp_wr);
	if (nqp * t->threads > c->max_qp)
		return rb_fail(err, errlen, "%llu QPs (threads x qps-per-thread x emulated-peers): device "
			    "allows %u (max_qp)",
			    (unsigned long long)(nqp * t->threads), c->max_qp);
	if (t->size > c->max_msg_sz)
		return rb_fail(err, errlen, "--size %llu: above the port's max_msg_sz %u",
			    (unsigned long long)t->size, c->max_msg_sz);
	if (verb_is_atomic(t->verb) && !c->atomics)
		return rb_fail(err, errlen, "--verb %s: device reports no atomic support (atomic_cap NONE)",
			    verb_name(t->verb));
	if (t->mtu && c->active_mtu && t->mtu > c->active_mtu)
		return rb_fail(err, errlen,
			    "--mtu %llu: above the port's active MTU %u; use --mtu <= %u or leave it out",
			    (unsigned long long)t->mtu, c->active_mtu, c->active_mtu);
	if (t->transport == RB_TR_UD) {
		uint32_t m = c->active_mtu;
		if (t->mtu && t->mtu < m)
			m = (uint32_t)t->mtu;
		if (t->size > m)
			return rb_fail(err, errlen,
				    "--size %llu with --transport ud: a UD message is one packet and the "
				    "active MTU is %u%s; use -m <= %u",
				    (unsigned long long)t->size, m, mtu_hint(c->active_mtu), m);
	}
	if (t->max_rd_atomic &&
	    verb_row(t->verb)->rd_atomic &&
	    t->max_rd_atomic > c->max_qp_init_rd_atom)
		return rb_fail(err, errlen,
			    "--max-rd-atomic %llu: device allows %u outstanding READ/atomics as "
			    "initiator (max_qp_init_rd_atom); use <= %u",
			    (unsigned long long)t->max_rd_atomic, c->max_qp_init_rd_atom,
			    c->max_qp_init_rd_atom);
	return 0;
}

/* ---- command line ------------------------------------------------------ */

enum {
	OPT_VERB = 1000, OPT_TRANSPORT, OPT_TEST, OPT_WARMUP_ITERS, OPT_WARMUP, OPT_REPS,
	OPT_SIGNAL, OPT_INLINE, OPT_QPT, OPT_THREADS, OPT_PEERS, OPT_SQ, OPT_RQ, OPT_CQ,
	OPT_MTU, OPT_ACK, OPT_RETRY, OPT_RNR_RETRY, OPT_RNR_TIMER, OPT_RD_ATOMIC,
	OPT_VALIDATE, OPT_CPUS, OPT_CSV, OPT_JSON, OPT_RUN_ID, OPT_PROC_INDEX, OPT_PROCS,
	OPT_CONNECT_TIMEOUT, OPT_TIMEOUT, OPT_COUNTERS, OPT_STRIDE, OPT_ACCESS,
	OPT_RECV_BATCH, OPT_BIND, OPT_ONCE, OPT_MAX_SESSIONS, OPT_SEED, OPT_VERSION,
	OPT_QUIET, OPT_READ_COMPLETION, OPT_REP_FIRST,
	/* server limits and admission (guard.h) */
	OPT_MAX_MEM, OPT_MAX_SESSION_MEM, OPT_MAX_THREADS, OPT_MAX_QPS, OPT_MAX_DURATION,
	OPT_MAX_WARMUP, OPT_MAX_PER_PEER, OPT_CLIENT_TIMEOUT, OPT_ALLOW, OPT_TOKEN_FILE,
};

static const struct option long_opts[] = {
	{ "server", no_argument, NULL, 's' },
	{ "client", required_argument, NULL, 'c' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "max-sessions", required_argument, NULL, OPT_MAX_SESSIONS },
	{ "max-mem", required_argument, NULL, OPT_MAX_MEM },
	{ "max-session-mem", required_argument, NULL, OPT_MAX_SESSION_MEM },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "max-qps", required_argument, NULL, OPT_MAX_QPS },
	{ "max-duration", required_argument, NULL, OPT_MAX_DURATION },
	{ "max-warmup", required_argument, NULL, OPT_MAX_WARMUP },
	{ "max-per-peer", required_argument, NULL, OPT_MAX_PER_PEER },
	{ "client-timeout", required_argument, NULL, OPT_CLIENT_TIMEOUT },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "verb", required_argument, NULL, OPT_VERB },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "size", required_argument, NULL, 'm' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup-iters", required_argument, NULL, OPT_WARMUP_ITERS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "rep-first", required_argument, NULL, OPT_REP_FIRST },
	{ "postlist", required_argument, NULL, 'l' },
	{ "signal-interval", required_argument, NULL, OPT_SIGNAL },
	{ "inline", required_argument, NULL, OPT_INLINE },
	{ "window", required_argument, NULL, 'w' },
	{ "read-completion", required_argument, NULL, OPT_READ_COMPLETION },
	{ "qps", required_argument, NULL, 'q' },
	{ "qps-per-thread", required_argument, NULL, OPT_QPT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "emulated-peers", required_argument, NULL, OPT_PEERS },
	{ "sq-depth", required_argument, NULL, OPT_SQ },
	{ "rq-depth", required_argument, NULL, OPT_RQ },
	{ "cq-depth", required_argument, NULL, OPT_CQ },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "ack-timeout", required_argument, NULL, OPT_ACK },
	{ "retry-cnt", required_argument, NULL, OPT_RETRY },
	{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
	{ "min-rnr-timer", required_argument, NULL, OPT_RNR_TIMER },
	{ "max-rd-atomic", required_argument, NULL, OPT_RD_ATOMIC },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "run-id", required_argument, NULL, OPT_RUN_ID },
	{ "proc-index", required_argument, NULL, OPT_PROC_INDEX },
	{ "procs", required_argument, NULL, OPT_PROCS },
	{ "rdma-cm", no_argument, NULL, 'R' },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "atomic-counters", required_argument, NULL, OPT_COUNTERS },
	{ "stride", required_argument, NULL, OPT_STRIDE },
	{ "access", required_argument, NULL, OPT_ACCESS },
	{ "recv-batch", required_argument, NULL, OPT_RECV_BATCH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

void opts_usage(FILE *f)
{
	fputs(
"usage: rdma_bench -s [-p PORT] [--bind ADDR] [--allow CIDR,...] [--token-file F]\n"
"                     [limits] [-d DEV] [-i PORT] [-x GID] [--once]\n"
"       rdma_bench -c HOST [options]\n"
"\n"
"Server (given no test flags: the client sends its whole configuration):\n"
"  -s, --server            serve sessions, one thread each, until killed\n"
"  -p, --port N            TCP control port (default 18515)\n"
"      --bind ADDR         listen on ADDR only (default: all addresses, IPv4 and IPv6;\n"
"                          on a shared network also give --allow or --token-file)\n"
"      --allow CIDR,...    accept control connections from these networks only\n"
"                          (e.g. 10.0.0.0/8,fd00::/8; default: any address)\n"
"      --token-file FILE   clients must send the token in FILE (mode 600, first line,\n"
"                          16-64 printable bytes; compared in constant time)\n"
"      --once              exit after one session (status = that session's)\n"
"      --max-sessions N    concurrent sessions (default 64; a slot is taken after\n"
"                          a valid HELLO, which must come within 5 s)\n"
"      --max-per-peer N    sessions and handshakes from one address (16)\n"
"      --max-mem SIZE      memory of all points at once (default: half the host's\n"
"                          memory, and RLIMIT_MEMLOCK without CAP_IPC_LOCK)\n"
"      --max-session-mem SIZE  memory of one session's point (half of --max-mem)\n"
"      --max-threads N     server worker threads of a point (default: online CPUs)\n"
"      --max-qps N         QPs of a point (4096)\n"
"      --max-duration SECS -D of a point (3600)\n"
"      --max-warmup SECS   --warmup of a point (600)\n"
"      --client-timeout S  wait for a client's next message while holding a point's\n"
"                          resources (120; the client's --timeout only shortens it)\n"
"Both roles:\n"
"      --token-file FILE   the shared token (client: sent in HELLO)\n"
"Device (both roles):\n"
"  -d, --ib-dev NAME       RDMA device (default: first with an ACTIVE port)\n"
"  -i, --ib-port N         port (default: first ACTIVE)\n"
"  -x, --gid-index N       GID index (default: RoCE v2 IPv4-mapped, else v2, else 0)\n"
"Client:\n"
"  -c, --client HOST       run against the server at HOST\n"
"      --verb V            read|write|write_imm|send|send_imm|fetch_add|cmp_swap (write)\n"
"      --transport T       rc|uc|ud (rc)\n"
"      --test K            bw|lat (bw)\n"
"  -m, --size LIST         payload bytes, e.g. 8,64,4K (env MSG_SIZES; default 64, atomics 8)\n"
"  -n, --iters N           ops per thread in the measured window\n"
"  -D, --duration SECS     measured window length (instead of -n); default -n 1000\n"
"      --warmup-iters N    ops per thread before the window (default 0)\n"
"      --warmup SECS       warm-up time instead of --warmup-iters\n"
"      --reps R            repetitions of every point (default 1)\n"
"      --rep-first N       the rep column of the first repetition (default 0; a runner\n"
"                          that repeats the process gives its own repetition number)\n"
"  -l, --postlist N        WRs linked per ibv_post_send (doorbell batch; default 1)\n"
"      --signal-interval N one signaled WR every N (1 = all; default up to 16 in bw)\n"
"      --inline MODE       auto|on|off (auto: inline when the granted cap covers it, <= 256 B)\n"
"  -w, --window N          outstanding ops per thread (bw default 64; lat 1)\n"
"      --read-completion M cqe|poll (cqe): how a bw READ's completion is seen: its CQE\n"
"                          (the window must cover every QP's unsignaled tail), or\n"
"                          poll: the last byte of its own destination slot changing\n"
"                          (window and --signal-interval independent; needs\n"
"                          --sq-depth >= window + signal interval - 1; --verb read)\n"
"  -q, --qps N             QPs per thread (same as --qps-per-thread)\n"
"      --threads T         worker threads, each with its own CQ, QPs, buffer slice\n"
"      --emulated-peers M  connected QPs per thread per emulated remote machine\n"
"      --sq-depth N        send queue depth (128)\n"
"      --rq-depth N        receive queue depth (128)\n"
"      --cq-depth N        CQ depth (default: sized from window and queue depths)\n"
"      --mtu BYTES         path MTU 256..4096 (default: min of both active MTUs)\n"
"      --ack-timeout V     local ACK timeout code, 4.096 us x 2^V (14)\n"
"      --retry-cnt N       transport retries (7)\n"
"      --rnr-retry N       RNR retries, 7 = infinite (7)\n"
"      --min-rnr-timer V   RNR NAK timer code (12 = 0.64 ms)\n"
"      --max-rd-atomic N   outstanding READ/atomics (default: negotiated maximum)\n"
"      --atomic-counters Z counters hit by fetch_add/cmp_swap (1)\n"
"      --stride BYTES      distance between counters (64)\n"
"      --access MODE       sequential|random counter choice (sequential)\n"
"      --recv-batch N      receive WRs re-posted per ibv_post_recv (1)\n"
"      --validate          check payloads end to end; atomics: counter sum\n"
"      --cpus LIST|spread  pin thread i to LIST[i % n] (e.g. 0,2-3), or spread\n"
"  -R, --rdma-cm           connect QPs with rdma_cm (rc, ud)\n"
"      --connect-timeout S retry the control connection for S s (10)\n"
"      --timeout S         limit of every wait, and of a point beyond its -D and --warmup (120;\n"
"                          the server's --client-timeout caps its side)\n"
"      --csv FILE          append rows (header written once)\n"
"      --json FILE         write all rows as JSON at the end\n"
"      --run-id ID         stored in every row\n"
"      --proc-index K      stored in every row (several clients of one run)\n"
"      --procs N           N client processes (any hosts) share this --run-id: each\n"
"                          waits at the server's start barrier after setup and\n"
"                          warm-up, and all count ops in one common -D window\n"
"                          named by the server (needs --run-id and -D; default 1:\n"
"                          no barrier)\n"
"      --seed N            payload pattern and random access seed (1)\n"
"      --quiet             no INFO lines (WARN and ERROR lines stay on stderr)\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 every point ok; 1 a point failed (its row says why); 2 usage or\n"
"setup error: the command line, or a point's configuration refused before\n"
"anything was measured, whichever side detected it, a server's --max-* limits\n"
"included (row status skipped, reason 'refused by the client: ...' or 'refused\n"
"by the server: ...'); 128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129\n"
"SIGHUP): the point in progress gets no row, every finished row is in --csv,\n"
"--json and the table; a second signal exits at once.\n", f);
}

static int parse_num(const char *arg, uint64_t min, uint64_t max, const char *name,
		     uint64_t *out, char *err, size_t errlen)
{
	return units_parse_u64(arg, min, max, name, out, err, errlen);
}

/* Seconds with up to 3 decimals ("2", "0.5") into milliseconds. */
static int parse_secs(const char *arg, uint64_t min_ms, uint64_t max_ms, const char *name,
		      uint64_t *out_ms, char *err, size_t errlen)
{
	const char *p = arg;
	uint64_t whole = 0, frac = 0;
	int fdigits = 0;

	if (!*p)
		return rb_fail(err, errlen, "%s '': expected seconds, e.g. 2 or 0.5", name);
	if (*p == '-')
		return rb_fail(err, errlen, "%s '%s': negative; expected seconds >= %.3f",
			    name, arg, (double)min_ms / 1000.0);
	while (*p >= '0' && *p <= '9') {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > UINT64_C(1) << 40)
			return rb_fail(err, errlen, "%s '%s': too large", name, arg);
		p++;
	}
	if (p == arg && *p != '.')
		return rb_fail(err, errlen, "%s '%s': not a number; expected seconds, e.g. 2 or 0.5",
			    name, arg);
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (fdigits < 3) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fdigits++;
			} else if (*p != '0') {
				return rb_fail(err, errlen, "%s '%s': at most millisecond precision",
					    name, arg);
			}
			p++;
		}
	}
	if (*p)
		return rb_fail(err, errlen, "%s '%s': trailing '%s'; expected seconds, e.g. 2 or 0.5",
			    name, arg, p);
	while (fdigits < 3) {
		frac *= 10;
		fdigits++;
	}
	uint64_t ms = whole * 1000 + frac;
	if (ms < min_ms || ms > max_ms)
		return rb_fail(err, errlen, "%s %s: must be %.3f..%.3f s", name, arg,
			    (double)min_ms / 1000.0, (double)max_ms / 1000.0);
	*out_ms = ms;
	return 0;
}

static int parse_enum(const char *arg, const char *const *names, unsigned n, const char *opt,
		      uint64_t *out, char *err, size_t errlen)
{
	char list[256] = "";

	for (unsigned i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0) {
			*out = i;
			return 0;
		}
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, "|", sizeof(list) - strlen(list) - 1);
	}
	return rb_fail(err, errlen, "%s '%s': unknown; use %s", opt, arg, list);
}

int opts_parse_cpus(const char *s, int *out, int max, int *n, char *err, size_t errlen)
{
	const char *p = s;
	int k = 0;

	if (!*s)
		return rb_fail(err, errlen, "--cpus '': empty list; e.g. 0,2,4-7");
	while (*p) {
		uint64_t a = 0, b;
		const char *start = p;
		if (*p < '0' || *p > '9')
			return rb_fail(err, errlen, "--cpus '%s': expected a CPU number at '%s'", s, p);
		while (*p >= '0' && *p <= '9' && a < 100000)
			a = a * 10 + (uint64_t)(*p++ - '0');
		b = a;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return rb_fail(err, errlen, "--cpus '%s': bad range at '%s'", s, start);
			b = 0;
			while (*p >= '0' && *p <= '9' && b < 100000)
				b = b * 10 + (uint64_t)(*p++ - '0');
			if (b < a)
				return rb_fail(err, errlen, "--cpus '%s': range %llu-%llu is reversed", s,
					    (unsigned long long)a, (unsigned long long)b);
		}
		if (b >= 65536)
			return rb_fail(err, errlen, "--cpus '%s': CPU %llu too large", s,
				    (unsigned long long)b);
		for (uint64_t c = a; c <= b; c++) {
			if (k >= max)
				return rb_fail(err, errlen, "--cpus '%s': more than %d CPUs", s, max);
			out[k++] = (int)c;
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return rb_fail(err, errlen, "--cpus '%s': trailing comma", s);
		} else if (*p) {
			return rb_fail(err, errlen, "--cpus '%s': unexpected '%c'", s, *p);
		}
	}
	*n = k;
	return 0;
}

/* Options a server accepts; every other one describes a test. */
static bool server_allowed(int c)
{
	switch (c) {
	case 's': case 'p': case OPT_BIND: case OPT_ONCE: case OPT_MAX_SESSIONS:
	case 'd': case 'i': case 'x': case OPT_QUIET: case 'h': case OPT_VERSION:
	case ':': case '?':
	case OPT_MAX_MEM: case OPT_MAX_SESSION_MEM: case OPT_MAX_THREADS: case OPT_MAX_QPS:
	case OPT_MAX_DURATION: case OPT_MAX_WARMUP: case OPT_MAX_PER_PEER:
	case OPT_CLIENT_TIMEOUT: case OPT_ALLOW: case OPT_TOKEN_FILE:
		return true;
	default:
		return false;
	}
}

/* "--name" of an option code, for messages. */
static const char *opt_display_name(int c)
{
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "a test option";
}

static int copy_str(char *dst, size_t cap, const char *src, const char *opt, char *err,
		    size_t errlen)
{
	if (strlen(src) >= cap)
		return rb_fail(err, errlen, "%s: value longer than %zu characters", opt, cap - 1);
	strcpy(dst, src);
	return 0;
}

/* The server's limits and admission options (guard.h); --token-file for both roles. */
static int parse_server_guard(int c, const char *a, struct rb_opts *o, char *err, size_t errlen)
{
	struct rb_limits *l = &o->lim;
	uint64_t v;

	switch (c) {
	case OPT_MAX_MEM:
		return units_parse_size_opt(a, UINT64_C(1) << 20, UINT64_C(1) << 50, "--max-mem",
					    &l->max_mem, err, errlen);
	case OPT_MAX_SESSION_MEM:
		return units_parse_size_opt(a, UINT64_C(1) << 20, UINT64_C(1) << 50,
					    "--max-session-mem", &l->max_session_mem, err, errlen);
	case OPT_MAX_THREADS:
		return parse_num(a, 1, RB_MAX_THREADS, "--max-threads", &l->max_threads, err, errlen);
	case OPT_MAX_QPS:
		return parse_num(a, 1, RB_MAX_QPS_TOTAL, "--max-qps", &l->max_qps, err, errlen);
	case OPT_MAX_DURATION:
		return parse_secs(a, 1, UINT64_C(1) << 32, "--max-duration", &l->max_duration_ms, err,
				  errlen);
	case OPT_MAX_WARMUP:
		return parse_secs(a, 0, UINT64_C(1) << 32, "--max-warmup", &l->max_warmup_ms, err,
				  errlen);
	case OPT_MAX_PER_PEER:
		if (parse_num(a, 1, 4096, "--max-per-peer", &v, err, errlen))
			return -1;
		l->max_per_peer = (unsigned)v;
		return 0;
	case OPT_CLIENT_TIMEOUT:
		if (parse_num(a, 1, 86400, "--client-timeout", &v, err, errlen))
			return -1;
		l->client_timeout_s = (unsigned)v;
		return 0;
	case OPT_ALLOW:
		return copy_str(o->allow, sizeof(o->allow), a, "--allow", err, errlen);
	case OPT_TOKEN_FILE:
		return copy_str(o->token_file, sizeof(o->token_file), a, "--token-file", err, errlen);
	default:
		return rb_fail(err, errlen, "internal: option %d is not a server limit", c);
	}
}

int opts_parse(int argc, char **argv, struct rb_opts *o, char *err, size_t errlen)
{
	struct rb_test *t = &o->t;
	struct rb_given *g = &o->given;
	const char *sizes_arg = NULL;
	const char *client_opt = NULL;
	const char *server_only = NULL;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	test_defaults(t);
	o->port = RB_DEFAULT_PORT;
	o->gid_index = -1;
	o->max_sessions = 64;
	o->lim.max_qps = RB_DEFAULT_MAX_QPS;
	o->lim.max_duration_ms = RB_DEFAULT_MAX_DURATION;
	o->lim.max_warmup_ms = RB_DEFAULT_MAX_WARMUP;
	o->lim.max_per_peer = RB_DEFAULT_MAX_PER_PEER;
	o->lim.client_timeout_s = RB_DEFAULT_CLIENT_TIMEOUT;
	o->reps = 1;
	o->procs = 1;
	o->connect_timeout_s = 10;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sc:p:d:i:x:m:n:D:l:w:q:Rh", long_opts, NULL)) != -1) {
		const char *a = optarg;
		if (!client_opt && !server_allowed(c))
			client_opt = opt_display_name(c);
		switch (c) {
		case 's':
			if (o->role == RB_ROLE_CLIENT)
				return rb_fail(err, errlen, "-s and -c both given: a process is a server or a client");
			o->role = RB_ROLE_SERVER;
			break;
		case 'c':
			if (o->role == RB_ROLE_SERVER)
				return rb_fail(err, errlen, "-s and -c both given: a process is a server or a client");
			o->role = RB_ROLE_CLIENT;
			if (copy_str(o->host, sizeof(o->host), a, "-c/--client", err, errlen))
				return -1;
			break;
		case 'p':
			if (parse_num(a, 1, 65535, "-p/--port", &v, err, errlen))
				return -1;
			o->port = (uint16_t)v;
			break;
		case OPT_BIND:
			if (copy_str(o->bind_addr, sizeof(o->bind_addr), a, "--bind", err, errlen))
				return -1;
			break;
		case OPT_ONCE:
			o->once = true;
			break;
		case OPT_MAX_SESSIONS:
			if (parse_num(a, 1, 4096, "--max-sessions", &v, err, errlen))
				return -1;
			o->max_sessions = (unsigned)v;
			break;
		case OPT_MAX_MEM: case OPT_MAX_SESSION_MEM: case OPT_MAX_THREADS:
		case OPT_MAX_QPS: case OPT_MAX_DURATION: case OPT_MAX_WARMUP:
		case OPT_MAX_PER_PEER: case OPT_CLIENT_TIMEOUT: case OPT_ALLOW:
		case OPT_TOKEN_FILE:
			if (parse_server_guard(c, a, o, err, errlen))
				return -1;
			if (c != OPT_TOKEN_FILE)
				server_only = opt_display_name(c);
			break;
		case 'd':
			if (copy_str(o->dev_name, sizeof(o->dev_name), a, "-d/--ib-dev", err, errlen))
				return -1;
			break;
		case 'i':
			if (parse_num(a, 1, 255, "-i/--ib-port", &v, err, errlen))
				return -1;
			o->ib_port = (unsigned)v;
			break;
		case 'x':
			if (parse_num(a, 0, 65535, "-x/--gid-index", &v, err, errlen))
				return -1;
			o->gid_index = (int)v;
			break;
		case OPT_VERB: {
			const char *verbs[RB_VERB_COUNT];   /* the verb table's names */
			for (unsigned k = 0; k < RB_VERB_COUNT; k++)
				verbs[k] = verb_name(k);
			if (parse_enum(a, verbs, RB_VERB_COUNT, "--verb", &t->verb, err, errlen))
				return -1;
			break;
		}
		case OPT_TRANSPORT:
			if (parse_enum(a, transport_names, RB_TR_COUNT, "--transport", &t->transport,
				       err, errlen))
				return -1;
			break;
		case OPT_TEST:
			if (parse_enum(a, test_names, RB_TEST_COUNT, "--test", &t->test, err, errlen))
				return -1;
			break;
		case 'm':
			sizes_arg = a;
			g->size = true;
			break;
		case 'n':
			if (parse_num(a, 1, UINT64_C(1) << 48, "-n/--iters", &t->iters, err, errlen))
				return -1;
			g->iters = true;
			break;
		case 'D':
			if (parse_secs(a, 1, UINT64_C(1) << 32, "-D/--duration", &t->duration_ms,
				       err, errlen))
				return -1;
			g->duration = true;
			break;
		case OPT_WARMUP_ITERS:
			if (parse_num(a, 0, UINT64_C(1) << 48, "--warmup-iters", &t->warmup_iters,
				      err, errlen))
				return -1;
			g->warmup_iters = true;
			break;
		case OPT_WARMUP:
			if (parse_secs(a, 0, UINT64_C(1) << 32, "--warmup", &t->warmup_ms, err, errlen))
				return -1;
			g->warmup = true;
			break;
		case OPT_REPS:
			if (parse_num(a, 1, 100000, "--reps", &v, err, errlen))
				return -1;
			o->reps = (unsigned)v;
			break;
		case OPT_REP_FIRST:
			if (parse_num(a, 0, 1000000, "--rep-first", &v, err, errlen))
				return -1;
			o->rep_first = (unsigned)v;
			break;
		case 'l':
			if (parse_num(a, 1, RB_MAX_DEPTH, "-l/--postlist", &t->postlist, err, errlen))
				return -1;
			g->postlist = true;
			break;
		case OPT_SIGNAL:
			if (parse_num(a, 1, RB_MAX_DEPTH, "--signal-interval", &t->signal_interval,
				      err, errlen))
				return -1;
			g->signal_interval = true;
			break;
		case OPT_INLINE:
			if (parse_enum(a, inline_names, RB_INLINE_COUNT, "--inline", &t->inline_mode,
				       err, errlen))
				return -1;
			g->inline_mode = true;
			break;
		case 'w':
			if (parse_num(a, 1, UINT64_C(1) << 32, "-w/--window", &t->window, err, errlen))
				return -1;
			g->window = true;
			break;
		case OPT_READ_COMPLETION:
			if (parse_enum(a, read_completion_names, RB_READ_COUNT, "--read-completion",
				       &t->read_completion, err, errlen))
				return -1;
			break;
		case 'q':
			if (parse_num(a, 1, RB_MAX_QPS_THREAD, "-q/--qps", &t->qps_per_thread, err, errlen))
				return -1;
			break;
		case OPT_QPT:
			if (parse_num(a, 1, RB_MAX_QPS_THREAD, "--qps-per-thread", &t->qps_per_thread,
				      err, errlen))
				return -1;
			break;
		case OPT_THREADS:
			if (parse_num(a, 1, RB_MAX_THREADS, "--threads", &t->threads, err, errlen))
				return -1;
			break;
		case OPT_PEERS:
			if (parse_num(a, 1, RB_MAX_QPS_THREAD, "--emulated-peers", &t->emulated_peers,
				      err, errlen))
				return -1;
			break;
		case OPT_SQ:
			if (parse_num(a, 1, RB_MAX_DEPTH, "--sq-depth", &t->sq_depth, err, errlen))
				return -1;
			break;
		case OPT_RQ:
			if (parse_num(a, 1, RB_MAX_DEPTH, "--rq-depth", &t->rq_depth, err, errlen))
				return -1;
			break;
		case OPT_CQ:
			if (parse_num(a, 1, UINT64_C(1) << 24, "--cq-depth", &t->cq_depth, err, errlen))
				return -1;
			break;
		case OPT_MTU:
			if (parse_num(a, 256, 4096, "--mtu", &t->mtu, err, errlen))
				return -1;
			g->mtu = true;
			break;
		case OPT_ACK:
			if (parse_num(a, 0, 31, "--ack-timeout", &t->ack_timeout, err, errlen))
				return -1;
			break;
		case OPT_RETRY:
			if (parse_num(a, 0, 7, "--retry-cnt", &t->retry_cnt, err, errlen))
				return -1;
			break;
		case OPT_RNR_RETRY:
			if (parse_num(a, 0, 7, "--rnr-retry", &t->rnr_retry, err, errlen))
				return -1;
			break;
		case OPT_RNR_TIMER:
			if (parse_num(a, 0, 31, "--min-rnr-timer", &t->min_rnr_timer, err, errlen))
				return -1;
			break;
		case OPT_RD_ATOMIC:
			if (parse_num(a, 1, 255, "--max-rd-atomic", &t->max_rd_atomic, err, errlen))
				return -1;
			break;
		case OPT_VALIDATE:
			t->validate = 1;
			break;
		case OPT_CPUS:
			if (strcmp(a, "spread") == 0) {
				o->cpus_spread = true;
			} else if (opts_parse_cpus(a, o->cpus, RB_MAX_CPUS, &o->ncpus, err, errlen)) {
				return -1;
			}
			break;
		case OPT_CSV:
			if (copy_str(o->csv, sizeof(o->csv), a, "--csv", err, errlen))
				return -1;
			break;
		case OPT_JSON:
			if (copy_str(o->json, sizeof(o->json), a, "--json", err, errlen))
				return -1;
			break;
		case OPT_RUN_ID:
			if (copy_str(o->run_id, sizeof(o->run_id), a, "--run-id", err, errlen))
				return -1;
			for (const char *p = a; *p; p++)
				if (*p == ',' || *p == '"' || (unsigned char)*p < 0x20 || *p == 0x7f)
					return rb_fail(err, errlen,
						    "--run-id '%s': no commas, quotes, newlines or other "
						    "control characters", a);
			break;
		case OPT_PROC_INDEX:
			if (parse_num(a, 0, 1000000, "--proc-index", &o->proc_index, err, errlen))
				return -1;
			break;
		case OPT_PROCS:
			if (parse_num(a, 1, CTRL_MAX_PROCS, "--procs", &v, err, errlen))
				return -1;
			o->procs = (unsigned)v;
			break;
		case 'R':
			t->use_cm = 1;
			break;
		case OPT_CONNECT_TIMEOUT:
			if (parse_num(a, 1, 3600, "--connect-timeout", &v, err, errlen))
				return -1;
			o->connect_timeout_s = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			if (parse_secs(a, 1000, UINT64_C(86400000), "--timeout", &t->timeout_ms, err,
				       errlen))
				return -1;
			break;
		case OPT_COUNTERS:
			if (parse_num(a, 1, UINT64_C(1) << 24, "--atomic-counters", &t->atomic_counters,
				      err, errlen))
				return -1;
			g->atomic_counters = true;
			break;
		case OPT_STRIDE:
			if (units_parse_size(a, &t->stride, err, errlen))
				return -1;
			g->stride = true;
			break;
		case OPT_ACCESS:
			if (parse_enum(a, access_names, RB_ACCESS_COUNT, "--access", &t->access, err,
				       errlen))
				return -1;
			g->access = true;
			break;
		case OPT_RECV_BATCH:
			if (parse_num(a, 1, RB_MAX_DEPTH, "--recv-batch", &t->recv_batch, err, errlen))
				return -1;
			g->recv_batch = true;
			break;
		case OPT_SEED:
			if (parse_num(a, 0, UINT64_MAX, "--seed", &t->seed, err, errlen))
				return -1;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case 'h':
			opts_usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("rdma_bench (control protocol %u)\n", CTRL_VERSION);
			return 1;
		case ':':
			return rb_fail(err, errlen, "option %s needs a value (see --help)", argv[optind - 1]);
		default:
			return rb_fail(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return rb_fail(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
	if (o->role == RB_ROLE_NONE)
		return rb_fail(err, errlen, "give -s (server) or -c HOST (client); see --help");

	if (o->role == RB_ROLE_SERVER) {
		/* The server takes no test flags: they come from each client. */
		if (client_opt)
			return rb_fail(err, errlen,
				    "--%s given to the server: test options belong to the client (-c), "
				    "which sends them over the control channel", client_opt);
		return 0;
	}
	if (o->once)
		return rb_fail(err, errlen, "--once is a server option (-s)");
	if (server_only)
		return rb_fail(err, errlen, "--%s is a server option (-s): the server sets its own "
			    "limits and admission", server_only);

	/* Knobs that only apply to some verbs are refused elsewhere, not ignored. */
	if (!verb_is_atomic(t->verb) && (g->atomic_counters || g->stride || g->access))
		return rb_fail(err, errlen,
			    "--atomic-counters/--stride/--access apply to fetch_add and cmp_swap only "
			    "(--verb is %s)", verb_name(t->verb));
	if (!verb_needs_recv(t->verb) && g->recv_batch)
		return rb_fail(err, errlen,
			    "--recv-batch applies to verbs that consume receives (send, send_imm, "
			    "write_imm); --verb is %s", verb_name(t->verb));
	if (o->procs > 1 && !g->duration)
		return rb_fail(err, errlen, "--procs %u needs -D SECS: the processes share one "
			    "measured window of that length (with -n each would end at its own time)",
			    o->procs);
	if (o->procs > 1 && !o->run_id[0])
		return rb_fail(err, errlen, "--procs %u without --run-id: the server's start barrier "
			    "counts the processes of one run id; give all %u processes the same "
			    "--run-id", o->procs, o->procs);
	if (!g->iters && !g->duration)
		t->iters = 1000;

	/* Sizes: -m, else MSG_SIZES, else 64 (atomics: 8). */
	if (!sizes_arg) {
		const char *env = getenv("MSG_SIZES");
		if (env && *env)
			sizes_arg = env;
	}
	if (sizes_arg) {
		if (units_parse_size_list(sizes_arg, o->sizes, RB_MAX_SIZES, &o->nsizes, err, errlen))
			return -1;
	} else {
		o->sizes[0] = verb_is_atomic(t->verb) ? 8 : 64;
		o->nsizes = 1;
	}

	test_resolve_defaults(t, g);
	for (int i = 0; i < o->nsizes; i++) {
		struct rb_test one = *t;
		one.size = o->sizes[i];
		if (test_validate(&one, err, errlen))
			return -1;
	}
	t->size = o->sizes[0];
	return 0;
}
