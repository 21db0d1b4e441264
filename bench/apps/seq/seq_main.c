/*
 * seq_main.c - rdma_seq: the networked sequencer of the paper's case study 1
 * (Section 4.2), on the suite's library (device, control channel, QP
 * stages, clock, histogram, rows).
 *
 *   rdma_seq -s [-p PORT] [--bind ADDR] [-d DEV] [-i IBPORT] [-x GIDIDX] [--once]
 *   rdma_seq -c HOST --variant atomics|herd-rpc|spec-s0|herd-kv|drtm-kv [knobs]  (--help)
 *
 * The server takes no test flags: the client sends each point's
 * configuration (seq.h: seq_cfg_to_config). One TCP connection per point:
 *   C->S HELLO (the run's token when the server has --token-file);
 *   C->S CONFIG (rdma_seq's own message, ctrl.h); S->C SETUP (or ERROR); C->S SETUP; S->C READY; the point
 *   runs; C->S DONE (values received); S->C DONE (numbers handed out,
 *   responses, doorbells, requests, server CPU ns).
 * The client then checks that the values all its threads received are
 * exactly the numbers handed out (seq_check_unique) and writes one row.
 * Exit status: 0 every point ok; 1 a point failed; 2 usage or setup error,
 * or a point refused by either end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"   /* and ctrl.h, guard.h */
#include "device.h"
#include "errbuf.h"
#include "guard.h"
#include "env.h"
#include "hist.h"
#include "log.h"
#include "output.h"
#include "seq_opts.h"
#include "seq_rt.h"
#include "timing.h"
#include "units.h"

/* The variant's operations (one file each: seq_atomics.c, seq_herd.c,
 * seq_spec.c); NULL for an unknown variant. Here, in the program, so the
 * variants may call seq_rt.c without a call circle. */
static const struct seq_variant_ops *seq_ops(uint64_t variant)
{
	switch (variant) {
	case SEQ_ATOMICS: return &seq_atomics_ops;
	case SEQ_HERD_RPC: return &seq_herd_ops;
	case SEQ_HERD_KV: return &seq_kv_ops;
	case SEQ_SPEC_S0: return &seq_spec_ops;
	case SEQ_DRTM_KV: return &seq_drtm_ops;
	default: return NULL;
	}
}

/* QPs a point needs on each side (device max_qp check). */
static uint64_t point_qps(const struct seq_cfg *c, bool server)
{
	switch (c->variant) {
	case SEQ_ATOMICS:
	case SEQ_DRTM_KV: return c->client_threads;
	case SEQ_HERD_RPC:
	case SEQ_HERD_KV:
		return server ? c->client_threads + c->server_threads * c->ud_qps : 2 * c->client_threads;
	default: return server ? c->server_threads * c->ud_qps : c->client_threads;
	}
}

static int check_device(const struct seq_cfg *c, const struct rb_dev *d, bool server, char *err,
			size_t errlen)
{
	uint64_t need = point_qps(c, server);
	if (need > (uint64_t)d->attr.max_qp)
		return rb_fail(err, errlen, "--ud-qps %llu with %llu server threads and %llu clients "
			       "needs %llu QPs on the %s, above %s's max_qp %d; use fewer --ud-qps",
			       (unsigned long long)c->ud_qps, (unsigned long long)c->server_threads,
			       (unsigned long long)c->client_threads, (unsigned long long)need,
			       server ? "server" : "client", d->name, d->attr.max_qp);
	if ((c->variant == SEQ_ATOMICS || c->variant == SEQ_DRTM_KV) && !d->caps.atomics)
		return rb_fail(err, errlen, "--variant %s: %s has no atomic operations "
			       "(atomic_cap NONE)", seq_variant_name(c->variant), d->name);
	return 0;
}

static void local_setup(const struct seq_run *r, struct ctrl_setup *s)
{
	const struct rb_dev *d = r->dev;
	memset(s, 0, sizeof(*s));
	s->port = d->port;
	s->link_layer = d->link_layer;
	s->gid_type = d->gid_type;
	s->gid_index = (uint32_t)d->gid_index;
	s->lid = d->pattr.lid;
	memcpy(s->gid, d->gid.raw, 16);
	s->active_mtu = d->active_mtu;
	s->max_qp_rd_atom = (uint32_t)d->attr.max_qp_rd_atom;
	s->max_qp_init_rd_atom = (uint32_t)d->attr.max_qp_init_rd_atom;
	s->buf_addr = (uintptr_t)r->buf;
	s->rkey = r->mr->rkey;
	s->qkey = RB_QKEY;
	s->buf_len = r->buf_len;
	(void)guard_random(&s->nonce, sizeof(s->nonce), NULL, 0);
	s->nqp = r->neps;
}

static uint32_t min3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Keep the peer's SETUP (its QP list copied) and negotiate path MTU and
 * READ/atomic depths (the rules of ctx_negotiate: min of both ends). */
static int take_remote(struct seq_run *r, const struct ctrl_setup *s, char *err, size_t errlen)
{
	r->remote = *s;
	r->remote.qps = NULL;
	r->remote_eps = calloc(s->nqp ? s->nqp : 1, sizeof(*r->remote_eps));
	if (!r->remote_eps)
		return rb_fail(err, errlen, "out of memory for %u peer QPs", s->nqp);
	for (uint32_t i = 0; i < s->nqp; i++)
		ctrl_setup_qp(s, i, &r->remote_eps[i]);
	r->path_mtu = r->dev->active_mtu < s->active_mtu ? r->dev->active_mtu : s->active_mtu;
	if (r->role == RB_ROLE_CLIENT) {
		r->rd_init = min3((uint32_t)r->dev->attr.max_qp_init_rd_atom, s->max_qp_rd_atom, 16);
		r->rd_resp = 1;
	} else {
		r->rd_resp = min3((uint32_t)r->dev->attr.max_qp_rd_atom, s->max_qp_init_rd_atom, 16);
		r->rd_init = 1;
	}
	if (r->rd_init == 0)
		r->rd_init = 1;
	if (r->rd_resp == 0)
		r->rd_resp = 1;
	return 0;
}

static int send_setup(int fd, const struct seq_run *r, int tmo, char *err, size_t errlen)
{
	struct ctrl_setup s;
	local_setup(r, &s);
	size_t cap = ctrl_setup_size(r->neps);
	uint8_t *buf = malloc(cap);
	if (!buf)
		return rb_fail(err, errlen, "out of memory for SETUP");
	size_t n = ctrl_encode_setup(buf, cap, &s, r->eps);
	int rc = n ? ctrl_send(fd, buf, n, tmo, err, errlen)
		   : rb_fail(err, errlen, "SETUP with %u QPs cannot be encoded", r->neps);
	free(buf);
	return rc;
}

static int threads_start(struct seq_run *r, void *(*fn)(void *), char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nth; i++) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		/* thread i on the placement's CPU i (mod their count), a
		 * server's counted from the list's end so that a client on
		 * the same host spins on other CPUs (topo.h topo_worker_cpu),
		 * as rdma_bench's workers (post.c) */
		const struct rb_place *pl = r->pl ? &r->pl->place : NULL;
		int cpu = topo_worker_cpu(pl, 0, r->role == RB_ROLE_SERVER, i);
		if (cpu >= 0 && cpu < CPU_SETSIZE) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		int rc = pthread_create(&r->th[i].tid, &attr, fn, &r->th[i]);
		pthread_attr_destroy(&attr);
		if (rc)
			return rb_fail(err, errlen, "pthread_create(thread %u) failed: %s", i,
				       strerror(rc));
		r->th[i].started = true;
	}
	return 0;
}

/* Join every started thread; the first thread error into err (-1), else 0. */
static int threads_join(struct seq_run *r, char *err, size_t errlen)
{
	int rc = 0;
	for (unsigned i = 0; i < r->nth; i++) {
		if (!r->th[i].started)
			continue;
		pthread_join(r->th[i].tid, NULL);
		r->th[i].started = false;
		if (r->th[i].rc && !rc)
			rc = rb_fail(err, errlen, "thread %u: %s", i, r->th[i].err);
	}
	return rc;
}

/* The device (-d, -i, -x) and, once per process, the placement on it
 * (ctx_placement: --cpus, --numa, --hugepages) every point's threads and
 * buffers take. 0, or -1 with err (the device closed). */
static int open_placed(const struct seq_opts *o, struct rb_dev *dev, struct rb_placement *pl,
		       char *err, size_t errlen)
{
	if (dev_open(dev, o->rb.dev_name, o->rb.ib_port, o->rb.gid_index, err, errlen))
		return -1;
	if (ctx_placement(&o->rb, dev->name, pl, err, errlen)) {
		dev_close(dev);
		return -1;
	}
	return 0;
}

/* ---- server ------------------------------------------------------------- */

/* One point on fd, whose HELLO (and token) admission took (admit_next);
 * mem_cap: --max-mem, what the point's MR, stores and stacks may take
 * (seq_run_charge; one point at a time, so all of it); pl: the process's
 * placement (the threads' CPUs, --hugepages). */
static int serve_point(int fd, struct rb_dev *dev, const struct rb_placement *pl,
		       uint64_t mem_cap, char *err, size_t errlen)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_msg m;
	struct seq_run r = { .role = RB_ROLE_SERVER, .dev = dev, .pl = pl, .mem_cap = mem_cap };
	const struct seq_variant_ops *ops;
	int rc = -1, tmo = 10000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char why[512];

	if (ctrl_recv(fd, &rb, &m, 0, 10000, "the client's CONFIG", err, errlen))
		goto out;
	if (m.type != CTRL_CONFIG)
		snprintf(why, sizeof(why), "the client sent %s where rdma_seq's CONFIG belongs%s",
			 ctrl_type_name(m.type), m.type == CTRL_TEST ? " (an rdma_bench point; "
			 "this server is rdma_seq: run rdma_seq -c, or rdma_bench -s)" : "");
	if (m.type != CTRL_CONFIG || seq_cfg_from_config(&m.u.config, &r.cfg, why, sizeof(why)) ||
	    seq_cfg_validate(&r.cfg, cpus, why, sizeof(why)) ||
	    check_device(&r.cfg, dev, true, why, sizeof(why))) {
		char reason[600];
		snprintf(reason, sizeof(reason), "%s%s", RB_REFUSED_PREFIX, why);
		ctrl_send_error(fd, reason);
		rb_fail(err, errlen, "point refused: %s", why);
		goto out;
	}
	tmo = (int)(r.cfg.timeout_ms < 600000 ? r.cfg.timeout_ms : 600000);
	ops = seq_ops(r.cfg.variant);
	rb_info("point: %s, %llu server threads, %llu clients x window %llu, batch %s, "
		"%llu UD QPs per thread, start %llu", ops->name,
		(unsigned long long)r.cfg.server_threads, (unsigned long long)r.cfg.client_threads,
		(unsigned long long)r.cfg.window, r.cfg.batch ? "on" : "off",
		(unsigned long long)r.cfg.ud_qps, (unsigned long long)r.cfg.start);
	snprintf(why, sizeof(why), "the server threads' stacks (--server-threads %llu)",
		 (unsigned long long)r.cfg.server_threads);
	if (seq_run_charge(&r, r.cfg.server_threads * (uint64_t)GUARD_STACK_BYTES, why, err,
			   errlen) ||
	    ops->create(&r, err, errlen) || send_setup(fd, &r, tmo, err, errlen))
		goto fail;
	rb_info("point: %.1f MiB charged to --max-mem %.1f MiB", (double)r.mem_used / 1048576.0,
		(double)mem_cap / 1048576.0);
	if (ctrl_recv(fd, &rb, &m, CTRL_SETUP, tmo, "the client's SETUP", err, errlen) ||
	    take_remote(&r, &m.u.setup, err, errlen) || ops->connect(&r, err, errlen))
		goto fail;
	if (ops->server_main && threads_start(&r, ops->server_main, err, errlen))
		goto fail;
	if (ctrl_send_simple(fd, CTRL_READY, tmo, err, errlen))
		goto fail;
	/* the point runs; the client says DONE after its drain */
	int dr = ctrl_recv(fd, &rb, &m, CTRL_DONE, tmo, "the client's DONE (end of the point)",
			   err, errlen);
	atomic_store(&r.stop, 1);
	char terr[300];
	int jr = threads_join(&r, terr, sizeof(terr));
	if (dr)
		goto out;
	if (jr) {
		snprintf(err, errlen, "%s", terr);
		goto fail;
	}
	struct ctrl_done d = { 0 };
	uint64_t cnt;
	memcpy(&cnt, r.buf, sizeof(cnt));
	d.counter_sum = cnt - r.cfg.start;
	for (unsigned i = 0; i < r.nth; i++) {
		d.ops += r.th[i].batch.responses;
		d.sends += r.th[i].batch.doorbells;
		d.recvs += r.th[i].requests;
		d.bad_payloads += r.th[i].bad;
		d.active_ns += r.th[i].cpu_ns;
	}
	if (ops->server_done)
		ops->server_done(&r, &d);
	uint8_t out[CTRL_HDR_LEN + 64 + CTRL_REASON_CAP];
	size_t n = ctrl_encode_done(out, sizeof(out), &d);
	if (!n || ctrl_send(fd, out, n, tmo, err, errlen))
		goto out;
	rb_info("point done: %llu numbers handed out, %llu requests, %llu responses in "
		"%llu doorbells", (unsigned long long)d.counter_sum, (unsigned long long)d.recvs,
		(unsigned long long)d.ops, (unsigned long long)d.sends);
	rc = 0;
	goto out;
fail:
	ctrl_send_error(fd, err);
	atomic_store(&r.stop, 1);
	atomic_store(&r.go, -1);
	threads_join(&r, why, sizeof(why));
out:
	seq_run_destroy(&r);
	ctrl_rbuf_free(&rb);
	return rc;
}

/* Set by SIGINT/SIGTERM: the server stops between points and exits 0, as
 * rdma_bench -s does (a signal is how a server is ended; README, "Exit
 * status"). A file-scope volatile sig_atomic_t (C11 7.14.1.1). */
static volatile sig_atomic_t server_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	server_stop = 1;
}

/* SIGINT and SIGTERM stop the server; without SA_RESTART, so the
 * admission loop's poll (at most 500 ms per wait) returns at once. A
 * signal ignored at start (nohup) stays ignored. */
static void server_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = { .sa_handler = on_stop_signal };
		sigemptyset(&sa.sa_mask);
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static int server_main(const struct seq_opts *o)
{
	static struct rb_placement pl;
	struct rb_dev dev;
	char err[1024];
	int lfd;

	signal(SIGPIPE, SIG_IGN);
	server_signals();
	if (ctrl_bind_check(o->rb.bind_addr, err, sizeof(err))) {
		rb_fatal("%s", err);
		return 2;
	}
	if (open_placed(o, &dev, &pl, err, sizeof(err))) {
		rb_fatal("%s", err);
		return 2;
	}
	lfd = ctrl_listen(o->rb.bind_addr, o->rb.port, err, sizeof(err));
	if (lfd < 0) {
		rb_fatal("%s", err);
		dev_close(&dev);
		return 2;
	}
	/* admission as rdma_bench -s's (admit.h): connections held by this
	 * loop until their HELLO with the token, capped in total and per
	 * source prefix, at the same defaults */
	struct rb_limits lim = {
		.max_per_peer = RB_DEFAULT_MAX_PER_PEER, .max_handshakes = RB_DEFAULT_MAX_HANDSHAKES,
		.handshakes_per_prefix = RB_DEFAULT_HANDSHAKES_PER_PREFIX,
		.prefix_v4 = RB_DEFAULT_PREFIX_V4, .prefix_v6 = RB_DEFAULT_PREFIX_V6,
		.max_qps = RB_DEFAULT_MAX_QPS, .max_duration_ms = RB_DEFAULT_MAX_DURATION,
		.max_warmup_ms = RB_DEFAULT_MAX_WARMUP, .client_timeout_s = 10,
		.max_mem = o->rb.lim.max_mem,
	};
	struct guard_cidr allow[GUARD_MAX_CIDRS];
	int nallow = 0;
	if (o->rb.allow[0] && guard_cidr_parse(o->rb.allow, allow, GUARD_MAX_CIDRS, &nallow, err,
					       sizeof(err))) {
		rb_fatal("--allow: %s", err);
		close(lfd);
		dev_close(&dev);
		return 2;
	}
	char why[160], banner[1024];
	struct admit adm;
	struct admit_conf ac = {
		.max_handshakes = lim.max_handshakes, .per_prefix = lim.handshakes_per_prefix,
		.bits4 = lim.prefix_v4, .bits6 = lim.prefix_v6, .hello_ms = 10000,
		.token = o->token, .allow = allow, .nallow = nallow,
	};
	guard_limits_defaults(&lim, why, sizeof(why));
	if (admit_init(&adm, &ac, err, sizeof(err))) {
		rb_fatal("%s", err);
		close(lfd);
		dev_close(&dev);
		return 2;
	}
	rb_info("rdma_seq server listening on TCP port %u (%s), device %s port %u; one point "
		"at a time; %s", o->rb.port, o->rb.bind_addr[0] ? o->rb.bind_addr : "all addresses", dev.name,
		dev.port, guard_limits_text(&lim, why, 10, o->rb.allow, o->token[0] != '\0', banner,
					    sizeof(banner)));
	if (!o->rb.bind_addr[0] && !o->token[0] && !nallow)
		rb_warn("rdma_seq -s listens on all addresses without --token-file: any "
			"host that reaches the port can make it allocate QPs and spin threads; give "
			"--bind ADDR or --token-file FILE on a shared network");
	int status = 0;
	while (!server_stop) {
		struct admit_peer ap;
		int r = admit_next(&adm, lfd, 500, &ap);
		if (r < 0) {
			status = 2;
			break;
		}
		if (r == 0)
			continue;   /* the loop's test: stopped by a signal? */
		int fd = ap.fd;
		if (serve_point(fd, &dev, &pl, lim.max_mem, err, sizeof(err))) {
			rb_error("point failed, server goes on: %s", err);
			status = 1;
		} else {
			status = 0;
		}
		close(fd);
		if (o->rb.once)
			break;
	}
	if (server_stop && !o->rb.once) {
		rb_info("rdma_seq server stopped by a signal");
		status = 0;
	}
	admit_free(&adm);
	close(lfd);
	dev_close(&dev);
	return status;
}

/* ---- client ------------------------------------------------------------- */

/* What one point gave the client. */
struct seq_result {
	const char *status;        /* ok, failed, skipped */
	char reason[512];
	bool measured, have_server;
	double window_s;
	uint64_t responses, received, outstanding;
	uint64_t gets, puts, get_hits, checked;   /* herd-kv: the clients' counts (seq_rt.h) */
	struct hist hist;
	struct ctrl_done server;
	int verdict;               /* seq_check_unique; 2 = not checked */
	bool have_drtm;            /* drtm-kv: its counts (drtm_client_done) */
	struct drtm_counts drtm;
	struct drtm_tally tally;
	size_t page_size;          /* the client buffer's pages (bytes; 0: not mapped) */
	const char *page_source;   /* topo_buf_map's source: base, hugetlb, thp, base-fallback */
};

static void row_lat(struct row *row, const char *name, const struct hist *h, double p)
{
	if (hist_count(h) == 0) {
		row_set_na(row, name);
		return;
	}
	double ns = p < 0 ? hist_min(h) : p > 100 ? hist_max(h) : hist_percentile(h, p);
	row_set_double(row, name, ns / 1e3, 3);
}

/* Variants whose server threads answer requests (batch, UD QPs). */
static bool rpc_variant(uint64_t v)
{
	return v != SEQ_ATOMICS && v != SEQ_DRTM_KV;
}

/* The row's configuration columns (docs/csv.md, "rdma_seq rows"). */
static void row_config(struct row *row, const struct seq_opts *o, const struct rb_env *e,
		       unsigned rep)
{
	const struct seq_cfg *c = &o->cfg;

	row_set_u64(row, "schema_version", SEQ_SCHEMA_VERSION);
	row_set_text(row, "run_id", o->rb.run_id);
	row_set_u64(row, "proc_index", o->rb.proc_index);
	row_set_str(row, "role", "client");
	row_set_text(row, "host", e->host);
	row_set_u64(row, "rep", rep);
	row_set_str(row, "app", "seq");
	row_set_str(row, "variant", seq_variant_name(c->variant));
	row_set_u64(row, "server_threads", c->server_threads);
	row_set_u64(row, "client_threads", c->client_threads);
	row_set_u64(row, "clients", c->client_threads);   /* processes (1) x threads */
	row_set_u64(row, "window", c->window);
	if (rpc_variant(c->variant)) {
		row_set_str(row, "batch", c->batch ? "on" : "off");
		row_set_u64(row, "ud_qps", c->ud_qps);
	} else {
		row_set_na(row, "batch");
		row_set_na(row, "ud_qps");
	}
	row_set_str(row, "idle", c->idle_yield ? "yield" : "spin");
	if (c->variant == SEQ_HERD_KV) {
		char kvbuf[128];
		row_set_text(row, "kv", kv_describe(&c->kv, kvbuf, sizeof(kvbuf)));
	}
	else
		row_set_na(row, "kv");
	if (c->variant == SEQ_DRTM_KV) {
		char dbuf[128];
		row_set_text(row, "drtm", drtm_describe(&c->drtm, dbuf, sizeof(dbuf)));
		row_set_double(row, "put_fraction", c->drtm.put_fraction, 6);
	} else {
		row_set_na(row, "drtm");
		row_set_na(row, "put_fraction");
	}
	row_set_u64(row, "start", c->start);
}

/* Rates and the server's counts; NA what was not measured. */
static void row_counts(struct row *row, const struct seq_cfg *c, const struct seq_result *res)
{
	bool rpc = rpc_variant(c->variant);
	const struct ctrl_done *s = &res->server;
	double mrps = res->measured ? units_mops(res->responses, res->window_s) : NAN;

	if (res->measured) {
		row_set_double(row, "duration_s", res->window_s, 6);
		row_set_u64(row, "responses", res->responses);
		row_set_double(row, "mrps", mrps, 6);
	} else {
		row_set_na(row, "duration_s");
		row_set_na(row, "responses");
		row_set_na(row, "mrps");
	}
	if (res->measured && rpc)
		row_set_double(row, "mrps_per_server_thread", mrps / (double)c->server_threads, 6);
	else
		row_set_na(row, "mrps_per_server_thread");
	if (res->have_server && rpc) {
		struct seq_batch b = { .responses = s->ops, .doorbells = s->sends };
		row_set_double(row, "resp_per_doorbell", seq_batch_avg(&b), 3);
		row_set_u64(row, "doorbells", s->sends);
		row_set_u64(row, "server_requests", s->recvs);
		row_set_double(row, "server_cpu_ns_per_req",
			       s->recvs ? (double)s->active_ns / (double)s->recvs : NAN, 1);
	} else {
		row_set_na(row, "resp_per_doorbell");
		row_set_na(row, "doorbells");
		row_set_na(row, "server_requests");
		row_set_na(row, "server_cpu_ns_per_req");
	}
	if (res->have_server && c->variant != SEQ_DRTM_KV)
		row_set_u64(row, "handed_out", s->counter_sum);
	else
		row_set_na(row, "handed_out");
	if (res->measured) {
		row_set_u64(row, "received", res->received);
		row_set_u64(row, "outstanding", res->outstanding);
	} else {
		row_set_na(row, "received");
		row_set_na(row, "outstanding");
	}
}

/* herd-kv's operations over the whole point, as the clients counted their
 * responses; NA for the sequencer variants and a point not measured. */
static void row_kv_counts(struct row *row, const struct seq_cfg *c, const struct seq_result *res)
{
	static const char *const cols[] = { "gets", "puts", "get_hits", "get_checked" };
	const uint64_t v[] = { res->gets, res->puts, res->get_hits, res->checked };

	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (res->measured && c->variant == SEQ_HERD_KV)
			row_set_u64(row, cols[i], v[i]);
		else
			row_set_na(row, cols[i]);
	}
}

/* Latency per request (round trip at the client), the check, the host. */
static void row_latency_env(struct row *row, const struct rb_env *e, const struct rb_dev *d,
			    const struct seq_result *res)
{
	char buf[64];

	row_set_str(row, "lat_kind", "rtt");
	row_set_u64(row, "lat_samples", hist_count(&res->hist));
	row_lat(row, "lat_min_us", &res->hist, -1);
	row_lat(row, "lat_p50_us", &res->hist, 50);
	row_lat(row, "lat_p90_us", &res->hist, 90);
	row_lat(row, "lat_p99_us", &res->hist, 99);
	row_lat(row, "lat_p999_us", &res->hist, 99.9);
	row_lat(row, "lat_max_us", &res->hist, 101);
	if (hist_count(&res->hist)) {
		row_set_double(row, "lat_mean_us", hist_mean(&res->hist) / 1e3, 3);
		row_set_double(row, "lat_stdev_us", hist_stdev(&res->hist) / 1e3, 3);
	} else {
		row_set_na(row, "lat_mean_us");
		row_set_na(row, "lat_stdev_us");
	}
	if (res->verdict == 2)
		row_set_na(row, "unique");
	else
		row_set_str(row, "unique", seq_check_name(res->verdict));
	row_set_str(row, "status", res->status);
	row_set_text(row, "reason", res->reason);
	row_set_text(row, "device", d->name);
	row_set_text(row, "kernel", e->kernel);
	row_set_text(row, "cpu_model", e->cpu_model);
	row_set_str(row, "accel", e->accel);
	row_set_text(row, "git_rev", e->git_rev);
	row_set_text(row, "clocksource", e->clocksource);
	row_set_double(row, "clock_read_ns", e->clock_read_ns, 1);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	row_set_str(row, "timestamp", buf);
}

/* drtm-kv's counts (drtm.h); NA for the other variants and before the check. */
static void row_drtm(struct row *row, const struct seq_result *res)
{
	static const char *const cols[] = { "gets", "puts", "cas_failures", "cas_locked",
					    "items_locked", "versions" };
	const uint64_t v[] = { res->drtm.gets, res->drtm.puts, res->drtm.cas_failures,
			       res->drtm.cas_locked, res->tally.locked, res->tally.versions };
	/* gets and puts are herd-kv's columns too (row_kv_counts): only a
	 * drtm-kv point writes them here */
	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (res->have_drtm)
			row_set_u64(row, cols[i], v[i]);
		else if (i >= 2)
			row_set_na(row, cols[i]);
	}
}

/* The client's placement, last (rdma_bench's columns of the same names:
 * docs/csv.md): cpus (--cpus as given: "0 2 3", spread, none, or "": the
 * device's CPUs), numa_node (NA: unknown), cpus_used (the list, thread i
 * on the i-th modulo their count), cpu_source, page_size (bytes; NA: no
 * buffer mapped), page_source. */
static void row_placement(struct row *row, const struct rb_opts *o,
			  const struct rb_placement *pl, const struct seq_result *res)
{
	char buf[512];
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->ncpus && off < 128 - 8; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%d", i ? " " : "", o->cpus[i]);
	row_set_text(row, "cpus", o->ncpus > 0 ? buf : o->cpus_spread ? "spread" :
				  o->cpus_none ? "none" : "");
	if (pl && pl->place.node >= 0)
		row_set_u64(row, "numa_node", (uint64_t)pl->place.node);
	else
		row_set_na(row, "numa_node");
	buf[0] = '\0';
	if (pl)
		topo_cpus_text(&pl->place, buf, sizeof(buf));
	row_set_text(row, "cpus_used", buf);
	row_set_text(row, "cpu_source", pl ? pl->place.source : "");
	if (res->page_size)
		row_set_u64(row, "page_size", res->page_size);
	else
		row_set_na(row, "page_size");
	row_set_text(row, "page_source", res->page_source ? res->page_source : "");
}

/* One row of a point (schema: docs/csv.md, "rdma_seq rows"). */
static void build_row(struct row *row, const struct seq_opts *o, const struct rb_env *e,
		      const struct rb_dev *d, const struct rb_placement *pl, unsigned rep,
		      const struct seq_result *res)
{
	row_init(row);
	row_config(row, o, e, rep);
	row_counts(row, &o->cfg, res);
	row_kv_counts(row, &o->cfg, res);
	row_drtm(row, res);
	row_latency_env(row, e, d, res);
	row_placement(row, &o->rb, pl, res);
}

/* HELLO: who the client is and the run's token (--token-file; "" = none).
 * The server checks the token before it reads the point's CONFIG. */
static int send_hello(int fd, const struct seq_opts *o, const struct rb_dev *dev, int tmo,
		      char *err, size_t errlen)
{
	struct ctrl_hello h = { .proc_index = o->rb.proc_index, .pid = (uint32_t)getpid() };
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];

	if (gethostname(h.host, sizeof(h.host) - 1))
		snprintf(h.host, sizeof(h.host), "?");
	snprintf(h.run_id, sizeof(h.run_id), "%s", o->rb.run_id);
	snprintf(h.device, sizeof(h.device), "%s", dev->name);
	snprintf(h.token, sizeof(h.token), "%s", o->token);
	size_t n = ctrl_encode_hello(buf, sizeof(buf), &h);
	if (!n)
		return rb_fail(err, errlen, "HELLO cannot be encoded");
	return ctrl_send(fd, buf, n, tmo, err, errlen);
}

/* Connect, send HELLO and the point's CONFIG, wait for the server's SETUP
 * (into m). 0 ok (*fd open), 2 refused by either end or no server
 * (res->reason set), -1 error in err. */
static int point_open(const struct seq_opts *o, const struct rb_dev *dev, int tmo, int *fd,
		      struct ctrl_rbuf *rb, struct ctrl_msg *m, struct seq_result *res, char *err,
		      size_t errlen)
{
	struct ctrl_config cfg;
	uint8_t buf[CTRL_HDR_LEN + CTRL_CONFIG_FIXED + SEQ_CFG_NFIELDS * 8];

	if (check_device(&o->cfg, dev, false, err, errlen)) {
		snprintf(res->reason, sizeof(res->reason), "refused by the client: %s", err);
		res->status = "skipped";
		return 2;
	}
	*fd = ctrl_connect(o->rb.host, o->rb.port, o->rb.connect_timeout_s, err, errlen);
	if (*fd < 0) {
		/* the library's message names rdma_bench's server; ours is rdma_seq -s */
		snprintf(res->reason, sizeof(res->reason), "%s (the sequencer's server is "
			 "'rdma_seq -s', port %u by default)", err, SEQ_DEFAULT_PORT);
		return 2;
	}
	seq_cfg_to_config(&o->cfg, &cfg);
	size_t n = ctrl_encode_config(buf, sizeof(buf), &cfg);
	if (send_hello(*fd, o, dev, tmo, err, errlen) || !n ||
	    ctrl_send(*fd, buf, n, tmo, err, errlen))
		return -1;
	m->type = 0;
	int got = ctrl_recv(*fd, rb, m, CTRL_SETUP, tmo, "the server's SETUP", err, errlen);
	if (got == -1) {
		/* rdma_bench's server answers a HELLO with its own HELLO; anything
		 * else that listens keeps silent or hangs up: no server of ours */
		if (m->type == CTRL_HELLO)
			snprintf(res->reason, sizeof(res->reason), "%s: the server at %s:%u is "
				 "rdma_bench's ('rdma_bench -s' answers with HELLO), not the "
				 "sequencer's: 'rdma_seq -s' listens on port %u by default; give -p",
				 err, o->rb.host, o->rb.port, SEQ_DEFAULT_PORT);
		else
			snprintf(res->reason, sizeof(res->reason), "%s: is 'rdma_seq -s' what "
				 "listens at %s:%u (port %u by default)? another service never "
				 "answers (the wait is --timeout)", err, o->rb.host, o->rb.port,
				 SEQ_DEFAULT_PORT);
		return 2;
	}
	if (got == -2 && strstr(err, RB_REFUSED_PREFIX)) {
		const char *p = strstr(err, RB_REFUSED_PREFIX) + strlen(RB_REFUSED_PREFIX);
		snprintf(res->reason, sizeof(res->reason), "refused by the server: %s", p);
		res->status = "skipped";
		return 2;
	}
	return got ? -1 : 0;
}

/* After the threads ended: the clients' numbers into res, DONE both ways,
 * then the uniqueness check over every client's values. 0 ok, -1 err. */
static int point_collect(struct seq_run *r, int fd, int tmo, struct ctrl_rbuf *rb,
			 struct seq_result *res, char *err, size_t errlen)
{
	struct ctrl_msg m;
	struct seq_vals *lists = calloc(r->nth ? r->nth : 1, sizeof(*lists));
	uint8_t out[CTRL_HDR_LEN + 64 + CTRL_REASON_CAP];
	char why[256];

	if (!lists)
		return rb_fail(err, errlen, "out of memory for the uniqueness check");
	res->measured = true;
	res->window_s = timing_elapsed_s(r->win_start, r->win_end);
	hist_reset(&res->hist);
	for (unsigned i = 0; i < r->nth; i++) {
		res->responses += r->th[i].resp_window;
		res->received += r->th[i].vals.count;
		res->outstanding += r->th[i].outstanding;
		res->gets += r->th[i].gets;
		res->puts += r->th[i].puts;
		res->get_hits += r->th[i].get_hits;
		res->checked += r->th[i].checked;
		hist_merge(&res->hist, r->th[i].hist);
		lists[i] = r->th[i].vals;
	}
	struct ctrl_done d = { .ops = res->received };
	size_t n = ctrl_encode_done(out, sizeof(out), &d);
	if (!n || ctrl_send(fd, out, n, tmo, err, errlen) ||
	    ctrl_recv(fd, rb, &m, CTRL_DONE, tmo, "the server's DONE", err, errlen)) {
		free(lists);
		return -1;
	}
	res->server = m.u.done;
	res->have_server = true;
	if (r->cfg.variant == SEQ_DRTM_KV) {
		free(lists);
		res->have_drtm = true;
		return drtm_client_done(r, &res->server, &res->drtm, &res->tally, err, errlen);
	}
	res->verdict = seq_check_unique(lists, r->nth, r->cfg.start, res->server.counter_sum, why,
					sizeof(why));
	free(lists);
	if (res->verdict == SEQ_CHECK_FAILED)
		return rb_fail(err, errlen, "uniqueness check failed: %s", why);
	return 0;
}

/* Run one point on the process's placement pl; fills res. Returns 0 ok,
 * 1 failed, 2 refused/setup. */
static int run_point(const struct seq_opts *o, struct rb_dev *dev, const struct rb_placement *pl,
		     struct seq_result *res)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_msg m;
	struct seq_run r = { .role = RB_ROLE_CLIENT, .dev = dev, .pl = pl, .cfg = o->cfg,
			     .values_cap = o->values_cap };
	const struct seq_variant_ops *ops = seq_ops(o->cfg.variant);
	char err[1024] = "";
	int rc = 1, fd = -1, tmo = (int)(o->cfg.timeout_ms < 600000 ? o->cfg.timeout_ms : 600000);

	res->status = "failed";
	res->verdict = 2;
	int opened = point_open(o, dev, tmo, &fd, &rb, &m, res, err, sizeof(err));
	if (opened == 2) {
		rc = 2;
		goto done;
	}
	if (opened || ops->create(&r, err, sizeof(err)) ||
	    take_remote(&r, &m.u.setup, err, sizeof(err)) || ops->connect(&r, err, sizeof(err)) ||
	    send_setup(fd, &r, tmo, err, sizeof(err)) ||
	    ctrl_recv(fd, &rb, &m, CTRL_READY, tmo, "the server's READY", err, sizeof(err)) ||
	    threads_start(&r, ops->client_main, err, sizeof(err)))
		goto out;
	r.win_start = timing_now_ns() + o->cfg.warmup_ms * 1000000u;
	r.win_end = r.win_start + o->cfg.duration_ms * 1000000u;
	atomic_store(&r.go, 1);
	if (threads_join(&r, err, sizeof(err)) ||
	    point_collect(&r, fd, tmo, &rb, res, err, sizeof(err)))
		goto out;
	res->status = "ok";
	rc = 0;
	goto done;
out:
	snprintf(res->reason, sizeof(res->reason), "%.*s", (int)sizeof(res->reason) - 1, err);
	if (fd >= 0)
		ctrl_send_error(fd, err);
	atomic_store(&r.go, -1);
	threads_join(&r, err, sizeof(err));
done:
	if (fd >= 0)
		close(fd);
	if (r.mem.p) {
		res->page_size = r.mem.page_size;
		res->page_source = r.mem.source;
	}
	seq_run_destroy(&r);
	ctrl_rbuf_free(&rb);
	return rc;
}

static const char *const table_cols[] = {
	"variant", "server_threads", "clients", "window", "batch", "ud_qps", "mrps",
	"mrps_per_server_thread", "resp_per_doorbell", "lat_p50_us", "lat_p99_us", "unique",
	"status", "reason",
};

static int client_main(const struct seq_opts *o)
{
	static struct row rows[SEQ_MAX_ROWS];
	static struct seq_result res;
	static struct rb_placement pl;
	struct rb_dev dev;
	struct rb_env env;
	char err[1024];
	int status = 0, nrows = 0;

	signal(SIGPIPE, SIG_IGN);
	/* before the device and any point: a path that cannot be written is
	 * refused now, not after the points ran (output.h) */
	if ((o->rb.csv[0] && output_path_writable("--csv", o->rb.csv, err, sizeof(err))) ||
	    (o->rb.json[0] && output_path_writable("--json", o->rb.json, err, sizeof(err))) ||
	    output_paths_distinct(o->rb.csv, o->rb.json, err, sizeof(err))) {
		rb_fatal("%s", err);
		return 2;
	}
	env_collect(&env);
	if (open_placed(o, &dev, &pl, err, sizeof(err))) {
		rb_fatal("%s", err);
		return 2;
	}
	for (unsigned rep = 0; rep < o->rb.reps && nrows < (int)SEQ_MAX_ROWS; rep++) {
		memset(&res, 0, sizeof(res));
		int rc = run_point(o, &dev, &pl, &res);
		build_row(&rows[nrows], o, &env, &dev, &pl, o->rb.rep_first + rep, &res);
		if (rc)
			rb_error("%s point rep %u %s: %s", seq_variant_name(o->cfg.variant),
				o->rb.rep_first + rep, res.status, res.reason);
		if (o->rb.csv[0] && csv_append(o->rb.csv, &rows[nrows], err, sizeof(err))) {
			rb_fatal("%s", err);
			status = 2;
		}
		nrows++;
		if (rc > status)
			status = rc;
		if (rc == 2)
			break;
	}
	if (!o->rb.quiet)
		table_print(stdout, rows, nrows, table_cols,
			    (int)(sizeof(table_cols) / sizeof(table_cols[0])));
	if (o->rb.json[0] && json_write(o->rb.json, rows, nrows, err, sizeof(err))) {
		rb_fatal("%s", err);
		status = 2;
	}
	dev_close(&dev);
	return status;
}

/* --version: the build's revision, the control protocol and rdma_seq's
 * configuration version (both ends must share them). */
static void print_version(void)
{
	char rev[48];
	report_git_rev(rev, sizeof(rev));
	printf("rdma_seq %s (control protocol %u, configuration version %u)\n",
	       rev[0] ? rev : "(revision unknown)", CTRL_VERSION, SEQ_CFG_VERSION);
}

/* --dry-run: what a run of these options would request (device and
 * server not checked). */
static void print_dry_run(const struct seq_opts *o)
{
	printf("rdma_seq: --dry-run: options accepted: %s, %llu client thread(s) x window %llu, "
	       "%u repetition(s) against %s port %u (device and server not checked)\n",
	       seq_variant_name(o->cfg.variant), (unsigned long long)o->cfg.client_threads,
	       (unsigned long long)o->cfg.window, o->rb.reps, o->rb.host, (unsigned)o->rb.port);
}

int main(int argc, char **argv)
{
	static struct seq_opts o;
	char err[1024];
	int rc;

	log_set_prog("rdma_seq");
	rc = seq_opts_parse(argc, argv, &o, err, sizeof(err));
	if (rc > 0 && o.rb.version)
		print_version();
	if (rc > 0)
		return 0;
	if (rc == 0 && o.rb.token_file[0])
		rc = guard_token_load(o.rb.token_file, o.token, sizeof(o.token), RB_TOKEN_CAP, err,
				      sizeof(err));
	/* --cpus LIST within this process's CPUs and --numa NODE a node of
	 * this host, before any resource (as rdma_bench refuses them) */
	if (rc == 0)
		rc = ctx_placement_check(&o.rb, err, sizeof(err));
	if (rc < 0) {
		rb_fatal("%s", err);
		return 2;
	}
	if (o.rb.repeated[0])
		rb_warn("%s", o.rb.repeated);
	log_set_quiet(o.rb.quiet);
	if (o.rb.dry_run && o.rb.role == RB_ROLE_CLIENT) {
		print_dry_run(&o);
		return 0;
	}
	return o.rb.role == RB_ROLE_SERVER ? server_main(&o) : client_main(&o);
}
