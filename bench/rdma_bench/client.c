/*
 * client.c - the client role: run every point (size x repetition) against
 * the server and write the rows (session.h).
 *
 * A point: TEST to the server, its SETUP back, build and connect this
 * side, SETUP to the server, wait for READY, run the worker threads while
 * watching the control connection (an ERROR or a close from the server, or
 * the point's --timeout, stops them), exchange DONE, check the end-to-end
 * results, build and append the rows. A failed point still gives a row
 * (status failed, reason); the session is then closed and the next point
 * reconnects.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cm.h"
#include "ctrl.h"
#include "ctx.h"
#include "ctx_cm.h"
#include "post.h"
#include "device.h"
#include "errbuf.h"
#include "gate.h"
#include "guard.h"
#include "report.h"
#include "session.h"
#include "log.h"
#include "signals.h"
#include "timing.h"
#include "units.h"

struct client {
	const struct rb_opts *o;
	struct rb_dev dev;
	struct rb_env env;
	int fd;                 /* -1 = not connected */
	struct ctrl_rbuf rb;
	struct ctrl_hello server;
	struct row *rows;       /* every row, for the table and JSON */
	int nrows, caprows;
	int failed;             /* points that failed */
	char gone[512];         /* the server could not be reached again: why */
	bool csv_failed;
	int refused;            /* points whose configuration was refused (status skipped) */
	int points_done;        /* points that ran to a row (any status) */
	char token[CTRL_TOKEN_CAP + 1];  /* --token-file: sent in every HELLO */
	char run_key[CTRL_TOKEN_CAP + 1]; /* --run-key-file: sent in every HELLO */
	uint32_t go_us;         /* this session's previous GO on its way, bound (ctrl.h GATE) */
	/* the session's best clock-offset sample (any point's; reused with its
	 * bound aged, gate_err_aged): taken at at_ns on our clock */
	struct { bool have; int64_t off_ns; uint64_t err_ns, at_ns; } clk;
	uint64_t probe_rtt_max_ns; /* the session's longest clock-probe round trip */
	uint64_t probe_rtt_min_ns; /* and its shortest (0: none yet) */
	unsigned probes;           /* clock probes of the session so far */
	struct pcieperf pp;        /* the socket's uncore PCIe counters (pcieperf.h) */
	struct rb_placement pl;    /* the workers' CPUs, --hugepages, --doorbell (ctx.h) */
};

/*
 * Where a point's time went on this client (timing_now_ns() at each stage's
 * end), logged as one INFO line after its teardown (log_timeline): the
 * harness benchmark (ci/harness-overhead) reads it to break down the time
 * beyond the measured window. 0 = stage not reached.
 */
enum tl_stage {
	TL_START,       /* run_point entered */
	TL_SETUP,       /* TEST sent, the server's SETUP received */
	TL_READY,       /* our context built and connected, the server's READY */
	TL_GATE,        /* workers warm, clock probes done, GATE sent (gated) */
	TL_GO,          /* GO received (gated) */
	TL_WIN0,        /* the window's first post (the workers' earliest start) */
	TL_WIN1,        /* the window's last completion (the workers' latest end) */
	TL_JOINED,      /* workers joined (monitor saw them finish) */
	TL_MEASURED,    /* port counters and the clock probes after the window */
	TL_DONE,        /* DONE both ways, the server's CPU counters */
	TL_ROWS,        /* rows built and written */
	TL_FREED,       /* QPs, CQs, MR, PD destroyed */
	TL_N
};

static int client_connect(struct client *cl, char *err, size_t errlen)
{
	const struct rb_opts *o = cl->o;
	struct ctrl_hello h = { .proc_index = o->proc_index, .pid = (uint32_t)getpid() };
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];
	struct ctrl_msg m;
	size_t n;

	cl->fd = ctrl_connect(o->host, o->port, o->connect_timeout_s, err, errlen);
	if (cl->fd < 0)
		return -1;
	cl->go_us = 0; /* a new session: no previous GO, no clock sample */
	cl->clk.have = false;
	cl->probe_rtt_max_ns = 0;
	cl->probe_rtt_min_ns = 0;
	cl->probes = 0;
	rb_info("connected to %s:%u", o->host, o->port);
	snprintf(h.host, sizeof(h.host), "%s", cl->env.host);
	snprintf(h.run_id, sizeof(h.run_id), "%s", o->run_id);
	snprintf(h.device, sizeof(h.device), "%s", cl->dev.name);
	memcpy(h.token, cl->token, sizeof(h.token));
	memcpy(h.run_key, cl->run_key, sizeof(h.run_key));
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	int rc = ctrl_send(cl->fd, buf, n, 10000, err, errlen);
	if (!rc)
		rc = ctrl_recv(cl->fd, &cl->rb, &m, CTRL_HELLO, 30000, "the server's HELLO", err,
			       errlen);
	if (rc) {
		/* no HELLO and no refusal (-2, the server's own words): say what
		 * else listens on a port and keeps silent or hangs up */
		size_t l = strlen(err);
		if (rc == -1 && l < errlen)
			snprintf(err + l, errlen - l, "; is 'rdma_bench -s' what listens at %s:%u? "
				 "an 'rdma_seq -s' (port %u by default) hangs up on a session that "
				 "sends no rdma_seq point, another service never answers",
				 o->host, o->port, RB_DEFAULT_PORT + 1u);
		close(cl->fd);
		cl->fd = -1;
		return -1;
	}
	cl->server = m.u.hello;
	rb_info("server %s pid %u uses device %s", cl->server.host, cl->server.pid,
		cl->server.device);
	return 0;
}

static void client_disconnect(struct client *cl, const char *reason)
{
	if (cl->fd < 0)
		return;
	if (reason)
		ctrl_send_error(cl->fd, reason);
	close(cl->fd);
	cl->fd = -1;
}

static struct row *new_row(struct client *cl)
{
	if (cl->nrows == cl->caprows) {
		int cap = cl->caprows ? cl->caprows * 2 : 16;
		struct row *r = realloc(cl->rows, (size_t)cap * sizeof(*r));
		if (!r)
			return NULL;
		cl->rows = r;
		cl->caprows = cap;
	}
	return &cl->rows[cl->nrows++];
}

/* Append a finished row to --csv right away (rows already written are never lost). */
static void emit_row(struct client *cl, struct row *r)
{
	char err[512];

	if (cl->o->csv[0] && csv_append(cl->o->csv, r, err, sizeof(err))) {
		rb_error("--csv %s: %s", cl->o->csv, err);
		cl->csv_failed = true;
	}
}

/* What the user reads of a point on stderr: port counter trouble (WARN, also
 * with --quiet), the rate and the latency summary of the process (INFO). */
static void log_point(const struct rb_point_info *pi, const struct rb_measure *all)
{
	const struct hist *merged = all->hist;

	if (pi->have_counters) {
		/* trouble the port counters saw is said, not only stored (--quiet keeps it) */
		char trouble[1024];
		if (report_trouble(&pi->before, &pi->after, trouble, sizeof(trouble)) > 0)
			rb_warn("%s %s %s %llu B rep %llu: port %s/%u counters moved: %s",
				verb_name(pi->t->verb), transport_name(pi->t->transport),
				testkind_name(pi->t->test), (unsigned long long)pi->t->size,
				(unsigned long long)pi->t->rep, pi->dev->name, pi->dev->port, trouble);
	}
	if (all->valid && !log_quiet()) {
		const struct rb_test *t = pi->t;
		rb_info("sent %llu messages of size %llu in %.6f s: %.4f Mops, %.4f Gb/s",
			(unsigned long long)all->ops, (unsigned long long)t->size, all->duration_s,
			units_mops(all->ops, all->duration_s), units_gbps(all->bytes, all->duration_s));
		if (merged && hist_count(merged)) {
			bool bw = t->test == RB_TEST_BW;
			bool one_way = !bw && verb_row(t->verb)->lat == RB_LAT_ONE_WAY;
			double d = one_way ? 2000.0 : 1000.0;
			rb_info("average latency %.3f us (%s), min %.3f us, max %.3f us, p99 %.3f us, "
				"%llu samples", hist_mean(merged) / d,
				!bw ? verb_lat_kind(t->verb) : test_read_poll(t) ?
				"completion: post to last byte of signaled READs under load" :
				"completion: post to CQE of signaled WRs under load",
				hist_min(merged) / d, hist_max(merged) / d,
				hist_percentile(merged, 99) / d,
				(unsigned long long)hist_count(merged));
		}
	}
}

/* --explain: one EXPLAIN line on stderr, printed under --quiet too (it was
 * asked for; stdout has the table). report_explain gives the text. */
static void print_explain(const struct rb_point_info *pi, const struct rb_measure *all)
{
	char ex[1024];

	(void)report_explain(pi, all, ex, sizeof(ex));
	fprintf(stderr, "EXPLAIN %s %s %s %llu B rep %llu: %s\n", verb_name(pi->t->verb),
		transport_name(pi->t->transport), testkind_name(pi->t->test),
		(unsigned long long)pi->t->size, (unsigned long long)pi->t->rep, ex);
}

/* The workers' window: the earliest start and the latest end of their
 * measured phases (*t0 UINT64_MAX and *t1 0 when there is none). */
static void workers_span(const struct rb_ctx *c, uint64_t *t0, uint64_t *t1)
{
	*t0 = UINT64_MAX;
	*t1 = 0;
	for (unsigned i = 0; i < c->nw; i++) {
		if (c->w[i].t_start < *t0)
			*t0 = c->w[i].t_start;
		if (c->w[i].t_end > *t1)
			*t1 = c->w[i].t_end;
	}
}

/* Rows of a point: per thread (threads > 1) and "all". */
static void emit_point(struct client *cl, struct rb_point_info *pi, struct rb_ctx *c,
		       bool measured)
{
	struct rb_measure all = { .valid = false };
	struct hist *merged = NULL;
	struct pc_sample pc_all; /* the threads' perf counters, summed */

	if (c && measured) {
		uint64_t t0, t1;
		workers_span(c, &t0, &t1);
		merged = calloc(1, sizeof(*merged));
		all.valid = true;
		pc_sample_zero(&pc_all);
		all.pc = &pc_all;
		for (unsigned i = 0; i < c->nw; i++) {
			struct rb_worker *w = &c->w[i];
			if (w->pc_done) {
				pc_sample_add(&pc_all, &w->pc);
				all.pc_ops += w->pc_ops;
				if ((double)w->pc_span_ns / 1e9 > all.pc_span_s)
					all.pc_span_s = (double)w->pc_span_ns / 1e9;
			} else {
				all.pc = NULL; /* a thread without counters: no sum */
			}
			all.ops += w->ops;
			all.bytes += w->bytes;
			all.atomic_success += w->atomic_success;
			if (merged)
				hist_merge(merged, w->hist);
		}
		all.duration_s = t1 > t0 ? timing_elapsed_s(t0, t1) : NAN;
		all.t_start_ns = t0;
		all.t_end_ns = t1;
		all.hist = merged;
		if (c->nw > 1)
			for (unsigned i = 0; i < c->nw; i++) {
				struct rb_worker *w = &c->w[i];
				struct rb_measure m = {
					.valid = true,
					.duration_s = w->t_end > w->t_start ?
						timing_elapsed_s(w->t_start, w->t_end) : NAN,
					.ops = w->ops,
					.bytes = w->bytes,
					.hist = w->hist,
					.atomic_success = w->atomic_success,
					.t_start_ns = w->t_start,
					.t_end_ns = w->t_end,
					.pc = w->pc_done ? &w->pc : NULL,
					.pc_ops = w->pc_ops,
					.pc_span_s = (double)w->pc_span_ns / 1e9,
				};
				struct row *r = new_row(cl);
				if (!r)
					break;
				report_build_row(r, pi, (int)i, &m);
				emit_row(cl, r);
			}
	}
	struct row *r = new_row(cl);
	if (r) {
		report_build_row(r, pi, -1, &all);
		emit_row(cl, r);
	}
	if (cl->o->explain)
		print_explain(pi, &all);
	log_point(pi, &all);
	free(merged);
}

/* Extra wait for GO beyond the server's own barrier timeout (its ERROR,
 * which names the processes that were missing, should come first). */
#define GATE_GRACE_MS 10000

/*
 * The start barrier, client side (--procs > 1): when the workers are warm,
 * send GATE (point = this process's point number) and note the time; on GO,
 * release the workers and work out the server's clock offset into *pi.
 */
static int gate_send(struct client *cl, uint64_t point, uint64_t *c_send, char *err,
		     size_t errlen)
{
	uint8_t buf[CTRL_HDR_LEN + 16];
	/* no GO yet in this session: the probes' longest round trip bounds
	 * GO's way (ctrl.h GATE go_us) */
	uint64_t first_us = (cl->probe_rtt_max_ns + 999) / 1000;
	struct ctrl_gate g = { .point = point, .procs = cl->o->procs,
			       .go_us = cl->go_us ? cl->go_us :
				       first_us > UINT32_MAX ? UINT32_MAX : (uint32_t)first_us };
	size_t n = ctrl_encode_gate(buf, sizeof(buf), &g);

	*c_send = timing_now_ns();
	return ctrl_send(cl->fd, buf, n, 10000, err, errlen);
}

/* Clock probes before GATE (while the workers warm up; only when the
 * session has no recent sample: offset_reuse) and after the window: the
 * one with the shortest round trip bounds the offset best (NTP's clock
 * filter keeps the best of its last 8 samples, RFC 5905 section 10; 5
 * bound the time they add to a point when there is no warm-up). */
#define CLOCK_PROBES 5

/* Keep the sample (offset, err) in *pi if it is better than what *pi
 * holds, and, a clock probe's (session true), as the session's if better
 * than its aged one. A GATE/GO sample is never the session's: its bound
 * leaves out the clocks' rate difference over the wait at the barrier
 * (seconds; gate_clock_offset), which reuse would carry to later points. */
static void offset_sample(struct client *cl, struct rb_point_info *pi, bool session,
			  uint64_t c_send, uint64_t s_arrive, uint64_t s_send, uint64_t c_recv)
{
	int64_t off;
	uint64_t e;

	if (gate_clock_offset(c_send, s_arrive, s_send, c_recv, &off, &e))
		return;
	if (!pi->have_offset || e < pi->clock_err_ns) {
		pi->have_offset = true;
		pi->clock_offset_ns = off;
		pi->clock_err_ns = e;
	}
	if (session && (!cl->clk.have ||
			e < gate_err_aged(cl->clk.err_ns, cl->clk.at_ns, c_recv))) {
		cl->clk.have = true;
		cl->clk.off_ns = off;
		cl->clk.err_ns = e;
		cl->clk.at_ns = c_recv;
	}
}

/* A session sample younger than this serves a point's start barrier
 * without probes before GATE (its bound aged: at 500 ppm, 2.5 ms at most). */
#define CLOCK_REUSE_NS (5 * 1000000000ull)

/* Seed *pi with the session's sample when it is recent enough: true, or
 * false (probe the clock first). */
static bool offset_reuse(struct client *cl, struct rb_point_info *pi)
{
	uint64_t now = timing_now_ns();

	if (!cl->clk.have || now - cl->clk.at_ns > CLOCK_REUSE_NS)
		return false;
	pi->have_offset = true;
	pi->clock_offset_ns = cl->clk.off_ns;
	pi->clock_err_ns = gate_err_aged(cl->clk.err_ns, cl->clk.at_ns, now);
	return true;
}

/*
 * A probe whose round trip is within this fraction (1/4) of the session's
 * shortest one is as good a sample as more probing would find: the probes
 * after the window stop there once the session has CLOCK_PROBES of them
 * (a probe is a control round trip, slow on a loaded bed: more probes than
 * needed were most of a point's time after its window; docs/rdma_bench.md,
 * "Measured costs").
 */
#define CLOCK_GOOD_ENOUGH_DIV 4

/*
 * After the window the probes also stop once the point's bound is within
 * an eighth of the 1 % of -D that the runner's overlap check leaves
 * (experiments/lib/rbcsv.py aggregate shrinks each window by its bound at both
 * ends): 2.5 ms for the 2 s windows of the QUICK figures, 1.25 ms for 1 s
 * (about the best a probe gives on the two-VM bed, so there the rule above
 * decides). A bound that small costs the overlap at most 0.25 %.
 */
static uint64_t clock_err_after_ns(const struct rb_test *t)
{
	return t->duration_ms * 1000000ull / 800;
}

/* Up to CLOCK_PROBES TIME round trips (while the workers warm up, and
 * after the window: there, t non-NULL, they end at the first one near the
 * session's best, CLOCK_GOOD_ENOUGH_DIV, or once the point's bound is
 * within clock_err_after_ns(t)): 0 or -1. */
static int clock_probes(struct client *cl, struct rb_point_info *pi, const struct rb_test *t,
			char *err, size_t errlen)
{
	uint8_t buf[CTRL_HDR_LEN + 8];
	struct ctrl_msg m;

	for (int i = 0; i < CLOCK_PROBES; i++) {
		uint64_t c_send = timing_now_ns();
		size_t n = ctrl_encode_time(buf, sizeof(buf), c_send);
		if (ctrl_send(cl->fd, buf, n, 10000, err, errlen))
			return -1;
		int rc = ctrl_recv(cl->fd, &cl->rb, &m, CTRL_TIME, 10000,
				   "the server's answer to a clock probe (TIME)", err, errlen);
		if (rc == -2)
			rb_reprefix(err, errlen, 6, "server: ");
		if (rc)
			return -1;
		uint64_t c_recv = timing_now_ns(), rtt = c_recv - c_send;
		offset_sample(cl, pi, true, c_send, m.u.time.ns, m.u.time.ns, c_recv);
		if (rtt > cl->probe_rtt_max_ns)
			cl->probe_rtt_max_ns = rtt;
		bool near_best = cl->probes >= CLOCK_PROBES &&
				 rtt <= cl->probe_rtt_min_ns + cl->probe_rtt_min_ns / CLOCK_GOOD_ENOUGH_DIV;
		if (!cl->probe_rtt_min_ns || rtt < cl->probe_rtt_min_ns)
			cl->probe_rtt_min_ns = rtt;
		cl->probes++;
		if (t && (near_best || (pi->have_offset && pi->clock_err_ns <= clock_err_after_ns(t))))
			break;
	}
	return 0;
}

/*
 * The clock offset's bound wanted before GATE (ns): the common window is
 * placed with it (gate_go), and the runner adds rates only where the
 * processes' windows overlap by 99 % (experiments/lib/rbcsv.py aggregate), so
 * a quarter of that 1 % of -D, at least 5 ms (a probe's round trip on the
 * two-VM TCG bed is 2-4 ms at best). While the best sample's bound is
 * above it, the monitor sends more rounds of probes before GATE, at most
 * CLOCK_ROUNDS_MAX rounds or CLOCK_ROUNDS_NS after the first: in a
 * figure-11 QUICK run on a loaded bed a process placed its window with
 * the bound of 5 probes taken during its setup and started it 171 ms
 * after the other's (overlap 0.91, that repetition's rates left out).
 */
#define CLOCK_ROUNDS_MAX 4
#define CLOCK_ROUNDS_NS (2 * 1000000000ull)

static uint64_t clock_err_wanted_ns(const struct rb_test *t)
{
	uint64_t quarter_pct = t->duration_ms * 1000000ull / 400;

	return quarter_pct > 5000000ull ? quarter_pct : 5000000ull;
}

/* The offset before GATE: the session's recent sample when its aged bound
 * is good enough (clock_err_wanted_ns), else rounds of probes until it is,
 * CLOCK_ROUNDS_MAX of them or CLOCK_ROUNDS_NS at most. 0, or -1 with err. */
static int probe_before_gate(struct client *cl, struct rb_point_info *pi, const struct rb_test *t,
			     char *err, size_t errlen)
{
	uint64_t t0 = timing_now_ns(), want = clock_err_wanted_ns(t);

	(void)offset_reuse(cl, pi);
	for (unsigned r = 0; r < CLOCK_ROUNDS_MAX; r++) {
		if (pi->have_offset && pi->clock_err_ns <= want)
			break;
		if (r && timing_now_ns() - t0 > CLOCK_ROUNDS_NS)
			break;
		if (clock_probes(cl, pi, NULL, err, errlen))
			return -1;
	}
	return 0;
}

/*
 * The bound of GO's time on its way for the next GATE (ctrl.h go_us): our
 * round trip from GATE to GO minus the server's hold, rounded up to us, at
 * least 1 (0 says "none").
 */
static uint32_t go_delay_us(const struct ctrl_go *go, uint64_t c_send, uint64_t c_recv)
{
	uint64_t rtt = c_recv - c_send, hold = go->release_ns - go->arrive_ns;
	uint64_t us = rtt > hold ? (rtt - hold + 999) / 1000 : 1;   /* >= 1 either way */

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/*
 * GO: the common window on our clock (the server's start_ns minus the
 * offset, -D long), then release the workers. Without a usable offset the
 * window starts the same lead after our receipt of GO (columns on the
 * server clock then stay empty).
 */
static void gate_go(struct client *cl, struct rb_ctx *c, struct rb_point_info *pi,
		    const struct ctrl_go *go, uint64_t c_send, uint64_t c_recv)
{
	uint64_t ws;

	pi->gate_wait_s = timing_elapsed_s(c_send, c_recv);
	offset_sample(cl, pi, false, c_send, go->arrive_ns, go->release_ns, c_recv);
	if (pi->have_offset) {
		ws = (uint64_t)((int64_t)go->start_ns - pi->clock_offset_ns);
	} else {
		ws = c_recv + (go->start_ns - go->release_ns);
		rb_warn("start barrier: clock probes and GO times are inconsistent (server "
			"%llu..%llu ns, client %llu..%llu ns): the window starts %.1f ms after GO "
			"came, and the columns on the server clock are left empty",
			(unsigned long long)go->arrive_ns, (unsigned long long)go->release_ns,
			(unsigned long long)c_send, (unsigned long long)c_recv,
			(double)(go->start_ns - go->release_ns) / 1e6);
	}
	if (c_recv > ws)
		rb_warn("start barrier: GO came %.1f ms after the common window's start: this "
			"process posted nothing in that part of its window (network or scheduling "
			"delay above the server's lead)", (double)(c_recv - ws) / 1e6);
	c->win_start_ns = ws;
	c->win_end_ns = ws + c->t.duration_ms * 1000000ull;
	ctx_release(c);
}

/*
 * The monitor's poll timeout (ms): 2 while the workers warm up (GATE goes
 * as soon as they are), 50 while nothing is due, and once released not
 * past the window's end + 1 ms, then 1: the workers' end after the window
 * (their drain) is seen within a millisecond, not up to 50.
 */
static int monitor_wait_ms(const struct rb_ctx *c, bool warming, bool released)
{
	if (warming)
		return 2;
	if (!released)
		return 50;
	uint64_t now = timing_now_ns();
	if (now >= c->win_end_ns)
		return 1;
	uint64_t left_ms = (c->win_end_ns - now) / 1000000u + 1;
	return left_ms < 50 ? (int)left_ms : 50;
}

/*
 * Watch the control connection while the workers run (and hold the start
 * barrier when gated); 0 or -1 with err.
 */
static int monitor(struct client *cl, struct rb_ctx *c, struct rb_point_info *pi,
		   uint64_t point, uint64_t tl[TL_N], bool *probed_after, char *err, size_t errlen)
{
	const struct rb_test *t = &c->t;
	/* A point may run for its -D and --warmup, plus --timeout (as the server allows). */
	uint64_t limit_ms = t->timeout_ms + t->duration_ms + t->warmup_ms;
	uint64_t deadline = timing_now_ns() + limit_ms * 1000000ull;
	uint64_t c_send = 0, gate_limit_ms = t->timeout_ms + GATE_GRACE_MS;
	bool probed = false, sent = false, released = false;

	while (atomic_load(&c->finished) < c->nw) {
		if (c->gated && !probed) {
			if (probe_before_gate(cl, pi, t, err, errlen))
				return -1;
			probed = true;
		}
		if (c->gated && !sent && atomic_load(&c->warm)) {
			if (gate_send(cl, point, &c_send, err, errlen))
				return -1;
			tl[TL_GATE] = c_send;
			sent = true;
		}
		bool waiting = c->gated && !released;
		/* the window is over while the workers still run (with
		 * --validate they drain what is in flight, post.c
		 * abandon_at_end): the probes after the window (whose best sample
		 * maps it onto the server's clock in the row) overlap that */
		if (released && !*probed_after && timing_now_ns() > c->win_end_ns) {
			if (clock_probes(cl, pi, t, err, errlen))
				return -1;
			*probed_after = true;
			continue;
		}
		struct pollfd p = { .fd = cl->fd, .events = POLLIN };
		if (rb_interrupt_signal) {
			snprintf(err, errlen, "client interrupted by %s",
				 signals_name(rb_interrupt_signal));
			return -1;
		}
		int rc = poll(&p, 1, monitor_wait_ms(c, waiting && !sent, released));
		if (rc < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll on control socket: %s", strerror(errno));
			return -1;
		}
		if (rc > 0) {
			struct ctrl_msg m;
			rc = ctrl_recv(cl->fd, &cl->rb, &m, 0, 5000, "a server message during the test",
				       err, errlen);
			if (rc == 0 && m.type == CTRL_GO && sent && !released) {
				uint64_t now = timing_now_ns();
				tl[TL_GO] = now;
				gate_go(cl, c, pi, &m.u.go, c_send, now);
				cl->go_us = go_delay_us(&m.u.go, c_send, now);
				released = true;
				/* the window starts now: so does the point's time limit */
				deadline = now + limit_ms * 1000000ull;
				continue;
			}
			if (rc == -2) {
				rb_reprefix(err, errlen, 6, "server: ");
			} else if (rc == 0) {
				snprintf(err, errlen, "protocol error: server sent %s during the test",
					 ctrl_type_name(m.type));
			}
			close(cl->fd);
			cl->fd = -1;
			return -1;
		}
		uint64_t now = timing_now_ns();
		if (sent && !released && now - c_send > gate_limit_ms * 1000000ull) {
			snprintf(err, errlen, "no GO from the server %.1f s after this process reached "
				 "the start barrier of run '%s' point %llu (--procs %u; --timeout + %d s)",
				 (double)(now - c_send) / 1e9, cl->o->run_id, (unsigned long long)point,
				 cl->o->procs, GATE_GRACE_MS / 1000);
			return -1;
		}
		if (!(sent && !released) && now > deadline) {
			/* RC: a stall without an error has likely causes worth naming
			 * (the workers' own stall message says the same: post.c) */
			char hint[384] = "";
			if (t->transport == RB_TR_RC)
				snprintf(hint, sizeof(hint), "; no ACK and no error came back: path MTU %u "
					 "above what the path carries (check both ends' netdev MTU)? peer "
					 "unreachable, paused or gone? (--retry-cnt %llu; soft-RoCE retries "
					 "for ever at --retry-cnt 7: use 6 or less to get the retry error)",
					 c->path_mtu, (unsigned long long)t->retry_cnt);
			snprintf(err, errlen, "point timed out after %.1f s (--timeout + -D + --warmup)%s",
				 (double)limit_ms / 1000.0, hint);
			return -1;
		}
	}
	return 0;
}

/*
 * --validate on UD/UC receives (SEND, SEND_IMM, WRITE_IMM bw): losses are a
 * result, but a point whose server received nothing, or fewer than this
 * percentage of the messages sent (warm-up included on both sides), fails.
 * Lowest delivery measured on soft-RoCE: docs/rdma_bench.md.
 */
#define RB_MIN_DELIVERY_PCT 10

/* Compare what both ends saw; 1 passed, 2 failed (reason in note), 0 not checked. */
static int end_to_end(struct rb_ctx *c, const struct ctrl_done *sv, char *note, size_t len)
{
	const struct rb_test *t = &c->t;
	uint64_t ops = 0, succ = 0, sends = 0, bad = 0;

	for (unsigned i = 0; i < c->nw; i++) {
		ops += c->w[i].ops_total;
		succ += c->w[i].atomic_success;
		sends += c->w[i].sends_total;
		bad += c->w[i].bad_payloads;
	}
	if (!t->validate) {
		/* Losses on UC/UD are a result, not an error: say so in the row's
		 * reason even without --validate (status stays ok). */
		if (verb_needs_recv(t->verb) && t->test == RB_TEST_BW &&
		    t->transport != RB_TR_RC && sv->recvs < sends)
			snprintf(note, len, "%s: %llu of %llu messages lost (unreliable transport)",
				 transport_name(t->transport),
				 (unsigned long long)(sends - sv->recvs), (unsigned long long)sends);
		return 0;
	}
	if (sv->checked == 2) {
		snprintf(note, len, "%.900s", sv->note);
		rb_reprefix(note, len, 0, "server check failed: ");
		return 2;
	}
	if (bad) {
		snprintf(note, len, "%llu replies differ from the server's pattern",
			 (unsigned long long)bad);
		return 2;
	}
	uint64_t badqp = ctx_check_client_buffers(c, note, len);
	if (badqp) {
		char pfx[128];
		snprintf(pfx, sizeof(pfx), "%llu %s hold data that differs from the server's "
			 "pattern: ", (unsigned long long)badqp,
			 c->lay.poll_slots ? "READ slot(s)" : "QP(s)");
		rb_reprefix(note, len, 0, pfx);
		return 2;
	}
	const struct rb_verb_row *row = verb_row(t->verb);
	if (row->counter_want && sv->counter_sum != row->counter_want(ops, succ)) {
		snprintf(note, len, "counter sum %llu != %llu %s",
			 (unsigned long long)sv->counter_sum,
			 (unsigned long long)row->counter_want(ops, succ), row->counter_what);
		return 2;
	}
	if (verb_needs_recv(t->verb) && t->test == RB_TEST_BW) {
		if (t->transport == RB_TR_RC && sv->recvs != sends) {
			snprintf(note, len, "server received %llu of %llu messages on RC",
				 (unsigned long long)sv->recvs, (unsigned long long)sends);
			return 2;
		}
		if (sv->recvs > sends) {
			snprintf(note, len, "server received %llu messages, more than the %llu sent",
				 (unsigned long long)sv->recvs, (unsigned long long)sends);
			return 2;
		}
		/* UD/UC may drop; a receive path that delivers (almost) nothing is
		 * broken, not lossy (bound and why: docs/rdma_bench.md, --validate) */
		if (t->transport != RB_TR_RC &&
		    (sv->recvs == 0 || sv->recvs * 100 < sends * RB_MIN_DELIVERY_PCT)) {
			snprintf(note, len, "%s: delivered %llu of %llu messages (%.1f %%), below the "
				 "%d %% bound on UD/UC", transport_name(t->transport),
				 (unsigned long long)sv->recvs, (unsigned long long)sends,
				 sends ? 100.0 * (double)sv->recvs / (double)sends : 0.0,
				 RB_MIN_DELIVERY_PCT);
			return 2;
		}
		if (sv->recvs < sends)
			snprintf(note, len, "%s: %llu of %llu messages lost (unreliable transport)",
				 transport_name(t->transport),
				 (unsigned long long)(sends - sv->recvs), (unsigned long long)sends);
	}
	return 1;
}

static void print_setup_info(struct rb_ctx *c)
{
	char gid[64];

	if (log_quiet())
		return;
	for (unsigned i = 0; i < c->nw; i++)
		for (unsigned k = 0; k < c->w[i].nqp; k++) {
			struct rb_qp *q = &c->w[i].qps[k];
			if (q->gindex >= 4 && q->gindex + 1 < c->lay.nqp_total)
				continue;
			rb_info("QP created: qpn 0x%06x (thread %u), lid 0x%x, gid index %d gid %s, port "
				"%u; peer qpn 0x%06x", q->qp->qp_num, i, c->dev->pattr.lid,
				c->dev->gid_index, dev_gid_str(c->dev->gid.raw, gid, sizeof(gid)),
				c->dev->port, q->remote_qpn);
			if (q->gindex == 3 && c->lay.nqp_total > 5)
				rb_info("... %llu more QPs", (unsigned long long)(c->lay.nqp_total - 5));
		}
	rb_info("memory registered: addr %p, length %llu, lkey 0x%x, rkey 0x%x; peer addr 0x%llx "
		"rkey 0x%x", (void *)c->buf, (unsigned long long)c->lay.total, c->mr->lkey,
		c->mr->rkey, (unsigned long long)c->remote.buf_addr, c->remote.rkey);
	rb_info("path MTU %u, max_rd_atomic %u, inline %s (asked %u, granted %u), window %llu, "
		"signal interval %llu, postlist %llu, %llu QPs, QP setup %.1f us/QP",
		c->path_mtu, c->rd_atomic, c->use_inline ? "on" : "off", c->inline_req, c->inline_cap,
		(unsigned long long)c->t.window, (unsigned long long)c->t.signal_interval,
		(unsigned long long)c->t.postlist, (unsigned long long)c->lay.nqp_total,
		c->lay.nqp_total ? (double)c->setup_ns / 1e3 / (double)c->lay.nqp_total : 0.0);
	if (c->lay.poll_slots)
		rb_info("read completion poll: %llu READ slots of %llu B per thread, each READ done "
			"when its last byte leaves 0x%02x; signaled WRs only free SQ slots",
			(unsigned long long)c->t.window, (unsigned long long)c->lay.poll_slot,
			RB_READ_SENTINEL);
}

/*
 * One rule for a configuration refused before anything is measured (a
 * value above a device cap, below what the point needs, or a mismatch of
 * the two ends): whichever side detects it, the row says "refused by the
 * client: <why>" or "refused by the server: <why>" with status skipped,
 * and the run exits 2 (a usage error; session.h, RB_REFUSED_PREFIX).
 * refused_by rewrites err ("<why>") into that shape; from_server takes an
 * ERROR of the server ("server: refused: <why>") and returns false when it
 * is not a refusal.
 */
static void refused_by(char *err, size_t errlen, const char *side)
{
	char pfx[64];

	snprintf(pfx, sizeof(pfx), "refused by the %s: ", side);
	rb_reprefix(err, errlen, 0, pfx);
}

static bool refused_from_server(char *err, size_t errlen)
{
	static const char srv[] = "server: " RB_REFUSED_PREFIX;

	if (strncmp(err, srv, sizeof(srv) - 1) != 0)
		return false;
	rb_reprefix(err, errlen, sizeof(srv) - 1, "refused by the server: ");
	return true;
}

/*
 * rdma_cm (-R): before the context is made, copy the server's SETUP (m, in
 * cl->rb, which a wait may reuse) into *srv_setup / *srv_qps (freed by the
 * caller), resolve the server's RoCE address (its IPv4-mapped GID, where its
 * listener is bound; else the control channel's host) and make the cm ids;
 * *cmdev is the device on rdma_cm's context (PD, MR, CQs go there).
 * 0, or -1 with err.
 */
static int client_cm_prepare(struct client *cl, const struct rb_test *t,
			     const struct ctrl_setup *m, struct rb_cm_client *cc,
			     struct rb_dev *cmdev, struct ctrl_setup *srv_setup, uint8_t **srv_qps,
			     char *err, size_t errlen)
{
	const struct rb_opts *o = cl->o;
	uint32_t nqp = (uint32_t)(test_qps_per_thread(t) * t->threads);
	char dst[64];
	const uint8_t *g = m->gid;

	if (memcmp(g, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
		snprintf(dst, sizeof(dst), "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
	else
		snprintf(dst, sizeof(dst), "%.63s", o->host);
	struct rb_cm_ctrl ctl = { .fd = cl->fd, .rb = &cl->rb };
	if (ctrl_setup_copy(srv_setup, m, srv_qps, err, errlen) ||
	    cm_client_prepare(cc, dst, o->port, nqp, t->transport, (uint8_t)t->tclass, &cl->dev,
			      o->dev_name[0] != '\0', (unsigned)t->timeout_ms, &ctl, err, errlen))
		return -1;
	*cmdev = cl->dev;
	cmdev->ctx = cc->verbs;
	return 0;
}

/* How a stage of a point ended: go on, stop (the row says why; the
 * session is kept), or stop and end the session (ERROR to the server). */
enum stage { STAGE_OK = 0, STAGE_END, STAGE_CLOSE };

/* One point on the client, from TEST to its rows: what its stages share. */
struct cpoint {
	struct rb_test t;               /* the point; -R: what rdma_cm set, for the row */
	struct rb_point_info pi;        /* what the rows report */
	struct rb_ctx c;
	bool have_ctx, measured, refused, interrupted;
	struct rb_cm_client cc;         /* -R only */
	struct rb_dev cmdev;            /* -R: the device on rdma_cm's context */
	struct ctrl_setup srv_setup;    /* -R: the server's SETUP, copied out of cl->rb */
	uint8_t *srv_qps;
	struct ctrl_msg m;              /* the server's last message (points into cl->rb) */
	uint64_t tl[TL_N];              /* the timeline (enum tl_stage) */
	uint64_t done_hold_ns, done_rtt_ns; /* DONE: the server's hold, the round trip without it */
	char err[1024], note[CTRL_REASON_CAP + 1];
};

/* A refusal of this side (refused_by): status skipped; returns how to go on. */
static enum stage refuse(struct cpoint *p, enum stage how)
{
	refused_by(p->err, sizeof(p->err), "client");
	p->refused = true;
	return how;
}

/* The server's next message, of type `type` (what: for the wait's message).
 * Its ERROR is said as the server's ("server: ...", a refusal as such) and
 * ends the connection. */
static enum stage server_reply(struct client *cl, struct cpoint *p, uint16_t type,
			       const char *what)
{
	int r = ctrl_recv(cl->fd, &cl->rb, &p->m, type, (int)p->t.timeout_ms, what, p->err,
			  sizeof(p->err));
	if (r == -2) {
		rb_reprefix(p->err, sizeof(p->err), 6, "server: ");
		p->refused = refused_from_server(p->err, sizeof(p->err));
		close(cl->fd);
		cl->fd = -1;
	}
	return r ? STAGE_CLOSE : STAGE_OK;
}

/* Stage 1, negotiate: the point fits this device, the session is up, TEST
 * sent; the server's SETUP (its endpoints, or its refusal) in p->m. */
static enum stage point_request(struct client *cl, struct cpoint *p)
{
	uint8_t small[CTRL_HDR_LEN + 8 * RB_TEST_NFIELDS + CTRL_REASON_CAP + 128];

	if (test_validate_device(&p->t, &cl->dev.caps, p->err, sizeof(p->err)))
		return refuse(p, STAGE_END);
	if (cl->gone[0]) {
		snprintf(p->err, sizeof(p->err), "not run: %.500s", cl->gone);
		return STAGE_END;
	}
	if (cl->fd < 0 && client_connect(cl, p->err, sizeof(p->err))) {
		p->interrupted = rb_interrupt_signal != 0;
		/* Do not wait --connect-timeout again for every remaining point. */
		snprintf(cl->gone, sizeof(cl->gone), "%.500s", p->err);
		return STAGE_END;
	}
	size_t n = ctrl_encode_test(small, sizeof(small), &p->t);
	if (ctrl_send(cl->fd, small, n, 10000, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	return server_reply(cl, p, CTRL_SETUP, "the server's SETUP");
}

/* Stage 2b: connect the QPs to the server's (its SETUP in p->m, or with -R
 * through rdma_cm), post the receives and send our SETUP. */
static enum stage point_connect(struct client *cl, struct cpoint *p)
{
	struct rb_ctx *c = &p->c;
	struct rb_test *t = &p->t;

	if (t->use_cm) {
		if (ctx_cm_create_qps(&p->cc, c, p->err, sizeof(p->err)))
			return c->refused ? refuse(p, STAGE_CLOSE) : STAGE_CLOSE;
	} else if (ctx_connect(c, &p->m.u.setup, p->err, sizeof(p->err))) {
		return STAGE_CLOSE;
	}
	if (ctx_post_recvs(c, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	p->pi.inline_used = c->use_inline;
	p->pi.inline_cap = c->inline_cap;
	if (ctx_send_setup(c, cl->fd, (int)t->timeout_ms, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	if (t->use_cm) {
		uint64_t t0 = timing_now_ns();
		struct rb_cm_ctrl ctl = { .fd = cl->fd, .rb = &cl->rb };
		if (ctx_cm_connect(&p->cc, c, &ctl, p->err, sizeof(p->err)))
			return STAGE_CLOSE;
		c->setup_ns = c->create_ns + (timing_now_ns() - t0);
		/* what rdma_cm set on the QPs is what the row reports */
		t->ack_timeout = c->t.ack_timeout;
		t->retry_cnt = c->t.retry_cnt;
		t->rnr_retry = c->t.rnr_retry;
	}
	return STAGE_OK;
}

/* Stage 2, setup: the context (buffer, MR, CQs, QPs), negotiated with the
 * server's SETUP, connected; the server's READY. */
static enum stage point_setup(struct client *cl, struct cpoint *p)
{
	const struct rb_opts *o = cl->o;
	struct rb_ctx *c = &p->c;
	struct rb_test *t = &p->t;
	enum stage st;

	/* The server's SETUP lives in cl->rb until the next receive: build ours first. */
	if (t->use_cm && client_cm_prepare(cl, t, &p->m.u.setup, &p->cc, &p->cmdev, &p->srv_setup,
					   &p->srv_qps, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	if (ctx_create(c, t, RB_ROLE_CLIENT, t->use_cm ? &p->cmdev : &cl->dev, &cl->pl, p->err,
		       sizeof(p->err)))
		return c->refused ? refuse(p, STAGE_CLOSE) : STAGE_CLOSE;
	p->have_ctx = true;
	/* process k of a run starts at entry k * T of the CPU list (topo.h) */
	c->cpu_first = o->proc_index * t->threads;
	c->perf_off = perf_counting(o->perf_counters, o->explain) ? NULL :
		      o->perf_counters == RB_PERF_OFF ? "not counted: --perf-counters off" :
		      "not counted: --perf-counters auto counts with --explain (on: count)";
	p->pi.inline_used = 0;
	p->pi.inline_cap = c->inline_cap;
	p->pi.place = &cl->pl.place;
	p->pi.cpu_first = c->cpu_first;
	p->pi.page_size = c->mem.page_size;
	snprintf(p->pi.page_source, sizeof(p->pi.page_source), "%s", c->mem.source);
	snprintf(p->pi.doorbell, sizeof(p->pi.doorbell), "%s", c->doorbell);
	p->pi.cq_depth = c->cq_depth_s;
	if (ctx_negotiate(c, t->use_cm ? &p->srv_setup : &p->m.u.setup, p->err, sizeof(p->err)))
		return refuse(p, STAGE_CLOSE); /* every negotiation rule refuses a value */
	st = point_connect(cl, p);
	if (st)
		return st;
	p->pi.path_mtu = c->path_mtu;
	p->pi.rd_atomic = c->rd_atomic;
	p->pi.setup_us_per_qp = (double)c->setup_ns / 1e3 / (double)c->lay.nqp_total;
	st = server_reply(cl, p, CTRL_READY, "the server's READY");
	if (st)
		return st;
	/* atomics: the reply byte order, once, before the workers post */
	if (verb_is_atomic(t->verb)) {
		if (ctx_atomic_selftest(c, o->atomic_order == RB_AORDER_REFUSE, p->pi.atomic_order,
					sizeof(p->pi.atomic_order), p->err, sizeof(p->err)))
			return strcmp(p->pi.atomic_order, "swapped") == 0 ? refuse(p, STAGE_CLOSE)
									  : STAGE_CLOSE;
		if (c->atomic_swap)
			rb_warn("%s replies to atomics in the other byte order (self-test); the "
				"replies are swapped back (--atomic-order refuse refuses)",
				c->dev->name);
	}
	print_setup_info(c);
	return STAGE_OK;
}

/* Stage 3, run: the workers post and poll while the control channel is
 * watched (monitor); the port counters and clock probes after. */
static enum stage point_measure(struct client *cl, struct cpoint *p, uint64_t point)
{
	struct rb_ctx *c = &p->c;

	c->ctr_before = &p->pi.before;
	c->cs_before = &p->pi.cs_before;
	c->gated = cl->o->procs > 1;
	pp_start(&cl->pp);
	uint64_t pp_t0 = timing_now_ns();
	if (workers_start(c, worker_client_main, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	bool probed_after = false;
	if (monitor(cl, c, &p->pi, point, p->tl, &probed_after, p->err, sizeof(p->err))) {
		char e2[512];
		p->interrupted = rb_interrupt_signal != 0;
		atomic_store(&c->stop, 1);
		(void)workers_join(c, e2, sizeof(e2));
		return STAGE_CLOSE;
	}
	if (workers_join(c, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	p->tl[TL_JOINED] = timing_now_ns();
	pp_stop(&cl->pp, &p->pi.pcie);
	p->pi.pcie_span_s = timing_elapsed_s(pp_t0, p->tl[TL_JOINED]);
	workers_span(c, &p->tl[TL_WIN0], &p->tl[TL_WIN1]);
	if (p->tl[TL_WIN0] == UINT64_MAX)
		p->tl[TL_WIN0] = 0; /* no window: the timeline's 0, "not reached" */
	dev_counters_read(cl->dev.name, cl->dev.port, &p->pi.after);
	cs_take(&p->pi.cs_after);
	/* more clock probes now that the window is over (the machine is quieter
	 * than during the others' setup), unless the monitor took them while
	 * the workers drained: the best of all (DONE's too: done_clock) maps
	 * the window onto the server's clock in the row */
	if (c->gated && !probed_after && clock_probes(cl, &p->pi, &c->t, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	p->pi.have_counters = p->pi.before.n > 0 || p->pi.after.n > 0;
	p->measured = true;
	p->tl[TL_MEASURED] = timing_now_ns();
	return STAGE_OK;
}

/*
 * The clock sample of the two DONEs after a gated window (ours sent at
 * c_send, the server's came at c_recv; its arrive_ns..send_ns hold left
 * out), one more beside the probes after the window, as a TIME probe's is:
 * the best sample of the point maps its window onto the server's clock in
 * the row. Skipping those probes when DONE's sample or a reused one looked
 * good enough saved time per point, but the reused samples' aged bounds
 * took figure-12 QUICK's 0.5 s windows below the 99 % overlap: the rule is
 * that a window's mapping comes from fresh samples, so DONE's is kept as a
 * sample only (docs/rdma_bench.md, "Measured costs").
 */
static void done_clock(struct client *cl, struct cpoint *p, uint64_t c_send, uint64_t c_recv)
{
	const struct ctrl_done *sv = &p->pi.server;
	uint64_t hold = sv->send_ns - sv->arrive_ns, rtt = c_recv - c_send;

	offset_sample(cl, &p->pi, true, c_send, sv->arrive_ns, sv->send_ns, c_recv);
	p->done_hold_ns = hold;
	p->done_rtt_ns = rtt > hold ? rtt - hold : 0;
}

/* Stage 4, results: DONE both ways, then what both ends saw compared
 * (end_to_end). A failed check ends the point, not the session. */
static enum stage point_results(struct client *cl, struct cpoint *p)
{
	uint8_t small[CTRL_HDR_LEN + 8 * RB_TEST_NFIELDS + CTRL_REASON_CAP + 128];
	struct ctrl_done d = { 0 };
	struct rb_ctx *c = &p->c;
	enum stage st;

	for (unsigned i = 0; i < c->nw; i++) {
		d.ops += c->w[i].ops_total;
		d.sends += c->w[i].sends_total;
		d.atomic_success += c->w[i].atomic_success;
	}
	size_t n = ctrl_encode_done(small, sizeof(small), &d);
	uint64_t c_send = timing_now_ns();
	if (ctrl_send(cl->fd, small, n, 10000, p->err, sizeof(p->err)))
		return STAGE_CLOSE;
	st = server_reply(cl, p, CTRL_DONE, "the server's DONE");
	if (st)
		return st;
	uint64_t c_recv = timing_now_ns();
	p->pi.have_server = true;
	p->pi.server = p->m.u.done;
	dev_counters_unpack(p->pi.server.ctr_idx, p->pi.server.ctr_delta, p->pi.server.nctr,
			    &p->pi.srv_zero, &p->pi.srv_delta);
	p->pi.have_srv_counters = p->pi.srv_delta.n > 0;
	/* the server's CPU counters follow its DONE (ctrl.h CPU) */
	st = server_reply(cl, p, CTRL_CPU, "the server's CPU counters");
	if (st)
		return st;
	if (c->gated)
		done_clock(cl, p, c_send, c_recv);
	p->pi.have_server_cpu = true;
	p->pi.server_cpu = p->m.u.cpu;
	p->pi.client_ops_all = d.ops;
	p->pi.checked = end_to_end(c, &p->pi.server, p->note, sizeof(p->note));
	if (p->pi.checked == 2) {
		snprintf(p->err, sizeof(p->err), "%.1000s", p->note);
		rb_reprefix(p->err, sizeof(p->err), 0, "--validate: ");
		rb_error("%s", p->err);
		return STAGE_END; /* the session is fine: keep it */
	}
	if (p->note[0])
		rb_info("%s", p->note);
	p->pi.status = "ok";
	p->pi.reason = p->note;
	p->tl[TL_DONE] = timing_now_ns();
	return STAGE_OK;
}

/* Stage 5, report: the point's rows (emit_point) unless it was interrupted
 * before its end. Returns run_point's status. */
static int point_report(struct client *cl, struct cpoint *p, enum stage st)
{
	const struct rb_test *t = &p->t;
	int rc = st == STAGE_OK ? 0 : -1;

	if (p->interrupted)
		return -3; /* not measured to its end: no row (signals.h) */
	if (p->refused) {
		p->pi.status = "skipped";
		rc = -2;
	}
	if (rc == 0 && p->measured && p->have_ctx) {
		uint64_t ops = 0;
		for (unsigned i = 0; i < p->c.nw; i++)
			ops += p->c.w[i].ops;
		if (report_no_ops(t, ops, p->err, sizeof(p->err))) {
			p->pi.status = "failed";
			rc = -1;
		}
	}
	if (rc) {
		p->pi.reason = p->err;
		rb_error("%s %s %s %llu B rep %llu: %s", verb_name(t->verb),
			 transport_name(t->transport), testkind_name(t->test),
			 (unsigned long long)t->size, (unsigned long long)t->rep, p->err);
	}
	emit_point(cl, &p->pi, p->have_ctx ? &p->c : NULL, p->measured);
	p->tl[TL_ROWS] = timing_now_ns();
	cl->points_done++;
	return rc;
}

/* ms from stage a to stage b of a timeline (0 when either is missing). */
static double tl_ms(const uint64_t tl[TL_N], enum tl_stage a, enum tl_stage b)
{
	return tl[a] && tl[b] > tl[a] ? (double)(tl[b] - tl[a]) / 1e6 : 0.0;
}

/*
 * One INFO line per measured point: where its time went, in ms, as
 * key=value (ci/harness-overhead parses it), then the yardstick of most
 * of it: ctrl_rtt, the session's shortest control-channel round trip (its
 * clock probes; 0: none), the probes this point sent, and its DONE
 * exchange: the server's hold and the round trip without it. Without the
 * start barrier (--procs 1) warm and barrier are 0 and lead is READY to
 * the first post.
 */
static void log_timeline(const struct rb_test *t, uint64_t tl[TL_N], uint64_t rtt_ns,
			 unsigned probes, uint64_t done_hold_ns, uint64_t done_rtt_ns)
{
	if (!tl[TL_GO])
		tl[TL_GATE] = tl[TL_GO] = tl[TL_READY];
	rb_info("timeline %s %s %s %llu B rep %llu (ms): request=%.1f setup=%.1f warm=%.1f "
		"barrier=%.1f lead=%.1f window=%.1f drain=%.1f after=%.1f done=%.1f rows=%.1f "
		"teardown=%.1f beyond=%.1f ctrl_rtt=%.1f probes=%u done_hold=%.1f done_rtt=%.1f",
		verb_name(t->verb),
		transport_name(t->transport),
		testkind_name(t->test), (unsigned long long)t->size, (unsigned long long)t->rep,
		tl_ms(tl, TL_START, TL_SETUP), tl_ms(tl, TL_SETUP, TL_READY),
		tl_ms(tl, TL_READY, TL_GATE), tl_ms(tl, TL_GATE, TL_GO), tl_ms(tl, TL_GO, TL_WIN0),
		tl_ms(tl, TL_WIN0, TL_WIN1), tl_ms(tl, TL_WIN1, TL_JOINED),
		tl_ms(tl, TL_JOINED, TL_MEASURED), tl_ms(tl, TL_MEASURED, TL_DONE),
		tl_ms(tl, TL_DONE, TL_ROWS), tl_ms(tl, TL_ROWS, TL_FREED),
		tl_ms(tl, TL_START, TL_FREED) - tl_ms(tl, TL_WIN0, TL_WIN1), (double)rtt_ns / 1e6,
		probes, (double)done_hold_ns / 1e6, (double)done_rtt_ns / 1e6);
}

/* Run one point (point: its number in this process's order, from 0: the
 * start barrier's key with the run id), stage by stage. Returns 0 ok, -1
 * failed (row written), -2 refused (row written, status skipped), -3
 * interrupted (no row: not measured to its end). */
static int run_point(struct client *cl, const struct rb_test *tin, uint64_t point)
{
	struct cpoint p = { .t = *tin, .tl[TL_START] = timing_now_ns() };
	unsigned probes0 = cl->probes;
	int rc;

	p.pi = (struct rb_point_info){
		.o = cl->o, .t = &p.t, .env = &cl->env, .dev = &cl->dev, .inline_used = -1,
		.setup_us_per_qp = NAN, .gate_wait_s = NAN, .status = "failed", .reason = "",
		.cs_before.rc = 1, .cs_after.rc = 1,
	};
	enum stage st = point_request(cl, &p);
	if (st == STAGE_OK) {
		p.tl[TL_SETUP] = timing_now_ns();
		st = point_setup(cl, &p);
	}
	if (st == STAGE_OK)
		p.tl[TL_READY] = timing_now_ns();
	if (st == STAGE_OK)
		st = point_measure(cl, &p, point);
	if (st == STAGE_OK)
		st = point_results(cl, &p);
	if (st == STAGE_CLOSE)
		client_disconnect(cl, p.err);
	rc = point_report(cl, &p, st);

	free(p.srv_qps);
	if (p.t.use_cm)
		cm_client_disconnect(&p.cc, p.t.transport);
	if (p.have_ctx)
		ctx_destroy(&p.c);
	if (p.t.use_cm)
		cm_client_destroy(&p.cc);
	p.tl[TL_FREED] = timing_now_ns();
	if (p.measured)
		/* (a reconnect within the point started the count again) */
		log_timeline(&p.t, p.tl, cl->probe_rtt_min_ns,
			     cl->probes >= probes0 ? cl->probes - probes0 : cl->probes,
			     p.done_hold_ns, p.done_rtt_ns);
	return rc;
}

/*
 * Before the device is opened: --csv and --json can be written (a bad path
 * costs no device set-up and no measurement), and --csv is no symbolic link.
 */
static int check_output_paths(const struct rb_opts *o, char *err, size_t errlen)
{
	if (o->json[0] && output_path_writable("--json", o->json, err, errlen))
		return -1;
	if (output_paths_distinct(o->csv, o->json, err, errlen))
		return -1;
	if (!o->csv[0])
		return 0;
	if (output_path_writable("--csv", o->csv, err, errlen))
		return -1;
	struct stat lst;
	if (lstat(o->csv, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		snprintf(err, errlen, "--csv %.400s is a symbolic link: rows are only appended to "
			 "a file itself (another user could have planted the link); give the "
			 "path of the file", o->csv);
		return -1;
	}
	return 0;
}

/*
 * Before any test: an existing CSV has this binary's header (else every
 * row would be refused at the end of the run). The header is that of a row
 * built the normal way, which needs the opened device.
 */
static int check_outputs(struct client *cl, char *err, size_t errlen)
{
	const struct rb_opts *o = cl->o;

	if (!o->csv[0])
		return 0;
	FILE *f = fopen(o->csv, "r");
	if (!f)
		return 0; /* created on the first row */
	static char line[ROW_MAX_COLS * 32];
	bool have = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!have)
		return 0;
	line[strcspn(line, "\r\n")] = '\0';
	static struct row r;
	struct rb_test t = o->t;
	struct rb_point_info pi = { .o = o, .t = &t, .env = &cl->env, .dev = &cl->dev,
				    .inline_used = -1, .setup_us_per_qp = NAN, .gate_wait_s = NAN,
				    .status = "ok", .reason = "" };
	report_build_row(&r, &pi, -1, NULL);
	char *tok = line, *save = NULL;
	for (int i = 0; i < r.ncols; i++) {
		char *name = strtok_r(i ? NULL : tok, ",", &save);
		if (!name || strcmp(name, r.cols[i].name) != 0) {
			snprintf(err, errlen, "--csv %.400s: its header differs from this rdma_bench's "
				 "columns at column %d (file: '%.60s', expected '%s'); write to another "
				 "file", o->csv, i + 1, name ? name : "(end of header)", r.cols[i].name);
			return -1;
		}
	}
	if (strtok_r(NULL, ",", &save)) {
		snprintf(err, errlen, "--csv %.400s: its header has more columns than this rdma_bench "
			 "writes (%d); write to another file", o->csv, r.ncols);
		return -1;
	}
	return 0;
}

/* Start the client: --token-file, --cpus, signals, the device, the output
 * files, then the banner. 0, or -1 (logged; the device closed). */
static int client_start(struct client *cl)
{
	const struct rb_opts *o = cl->o;
	char err[1024];

	log_set_quiet(o->quiet);
	if (o->token_file[0] && guard_token_load(o->token_file, cl->token, sizeof(cl->token),
						 CTRL_TOKEN_CAP, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	if (o->run_key_file[0] && guard_token_load(o->run_key_file, cl->run_key,
						   sizeof(cl->run_key), CTRL_TOKEN_CAP, err,
						   sizeof(err))) {
		rb_fatal("--run-key-file: %s", err);
		return -1;
	}
	if (ctx_placement_check(o, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	/* stdout gets only the table at the end; a reader that went away
	 * (EPIPE) loses the table, never the CSV/JSON (checked below) */
	signal(SIGPIPE, SIG_IGN);
	if (signals_install_interrupt()) {
		rb_fatal("sigaction(SIGINT/SIGTERM/SIGHUP) failed: %s", strerror(errno));
		return -1;
	}
	if (check_output_paths(o, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	env_collect(&cl->env);
	const struct rb_gid_hint hint = { .gid_ip = o->gid_ip, .netdev = o->netdev, .peer = o->host };
	if (dev_open_hint(&cl->dev, o->dev_name, o->ib_port, o->gid_index, &hint, err,
			  sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	if (check_outputs(cl, err, sizeof(err))) {
		rb_fatal("%s", err);
		dev_close(&cl->dev);
		return -1;
	}
	dev_log_banner(&cl->dev, o->gid_index < 0);
	if (ctx_placement(o, cl->dev.name, &cl->pl, err, sizeof(err))) {
		rb_fatal("%s", err);
		dev_close(&cl->dev);
		return -1;
	}
	env_log_clock(&cl->env);
	/* the NIC's PCIe reads and writes from the uncore, where the CPU has
	 * them; the idle rate (100 ms, nothing of ours running) is what the
	 * rest of the socket adds to every window */
	if (pp_open(&cl->pp, "/sys", "/proc/cpuinfo", NULL, NULL) > 0) {
		pp_baseline(&cl->pp, 0.1);
		rb_info("uncore PCIe counters: %d CHA boxes; idle %.0f reads/s, %.0f writes/s subtracted "
			"from each window", cl->pp.nbox, cl->pp.idle_rate[PP_RD], cl->pp.idle_rate[PP_WR]);
	}
	return 0;
}

/* The end of a run: BYE, the table of the process rows ("all") on stdout,
 * --json, and the exit status from the points (total: points planned). */
static int client_finish(struct client *cl, int total)
{
	const struct rb_opts *o = cl->o;
	char err[1024];
	int rc = 0;

	if (cl->fd >= 0) {
		(void)ctrl_send_simple(cl->fd, CTRL_BYE, 5000, err, sizeof(err));
		close(cl->fd);
	}
	if (cl->nrows) {
		struct row *all = calloc((size_t)cl->nrows, sizeof(*all));
		int na = 0;
		for (int i = 0; all && i < cl->nrows; i++) {
			const char *th = row_get(&cl->rows[i], "thread");
			if (th && strcmp(th, "all") == 0)
				all[na++] = cl->rows[i];
		}
		if (all)
			table_print(stdout, all, na, report_table_cols, report_table_ncols);
		if (fflush(stdout) || ferror(stdout))
			rb_error("stdout: the table was not written (%s); the rows are in --csv/--json "
				 "when given", strerror(errno));
		free(all);
	}
	if (o->json[0] && json_write(o->json, cl->rows, cl->nrows, err, sizeof(err))) {
		rb_error("--json %s: %s", o->json, err);
		rc = 1;
	}
	if (cl->failed || cl->csv_failed)
		rc = 1;
	if (cl->refused) {
		rb_error("%d of %d point(s) refused before anything was measured (rows: status "
			 "skipped, reason 'refused by ...'): fix the options named there; exit status 2",
			 cl->refused, total);
		rc = 2;
	}
	if (rb_interrupt_signal) {
		rc = signals_exit_status(rb_interrupt_signal);
		rb_error("interrupted after %d of %d points (%s): the finished points' rows are in "
			 "the table%s%s%s%s; exit status %d", cl->points_done, total,
			 signals_name(rb_interrupt_signal), o->csv[0] ? ", --csv " : "", o->csv,
			 o->json[0] ? ", --json " : "", o->json, rc);
	}
	return rc;
}

/*
 * How long this process ran before main (fork and exec to client_run, from
 * /proc/self/stat's start time in clock ticks since boot against
 * CLOCK_BOOTTIME: 10 ms resolution at 100 ticks/s): ms, or -1 unknown.
 */
static double exec_ms(void)
{
	char buf[1024];
	struct timespec now;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	/* field 22 (starttime) counts from the ')' closing field 2 (comm) */
	char *p = strrchr(buf, ')');
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	unsigned long long start = 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &start) != 1)
		return -1;
	double ms = ((double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6) -
		    (double)start * 1e3 / (double)hz;
	return ms >= 0 ? ms : -1;
}

/*
 * The process's timeline beside the points' (one INFO line at the end, ms):
 * exec (process start to client_run, exec_ms), start (token, device, output
 * checks, clock probe: client_start), connect (HELLO both ways), points
 * (every point, each with its own timeline line), finish (BYE, table,
 * --json). ci/harness-overhead prints their medians.
 */
static void log_session_timeline(double exec, const uint64_t ts[5])
{
	rb_info("timeline session (ms): exec=%.1f start=%.1f connect=%.1f points=%.1f "
		"finish=%.1f", exec, (double)(ts[1] - ts[0]) / 1e6, (double)(ts[2] - ts[1]) / 1e6,
		(double)(ts[3] - ts[2]) / 1e6, (double)(ts[4] - ts[3]) / 1e6);
}

int client_run(const struct rb_opts *o)
{
	struct client cl = { .o = o, .fd = -1 };
	char err[1024];
	int rc = 0, total = o->nsizes * (int)o->reps;
	double exec = exec_ms();
	uint64_t ts[5] = { timing_now_ns() };

	if (client_start(&cl))
		return 2;
	ts[1] = timing_now_ns();
	if (client_connect(&cl, err, sizeof(err))) {
		rb_fatal("%s", err);
		rc = 2;
		if (rb_interrupt_signal) {
			rc = signals_exit_status(rb_interrupt_signal);
			rb_error("interrupted after 0 of %d points (%s): nothing was measured; exit "
				 "status %d", total, signals_name(rb_interrupt_signal), rc);
		}
		ctrl_rbuf_free(&cl.rb);
		dev_close(&cl.dev);
		return rc;
	}
	ts[2] = timing_now_ns();
	uint64_t point = 0;
	for (int i = 0; i < o->nsizes && !rb_interrupt_signal; i++)
		for (unsigned rep = 0; rep < o->reps && !rb_interrupt_signal; rep++) {
			struct rb_test t = o->t;
			t.size = o->sizes[i];
			t.rep = o->rep_first + rep;
			int prc = run_point(&cl, &t, point++);
			if (prc == -1)
				cl.failed++;
			else if (prc == -2)
				cl.refused++;
		}
	ts[3] = timing_now_ns();
	rc = client_finish(&cl, total);
	ts[4] = timing_now_ns();
	log_session_timeline(exec, ts);
	ctrl_rbuf_free(&cl.rb);
	free(cl.rows);
	pp_close(&cl.pp);
	dev_close(&cl.dev);
	return rc;
}
