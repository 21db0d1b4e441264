/*
 * options.c - the knob table, command line parsing and the validation
 * rules of a test point.
 *
 * How it works: knobs[] (below) has one row per option: long and short
 * flag, type, where its value lives, range, default, --help text, CSV
 * column. opts_parse() builds getopt_long's option array from it, and
 * converts every value by its row's type and range (units_parse_u64 and
 * friends: range-checked, no strtoul), recording which knobs were given
 * (some defaults depend on others); test_resolve_defaults() then fills
 * the dependent defaults and test_validate() checks the template once per
 * message size: first every sent knob's range (check_ranges, from the
 * table: a TEST from the wire passes the same check), then the rules
 * between knobs, one stage per function. opts_usage() and
 * opts_list_knobs() print the table. Nothing here touches a device: the
 * rules that need one are in test_validate_device(), called right after
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
static const char *const perf_mode_names[RB_PERF_COUNT] = { "auto", "on", "off" };

#define NAME_OF(tab, v) ((v) < sizeof(tab) / sizeof(tab[0]) ? tab[v] : "?")

const char *transport_name(uint64_t t) { return NAME_OF(transport_names, t); }
const char *testkind_name(uint64_t t) { return NAME_OF(test_names, t); }
const char *inline_name(uint64_t m) { return NAME_OF(inline_names, m); }
const char *access_name(uint64_t a) { return NAME_OF(access_names, a); }
const char *read_completion_name(uint64_t m) { return NAME_OF(read_completion_names, m); }
const char *perf_mode_name(uint64_t m) { return NAME_OF(perf_mode_names, m); }
static const char *const doorbell_names[RB_DOORBELL_COUNT] = { "td", "shared", "ctx" };
const char *doorbell_name(uint64_t m) { return NAME_OF(doorbell_names, m); }
static const char *const aorder_names[RB_AORDER_COUNT] = { "swap", "refuse" };
const char *atomic_order_name(uint64_t m) { return NAME_OF(aorder_names, m); }

bool perf_counting(uint64_t mode, bool explain)
{
	return mode == RB_PERF_ON || (mode == RB_PERF_AUTO && explain);
}

uint64_t test_qps_per_thread(const struct rb_test *t)
{
	return t->qps_per_thread * t->emulated_peers;
}

bool test_read_poll(const struct rb_test *t)
{
	return t->read_completion == RB_READ_POLL && verb_row(t->verb)->slot == RB_SLOT_RECV &&
	       t->test == RB_TEST_BW;
}

/* The bw window when none is given: 64 WRs, or cap (the WRs the SQs can
 * hold) if fewer, raised to the postlist when one postlist fits in cap. */
static void default_window(struct rb_test *t, uint64_t cap)
{
	t->window = cap < 64 ? cap : 64;
	if (t->window < t->postlist && t->postlist <= cap)
		t->window = t->postlist;
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
			default_window(t, t->sq_depth > tail ? t->sq_depth - tail : 1);
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
	if (!given->window)
		default_window(t, t->sq_depth * (nqp ? nqp : 1));
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

static int check_ranges(const struct rb_test *t, char *err, size_t errlen);

/* Enum codes from the wire: each below its count. */
static int validate_codes(const struct rb_test *t, char *err, size_t errlen)
{
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
	return 0;
}

/* What each transport can do: IB spec 9.4 / table 9.7.1 (the verb table, verb.c). */
static int validate_transport(const struct rb_test *t, char *err, size_t errlen)
{
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
	return 0;
}

/* Sizes, and iterations or duration (never both, never zero). */
static int validate_sizes(const struct rb_test *t, char *err, size_t errlen)
{
	if (verb_is_atomic(t->verb) && t->size != 8)
		return rb_fail(err, errlen,
			    "--size %llu with --verb %s: atomics operate on 8 bytes (IB spec 9.4.5); "
			    "use -m 8 or leave -m out",
			    (unsigned long long)t->size, verb_name(t->verb));
	if (t->size > RB_MAX_SIZE) {
		char txt[32];
		return rb_fail(err, errlen, "--size %llu (%s): above the limit %llu (1 GiB); give "
			    "-m at most 1G", (unsigned long long)t->size,
			    units_size_text(t->size, txt, sizeof(txt)), (unsigned long long)RB_MAX_SIZE);
	}
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
	return 0;
}

/* Shape: threads and QPs. */
static int validate_shape(const struct rb_test *t, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);

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
	return 0;
}

/* Posting: postlist, window, signal interval (the SQ must never overflow). */
static int validate_posting(const struct rb_test *t, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);

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
	return 0;
}

/* The window against the send queue and the test kind; inline; receives. */
static int validate_window_sq(const struct rb_test *t, char *err, size_t errlen)
{
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
	return 0;
}

/* Path and QP attributes (IB spec 9.7.6; the ranges are check_ranges') and atomics. */
static int validate_attrs(const struct rb_test *t, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);

	if (t->mtu && !mtu_valid(t->mtu))
		return rb_fail(err, errlen, "--mtu %llu: must be one of 256 512 1024 2048 4096",
			    (unsigned long long)t->mtu);

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
	return 0;
}

/* The buffer (ctx.h layout): per QP a send slot and its receive slots;
 * the whole process at most RB_MAX_BUFFER. */
static int validate_buffer(const struct rb_test *t, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t);
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
	return 0;
}

/*
 * The rules of a point, one stage each; the ranges of every knob first
 * (check_ranges: the knob table's), then the rules between knobs.
 */
int test_validate(const struct rb_test *t, char *err, size_t errlen)
{
	if (check_ranges(t, err, errlen) || validate_codes(t, err, errlen) ||
	    validate_transport(t, err, errlen) || validate_sizes(t, err, errlen) ||
	    validate_shape(t, err, errlen) || validate_posting(t, err, errlen) ||
	    validate_window_sq(t, err, errlen) || validate_attrs(t, err, errlen) ||
	    validate_buffer(t, err, errlen))
		return -1;
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

static int parse_num(const char *arg, uint64_t min, uint64_t max, const char *name,
		     uint64_t *out, char *err, size_t errlen)
{
	return units_parse_u64(arg, min, max, name, out, err, errlen);
}

/* Seconds with up to 3 decimals ("2", "0.5") into milliseconds. */
/* "LO..HI s" of a seconds option's range in ms, each number as short as
 * it is exact (0.001, 86400), and HI in hours beside it from 1 h up
 * ("0.001..86400 s (24 h)"): a limit a reader takes in at once. */
const char *opts_secs_range(uint64_t lo_ms, uint64_t hi_ms, char *buf, size_t len)
{
	uint64_t v[2] = { lo_ms, hi_ms };
	char num[2][24];

	for (int i = 0; i < 2; i++) {
		if (v[i] % 1000)
			snprintf(num[i], sizeof(num[i]), "%llu.%03llu", (unsigned long long)(v[i] / 1000),
				 (unsigned long long)(v[i] % 1000));
		else
			snprintf(num[i], sizeof(num[i]), "%llu", (unsigned long long)(v[i] / 1000));
	}
	if (hi_ms < 3600000)
		snprintf(buf, len, "%s..%s s", num[0], num[1]);
	else if (hi_ms % 3600000 == 0)
		snprintf(buf, len, "%s..%s s (%llu h)", num[0], num[1],
			 (unsigned long long)(hi_ms / 3600000));
	else
		snprintf(buf, len, "%s..%s s (%.1f h)", num[0], num[1], (double)hi_ms / 3600000.0);
	return buf;
}

static int parse_secs(const char *arg, uint64_t min_ms, uint64_t max_ms, const char *name,
		      uint64_t *out_ms, char *err, size_t errlen)
{
	const char *p = arg;
	uint64_t whole = 0, frac = 0;
	int fdigits = 0;
	char range[96];

	if (!*p)
		return rb_fail(err, errlen, "%s '': expected seconds, e.g. 2 or 0.5", name);
	if (*p == '-')
		return rb_fail(err, errlen, "%s '%s': negative; expected seconds >= %.3f",
			    name, arg, (double)min_ms / 1000.0);
	while (*p >= '0' && *p <= '9') {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > UINT64_C(1) << 40)
			return rb_fail(err, errlen, "%s '%s': too large; must be %s", name, arg,
				    opts_secs_range(min_ms, max_ms, range, sizeof(range)));
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
				return rb_fail(err, errlen, "%s '%s': at most millisecond precision "
					    "(3 decimals); must be %s", name, arg,
					    opts_secs_range(min_ms, max_ms, range, sizeof(range)));
			}
			p++;
		}
	}
	if (*p == 'e' || *p == 'E')
		return rb_fail(err, errlen, "%s '%s': no exponent notation; write the seconds out, "
			    "e.g. 1000 or 0.5", name, arg);
	if (*p)
		return rb_fail(err, errlen, "%s '%s': trailing '%s'; expected seconds, e.g. 2 or 0.5",
			    name, arg, p);
	while (fdigits < 3) {
		frac *= 10;
		fdigits++;
	}
	uint64_t ms = whole * 1000 + frac;
	if (ms < min_ms || ms > max_ms)
		return rb_fail(err, errlen, "%s %s: must be %s", name, arg,
			    opts_secs_range(min_ms, max_ms, range, sizeof(range)));
	*out_ms = ms;
	return 0;
}

/* Name i of an enum row: its own list, or the table that owns the names. */
static const char *knob_enum_name(const struct rb_knob *k, unsigned i)
{
	return k->name_of ? k->name_of(i) : k->names[i];
}

static int parse_enum(const char *arg, const struct rb_knob *k, const char *opt,
		      uint64_t *out, char *err, size_t errlen)
{
	char list[256] = "";

	for (unsigned i = 0; i < k->nnames; i++) {
		if (strcmp(arg, knob_enum_name(k, i)) == 0) {
			*out = i;
			return 0;
		}
		strncat(list, knob_enum_name(k, i), sizeof(list) - strlen(list) - 1);
		if (i + 1 < k->nnames)
			strncat(list, "|", sizeof(list) - strlen(list) - 1);
	}
	return rb_fail(err, errlen, "%s '%s': unknown; use %s", opt, arg, list);
}

/* One CPU number of --cpus LIST at *p (a digit), *p moved past every
 * digit: 0, or -1 with err quoting the number as given when it is above
 * 65535 (the value saturates while reading, so no length overflows). */
static int cpu_number(const char *s, const char **p, uint64_t *v, char *err, size_t errlen)
{
	const char *num = *p;

	*v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if (*v < 100000)
			*v = *v * 10 + (uint64_t)(**p - '0');
	if (*v >= 65536)
		return rb_fail(err, errlen, "--cpus '%s': CPU %.*s is above the limit 65535; give "
			       "CPU numbers of this host (0 to nproc - 1)", s, (int)(*p - num), num);
	return 0;
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
			return rb_fail(err, errlen, "--cpus '%s': expected a CPU number at '%s'; "
				       "give a list such as 0,2,4-7, or spread", s, p);
		if (cpu_number(s, &p, &a, err, errlen))
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return rb_fail(err, errlen, "--cpus '%s': bad range at '%s'; give "
					       "FIRST-LAST, e.g. 4-7", s, start);
			if (cpu_number(s, &p, &b, err, errlen))
				return -1;
			if (b < a)
				return rb_fail(err, errlen, "--cpus '%s': range %llu-%llu is reversed", s,
					    (unsigned long long)a, (unsigned long long)b);
		}
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
			return rb_fail(err, errlen, "--cpus '%s': unexpected '%c'; give a list "
				       "such as 0,2,4-7, or spread", s, *p);
		}
	}
	*n = k;
	return 0;
}

static int copy_str(char *dst, size_t cap, const char *src, const char *opt, char *err,
		    size_t errlen)
{
	if (strlen(src) >= cap)
		return rb_fail(err, errlen, "%s: value longer than %zu characters", opt, cap - 1);
	strcpy(dst, src);
	return 0;
}

/* ---- the knob table ------------------------------------------------------ */

/* Rows of a knob table at most (checked where each is defined). */
#define NKNOBS_MAX RB_CLI_MAX_KNOBS

/* What opts_parse keeps between options. */
struct rb_parse {
	const struct rb_cli *cli; /* the program's table */
	void *app;                /* its RB_KW_APP fields */
	const char *sizes_arg;    /* -m's list (parsed once every option is known) */
	const char *client_opt;   /* the first option a server refuses */
	const char *server_only;  /* the last server limit given (a client refuses it) */
	char print;               /* 'h' --help, 'l' --list-knobs, 'b' --list-verbs, 'v' --version: after parsing */
	/* the first value of every setting given so far (check_given) */
	struct given_opt {
		const struct rb_knob *k;
		uint64_t v;             /* the value in force (numbers) */
		const char *text;       /* the value in force, as given */
		const char *first;      /* the first value, as given */
		unsigned values;        /* different values in a row given (1: no repeat) */
	} given[RB_CLI_MAX_KNOBS];
	unsigned ngiven;
};

/* the rows' own parsers (rb_knob_act), defined after the table */
static rb_knob_act act_sizes, act_list_verbs;

/* Where a row's value lives: a field of struct rb_test (sent to the
 * server), of struct rb_opts, or of its struct rb_limits. */
#define T(f) .where = RB_KW_TEST, .off = offsetof(struct rb_test, f), \
	     .width = sizeof(((struct rb_test *)0)->f)
#define O(f) .where = RB_KW_OPTS, .off = offsetof(struct rb_opts, f), \
	     .width = sizeof(((struct rb_opts *)0)->f)
#define G(f) .given = offsetof(struct rb_given, f) + 1
#define E(tab) .type = RB_KT_ENUM, .names = tab, .nnames = sizeof(tab) / sizeof(tab[0])
#define NUM .type = RB_KT_NUM
#define SECS .type = RB_KT_SECS
#define SIZE .type = RB_KT_SIZE
#define FLAG .type = RB_KT_FLAG, .hi = 1
#define STR .type = RB_KT_STR
#define SRV .flags = RB_KF_SERVER
#define BOTH .flags = RB_KF_BOTH
#define LIMIT .flags = RB_KF_SERVER | RB_KF_LIMIT

/*
 * Every option, in --help order. In help, %D is the row's default and %E
 * its enum names joined by '|'; a '\n' continues at the help column. The
 * ranges are those of the command line; a TEST from the wire is checked
 * against the same ranges (check_ranges), where RB_KF_ZERO also allows 0.
 */
static const struct rb_knob knobs[] = {
	RB_ROW_SERVER(.section = "Server (given no test flags: the client sends its whole "
				 "configuration):"),
	RB_ROW_PORT(.def = RB_DEFAULT_PORT),
	RB_ROW_BIND(),
	RB_ROW_ALLOW(),
	RB_ROW_ONCE(),
	{ .name = "max-sessions", .arg = "N", NUM, O(max_sessions), .lo = 1, .hi = 4096, .def = 64,
	  SRV, .help = "concurrent sessions (default %D; a slot is taken after\n"
		       "a valid HELLO, which must come within 5 s)" },
	{ .name = "max-per-peer", .arg = "N", NUM, O(lim.max_per_peer), .lo = 1, .hi = 4096,
	  .def = RB_DEFAULT_MAX_PER_PEER, LIMIT,
	  .help = "sessions from one address (%D)" },
	{ .name = "max-handshakes", .arg = "N", NUM, O(lim.max_handshakes), .lo = 1, .hi = 4096,
	  .def = RB_DEFAULT_MAX_HANDSHAKES, LIMIT,
	  .help = "connections waiting for their HELLO, all sources (%D;\n"
		  "when full, the one idle longest is dropped)" },
	{ .name = "handshakes-per-prefix", .arg = "N", NUM, O(lim.handshakes_per_prefix), .lo = 1,
	  .hi = 4096, .def = RB_DEFAULT_HANDSHAKES_PER_PREFIX, LIMIT,
	  .help = "of those, from one source prefix (%D)" },
	{ .name = "prefix-v4", .arg = "BITS", NUM, O(lim.prefix_v4), .lo = 8, .hi = 32,
	  .def = RB_DEFAULT_PREFIX_V4, LIMIT, .help = "IPv4 source prefix length (/%D)" },
	{ .name = "prefix-v6", .arg = "BITS", NUM, O(lim.prefix_v6), .lo = 16, .hi = 128,
	  .def = RB_DEFAULT_PREFIX_V6, LIMIT, .help = "IPv6 source prefix length (/%D)" },
	RB_ROW_MAX_MEM(.help = "memory of all points at once (default: half the host's\n"
			       "memory, and RLIMIT_MEMLOCK without CAP_IPC_LOCK)"),
	{ .name = "max-session-mem", .arg = "SIZE", SIZE, O(lim.max_session_mem),
	  .lo = UINT64_C(1) << 20, .hi = UINT64_C(1) << 50,
	  .flags = RB_KF_SERVER | RB_KF_LIMIT | RB_KF_AUTO,
	  .help = "memory of one session's point (half of --max-mem)" },
	{ .name = "max-threads", .arg = "N", NUM, O(lim.max_threads), .lo = 1,
	  .hi = RB_MAX_THREADS, .flags = RB_KF_SERVER | RB_KF_LIMIT | RB_KF_AUTO,
	  .help = "server worker threads, all sessions (default: 4 per online CPU,\n"
		  "at least 8)" },
	{ .name = "max-peer-threads", .arg = "N", NUM, O(lim.max_peer_threads), .lo = 1,
	  .hi = RB_MAX_THREADS, .flags = RB_KF_SERVER | RB_KF_LIMIT | RB_KF_AUTO,
	  .help = "of those, the sessions of one address together (default:\n"
		  "half of --max-threads, at least 4)" },
	{ .name = "max-qps", .arg = "N", NUM, O(lim.max_qps), .lo = 1, .hi = RB_MAX_QPS_TOTAL,
	  .def = RB_DEFAULT_MAX_QPS, LIMIT, .help = "QPs, all sessions (%D)" },
	{ .name = "max-duration", .arg = "SECS", SECS, O(lim.max_duration_ms), .lo = 1,
	  .hi = RB_MAX_SECS_MS, .def = RB_DEFAULT_MAX_DURATION, LIMIT,
	  .help = "-D of a point (%D)" },
	{ .name = "max-warmup", .arg = "SECS", SECS, O(lim.max_warmup_ms), .lo = 0,
	  .hi = RB_MAX_SECS_MS, .def = RB_DEFAULT_MAX_WARMUP, LIMIT,
	  .help = "--warmup of a point (%D)" },
	{ .name = "client-timeout", .arg = "S", NUM, O(lim.client_timeout_s), .lo = 1,
	  .hi = 86400, .def = RB_DEFAULT_CLIENT_TIMEOUT, LIMIT,
	  .help = "wait for a client's next message while holding a point's\n"
		  "resources (%D; the client's --timeout only shortens it)" },
	RB_ROW_TOKEN_FILE(.section = "Both roles:"),
	RB_ROW_IB_DEV(.section = "Device (both roles):"),
	RB_ROW_IB_PORT(),
	RB_ROW_GID_INDEX(),
	{ .name = "gid-ip", .arg = "ADDR", STR, O(gid_ip), BOTH,
	  .help = "use the GID equal to this IPv4/IPv6 address (RoCE)" },
	{ .name = "netdev", .arg = "IF", STR, O(netdev), BOTH,
	  .help = "use a GID of this netdev (RoCE; e.g. a VLAN or one rail)" },
	RB_ROW_CLIENT(.section = "Client:"),
	RB_ROW_VERB(T(verb), .col = "verb", .help = "%E (%D)"),
	RB_ROW_TRANSPORT(T(transport), .col = "transport", .help = "%E (%D)"),
	{ .name = "test", .arg = "K", E(test_names), T(test), .def = RB_TEST_BW, .col = "test",
	  .help = "%E (%D)" },
	{ .name = "size", .shortopt = 'm', .arg = "LIST", SIZE, T(size), .hi = RB_MAX_SIZE,
	  .def = 64, .flags = RB_KF_NOWIRE, G(size), .col = "size_bytes", .act = act_sizes,
	  .help = "payload bytes 0..1G, e.g. 0,8,64,4K (0: a header-only WR,\n"
		  "no SGE; env MSG_SIZES; default %D, atomics 8)" },
	{ .name = "iters", .shortopt = 'n', .arg = "N", NUM, T(iters), .lo = 1,
	  .hi = UINT64_C(1) << 48, .flags = RB_KF_ZERO | RB_KF_AUTO, G(iters), .col = "iters",
	  .help = "ops per thread in the measured window" },
	{ .name = "duration", .shortopt = 'D', .arg = "SECS", SECS, T(duration_ms), .lo = 1,
	  .hi = RB_MAX_SECS_MS, .flags = RB_KF_ZERO, G(duration), .col = "duration_req_s",
	  .knob = "duration_s",
	  .help = "measured window length (instead of -n); default -n 1000" },
	{ .name = "warmup-iters", .arg = "N", NUM, T(warmup_iters), .hi = UINT64_C(1) << 48,
	  G(warmup_iters), .col = "warmup_iters",
	  .help = "ops per thread before the window (default %D)" },
	{ .name = "warmup", .arg = "SECS", SECS, T(warmup_ms), .hi = RB_MAX_SECS_MS, G(warmup),
	  .col = "warmup_s", .help = "warm-up time instead of --warmup-iters" },
	RB_ROW_REPS(),
	RB_ROW_REP_FIRST(),
	RB_ROW_POSTLIST(T(postlist), G(postlist), .col = "postlist",
			.help = "WRs linked per ibv_post_send (doorbell batch; default %D)"),
	RB_ROW_SIGNAL_INTERVAL(T(signal_interval), .flags = RB_KF_AUTO, G(signal_interval),
			       .col = "signal_interval",
			       .help = "one signaled WR every N (1 = all; default up to 16 in bw)"),
	{ .name = "inline", .arg = "MODE", E(inline_names), T(inline_mode), .def = RB_INLINE_AUTO,
	  G(inline_mode), .col = "inline_mode", .knob = "inline",
	  .help = "%E (%D: inline when the granted cap covers it, <= 256 B)" },
	{ .name = "window", .shortopt = 'w', .arg = "N", NUM, T(window), .lo = 1,
	  /* the most send-queue slots a thread can have: --sq-depth's maximum x
	   * the QPs per thread's maximum (2^32; the field is 64-bit); the rule
	   * for the values given is validate_posting's sq_depth x QPs */
	  .hi = (uint64_t)RB_MAX_DEPTH * RB_MAX_QPS_THREAD, .flags = RB_KF_AUTO, G(window), .col = "window",
	  .hi_rule = "--sq-depth x QPs per thread (128 x 1 unless given)",
	  .help = "outstanding ops per thread (bw default 64; lat 1)" },
	{ .name = "read-completion", .arg = "M", E(read_completion_names), T(read_completion),
	  .def = RB_READ_CQE, .col = "read_completion",
	  .help = "%E (%D): how a bw READ's completion is seen: its CQE\n"
		  "(the window must cover every QP's unsignaled tail), or\n"
		  "poll: the last byte of its own destination slot changing\n"
		  "(window and --signal-interval independent; needs\n"
		  "--sq-depth >= window + signal interval - 1; --verb read)" },
	{ .name = "qps", .shortopt = 'q', .arg = "N", NUM, T(qps_per_thread), .lo = 1,
	  .hi = RB_MAX_QPS_THREAD, .flags = RB_KF_ALIAS, .knob = "qps",
	  .help = "QPs per thread (same as --qps-per-thread)" },
	{ .name = "qps-per-thread", .arg = "N", NUM, T(qps_per_thread), .lo = 1,
	  .hi = RB_MAX_QPS_THREAD, .def = 1, .col = "qps_per_thread" },
	{ .name = "threads", .arg = "T", NUM, T(threads), .lo = 1, .hi = RB_MAX_THREADS, .def = 1,
	  .col = "threads", .help = "worker threads, each with its own CQ, QPs, buffer slice" },
	{ .name = "emulated-peers", .arg = "M", NUM, T(emulated_peers), .lo = 1,
	  .hi = RB_MAX_QPS_THREAD, .def = 1, .col = "emulated_peers",
	  .help = "connected QPs per thread per emulated remote machine" },
	{ .name = "sq-depth", .arg = "N", NUM, T(sq_depth), .lo = 1, .hi = RB_MAX_DEPTH,
	  .def = 128, .col = "sq_depth", .help = "send queue depth (%D)" },
	{ .name = "rq-depth", .arg = "N", NUM, T(rq_depth), .lo = 1, .hi = RB_MAX_DEPTH,
	  .def = 128, .col = "rq_depth", .help = "receive queue depth (%D)" },
	{ .name = "cq-depth", .arg = "N", NUM, T(cq_depth), .lo = 1, .hi = UINT64_C(1) << 24,
	  .flags = RB_KF_ZERO | RB_KF_AUTO, .col = "cq_depth",
	  .help = "CQ depth (default: sized from window and queue depths)" },
	{ .name = "mtu", .arg = "BYTES", NUM, T(mtu), .lo = 256, .hi = 4096,
	  .flags = RB_KF_ZERO | RB_KF_AUTO, G(mtu), .col = "path_mtu",
	  .help = "path MTU 256..4096 (default: min of both active MTUs)" },
	{ .name = "ack-timeout", .arg = "V", NUM, T(ack_timeout), .hi = 31, .def = 14,
	  .col = "ack_timeout", .note = " (timeout = 4.096 us x 2^v; 0 = infinite)",
	  .help = "local ACK timeout code, 4.096 us x 2^V (%D)" },
	{ .name = "retry-cnt", .arg = "N", NUM, T(retry_cnt), .hi = 7, .def = 7,
	  .col = "retry_cnt", .note = " (3-bit field)", .help = "transport retries (%D)" },
	{ .name = "rnr-retry", .arg = "N", NUM, T(rnr_retry), .hi = 7, .def = 7,
	  .col = "rnr_retry", .note = " (7 = infinite)", .help = "RNR retries, 7 = infinite (%D)" },
	{ .name = "min-rnr-timer", .arg = "V", NUM, T(min_rnr_timer), .hi = 31, .def = 12,
	  .col = "min_rnr_timer", .note = " (IB spec table 45 code)",
	  .help = "RNR NAK timer code (%D = 0.64 ms)" },
	/* the fabric's QoS and partition (perftest's --tclass, --sl, --pkey_index):
	 * IB spec 8.3.1 GRH traffic class (RoCE v2: the IP ToS byte, DSCP =
	 * V >> 2; with -R also rdma_cm's RDMA_OPTION_ID_TOS), 7.6.5 LRH service
	 * level, 10.9.2 P_Key table index (checked against the port's table) */
	{ .name = "tclass", .arg = "V", NUM, T(tclass), .hi = 255, .def = 0, .col = "tclass",
	  .note = " (8-bit GRH traffic class)",
	  .help = "traffic class / IP ToS byte of every packet, DSCP = V >> 2 (%D)" },
	{ .name = "sl", .arg = "N", NUM, T(sl), .hi = 15, .def = 0, .col = "sl",
	  .note = " (4-bit LRH service level)", .help = "service level (%D)" },
	{ .name = "pkey-index", .arg = "N", NUM, T(pkey_index), .hi = 65535, .def = 0,
	  .col = "pkey_index", .note = " (index into the port's P_Key table)",
	  .help = "P_Key table index of the QPs (%D)" },
	{ .name = "max-rd-atomic", .arg = "N", NUM, T(max_rd_atomic), .lo = 1, .hi = 255,
	  .flags = RB_KF_ZERO | RB_KF_AUTO, .col = "max_rd_atomic",
	  .help = "outstanding READ/atomics (default: negotiated maximum)" },
	{ .name = "atomic-counters", .arg = "Z", NUM, T(atomic_counters), .lo = 1,
	  .hi = UINT64_C(1) << 24, .def = 1, G(atomic_counters), .col = "atomic_counters",
	  .help = "counters hit by fetch_add/cmp_swap (%D)" },
	{ .name = "stride", .arg = "BYTES", SIZE, T(stride), .lo = 8, .hi = UINT64_C(1) << 20,
	  .def = 64, .flags = RB_KF_NOWIRE, G(stride), .col = "stride_bytes",
	  .help = "distance between counters (%D)" },
	{ .name = "access", .arg = "MODE", E(access_names), T(access), .def = RB_ACCESS_SEQ,
	  G(access), .col = "access", .help = "%E counter choice (%D)" },
	{ .name = "recv-batch", .arg = "N", NUM, T(recv_batch), .lo = 1, .hi = RB_MAX_DEPTH,
	  .def = 1, G(recv_batch), .col = "recv_batch",
	  .help = "receive WRs re-posted per ibv_post_recv (%D)" },
	{ .name = "validate", FLAG, T(validate), .col = "validate",
	  .help = "check payloads end to end; atomics: counter sum" },
	RB_ROW_CPUS(),
	RB_ROW_NUMA(),
	RB_ROW_HUGEPAGES(),
	{ .name = "doorbell", .arg = "MODE", E(doorbell_names), O(doorbell), BOTH,
	  .def = RB_DOORBELL_TD, G(doorbell), .col = "doorbell_mode",
	  .help = "%E: each worker's QPs on a thread domain of their\n"
		  "own (ibv_alloc_td; %D; shared where the device has none:\n"
		  "the doorbell column says), all on one PD, or (client) each\n"
		  "worker on a device context of its own (ibv_open_device,\n"
		  "its own PD, MR, CQs; the server keeps one context, whose\n"
		  "rkey the client was sent: ctx acts as td there)" },
	{ .name = "atomic-order", .arg = "MODE", E(aorder_names), O(atomic_order),
	  .def = RB_AORDER_SWAP, .col = "atomic_order_mode",
	  .help = "%E an atomic reply the startup self-test finds in\n"
		  "the other byte order (%D)" },
	{ .name = "rdma-cm", .shortopt = 'R', FLAG, T(use_cm), .col = "connect",
	  .help = "connect QPs with rdma_cm (rc, ud)" },
	RB_ROW_CONNECT_TIMEOUT(),
	RB_ROW_TIMEOUT(RB_AT_TEST(timeout_ms)),
	RB_ROW_CSV(),
	RB_ROW_JSON(),
	RB_ROW_RUN_ID(),
	RB_ROW_PROC_INDEX(),
	{ .name = "procs", .arg = "N", NUM, O(procs), .lo = 1, .hi = CTRL_MAX_PROCS, .def = 1,
	  .col = "procs",
	  .help = "N client processes (any hosts) share this --run-id: each\n"
		  "waits at the server's start barrier after setup and\n"
		  "warm-up, and all count ops in one common -D window\n"
		  "named by the server (needs --run-id and -D; default %D:\n"
		  "no barrier)" },
	{ .name = "run-key-file", .arg = "FILE", STR, O(run_key_file),
	  .help = "the run's secret in FILE (as --token-file's: mode 600,\n"
		  "16-64 printable bytes), the same for all --procs processes:\n"
		  "the server keys the start barrier by run id and key, so a\n"
		  "peer that knows the run id alone cannot join or fail it" },
	{ .name = "seed", .arg = "N", NUM, T(seed), .hi = UINT64_MAX, .def = 1, .col = "seed",
	  .help = "payload pattern and random access seed (%D)" },
	RB_ROW_QUIET(),
	{ .name = "perf-counters", .arg = "MODE", E(perf_mode_names), O(perf_counters),
	  .def = RB_PERF_AUTO, .col = "perf_counters",
	  .help = "%E (%D: with --explain only): the worker threads'\n"
		  "perf events over the window (the perf_* columns); their\n"
		  "bookkeeping at each context switch is inside the\n"
		  "measurement (soft-RoCE: one switch per op)" },
	RB_ROW_DRY_RUN(),
	{ .name = "explain", FLAG, O(explain),
	  .help = "after each point, an EXPLAIN line on stderr (also the\n"
		  "explain column): Mops, the PCIe model's limit and what\n"
		  "binds, CPU ns per op, trouble counters that moved" },
#ifdef RB_KNOB_TEST_DUMMY
	/* the new-knob recipe (docs/ARCHITECTURE.md), walked by tests/unit/knob_dummy.c */
	{ .name = "dummy-knob", .arg = "N", NUM, T(dummy_knob), .hi = 9, .def = 3,
	  .col = "dummy_knob", .help = "the recipe's knob, 0..9 (%D)" },
#endif
	RB_ROW_LIST_KNOBS(),
	{ .name = "list-verbs", FLAG, BOTH, .act = act_list_verbs,
	  .help = "every verb as one tab-separated line: name, transports,\n"
		  "kind, imm, recv, inline, latency (docs/rdma_bench.md)" },
	RB_ROW_HELP(),
	RB_ROW_VERSION(),
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
_Static_assert(NKNOBS <= NKNOBS_MAX, "raise NKNOBS_MAX: struct rb_parse keeps one entry per row");
#undef T
#undef O
#undef G
#undef E
#undef NUM
#undef SECS
#undef SIZE
#undef FLAG
#undef STR
#undef SRV
#undef BOTH
#undef LIMIT

const struct rb_knob *opts_knobs(size_t *n)
{
	*n = NKNOBS;
	return knobs;
}

/* "-n/--iters" or "--warmup": how messages name a row's option. */
static const char *knob_display(const struct rb_knob *k, char *buf, size_t len)
{
	if (k->shortopt)
		snprintf(buf, len, "-%c/--%s", k->shortopt, k->name);
	else
		snprintf(buf, len, "--%s", k->name);
	return buf;
}

static void *knob_field(const struct rb_knob *k, struct rb_opts *o, void *app)
{
	switch (k->where) {
	case RB_KW_TEST: return (char *)&o->t + k->off;
	case RB_KW_OPTS: return (char *)o + k->off;
	case RB_KW_APP: return app ? (char *)app + k->off : NULL;
	default: return NULL;
	}
}

/* A number field of 1, 2, 4 or 8 bytes (bool, uint16_t, unsigned/int, uint64_t). */
static void store_num(void *dst, size_t width, uint64_t v)
{
	uint8_t b = (uint8_t)v;
	uint16_t h = (uint16_t)v;
	uint32_t w = (uint32_t)v;

	switch (width) {
	case 1: memcpy(dst, &b, 1); break;
	case 2: memcpy(dst, &h, 2); break;
	case 4: memcpy(dst, &w, 4); break;
	case 8: memcpy(dst, &v, 8); break;
	default: break; /* arrays: set by their own code */
	}
}

/* Rows that own their field: the one place its default and range are read. */
static bool knob_owns_field(const struct rb_knob *k)
{
	return k->where != RB_KW_NONE && !(k->flags & (RB_KF_ALIAS | RB_KF_HELP2)) &&
	       k->type != RB_KT_STR;
}

void test_defaults(struct rb_test *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < NKNOBS; i++)
		if (knob_owns_field(&knobs[i]) && knobs[i].where == RB_KW_TEST)
			store_num((char *)t + knobs[i].off, knobs[i].width, knobs[i].def);
}

/* o zeroed with rdma_bench's TEST defaults, then every row of cli that
 * owns a field of o or app given its default. */
static void opts_defaults(const struct rb_cli *cli, struct rb_opts *o, void *app)
{
	memset(o, 0, sizeof(*o));
	test_defaults(&o->t);
	for (size_t i = 0; i < cli->nknobs; i++) {
		const struct rb_knob *k = &cli->knobs[i];
		void *dst = knob_field(k, o, app);
		if (knob_owns_field(k) && k->where != RB_KW_TEST && dst)
			store_num(dst, k->width, k->def);
	}
}

const char *knob_col(enum rb_knob_where where, size_t off)
{
	for (size_t i = 0; i < NKNOBS; i++) /* knobs[0], -s/--server, has no field */
		if (knobs[i].where == where && knobs[i].off == off && knobs[i].col &&
		    !(knobs[i].flags & (RB_KF_ALIAS | RB_KF_HELP2)))
			return knobs[i].col;
	return "?";
}

/*
 * The ranges of the command line, applied to a TEST from the wire (a peer
 * may send any u64): every sent number row except those whose range is a
 * rule of test_validate (RB_KF_NOWIRE); RB_KF_ZERO rows also take 0.
 */
static int check_ranges(const struct rb_test *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < NKNOBS; i++) {
		const struct rb_knob *k = &knobs[i];
		char name[48];
		uint64_t v;

		if (k->where != RB_KW_TEST || !knob_owns_field(k) || k->type == RB_KT_ENUM ||
		    (k->flags & RB_KF_NOWIRE))
			continue;
		memcpy(&v, (const char *)t + k->off, sizeof(v));
		if ((v >= k->lo && v <= k->hi) || (v == 0 && (k->flags & RB_KF_ZERO)))
			continue;
		knob_display(k, name, sizeof(name));
		return rb_fail(err, errlen, "%s%s %llu: must be %s%llu..%llu%s", name,
			    k->type == RB_KT_SECS ? " (ms)" : "", (unsigned long long)v,
			    k->flags & RB_KF_ZERO ? "0 (auto) or " : "", (unsigned long long)k->lo,
			    (unsigned long long)k->hi, k->note ? k->note : "");
	}
	return 0;
}

/* A row's default as the command line writes it ("14", "120", "write"). */
static const char *knob_default(const struct rb_knob *k, char *buf, size_t len)
{
	if (k->flags & RB_KF_ALIAS)
		snprintf(buf, len, "-"); /* the owning row says it */
	else if (k->flags & RB_KF_AUTO)
		snprintf(buf, len, "auto");
	else if (k->type == RB_KT_ENUM)
		snprintf(buf, len, "%s", k->def < k->nnames ? knob_enum_name(k, (unsigned)k->def) : "?");
	else if (k->type == RB_KT_SECS && k->def % 1000)
		snprintf(buf, len, "%.3f", (double)k->def / 1000.0);
	else if (k->type == RB_KT_SECS)
		snprintf(buf, len, "%llu", (unsigned long long)(k->def / 1000));
	else if (k->type == RB_KT_STR || !k->arg)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%llu", (unsigned long long)k->def);
	return buf;
}

/* An enum row's names joined by '|'. */
static const char *knob_enum_list(const struct rb_knob *k, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < k->nnames && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "|" : "", knob_enum_name(k, i));
		used += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

/* One --help line: "  -p, --port N" padded to column 26, then the text
 * with %D and %E filled in and each '\n' continued at column 26. */
static void usage_row(FILE *f, const struct rb_knob *k)
{
	char lhs[64], val[256];
	int n;

	if (k->shortopt)
		n = snprintf(lhs, sizeof(lhs), "  -%c, --%s%s%s", k->shortopt, k->name,
			     k->arg ? " " : "", k->arg ? k->arg : "");
	else
		n = snprintf(lhs, sizeof(lhs), "      --%s%s%s", k->name, k->arg ? " " : "",
			     k->arg ? k->arg : "");
	fprintf(f, "%s%*s", lhs, n <= 25 ? 26 - n : 2, "");
	for (const char *p = k->help; *p; p++) {
		if (p[0] == '%' && p[1] == 'D') {
			fputs(knob_default(k, val, sizeof(val)), f);
			p++;
		} else if (p[0] == '%' && p[1] == 'E') {
			fputs(knob_enum_list(k, val, sizeof(val)), f);
			p++;
		} else if (*p == '\n') {
			fprintf(f, "\n%26s", "");
		} else {
			fputc(*p, f);
		}
	}
	fputc('\n', f);
}

void opts_usage_cli(const struct rb_cli *cli, FILE *f)
{
	fprintf(f, "%s\n", cli->synopsis);
	for (size_t i = 0; i < cli->nknobs; i++) {
		if (cli->knobs[i].section)
			fprintf(f, "%s\n", cli->knobs[i].section);
		if (cli->knobs[i].help)
			usage_row(f, &cli->knobs[i]);
	}
	fprintf(f, "\n%s", cli->epilog);
}

static const char rb_synopsis[] =
"usage: rdma_bench -s [-p PORT] [--bind ADDR] [--allow CIDR,...] [--token-file F]\n"
"                     [limits] [-d DEV] [-i PORT] [-x GID] [--once]\n"
"       rdma_bench -c HOST [options]\n";

static const char rb_epilog[] =
"Exit status: 0 every point ok; 1 a point failed (its row says why); 2 usage or\n"
"setup error: the command line, or a point's configuration refused before\n"
"anything was measured, whichever side detected it, a server's --max-* limits\n"
"included (row status skipped, reason 'refused by the client: ...' or 'refused\n"
"by the server: ...'); 128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129\n"
"SIGHUP): the point in progress gets no row, every finished row is in --csv,\n"
"--json and the table; a second signal exits at once.\n";

static int rb_client_finish(struct rb_opts *o, void *app, const struct rb_parse *ps, char *err,
			    size_t errlen);

static const struct rb_cli rb_cli = {
	.prog = "rdma_bench",
	.knobs = knobs,
	.nknobs = NKNOBS,
	.synopsis = rb_synopsis,
	.epilog = rb_epilog,
	.client_finish = rb_client_finish,
};

const struct rb_cli *opts_cli(void)
{
	return &rb_cli;
}

void opts_usage(FILE *f)
{
	opts_usage_cli(&rb_cli, f);
}

static const char *const type_names[] = { "num", "secs", "size", "enum", "flag", "text" };

/*
 * --list-knobs: per option one line of 10 tab-separated fields ("-" when
 * empty): option, short flag, value name, type, default (seconds for secs;
 * auto when computed), range (lo..hi, or the enum names), CSV column, the
 * runner's knob name (sent rows that take a value), sent or local, role
 * (client, server, both). docs/rdma_bench.md, "Knob list".
 */
void opts_list_knobs(FILE *f)
{
	opts_list_knobs_cli(&rb_cli, f);
}

/* Is row k's value sent to the server (in TEST, or its program's own message)? */
static bool knob_sent(const struct rb_knob *k)
{
	return k->where == RB_KW_TEST || (k->where == RB_KW_APP && (k->flags & RB_KF_SENT));
}

void opts_list_knobs_cli(const struct rb_cli *cli, FILE *f)
{
	for (size_t i = 0; i < cli->nknobs; i++) {
		const struct rb_knob *k = &cli->knobs[i];
		char def[64], range[256] = "-", shortopt[4] = "-";
		const char *knob = k->knob ? k->knob : k->col;
		bool secs = k->type == RB_KT_SECS;

		if (k->flags & RB_KF_HELP2)
			continue;
		if (k->type == RB_KT_ENUM)
			knob_enum_list(k, range, sizeof(range));
		else if (secs)
			snprintf(range, sizeof(range), "%.3f..%.3f", (double)k->lo / 1000.0,
				 (double)k->hi / 1000.0);
		else if (k->type == RB_KT_NUM || k->type == RB_KT_SIZE)
			snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)k->lo,
				 (unsigned long long)k->hi);
		if (k->shortopt)
			snprintf(shortopt, sizeof(shortopt), "-%c", k->shortopt);
		fprintf(f, "--%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k->name, shortopt,
			k->arg ? k->arg : "-", type_names[k->type], knob_default(k, def, sizeof(def)),
			range, k->col ? k->col : "-",
			knob_sent(k) && k->arg && knob ? knob : "-",
			knob_sent(k) ? "sent" : "local",
			cli->roleless ? "-" : k->flags & RB_KF_BOTH ? "both" :
			k->flags & RB_KF_SERVER ? "server" : "client");
	}
}

/* ---- command line -------------------------------------------------------- */

int opts_act_server(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		      size_t errlen)
{
	(void)a, (void)ps;
	if (o->role == RB_ROLE_CLIENT)
		return rb_fail(err, errlen, "-s and -c both given: a process is a server or a client");
	o->role = RB_ROLE_SERVER;
	return 0;
}

int opts_act_client(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		      size_t errlen)
{
	(void)ps;
	if (o->role == RB_ROLE_SERVER)
		return rb_fail(err, errlen, "-s and -c both given: a process is a server or a client");
	if (o->host[0])
		return rb_fail(err, errlen, "-c/--client '%s' after -c '%s': one server per run; give "
			    "-c once (run the program again for another server)", a, o->host);
	if (!a[0])
		return rb_fail(err, errlen, "-c/--client '': an empty host name; give the server's "
			    "host name or address (e.g. -c 198.18.0.1), or -s to be the server");
	o->role = RB_ROLE_CLIENT;
	return copy_str(o->host, sizeof(o->host), a, "-c/--client", err, errlen);
}

static int act_sizes(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		     size_t errlen)
{
	(void)o, (void)err, (void)errlen;
	ps->sizes_arg = a;
	return 0;
}

int opts_act_cpus(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		  size_t errlen)
{
	(void)ps;
	o->cpus_spread = strcmp(a, "spread") == 0;
	o->cpus_none = strcmp(a, "none") == 0;
	o->ncpus = 0;
	if (o->cpus_spread || o->cpus_none)
		return 0;
	return opts_parse_cpus(a, o->cpus, RB_MAX_CPUS, &o->ncpus, err, errlen);
}

int opts_act_run_id(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		      size_t errlen)
{
	(void)ps;
	if (copy_str(o->run_id, sizeof(o->run_id), a, "--run-id", err, errlen))
		return -1;
	for (const char *p = a; *p; p++)
		if (*p == ',' || *p == '"' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return rb_fail(err, errlen,
				    "--run-id '%s': no commas, quotes, newlines or other "
				    "control characters", a);
	return 0;
}

/* --help, --version, --list-knobs: noted here, printed once the whole
 * command line parsed (an unknown option still fails); opts_parse then
 * returns 1. --version sets o->version: the caller prints it (main.c,
 * with the build's git revision). */
int opts_act_help(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		    size_t errlen)
{
	(void)a, (void)o, (void)err, (void)errlen;
	ps->print = ps->print ? ps->print : 'h';
	return 0;
}

int opts_act_version(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		       size_t errlen)
{
	(void)a, (void)o, (void)err, (void)errlen;
	ps->print = ps->print ? ps->print : 'v';
	return 0;
}

int opts_act_list(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		    size_t errlen)
{
	(void)a, (void)o, (void)err, (void)errlen;
	ps->print = ps->print ? ps->print : 'l';
	return 0;
}

static int act_list_verbs(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
			  size_t errlen)
{
	(void)a, (void)o, (void)err, (void)errlen;
	ps->print = ps->print ? ps->print : 'b';
	return 0;
}

/* The first of --help, --list-knobs, --list-verbs, --version given: print
 * it (1). */
static int print_and_stop(const struct rb_parse *ps, struct rb_opts *o)
{
	if (ps->print == 'h')
		opts_usage_cli(ps->cli, stdout);
	else if (ps->print == 'l')
		opts_list_knobs_cli(ps->cli, stdout);
	else if (ps->print == 'b')
		verb_list(stdout);
	else
		o->version = true;
	return 1;
}

/* getopt_long's code of row i: its short flag, else 1000 + i. */
static int knob_code(const struct rb_cli *cli, size_t i)
{
	return cli->knobs[i].shortopt ? cli->knobs[i].shortopt : 1000 + (int)i;
}

static const struct rb_knob *knob_of_code(const struct rb_cli *cli, int c)
{
	for (size_t i = 0; i < cli->nknobs; i++)
		if (!(cli->knobs[i].flags & RB_KF_HELP2) && knob_code(cli, i) == c)
			return &cli->knobs[i];
	return NULL;
}

/* getopt_long's option array and short-option string, from the table. */
static void build_getopt(const struct rb_cli *cli, struct option *lo, char *shorts, size_t cap)
{
	size_t n = 0, s = 0;

	shorts[s++] = ':';
	for (size_t i = 0; i < cli->nknobs; i++) {
		const struct rb_knob *k = &cli->knobs[i];
		if (k->flags & RB_KF_HELP2)
			continue;
		lo[n++] = (struct option){ k->name, k->arg ? required_argument : no_argument, NULL,
					   knob_code(cli, i) };
		if (k->shortopt && s + 3 < cap) {
			shorts[s++] = k->shortopt;
			if (k->arg)
				shorts[s++] = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	shorts[s] = '\0';
}

/* Do rows a and b set the same thing: one row, or two rows of one field
 * (an alias pair: -q and --qps-per-thread)? */
static bool same_setting(const struct rb_knob *a, const struct rb_knob *b)
{
	return a == b || (!a->act && !b->act && a->where == b->where && a->off == b->off);
}

/*
 * An option given twice with different values: the last one is taken and
 * o->repeated says so (repeated_note; the caller prints it as WARN), as
 * getopt tools do, so a wrapper can pass defaults and then the user's
 * overrides (ours do:
 * tests/mtu-mismatch-run, tests/dead-peer-run); the same value again is
 * harmless. Two rows of one field with different values (an alias pair:
 * --qps 2 --qps-per-thread 3) are refused naming both: which one wins
 * would be a guess. Numbers compare by value (-D 1 and -D 1.000 are one
 * setting), strings and options with their own parsing (-m, --cpus) by
 * text. v: the parsed number; a: the text.
 */
static int check_given(const struct rb_knob *k, uint64_t v, const char *a, struct rb_parse *ps,
		       char *err, size_t errlen)
{
	char pa[48], pb[48];
	bool by_text = k->act || k->type == RB_KT_STR;

	if (!a)
		a = ""; /* a flag: recorded (opts_given), never contradicted */
	for (unsigned i = 0; i < ps->ngiven; i++) {
		struct given_opt *g = &ps->given[i];
		if (!same_setting(g->k, k))
			continue;
		if (by_text ? strcmp(g->text, a) == 0 : g->v == v)
			return 0;
		if (g->k != k)
			return rb_fail(err, errlen, "%s %s and %s %s: the same setting given twice "
				    "with different values; give one of them",
				    knob_display(g->k, pa, sizeof(pa)), g->text,
				    knob_display(k, pb, sizeof(pb)), a);
		g->v = v;
		g->text = a;
		g->values++;
		return 0;
	}
	if (ps->ngiven < NKNOBS_MAX) /* one entry per setting: never full */
		ps->given[ps->ngiven++] = (struct given_opt){ k, v, a, a, 1 };
	return 0;
}

/* o->repeated from every option given with different values (check_given):
 * "-n/--iters 5 then 7 (3 values), -m 1 then 2: the last value of each is
 * used"; "" when none. */
static void repeated_note(const struct rb_parse *ps, struct rb_opts *o)
{
	size_t n = 0, cap = sizeof(o->repeated);
	char name[48], times[32];
	unsigned opts = 0;

	o->repeated[0] = '\0';
	for (unsigned i = 0; i < ps->ngiven && n < cap; i++) {
		const struct given_opt *g = &ps->given[i];
		if (g->values < 2)
			continue;
		times[0] = '\0';
		if (g->values > 2)
			snprintf(times, sizeof(times), " (%u values)", g->values);
		int w = snprintf(o->repeated + n, cap - n, "%s%s %.60s then %.60s%s", n ? ", " : "",
				 knob_display(g->k, name, sizeof(name)), g->first, g->text, times);
		n += w > 0 ? (size_t)w : 0;
		opts++;
	}
	if (n && n < cap)
		snprintf(o->repeated + n, cap - n, ": given more than once; the last value%s is "
			 "used", opts > 1 ? " of each" : "");
}

/* One option's value into its field, by its row's type and range. */
static int parse_knob(const struct rb_knob *k, const char *a, struct rb_opts *o,
		      struct rb_parse *ps, char *err, size_t errlen)
{
	void *dst = knob_field(k, o, ps->app);
	char name[48];
	uint64_t v = 1;
	int rc = 0;

	knob_display(k, name, sizeof(name));
	if (k->act)
		rc = k->act(a, o, ps, err, errlen);
	else if (k->type == RB_KT_NUM) {
		rc = parse_num(a, k->lo, k->hi, name, &v, err, errlen);
		/* the static hi (e.g. 2^32 for -w) would mislead: name the rule */
		if (rc && k->hi_rule)
			return rb_fail(err, errlen, "%s '%s': use an integer from %llu to %s",
				       name, a, (unsigned long long)k->lo, k->hi_rule);
	}
	else if (k->type == RB_KT_SECS)
		rc = parse_secs(a, k->lo, k->hi, name, &v, err, errlen);
	else if (k->type == RB_KT_SIZE && (k->flags & RB_KF_NOWIRE))
		rc = units_parse_size(a, &v, err, errlen); /* the range: test_validate's rule */
	else if (k->type == RB_KT_SIZE)
		rc = units_parse_size_opt(a, k->lo, k->hi, name, &v, err, errlen);
	else if (k->type == RB_KT_ENUM)
		rc = parse_enum(a, k, name, &v, err, errlen);
	else if (k->type == RB_KT_STR)
		rc = copy_str(dst, k->width, a, name, err, errlen);
	if (rc)
		return rc;
	/* a text option given '' would act as if left out (a FILE option
	 * would write or read nothing), silently: say so */
	if (k->type == RB_KT_STR && !a[0]) {
		bool file = k->arg && strcmp(k->arg, "FILE") == 0;
		return rb_fail(err, errlen, "%s '': an empty %s; give %s (%s %s), or leave %s out",
			       name, file ? "file name" : "value", file ? "a path" : "a value",
			       name, k->arg ? k->arg : "VALUE", name);
	}
	if (check_given(k, v, a, ps, err, errlen))
		return -1;
	if (!k->act && k->type != RB_KT_STR)
		store_num(dst, k->width, v);
	if (k->given)
		*((bool *)((char *)&o->given + k->given - 1)) = true;
	if (k->flags & RB_KF_LIMIT)
		ps->server_only = k->name;
	return 0;
}

/* The server takes no test flags: they come from each client. */
static int server_finish(const struct rb_parse *ps, char *err, size_t errlen)
{
	if (ps->client_opt)
		return rb_fail(err, errlen,
			    "--%s given to the server: test options belong to the client (-c), "
			    "which sends them over the control channel", ps->client_opt);
	return 0;
}

/* Options that apply to some verbs or need others are refused, not ignored. */
static int client_combinations(const struct rb_opts *o, const struct rb_parse *ps, char *err,
			       size_t errlen)
{
	const struct rb_test *t = &o->t;
	const struct rb_given *g = &o->given;

	if (o->once)
		return rb_fail(err, errlen, "--once is a server option (-s)");
	if (ps->server_only)
		return rb_fail(err, errlen, "--%s is a server option (-s): the server sets its own "
			    "limits and admission", ps->server_only);
	if (!verb_is_atomic(t->verb) && (g->atomic_counters || g->stride || g->access))
		return rb_fail(err, errlen,
			    "--atomic-counters/--stride/--access apply to fetch_add and cmp_swap only "
			    "(--verb is %s)", verb_name(t->verb));
	if (!verb_needs_recv(t->verb) && g->recv_batch)
		return rb_fail(err, errlen,
			    "--recv-batch applies to verbs that consume receives (send, send_imm, "
			    "write_imm); --verb is %s", verb_name(t->verb));
	if (o->doorbell == RB_DOORBELL_CTX && t->use_cm)
		return rb_fail(err, errlen, "--doorbell ctx with -R/--rdma-cm: rdma_cm creates each "
			    "QP on the device context of its id, not on one a worker opened; use "
			    "--doorbell td or shared with -R, or drop -R");
	if (o->procs > 1 && !g->duration)
		return rb_fail(err, errlen, "--procs %u needs -D SECS: the processes share one "
			    "measured window of that length (with -n each would end at its own time)",
			    o->procs);
	if (o->procs > 1 && o->proc_index >= o->procs)
		return rb_fail(err, errlen, "--proc-index %llu with --procs %u: the processes of a "
			    "run are numbered 0..%u; give each its own index below --procs",
			    (unsigned long long)o->proc_index, o->procs, o->procs - 1);
	if (o->procs > 1 && !o->run_id[0])
		return rb_fail(err, errlen, "--procs %u without --run-id: the server's start barrier "
			    "counts the processes of one run id; give all %u processes the same "
			    "--run-id", o->procs, o->procs);
	return 0;
}

/* Sizes (-m, else MSG_SIZES, else 64; atomics 8), dependent defaults, and
 * test_validate of the template at every size. */
static int rb_client_finish(struct rb_opts *o, void *app, const struct rb_parse *ps, char *err,
			    size_t errlen)
{
	(void)app;
	struct rb_test *t = &o->t;
	const char *sizes_arg = ps->sizes_arg;

	if (client_combinations(o, ps, err, errlen))
		return -1;
	if (!o->given.iters && !o->given.duration)
		t->iters = 1000;
	if (!sizes_arg) {
		const char *env = getenv("MSG_SIZES");
		if (env && *env)
			sizes_arg = env;
	}
	if (sizes_arg) {
		if (units_parse_size_list(sizes_arg, RB_MAX_SIZE, o->sizes, RB_MAX_SIZES, &o->nsizes, err, errlen))
			return -1;
	} else {
		o->sizes[0] = verb_is_atomic(t->verb) ? 8 : t->size;
		o->nsizes = 1;
	}
	test_resolve_defaults(t, &o->given);
	for (int i = 0; i < o->nsizes; i++) {
		struct rb_test one = *t;
		one.size = o->sizes[i];
		if (test_validate(&one, err, errlen))
			return -1;
	}
	t->size = o->sizes[0];
	return 0;
}

void *opts_app(const struct rb_parse *ps)
{
	return ps->app;
}

bool opts_given(const struct rb_parse *ps, const char *name)
{
	for (unsigned i = 0; i < ps->ngiven; i++)
		if (strcmp(ps->given[i].k->name, name) == 0)
			return true;
	return false;
}

int opts_parse_cli(const struct rb_cli *cli, int argc, char **argv, struct rb_opts *o, void *app,
		   char *err, size_t errlen)
{
	struct option lo[NKNOBS_MAX + 1];
	char shorts[2 * NKNOBS_MAX + 2];
	struct rb_parse ps = { .cli = cli, .app = app };
	int c;

	if (cli->nknobs > NKNOBS_MAX)
		return rb_fail(err, errlen, "%s: %zu knob rows, above the parser's %u (raise "
			       "RB_CLI_MAX_KNOBS)", cli->prog, cli->nknobs, NKNOBS_MAX);
	opts_defaults(cli, o, app);
	build_getopt(cli, lo, shorts, sizeof(shorts));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct rb_knob *k = knob_of_code(cli, c);
		int rc;
		if (c == ':') {
			const struct rb_knob *mk = knob_of_code(cli, optopt);
			char alts[256] = "";
			/* an enum's names beside its placeholder, as its bad-value
			 * error gives them ("use auto|on|off") */
			if (mk && mk->type == RB_KT_ENUM)
				knob_enum_list(mk, alts, sizeof(alts));
			return rb_fail(err, errlen, "option %s needs a value: %s %s%s%s (see --help)",
				       argv[optind - 1], argv[optind - 1], mk && mk->arg ? mk->arg : "VALUE",
				       alts[0] ? ", one of " : "", alts);
		}
		if (!k)
			return rb_fail(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
		if (!ps.client_opt && !(k->flags & (RB_KF_SERVER | RB_KF_BOTH)))
			ps.client_opt = k->name;
		/* -m=64: getopt gives a short option everything after its letter,
		 * '=' included; only the long form takes '=' */
		if (k->shortopt && optarg && optarg[0] == '=' && strncmp(argv[optind - 1], "--", 2))
			return rb_fail(err, errlen, "-%c%s%s: the value of -%c is '%s' ('=' included); "
				       "write -%c %s or --%s=%s", k->shortopt,
				       argv[optind - 1] == optarg ? " " : "", optarg, k->shortopt,
				       optarg, k->shortopt, optarg + 1, k->name, optarg + 1);
		if ((rc = parse_knob(k, optarg, o, &ps, err, errlen)) != 0)
			return rc;
	}
	repeated_note(&ps, o);
	if (optind < argc)
		return rb_fail(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
	if (ps.print)
		return print_and_stop(&ps, o);
	if (cli->roleless)
		return cli->client_finish ? cli->client_finish(o, app, &ps, err, errlen) : 0;
	if (o->role == RB_ROLE_NONE)
		return rb_fail(err, errlen, "give -s (server) or -c HOST (client); see --help");
	if (o->role == RB_ROLE_SERVER)
		return server_finish(&ps, err, errlen);
	return cli->client_finish ? cli->client_finish(o, app, &ps, err, errlen) : 0;
}

int opts_parse(int argc, char **argv, struct rb_opts *o, char *err, size_t errlen)
{
	return opts_parse_cli(&rb_cli, argc, argv, o, NULL, err, errlen);
}
