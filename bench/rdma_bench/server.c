/*
 * server.c - the server role: accept control connections and serve each
 * session in its own thread (session.h).
 *
 * Admission (admit.h, guard.h): the accept loop itself holds a new
 * connection until its HELLO (within HELLO_TIMEOUT_MS, with the
 * --token-file token), in a table capped in total and per source prefix;
 * only then does it get a session slot (--max-sessions, --max-per-peer)
 * and a thread.
 *
 * A session: HELLO both ways; then per point: TEST from the client (checked
 * with test_validate, against this device and the server's limits, its
 * memory reserved out of --max-mem), build the context, SETUP
 * both ways, connect the QPs, post receives, start the worker threads this
 * side needs, READY; wait for the client's DONE (while watching for the
 * client going away and the point's timeout), stop the workers, check the
 * buffers and reply DONE with what this side saw. BYE ends the session.
 * Any failure: log it, send ERROR with the reason, close this session; the
 * server keeps serving.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "cm.h"
#include "ctrl.h"
#include "ctx.h"
#include "ctx_cm.h"
#include "post.h"
#include "device.h"
#include "gate.h"
#include "errbuf.h"
#include "guard.h"
#include "log.h"
#include "report.h"
#include "session.h"
#include "timing.h"
#include "units.h"

#define HELLO_TIMEOUT_MS 5000     /* a new connection's HELLO: fixed, before any slot */
#define IDLE_TIMEOUT_MS  600000   /* between points of one session */
#define RECV_GRACE_MS    3000     /* receives still arriving after the client's DONE: at most */
#define RECV_QUIET_MS    200      /* ...and no longer than this without a new one (lost on UD/UC) */
#define RECV_QUIET_MIN_MS 50      /* ...nor shorter than this */
#define RECV_QUIET_GAPS  50       /* ...where 50 mean gaps of the window are shorter than 200 ms */

uint64_t server_recv_quiet_ns(uint64_t duration_ms, uint64_t recvs)
{
	const uint64_t lo = RECV_QUIET_MIN_MS * 1000000ull, hi = RECV_QUIET_MS * 1000000ull;

	if (!duration_ms || !recvs)
		return hi;
	uint64_t gaps = duration_ms * 1000000ull / recvs * RECV_QUIET_GAPS;
	return gaps < lo ? lo : gaps > hi ? hi : gaps;
}

/* What the server saw of one --run-id over all its sessions (fan-in). */
#define RUN_TALLIES 64
struct run_tally {
	char run_id[CTRL_STR_CAP + 1];
	unsigned points;
	uint64_t recvs, bytes;
	uint64_t first_ns, last_ns;   /* first and last receive, any session */
};

/* Sessions of one peer address. */
struct peer_count {
	char addr[64];               /* numeric, no port; "" = free entry */
	unsigned sessions;
	uint64_t threads;            /* worker threads of its running points (--max-peer-threads) */
};

struct server {
	const struct rb_opts *o;
	struct run_tally runs[RUN_TALLIES];
	struct gate_table gates;     /* start barriers of fan-in points (under lock) */
	struct session *gate_waiters[GATE_SLOTS]; /* per barrier, its sessions still
					     * waiting (under lock; gate_wait) */
	pthread_cond_t gate_cond;    /* signalled when a barrier opens (CLOCK_MONOTONIC) */
	struct rb_dev dev;
	struct rb_placement pl;      /* the workers' CPUs, --hugepages, --doorbell (ctx.h) */
	struct rb_cm_listener cm;    /* -R sessions */
	pthread_mutex_t lock;
	unsigned active;
	unsigned long next_id;
	/* limits and admission (guard.h); counts under lock */
	struct rb_limits lim;        /* the options with host defaults filled in */
	struct guard_cidr allow[GUARD_MAX_CIDRS];
	int nallow;                  /* 0 = any address */
	char allow_text[200];        /* --allow as given, cut for the INFO line */
	char token[CTRL_TOKEN_CAP + 1];  /* "" = no --token-file */
	struct guard_usage used;     /* memory, QPs, worker threads of running points */
	char mem_why[160];           /* where the --max-mem default came from */
	struct admit adm;            /* connections before their HELLO (accept loop only) */
	/* the last GO's wake-up of any session (its send minus the release,
	 * ns; 0: none yet): a session's first barrier sizes its lead with it */
	_Atomic uint64_t go_wake_last_ns;
	struct peer_count *peers;    /* max_sessions entries */
	unsigned npeers;
};

/*
 * A session held at a start barrier (serve_gate). The session whose GATE
 * releases the barrier sends every waiter's GO itself, at once, before it
 * wakes them (release_all): a waiter's GO does not wait for its thread to
 * be scheduled behind the traffic of the processes released first (the
 * two-VM bed saw one GO leave 358 ms after the release that way). The
 * outcome is left here for the waiter.
 */
struct gate_wait {
	struct session *next;        /* the barrier's other waiters */
	uint64_t arrive_ns;          /* its GATE's arrival (server clock) */
	uint64_t lead_ns;            /* the barrier's lead, with the GO */
	int go;                      /* 0: not sent, 1: sent, -1: failed (err) */
	char err[256];
};

struct session {
	struct server *srv;
	int fd;
	unsigned long id;
	char peer[128];
	char addr[64];               /* peer address without port (--max-per-peer) */
	struct sockaddr_storage sa;  /* the peer (-R: connect requests must come from it) */
	bool has_slot;               /* counted in srv->active (after a valid HELLO) */
	struct ctrl_hello hello;
	struct ctrl_rbuf rb;
	uint64_t go_wake_ns;         /* previous GO: its send minus the release (0: none yet) */
	struct gate_wait gw;         /* while at a start barrier (under srv->lock) */
	bool refused;                /* ended on a refused point (RB_REFUSED_PREFIX) */
};

/*
 * The one process-wide mutable flag of the server: SIGINT/SIGTERM set it and
 * the accept loop of server_run stops (it polls at most 500 ms at a time). A
 * signal handler receives no context argument, so what it sets must be a
 * file-scope volatile sig_atomic_t (C11 7.14.1.1); everything else the
 * server shares is in struct server, passed to each step and session.
 */
static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* ---- admission and limits (guard.h) ------------------------------------- */

/* The entry of addr, or a free one taken for it (NULL if the table is full).
 * Caller holds srv->lock. */
static struct peer_count *peer_get(struct server *srv, const char *addr)
{
	struct peer_count *free_e = NULL;

	for (unsigned i = 0; i < srv->npeers; i++) {
		struct peer_count *p = &srv->peers[i];
		if (p->addr[0] && strcmp(p->addr, addr) == 0)
			return p;
		if (!p->addr[0] && !free_e)
			free_e = p;
	}
	if (free_e)
		snprintf(free_e->addr, sizeof(free_e->addr), "%s", addr);
	return free_e;
}

static void peer_put(struct peer_count *p)
{
	if (p && !p->sessions)
		p->addr[0] = '\0';
}

/* After a valid HELLO with the token (admit_next): a session slot
 * (--max-sessions) and one of its address's (--max-per-peer). */
static int admit_session(struct server *srv, struct session *s, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&srv->lock);
	struct peer_count *p = peer_get(srv, s->addr);
	if (srv->active >= srv->o->max_sessions || !p) {
		rc = rb_fail(err, errlen, "server busy: %u sessions running (--max-sessions %u); "
			     "retry later", srv->active, srv->o->max_sessions);
	} else if (p->sessions >= srv->lim.max_per_peer) {
		rc = rb_fail(err, errlen, "too many sessions from %s: above the server's "
			     "--max-per-peer %u; retry later", s->addr, srv->lim.max_per_peer);
	} else {
		srv->active++;
		s->has_slot = true;
		p->sessions++;
		s->id = ++srv->next_id;
	}
	if (rc)
		peer_put(p);
	pthread_mutex_unlock(&srv->lock);
	return rc;
}

/* Give back what admit_session counted. */
static void admit_release(struct server *srv, struct session *s)
{
	if (!s->has_slot)
		return;
	pthread_mutex_lock(&srv->lock);
	struct peer_count *p = peer_get(srv, s->addr);
	srv->active--;
	if (p && p->sessions)
		p->sessions--;
	s->has_slot = false;
	peer_put(p);
	pthread_mutex_unlock(&srv->lock);
}

/*
 * Before a point allocates anything: the per-point limits, then its QPs,
 * worker threads and bytes reserved out of what --max-qps, --max-threads
 * and --max-mem leave free over all sessions (guard_admit_point, under the
 * server's lock). 0 with *got reserved, or -1 with err "refused: ..."
 * (RB_REFUSED_PREFIX: the client's row is skipped, exit 2). Only this
 * session ends; the server goes on serving.
 */
static void release_locked(struct server *srv, const char *addr, struct guard_usage *got)
{
	struct peer_count *p = peer_get(srv, addr);
	srv->used.mem -= got->mem;
	srv->used.qps -= got->qps;
	srv->used.threads -= got->threads;
	if (p)
		p->threads -= got->threads < p->threads ? got->threads : p->threads;
	peer_put(p);
	*got = (struct guard_usage){ 0 };
}

/* ... and the worker threads of all sessions of the client's address
 * (addr) against --max-peer-threads: one peer never takes all of
 * --max-threads. */
static int point_admit(struct server *srv, const char *addr, const struct rb_test *t,
		       struct guard_usage *got, char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&srv->lock);
	rc = guard_admit_point(t, ctx_side_active(t, RB_ROLE_SERVER),
			       (uint64_t)(srv->dev.attr.max_cqe > 0 ? srv->dev.attr.max_cqe : 1),
			       &srv->lim, &srv->used, got, err, errlen);
	struct peer_count *p = rc ? NULL : peer_get(srv, addr);
	if (p && p->threads + got->threads > srv->lim.max_peer_threads) {
		rc = rb_fail(err, errlen, "%s--threads %llu above what the server's "
			     "--max-peer-threads %llu leaves free for %s (%llu worker threads in use "
			     "by its sessions); retry later", RB_REFUSED_PREFIX,
			     (unsigned long long)got->threads,
			     (unsigned long long)srv->lim.max_peer_threads, addr,
			     (unsigned long long)p->threads);
		srv->used.mem -= got->mem;  /* not yet counted for the peer */
		srv->used.qps -= got->qps;
		srv->used.threads -= got->threads;
		*got = (struct guard_usage){ 0 };
	} else if (p) {
		p->threads += got->threads;
	}
	pthread_mutex_unlock(&srv->lock);
	return rc;
}

static void point_release(struct server *srv, const char *addr, struct guard_usage *got)
{
	pthread_mutex_lock(&srv->lock);
	release_locked(srv, addr, got);
	pthread_mutex_unlock(&srv->lock);
}

/*
 * How long the server waits for the client's DONE of a point (ms): with -D,
 * duration + warm-up + the wait limit; in iteration mode the client's
 * --timeout, at most --client-timeout + --max-duration + --max-warmup.
 * The client's timeout never makes a wait longer than the server allows.
 */
static uint64_t done_limit_ms(const struct rb_test *client_t, const struct rb_limits *l)
{
	uint64_t wait = client_t->timeout_ms;
	if (wait > (uint64_t)l->client_timeout_s * 1000u)
		wait = (uint64_t)l->client_timeout_s * 1000u;
	if (client_t->duration_ms)
		return wait + client_t->duration_ms + client_t->warmup_ms;
	uint64_t cap = (uint64_t)l->client_timeout_s * 1000u + l->max_duration_ms + l->max_warmup_ms;
	return client_t->timeout_ms < cap ? client_t->timeout_ms : cap;
}

/* Add a point's receives to its run's tally and log the aggregate. */
static void tally_run(struct server *srv, const char *run_id, uint64_t recvs, uint64_t size,
		      uint64_t first, uint64_t last)
{
	struct run_tally *r = NULL;

	if (!run_id[0] || !recvs)
		return;
	pthread_mutex_lock(&srv->lock);
	for (int i = 0; i < RUN_TALLIES && !r; i++)
		if (strcmp(srv->runs[i].run_id, run_id) == 0)
			r = &srv->runs[i];
	for (int i = 0; i < RUN_TALLIES && !r; i++)
		if (!srv->runs[i].run_id[0]) {
			r = &srv->runs[i];
			snprintf(r->run_id, sizeof(r->run_id), "%s", run_id);
		}
	if (!r) { /* table full: forget the oldest */
		r = &srv->runs[0];
		memset(r, 0, sizeof(*r));
		snprintf(r->run_id, sizeof(r->run_id), "%s", run_id);
	}
	r->points++;
	r->recvs += recvs;
	r->bytes += recvs * size;
	if (!r->first_ns || first < r->first_ns)
		r->first_ns = first;
	if (last > r->last_ns)
		r->last_ns = last;
	double secs = r->last_ns > r->first_ns ? (double)(r->last_ns - r->first_ns) / 1e9 : 0.0;
	struct run_tally snap = *r;
	pthread_mutex_unlock(&srv->lock);
	rb_info("run '%s': %u point(s) so far, %llu receives, %llu bytes from first to last "
		"receive in %.6f s = %.4f Mops, %.4f Gb/s aggregate inbound", snap.run_id,
		snap.points, (unsigned long long)snap.recvs, (unsigned long long)snap.bytes, secs,
		secs > 0 ? units_mops(snap.recvs, secs) : 0.0,
		secs > 0 ? units_gbps(snap.bytes, secs) : 0.0);
}

/* The client's control connection closed or sent something while it
 * should be waiting at the start barrier. */
static bool client_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) > 0;
}

/*
 * Send w's GO of a barrier released at release_ns with lead lead_ns (under
 * srv->lock: never waits for a full socket buffer, a client that does not
 * read its control connection fails alone). GO carries w's own send time
 * (the hold since the N-th arrival is then part of the offset sample's
 * server time) and the common window's start, the same for every process
 * of the barrier. Sets w->gw (go 1, or -1 with err) and w->go_wake_ns.
 */
static void send_go(struct session *w, uint64_t release, uint64_t lead, uint32_t procs)
{
	struct ctrl_go go = { .arrive_ns = w->gw.arrive_ns, .release_ns = release, .procs = procs };
	uint8_t buf[CTRL_HDR_LEN + 32];
	uint64_t sent = timing_now_ns();

	go.release_ns = sent > release ? sent : release;
	go.start_ns = release + lead;
	if (go.start_ns < go.release_ns)
		go.start_ns = go.release_ns;
	/* at least 1 ns: 0 means "no previous GO" */
	w->go_wake_ns = go.release_ns - release + 1;
	w->gw.lead_ns = lead;
	size_t n = ctrl_encode_go(buf, sizeof(buf), &go);
	w->gw.go = n && !ctrl_send(w->fd, buf, n, 0, w->gw.err, sizeof(w->gw.err)) ? 1 : -1;
	if (!n)
		snprintf(w->gw.err, sizeof(w->gw.err), "internal error: GO did not encode");
}

/*
 * The barrier of slot was released by last's GATE (at release_ns): send
 * the GO of every session waiting there, then last's own (under srv->lock,
 * before the waiters are woken).
 */
static void release_all(struct server *srv, int slot, struct session *last, uint64_t release,
			uint32_t procs)
{
	uint64_t lead = gate_lead_ns(&srv->gates, slot);

	for (struct session *w = srv->gate_waiters[slot]; w; w = w->gw.next)
		send_go(w, release, lead, procs);
	srv->gate_waiters[slot] = NULL;
	send_go(last, release, lead, procs);
	atomic_store(&srv->go_wake_last_ns, last->go_wake_ns);
}

/* s leaves the waiters of slot (its wait failed; under srv->lock). */
static void gate_unwait(struct server *srv, int slot, struct session *s)
{
	for (struct session **p = &srv->gate_waiters[slot]; *p; p = &(*p)->gw.next)
		if (*p == s) {
			*p = s->gw.next;
			return;
		}
}

/*
 * The client's GATE (m): hold it at the start barrier of (run id, point)
 * until all --procs processes are there; the last arrival's session sends
 * every GO (release_all). Waits at most the point's --timeout from the
 * first arrival; the client going away ends the wait. The window starts
 * the barrier's lead after the release (gate.h: from each process's
 * previous GO, this side's wake-up plus the client's go_us). 0, or -1 with
 * err (sent to the client as ERROR by the caller).
 */
static int serve_gate(struct session *s, const struct rb_test *t, const struct ctrl_gate *g,
		      char *err, size_t errlen)
{
	struct server *srv = s->srv;
	uint64_t release = 0;
	int slot = -1, rc;
	/* what this process's GO may take: this side's wake-up (this session's
	 * previous one, at its first barrier the server's last) plus the
	 * client's bound of the wire (ctrl.h GATE go_us); 0: unknown, the full
	 * lead */
	uint64_t wake = s->go_wake_ns ? s->go_wake_ns : atomic_load(&srv->go_wake_last_ns);
	uint64_t need = wake && g->go_us ? wake + g->go_us * 1000ull : 0;

	/* the arrival time is read under the table's lock, so arrivals are in
	 * time order as the table sees them (gate.c's waited_ns also copes) */
	pthread_mutex_lock(&srv->lock);
	s->gw = (struct gate_wait){ .arrive_ns = timing_now_ns() };
	rc = gate_arrive(&srv->gates, s->hello.run_id, s->hello.run_key, g->point, g->procs,
			 s->gw.arrive_ns, t->timeout_ms * 1000000ull, need, &slot, &release, err,
			 errlen);
	if (rc == GATE_WAIT) {
		s->gw.next = srv->gate_waiters[slot];
		srv->gate_waiters[slot] = s;
	} else if (rc == GATE_OPEN) {
		release_all(srv, slot, s, release, g->procs);
		pthread_cond_broadcast(&srv->gate_cond);
	}
	while (rc == GATE_WAIT) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100 * 1000000L;   /* look at the client's socket every 100 ms */
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&srv->gate_cond, &srv->lock, &ts);
		rc = gate_poll(&srv->gates, slot, timing_now_ns(), &release, err, errlen);
		if (rc == GATE_WAIT && client_gone(s->fd)) {
			snprintf(err, errlen, "the client left the start barrier of run '%s' point %llu "
				 "before its release (control connection closed or a message came)",
				 s->hello.run_id, (unsigned long long)g->point);
			rc = GATE_ERR;
		}
		if (rc == GATE_ERR)
			gate_unwait(srv, slot, s);
	}
	if (slot >= 0)
		gate_leave(&srv->gates, slot);
	pthread_mutex_unlock(&srv->lock);
	if (rc != GATE_OPEN)
		return -1;
	if (s->gw.go != 1) {
		snprintf(err, errlen, "start barrier of run '%s' point %llu: GO: %.400s",
			 s->hello.run_id, (unsigned long long)g->point, s->gw.err);
		return -1;
	}
	rb_info("session %lu: run '%s' point %llu: released %u processes at the start barrier "
		"(this one waited %.3f s; window %.0f ms after the release; %s)", s->id,
		s->hello.run_id, (unsigned long long)g->point, g->procs,
		(double)(release - s->gw.arrive_ns) / 1e9, (double)s->gw.lead_ns / 1e6,
		s->hello.run_key[0] ? "keyed by the run key" :
		"no run key: any peer that knows the run id shares this barrier");
	return 0;
}

/* Wait for the client's DONE while the workers run, answering its clock
 * probes (TIME) and holding it at the start barrier when it sends GATE
 * first; *arrive_ns: when DONE was seen (our clock, for our DONE's
 * arrive_ns); ctr0: the port counters re-read when the barrier releases
 * (the common window's start), at *ctr0_ns; -1 with err on failure. */
static int wait_done(struct session *s, struct rb_ctx *c, uint64_t limit_ms, struct ctrl_msg *m,
		     uint64_t *arrive_ns, struct rb_counters *ctr0, uint64_t *ctr0_ns,
		     char *err, size_t errlen)
{
	uint64_t deadline = timing_now_ns() + limit_ms * 1000000ull;
	bool gated = false;

	for (;;) {
		/* first, whatever arrived last time: a clock probe every < 100 ms
		 * must not keep the point (its memory, QPs, spinning workers)
		 * past its limit */
		if (timing_now_ns() > deadline) {
			snprintf(err, errlen, "timed out after %.1f s waiting for the client's DONE "
				 "(-D + --warmup + the client's --timeout, at most the server's "
				 "--client-timeout)", (double)limit_ms / 1000.0);
			return -1;
		}
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		int rc = poll(&p, 1, 100);
		if (rc < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll on control socket: %s", strerror(errno));
			return -1;
		}
		if (rc > 0) {
			/* (GATE and TIME may come first: that is the client's business;
			 * what this wait is for is its DONE) */
			*arrive_ns = timing_now_ns();
			/* a message cut short waits no longer than the deadline either */
			uint64_t left_ms = deadline > *arrive_ns ? (deadline - *arrive_ns) / 1000000u + 1 : 1;
			if (left_ms > c->t.timeout_ms)
				left_ms = c->t.timeout_ms;
			rc = ctrl_recv(s->fd, &s->rb, m, 0, (int)left_ms, "the client's DONE", err,
				       errlen);
			if (rc == 0 && m->type == CTRL_TIME) {
				/* a clock probe (before GATE or after the window): our clock, at once */
				uint8_t tb[CTRL_HDR_LEN + 8];
				size_t tn = ctrl_encode_time(tb, sizeof(tb), timing_now_ns());
				if (ctrl_send(s->fd, tb, tn, (int)c->t.timeout_ms, err, errlen))
					return -1;
				continue;
			}
			if (rc == 0 && m->type == CTRL_GATE && !gated) {
				struct ctrl_gate g = m->u.gate;
				if (serve_gate(s, &c->t, &g, err, errlen))
					return -1;
				gated = true;
				dev_counters_read(c->dev->name, c->dev->port, ctr0);
				*ctr0_ns = timing_now_ns();
				/* the window starts now: the point's time limit too */
				deadline = timing_now_ns() + limit_ms * 1000000ull;
				continue;
			}
			if (rc == 0 && m->type != CTRL_DONE) {
				snprintf(err, errlen, "protocol error: got %s, expected %s",
					 ctrl_type_name(m->type), gated ? "DONE" : "GATE or DONE");
				return -1;
			}
			if (rc == -2) /* keep "peer: reason" but say it was the client */
				rb_reprefix(err, errlen, 6, "client reported: ");
			return rc ? -1 : 0;
		}
		for (unsigned i = 0; i < c->nw; i++)
			if (c->w[i].rc) {
				snprintf(err, errlen, "%s", c->w[i].err);
				return -1;
			}
	}
}

/*
 * A configuration this side refuses before anything is measured (a value
 * above a device cap or below what the point needs) is a usage error of
 * the client's command line, whichever side detects it: the ERROR to the
 * client starts with RB_REFUSED_PREFIX, and the client treats it exactly
 * as its own refusals (status skipped, exit status 2; client.c).
 */
static void mark_refused(char *err, size_t errlen)
{
	char tmp[1024];

	snprintf(tmp, sizeof(tmp), "%s%.1000s", RB_REFUSED_PREFIX, err);
	snprintf(err, errlen, "%s", tmp);
}

/* One point on the server: what its stages share. */
struct spoint {
	struct rb_test t;          /* the client's, its --timeout cut to the server's */
	struct guard_usage reserved; /* of --max-mem, --max-qps, --max-threads (point_admit) */
	uint64_t done_ms;          /* the wait for the client's DONE (done_limit_ms) */
	struct rb_ctx c;
	bool have_ctx;
	struct rb_dev cmdev;       /* -R: the device on rdma_cm's context */
	struct rb_cm_session cms;  /* -R only */
	struct ctrl_msg m;         /* the client's last message (points into s->rb) */
	/* this session thread's CPU counting, READY to the client's DONE
	 * (point_serve; sent in CPU by point_cpu) */
	struct pc_sample pc;
	bool pc_done;
	uint64_t t_ready, t_done;
	uint64_t t_arrive;         /* the client's DONE seen (wait_done) */
	struct cs_reading cs0, cs1;
	/* the port's counters at the start barrier's release (at READY
	 * without one) and at the client's DONE (point_serve; sent in DONE) */
	struct rb_counters ctr0, ctr1;
	uint64_t ctr0_ns, ctr1_ns;
};

/* Stage 1, validate: the client's point is a valid test, fits this device
 * and the server's limits; its memory is reserved. -1 with err. */
static int point_check(struct session *s, struct spoint *p, const struct rb_test *tin,
		       char *err, size_t errlen)
{
	struct server *srv = s->srv;
	char e2[512];

	if (test_validate(&p->t, e2, sizeof(e2))) {
		snprintf(err, errlen, "%sTEST: %s", RB_REFUSED_PREFIX, e2);
		return -1;
	}
	/* the server's own wait limit: the client's --timeout only shortens it */
	p->done_ms = done_limit_ms(tin, &srv->lim);
	if (p->t.timeout_ms > (uint64_t)srv->lim.client_timeout_s * 1000u)
		p->t.timeout_ms = (uint64_t)srv->lim.client_timeout_s * 1000u;
	if (test_validate_device(&p->t, &srv->dev.caps, e2, sizeof(e2))) {
		snprintf(err, errlen, "%sserver device %s: %s", RB_REFUSED_PREFIX, srv->dev.name, e2);
		return -1;
	}
	if (p->t.use_cm) {
		/* rdma_cm's own device context: PD, MR and CQs must live on it. */
		if (!srv->cm.running) {
			snprintf(err, errlen, "%s", srv->cm.why);
			return -1;
		}
		p->cmdev = srv->dev;
		p->cmdev.ctx = srv->cm.verbs;
	}
	/* the server's limits, before anything is allocated */
	return point_admit(srv, s->addr, &p->t, &p->reserved, err, errlen);
}

/* -R: accept the client's connect requests for every QP (ctx_cm.c), with the
 * client's SETUP copied out of s->rb first (the wait reuses it). */
static int point_cm_accept(struct session *s, struct spoint *p, char *err, size_t errlen)
{
	struct rb_cm_ctrl ctl = { .fd = s->fd, .rb = &s->rb };
	struct ctrl_setup cs;
	uint8_t *qps = NULL;

	if (ctrl_setup_copy(&cs, &p->m.u.setup, &qps, err, errlen))
		return -1;
	int rc = ctx_cm_accept(&s->srv->cm, &p->cms, &p->c, &cs, &ctl, err, errlen);
	free(qps);
	if (rc && p->c.refused)
		mark_refused(err, errlen);
	return rc;
}

/* Stage 2, negotiate and set up: the context, SETUP both ways, negotiated,
 * QPs connected (TCP path or -R) and receives posted. -1 with err. */
static int point_build(struct session *s, struct spoint *p, char *err, size_t errlen)
{
	struct server *srv = s->srv;
	struct rb_ctx *c = &p->c;
	const struct rb_test *t = &p->t;

	if (ctx_create(c, t, RB_ROLE_SERVER, t->use_cm ? &p->cmdev : &srv->dev, &srv->pl, err,
		       errlen)) {
		if (c->refused)
			mark_refused(err, errlen);
		return -1;
	}
	p->have_ctx = true;
	/* the entries its client process takes, counted from the list's end: a
	 * client on this host then spins on other CPUs (topo.h) */
	c->cpu_first = s->hello.proc_index * t->threads;
	c->cpu_mirror = true;
	if (t->use_cm && cm_session_register(&srv->cm, &p->cms, c->mr->rkey, (uintptr_t)c->buf,
					     c->nonce, (const struct sockaddr *)&s->sa,
					     (uint32_t)c->lay.nqp_total, err, errlen))
		return -1;
	if (ctx_send_setup(c, s->fd, (int)t->timeout_ms, err, errlen) ||
	    ctrl_recv(s->fd, &s->rb, &p->m, CTRL_SETUP, (int)t->timeout_ms, "the client's SETUP",
		      err, errlen))
		return -1;
	if (ctx_negotiate(c, &p->m.u.setup, err, errlen)) {
		mark_refused(err, errlen); /* every rule of the negotiation refuses a value */
		return -1;
	}
	if (t->use_cm)
		return point_cm_accept(s, p, err, errlen);
	if (ctx_connect(c, &p->m.u.setup, err, errlen) || ctx_post_recvs(c, err, errlen))
		return -1;
	return 0;
}

/*
 * Receives may still be in flight after the client's DONE, or lost for
 * good (UD and UC: no retransmission). Wait until `want` arrived, for at
 * most RECV_GRACE_MS, and give up earlier once none has arrived for the
 * quiet time: a lost message never comes, and a job of a sweep should not
 * pay the whole grace for it. The quiet time counts from the latest
 * receive, not from DONE: the client's drain after its window and DONE's
 * way are already quiet time (the wait then ends at once when the window's
 * last receive is that long ago). It is RECV_QUIET_GAPS mean gaps between
 * receives in the window (duration mode: -D over the receives so far),
 * within RECV_QUIET_MIN_MS .. RECV_QUIET_MS (a stream of 1,000 receives a
 * second waits 50 ms). A failed worker ends the wait.
 */
static void wait_late_recvs(struct rb_ctx *c, uint64_t want)
{
	uint64_t now = timing_now_ns();
	uint64_t until = now + RECV_GRACE_MS * 1000000ull;
	uint64_t seen = ctx_sum_recvs(c), last = ctx_last_recv_ns(c);
	uint64_t quiet_since = last && last <= now ? last : now;
	uint64_t quiet_ns = server_recv_quiet_ns(c->t.duration_ms, seen);

	while (seen < want && now < until && now - quiet_since < quiet_ns &&
	       !ctx_worker_error(c)) {
		usleep(1000);
		now = timing_now_ns();
		uint64_t r = ctx_sum_recvs(c);
		if (r != seen) {
			seen = r;
			quiet_since = now;
		}
	}
}

/* Stage 3, run: the workers this side needs (receives, WRITE ping-pong),
 * READY, the client's DONE (wait_done), the late receives, workers
 * stopped. -1 with err (the workers are stopped then too). */
static int point_serve(struct session *s, struct spoint *p, char *err, size_t errlen)
{
	struct rb_ctx *c = &p->c;
	char e2[512];

	struct perfcount pc;

	if (ctx_side_active(&p->t, RB_ROLE_SERVER) &&
	    workers_start(c, worker_server_main, err, errlen))
		return -1;
	if (ctx_side_active(&p->t, RB_ROLE_SERVER) && c->nw && c->w[0].cpu >= 0) {
		char list[96];
		topo_workers_text(c->pl ? &c->pl->place : NULL, c->cpu_first, c->cpu_mirror, c->nw, list,
				  sizeof(list));
		rb_info("session %lu: workers on CPUs %s (its client process's entries of the list, "
			"counted from the end: topo.h)", s->id, list);
	}
	/* this thread's counters and the CPUs' ticks from READY to the
	 * client's DONE: opened and read here, outside the client's window */
	pc_open(&pc, NULL, NULL);
	cs_take(&p->cs0);
	dev_counters_read(c->dev->name, c->dev->port, &p->ctr0);
	p->ctr0_ns = timing_now_ns();
	p->t_ready = timing_now_ns();
	pc_start(&pc);
	int rc = ctrl_send_simple(s->fd, CTRL_READY, (int)p->t.timeout_ms, err, errlen) ||
		 wait_done(s, c, p->done_ms, &p->m, &p->t_arrive, &p->ctr0, &p->ctr0_ns, err, errlen);
	dev_counters_read(c->dev->name, c->dev->port, &p->ctr1);
	p->ctr1_ns = timing_now_ns();
	pc_stop(&pc, &p->pc);
	p->t_done = timing_now_ns();
	cs_take(&p->cs1);
	pc_close(&pc);
	p->pc_done = rc == 0;
	if (rc) {
		atomic_store(&c->stop, 1);
		(void)workers_join(c, e2, sizeof(e2));
		return -1;
	}
	if (verb_needs_recv(p->t.verb))
		wait_late_recvs(c, p->m.u.done.sends);
	atomic_store(&c->stop, 1);
	return workers_join(c, err, errlen);
}

/* What this side saw (receives, their window, payload and buffer checks,
 * atomic counters) into d; first/last receive times (UINT64_MAX / 0: none). */
static void point_collect(struct rb_ctx *c, struct ctrl_done *d, uint64_t *first, uint64_t *last)
{
	const struct rb_test *t = &c->t;
	uint64_t sum = 0;

	*first = UINT64_MAX;
	*last = ctx_last_recv_ns(c);
	d->recvs = ctx_sum_recvs(c);
	for (unsigned i = 0; i < c->nw; i++) {
		struct rb_worker *w = &c->w[i];
		d->bad_payloads += w->bad_payloads;
		d->foreign_recvs += atomic_load_explicit(&w->foreign_recvs, memory_order_relaxed);
		if (w->first_recv_ns && w->first_recv_ns < *first)
			*first = w->first_recv_ns;
	}
	d->active_ns = *first != UINT64_MAX && *last > *first ? *last - *first : 0;
	if (t->validate) {
		uint64_t badqp = ctx_check_server_buffers(c, &sum, d->note, sizeof(d->note));
		d->counter_sum = sum;
		d->bad_payloads += badqp;
		d->checked = d->bad_payloads ? 2 : 1;
		if (d->bad_payloads && !d->note[0])
			snprintf(d->note, sizeof(d->note), "%llu received payloads differ from the "
				 "client's pattern", (unsigned long long)d->bad_payloads);
	} else if (verb_is_atomic(t->verb)) {
		(void)ctx_check_server_buffers(c, &sum, d->note, sizeof(d->note));
		d->counter_sum = sum;
	}
}

/* The server's CPU counters of the point into cp: this thread's and the
 * workers' perf counts summed, the /proc/stat ticks of READY .. DONE. */
static void point_cpu(const struct spoint *p, struct ctrl_cpu *cp)
{
	struct pc_sample sum = p->pc;
	char why[CS_REASON_MAX];

	memset(cp, 0, sizeof(*cp));
	cp->span_ns = p->t_done > p->t_ready ? p->t_done - p->t_ready : 0;
	cp->threads = 1;
	for (unsigned i = 0; i < p->c.nw; i++) {
		const struct rb_worker *w = &p->c.w[i];
		if (!w->pc_done)
			continue;
		pc_sample_add(&sum, &w->pc);
		cp->threads++;
	}
	ctrl_cpu_from_sample(cp, &sum);
	if (cs_window(&p->cs0, &p->cs1, &cp->stat, why, sizeof(why)) && !cp->reason[0])
		snprintf(cp->reason, sizeof(cp->reason), "%s", why);
}

/* A failed send of this side's DONE or CPU message (the phase named, as a
 * client killed in teardown shows it): -1 with err. n 0: it did not encode. */
static int done_send_failed(const char *what, size_t n, char *err, size_t errlen)
{
	char why[512];

	snprintf(why, sizeof(why), "%.400s", n ? err : "message did not encode");
	return rb_fail(err, errlen, "sending our %s after the client's DONE: %s", what, why);
}

/* Stage 4, report: DONE with what this side saw, and its log line (the
 * receive rate for verbs that consume receives). -1 with err. */
static int point_done(struct session *s, struct spoint *p, char *err, size_t errlen)
{
	uint8_t small[CTRL_HDR_LEN + CTRL_DONE_MAX + 256];
	const struct rb_test *t = &p->t;
	const struct ctrl_hello *h = &s->hello;
	struct ctrl_done d = { 0 };
	uint64_t first, last, want = p->m.u.done.sends;

	struct ctrl_cpu cpu;

	point_collect(&p->c, &d, &first, &last);
	dev_counters_pack(&p->ctr0, &p->ctr1, d.ctr_idx, d.ctr_delta, CTRL_MAX_CTRS, &d.nctr);
	d.ctr_span_ns = p->ctr1_ns > p->ctr0_ns ? p->ctr1_ns - p->ctr0_ns : 0;
	d.arrive_ns = p->t_arrive;
	d.send_ns = timing_now_ns();
	size_t n = ctrl_encode_done(small, sizeof(small), &d);
	if (!n || ctrl_send(s->fd, small, n, (int)t->timeout_ms, err, errlen))
		return done_send_failed("DONE", n, err, errlen);
	point_cpu(p, &cpu);
	n = ctrl_encode_cpu(small, sizeof(small), &cpu);
	if (!n || ctrl_send(s->fd, small, n, (int)t->timeout_ms, err, errlen))
		return done_send_failed("CPU", n, err, errlen);
	if (!verb_needs_recv(t->verb)) {
		rb_info("session %lu: %s %s %s %llu B done (client %s pid %u run_id '%s' proc_index "
			"%llu)%s", s->id, verb_name(t->verb), transport_name(t->transport),
			testkind_name(t->test), (unsigned long long)t->size, h->host, h->pid,
			h->run_id, (unsigned long long)h->proc_index,
			d.checked == 2 ? " (check FAILED)" : "");
		return 0;
	}
	double secs = (double)d.active_ns / 1e9;
	rb_info("session %lu: %s %s %s %llu B: received %llu messages (%llu bytes) in %.6f s "
		"= %.4f Mops; client %s pid %u run_id '%s' proc_index %llu sent %llu%s",
		s->id, verb_name(t->verb), transport_name(t->transport), testkind_name(t->test),
		(unsigned long long)t->size, (unsigned long long)d.recvs,
		(unsigned long long)(d.recvs * t->size), secs,
		secs > 0 ? units_mops(d.recvs, secs) : 0.0, h->host, h->pid, h->run_id,
		(unsigned long long)h->proc_index, (unsigned long long)want,
		d.checked == 2 ? " (payload check FAILED)" : "");
	if (first != UINT64_MAX)
		tally_run(s->srv, h->run_id, d.recvs, t->size, first, last);
	return 0;
}

/* Serve one point, stage by stage; 0 ok, -1 with err (the session then ends). */
static int serve_point(struct session *s, const struct rb_test *tin, char *err, size_t errlen)
{
	struct spoint p = { .t = *tin };
	int rc = point_check(s, &p, tin, err, errlen);

	if (!rc)
		rc = point_build(s, &p, err, errlen);
	if (!rc)
		rc = point_serve(s, &p, err, errlen);
	if (!rc)
		rc = point_done(s, &p, err, errlen);
	if (p.have_ctx) {
		if (p.t.use_cm)
			cm_session_disconnect(&p.cms, p.t.transport);
		ctx_destroy(&p.c);
		if (p.t.use_cm && p.cms.child)
			cm_session_release(&s->srv->cm, &p.cms);
	}
	point_release(s->srv, s->addr, &p.reserved);
	return rc;
}

static int session_run(struct session *s)
{
	struct server *srv = s->srv;
	struct ctrl_msg m;
	struct ctrl_hello h = { 0 };
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];
	char err[1024];
	size_t n;
	int rc;
	unsigned points = 0;

	/* the HELLO came through admission (admit_next: token checked) */
	rb_info("session %lu: client %s (%s pid %u, run_id '%s', proc_index %llu, device %s)",
		s->id, s->peer, s->hello.host, s->hello.pid, s->hello.run_id,
		(unsigned long long)s->hello.proc_index, s->hello.device);
	gethostname(h.host, sizeof(h.host) - 1);
	h.pid = (uint32_t)getpid();
	snprintf(h.device, sizeof(h.device), "%s", srv->dev.name);
	n = ctrl_encode_hello(buf, sizeof(buf), &h);
	if (ctrl_send(s->fd, buf, n, HELLO_TIMEOUT_MS, err, sizeof(err))) {
		rc = -1;
		goto fail;
	}
	for (;;) {
		rc = ctrl_recv(s->fd, &s->rb, &m, 0, IDLE_TIMEOUT_MS, "the client's next TEST or BYE",
			       err, sizeof(err));
		if (rc)
			goto fail;
		if (m.type == CTRL_BYE)
			break;
		if (m.type != CTRL_TEST) {
			snprintf(err, sizeof(err), "protocol error: got %s, expected TEST or BYE",
				 ctrl_type_name(m.type));
			rc = -1;
			goto fail;
		}
		rc = serve_point(s, &m.u.test, err, sizeof(err));
		if (rc)
			goto fail;
		points++;
	}
	rb_info("session %lu: client %s done after %u point(s)", s->id, s->peer, points);
	return 0;

fail:;
	/* what is logged of err may hold the peer's text (its ERROR): escaped
	 * and cut (admit_escape), even from an authenticated peer */
	char shown[4 * ADMIT_TEXT_CAP + 600];
	if (rc == -2) {
		admit_escape(err + 6, ADMIT_TEXT_CAP, shown, sizeof(shown));
		rb_error("session %lu: client %s ended the session: %s", s->id, s->peer, shown);
	} else {
		admit_escape(err, 500, shown, sizeof(shown));
		rb_error("session %lu: client %s: %s; session closed, %s", s->id, s->peer, shown,
			 srv->o->once ? "--once: the server exits" : "server keeps serving");
		ctrl_send_error(s->fd, err);
		s->refused = strncmp(err, RB_REFUSED_PREFIX, sizeof(RB_REFUSED_PREFIX) - 1) == 0;
	}
	return -1;
}

static void session_free(struct session *s)
{
	close(s->fd);
	ctrl_rbuf_free(&s->rb);
	admit_release(s->srv, s);
	free(s);
}

static void *session_thread(void *arg)
{
	struct session *s = arg;

	(void)session_run(s);
	session_free(s);
	return NULL;
}

/* "address:port" into out, the address alone into addr (IPv4-mapped IPv6
 * shown as IPv4, so one peer has one name). */
static void peer_name(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t outlen,
		      char *addr, size_t addrlen)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, outlen, "?");
		snprintf(addr, addrlen, "?");
		return;
	}
	const char *h = strncmp(host, "::ffff:", 7) == 0 && strchr(host + 7, '.') ? host + 7 : host;
	snprintf(out, outlen, "%.100s:%.10s", h, serv);
	snprintf(addr, addrlen, "%.63s", h);
}

/* Limits with host defaults, --allow parsed, --token-file read; 0 or -1 with err. */
static int server_guard_init(struct server *srv, char *err, size_t errlen)
{
	const struct rb_opts *o = srv->o;

	srv->lim = o->lim;
	guard_limits_defaults(&srv->lim, srv->mem_why, sizeof(srv->mem_why));
	if (guard_limits_check(&srv->lim, srv->mem_why, err, errlen))
		return -1;
	snprintf(srv->allow_text, sizeof(srv->allow_text), "%.190s%s", o->allow,
		 strlen(o->allow) > 190 ? "..." : "");
	if (o->allow[0] &&
	    guard_cidr_parse(o->allow, srv->allow, GUARD_MAX_CIDRS, &srv->nallow, err, errlen))
		return -1;
	if (o->token_file[0] &&
	    guard_token_load(o->token_file, srv->token, sizeof(srv->token), CTRL_TOKEN_CAP, err,
			     errlen))
		return -1;
	struct admit_conf ac = {
		.max_handshakes = srv->lim.max_handshakes, .per_prefix = srv->lim.handshakes_per_prefix,
		.bits4 = srv->lim.prefix_v4, .bits6 = srv->lim.prefix_v6, .hello_ms = HELLO_TIMEOUT_MS,
		.allow = srv->allow, .nallow = srv->nallow, .token = srv->token,
	};
	if (admit_init(&srv->adm, &ac, err, errlen))
		return -1;
	srv->npeers = o->max_sessions;
	srv->peers = calloc(srv->npeers, sizeof(*srv->peers));
	if (!srv->peers)
		return rb_fail(err, errlen, "out of memory for %u peer entries", srv->npeers);
	return 0;
}

/* The limits and admission for the listening INFO line, into buf. */
static const char *server_limits_text(const struct server *srv, char *buf, size_t len)
{
	return guard_limits_text(&srv->lim, srv->mem_why, HELLO_TIMEOUT_MS / 1000,
				 srv->nallow ? srv->allow_text : "", srv->token[0] != '\0', buf, len);
}

/* Start the server: limits and admission, signals, the device, the
 * control port, the -R listener. The listening socket, or -1 (logged). */
static int server_start(struct server *srv, const struct rb_opts *o)
{
	char err[1400];
	int lfd;

	srv->o = o;
	log_set_quiet(o->quiet);
	if (server_guard_init(srv, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (ctrl_bind_check(o->bind_addr, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	/* --cpus and --numa before the device: named on a host without one */
	if (ctx_placement_check(o, err, sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	const struct rb_gid_hint hint = { .gid_ip = o->gid_ip, .netdev = o->netdev };
	if (dev_open_hint(&srv->dev, o->dev_name, o->ib_port, o->gid_index, &hint, err,
			  sizeof(err))) {
		rb_fatal("%s", err);
		return -1;
	}
	dev_log_banner(&srv->dev, o->gid_index < 0);
	if (ctx_placement(o, srv->dev.name, &srv->pl, err, sizeof(err))) {
		rb_fatal("%s", err);
		dev_close(&srv->dev);
		return -1;
	}
	/* The receive loops read the clock too (first/last receive of each batch). */
	struct rb_env env;
	env_collect(&env);
	env_log_clock(&env);
	lfd = ctrl_listen(o->bind_addr, o->port, err, sizeof(err));
	if (lfd < 0) {
		rb_fatal("%s", err);
		dev_close(&srv->dev);
		return -1;
	}
	pthread_mutex_init(&srv->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->gate_cond, &ca);
	pthread_condattr_destroy(&ca);
	cm_listen_start(&srv->cm, o->bind_addr, &srv->dev, o->port);
	rb_info("listening on %s port %u (control channel, protocol %u); at most %u sessions%s; "
		"%s", o->bind_addr[0] ? o->bind_addr : "all addresses", o->port, CTRL_VERSION,
		o->max_sessions, o->once ? "; --once: exit after one session" : "",
		server_limits_text(srv, err, sizeof(err)));
	if (!o->bind_addr[0] && !srv->nallow && !srv->token[0])
		rb_warn("listening on all addresses with neither --allow nor --token-file: any host "
			"that reaches port %u can run tests here (within the limits above); on a "
			"shared network give --bind ADDR, --allow CIDR or --token-file FILE", o->port);
	return lfd;
}

/*
 * Admission for at most 500 ms (admit_next: connections held until their
 * HELLO with the token) and, for an authenticated one, a session slot and
 * its session: in this thread with --once (*once_rc: 0, 2 when the session
 * ended on a refused point, as the client's exit status says, else 1 when
 * it failed; returns true: only a session that authenticated ends --once,
 * never a port scan), else in a detached session thread.
 */
static bool accept_session(struct server *srv, int lfd, int *once_rc)
{
	struct admit_peer ap;
	char err[1400];

	int r = admit_next(&srv->adm, lfd, 500, &ap);
	if (r < 0) {
		quit = 1;
		*once_rc = 1;
		return true;
	}
	if (r == 0)
		return false;
	struct session *s = calloc(1, sizeof(*s));
	if (!s) {
		admit_send_error_nowait(ap.fd, "server out of memory");
		close(ap.fd);
		return false;
	}
	s->srv = srv;
	s->fd = ap.fd;
	s->sa = ap.sa;
	s->hello = ap.hello;
	peer_name(&ap.sa, ap.salen, s->peer, sizeof(s->peer), s->addr, sizeof(s->addr));
	if (admit_session(srv, s, err, sizeof(err))) {
		/* authenticated: its refusal may be logged (our text only) */
		rb_warn("refused %s: %s", s->peer, err);
		admit_send_error_nowait(s->fd, err);
		session_free(s);
		return false;
	}
	if (srv->o->once) {
		*once_rc = session_run(s) ? (s->refused ? 2 : 1) : 0;
		session_free(s);
		return true;
	}
	pthread_t tid;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int prc = pthread_create(&tid, &attr, session_thread, s);
	pthread_attr_destroy(&attr);
	if (prc) {
		rb_error("pthread_create for session from %s: %s", s->peer, strerror(prc));
		admit_send_error_nowait(s->fd, "server cannot start a session thread");
		session_free(s);
	}
	return false;
}

int server_run(const struct rb_opts *o)
{
	/* The server's context, passed by pointer to every step and held by
	 * each session (s->srv). Static storage, not a local: detached session
	 * threads may still use it after server_run returns ("exiting with N
	 * session(s) still running"), until the process exits. Only this
	 * function names it. */
	static struct server srv;
	int lfd, rc = 0;

	lfd = server_start(&srv, o);
	if (lfd < 0)
		return 2;
	while (!quit)
		if (accept_session(&srv, lfd, &rc))
			break;
	close(lfd);
	if (!o->once) {
		/* Sessions still running hold the device: leave it to process exit. */
		pthread_mutex_lock(&srv.lock);
		unsigned left = srv.active;
		pthread_mutex_unlock(&srv.lock);
		if (left) {
			rb_info("exiting with %u session(s) still running", left);
			cm_listen_halt(&srv.cm); /* its thread must not outlive the libraries */
			return rc;
		}
	}
	cm_listen_stop(&srv.cm);
	dev_close(&srv.dev);
	return rc;
}
