/*
 * seq_main.c - rdma_seq: the networked sequencer of the paper's case study 1
 * (Section 5.1), on the suite's library (device, control channel, QP
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
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ctrl.h"
#include "device.h"
#include "errbuf.h"
#include "guard.h"
#include "hist.h"
#include "output.h"
#include "report.h"
#include "seq_rt.h"
#include "session.h"
#include "timing.h"
#include "units.h"

#define SEQ_DEFAULT_PORT   (RB_DEFAULT_PORT + 1u)   /* 18516: beside rdma_bench -s */
#define SEQ_DEFAULT_VALUES (UINT64_C(1) << 22)     /* values stored per client thread */
#define SEQ_MAX_ROWS       256

struct seq_opts {
	bool server, client, once, quiet;
	char host[256];
	char bind_addr[256];       /* server: "" = all addresses */
	uint16_t port;
	char dev_name[64];
	unsigned ib_port;
	int gid_index;
	struct seq_cfg cfg;
	bool server_threads_given, variant_given, kv_given, drtm_given;
	char client_only[256];     /* client options given, as "--window --batch" (refused with -s) */
	unsigned reps, rep_first;  /* rows' rep: rep_first, rep_first + 1, ... */
	uint64_t values_cap;
	uint64_t proc_index;       /* the runner's process number (the row's proc_index) */
	char csv[1024], json[1024], run_id[64];
	char token_file[1024];     /* --token-file: "" = none */
	char token[RB_TOKEN_CAP + 1];
};

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdma_seq -s [-p PORT] [--bind ADDR] [-d DEV] [-i IBPORT] [-x GIDIDX] [--once]\n"
		"                   [--token-file F]\n"
		"       rdma_seq -c HOST --variant atomics|herd-rpc|spec-s0|herd-kv|drtm-kv [options]\n"
		"  --variant V         the sequencer to measure; --variant is required (no\n"
		"                      default): atomics (NIC fetch-and-add), herd-rpc, spec-s0,\n"
		"                      herd-kv, drtm-kv. The options below are the client's; -s takes\n"
		"                      none of them (the client sends each point's configuration)\n"
		"  --server-threads T  server polling threads (herd-rpc, spec-s0; default 1;\n"
		"                      atomics: 0, no server CPU)\n"
		"  --threads C         client threads (clients) of this process, 1..%u (default 1)\n"
		"  -w, --window W      requests outstanding per client, 1..%u (default 4)\n"
		"  --batch on|off      responses of a poll pass in one doorbell (default on;\n"
		"                      not atomics)\n"
		"  --ud-qps N          response UD QPs per server thread, 1..%u (default 1;\n"
		"                      not atomics)\n"
		"  --idle spin|yield   a poll that finds nothing: poll again, or sched_yield()\n"
		"                      first (default yield: on soft-RoCE the kernel work that\n"
		"                      moves each message needs the CPU a spinning thread holds)\n"
		"  --start S           the counter's first value (default 0; e.g. 4294967200\n"
		"                      to cross 2^32 with spec-s0's 32-bit immediates)\n"
		"  -D, --duration S    measured window, seconds 0.001..86400 (default 1)\n"
		"  --warmup S          before the window, seconds (default 0.2)\n"
		"  --timeout S         whole point and any wait, seconds (default 60)\n"
		"  --reps R            repetitions (default 1)\n"
		"  --values-cap N      values stored per client for the exact uniqueness check\n"
		"                      (default %" PRIu64 "; beyond it the check compares sums)\n"
		"  --kv LIST           herd-kv only: its knobs, comma-separated: get=F (GET fraction 0..1,\n"
		"                      0.95), keys=N (65536), value=B (1..64 bytes, 32),\n"
		"                      dist=uniform|zipf, theta=X (0.99), validate\n"
		"  --drtm LIST         drtm-kv only (GET = READ, PUT = CAS lock + FETCH_AND_ADD\n"
		"                      release): put=F (PUT fraction 0..1, 0.1), items=N (65536;\n"
		"                      16777216 on hardware), dist=uniform|zipf, theta=X (0.99),\n"
		"                      put-writes (WRITE the value between the atomics), validate\n"
		"  --put-fraction F    drtm-kv: the same as --drtm put=F (one word, for sweeps)\n"
		"  --rep-first N       the first row's rep (default 0; then N+1, ...)\n"
		"  --token-file F      both ends: a shared token (guard.h rules: mode 0600, 16..64\n"
		"                      printable bytes); the server refuses a client without it\n"
		"  --csv FILE, --json FILE, --run-id ID, --proc-index K, --procs 1 (a point has\n"
		"  one client process), -p PORT (default %u), -d DEV, -i IBPORT, -x GIDIDX,\n"
		"  -q/--quiet\n",
		SEQ_MAX_CLIENT_THREADS, SEQ_MAX_WINDOW, SEQ_MAX_UD_QPS, SEQ_DEFAULT_VALUES,
		SEQ_DEFAULT_PORT);
}

/* Seconds into ms (the clock's step here is 1 ms). min_ms 0: 0..86400 s;
 * min_ms 1: 0.001..86400 s (a value that rounds to 0 ms is refused, not
 * taken as 0). The message echoes the value as given. */
static int parse_secs(const char *s, const char *opt, uint64_t min_ms, uint64_t *ms, char *err,
		      size_t errlen)
{
	const char *range = min_ms ? "0.001..86400" : "0..86400";
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 86400 ||
	    (uint64_t)llround(v * 1000.0) < min_ms)
		return rb_fail(err, errlen, "%s %s: expected seconds %s, in steps of 0.001 (e.g. 1.5)",
			       opt, s, range);
	*ms = (uint64_t)llround(v * 1000.0);
	return 0;
}

/* The long options. The names shared with rdma_bench (-p, -d, -i, -x,
 * -w/--window, -D/--duration, --threads, --warmup, --timeout, --reps,
 * --rep-first, --csv, --json, --run-id, --proc-index, --procs,
 * --token-file, --bind, --once, --quiet) mean the same as there, so the
 * runner (experiments/lib/job.sh) starts either binary with the same
 * words; their ranges are the sequencer's (seq.h). */
enum { O_VARIANT = 1000, O_STHREADS, O_THREADS, O_BATCH, O_UDQPS, O_START, O_WARMUP,
       O_TIMEOUT, O_REPS, O_VALUES, O_CSV, O_JSON, O_RUNID, O_ONCE, O_IDLE, O_BIND, O_KV,
       O_REPFIRST, O_PROCIDX, O_PROCS, O_TOKEN, O_DRTM, O_PUTFRAC };
static const struct option seq_longopts[] = {
	{ "server", no_argument, NULL, 's' },
	{ "client", required_argument, NULL, 'c' },
	{ "port", required_argument, NULL, 'p' },
	{ "device", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "once", no_argument, NULL, O_ONCE },
	{ "bind", required_argument, NULL, O_BIND },
	{ "token-file", required_argument, NULL, O_TOKEN },
	{ "variant", required_argument, NULL, O_VARIANT },
	{ "server-threads", required_argument, NULL, O_STHREADS },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "window", required_argument, NULL, 'w' },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "idle", required_argument, NULL, O_IDLE },
	{ "ud-qps", required_argument, NULL, O_UDQPS },
	{ "start", required_argument, NULL, O_START },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "reps", required_argument, NULL, O_REPS },
	{ "rep-first", required_argument, NULL, O_REPFIRST },
	{ "values-cap", required_argument, NULL, O_VALUES },
	{ "kv", required_argument, NULL, O_KV },
	{ "drtm", required_argument, NULL, O_DRTM },
	{ "put-fraction", required_argument, NULL, O_PUTFRAC },
	{ "csv", required_argument, NULL, O_CSV },
	{ "json", required_argument, NULL, O_JSON },
	{ "run-id", required_argument, NULL, O_RUNID },
	{ "proc-index", required_argument, NULL, O_PROCIDX },
	{ "procs", required_argument, NULL, O_PROCS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "on"/"off" (or "yield"/"spin"): *out = 1 when arg is yes_word, else 0. */
static int parse_pair(const char *arg, const char *opt, const char *yes_word, const char *no_word,
		      uint64_t *out, char *err, size_t errlen)
{
	if (strcmp(arg, yes_word) && strcmp(arg, no_word))
		return rb_fail(err, errlen, "%s %s: use %s or %s", opt, arg, yes_word, no_word);
	*out = strcmp(arg, yes_word) == 0;
	return 0;
}

static int parse_u64(const char *arg, uint64_t lo, uint64_t hi, const char *opt, uint64_t *out,
		     char *err, size_t errlen)
{
	return units_parse_u64(arg, lo, hi, opt, out, err, errlen) ? -1 : 0;
}

/* Where the process runs and what it writes: 0 taken, 1 not one of these,
 * -1 error in err. */
static int parse_where(int ch, const char *arg, struct seq_opts *o, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc = 0;

	switch (ch) {
	case 's': o->server = true; break;
	case 'c': o->client = true; snprintf(o->host, sizeof(o->host), "%s", arg); break;
	case 'p': rc = parse_u64(arg, 1, 65535, "-p", &v, err, errlen); o->port = (uint16_t)v; break;
	case 'd': snprintf(o->dev_name, sizeof(o->dev_name), "%s", arg); break;
	case 'i': rc = parse_u64(arg, 1, 255, "-i", &v, err, errlen); o->ib_port = (unsigned)v; break;
	case 'x': rc = parse_u64(arg, 0, 255, "-x", &v, err, errlen); o->gid_index = (int)v; break;
	case O_ONCE: o->once = true; break;
	case O_BIND: snprintf(o->bind_addr, sizeof(o->bind_addr), "%s", arg); break;
	case O_TOKEN: snprintf(o->token_file, sizeof(o->token_file), "%s", arg); break;
	case O_CSV: snprintf(o->csv, sizeof(o->csv), "%s", arg); break;
	case O_JSON: snprintf(o->json, sizeof(o->json), "%s", arg); break;
	case O_RUNID: snprintf(o->run_id, sizeof(o->run_id), "%s", arg); break;
	case O_PROCIDX: rc = parse_u64(arg, 0, 4095, "--proc-index", &o->proc_index, err, errlen); break;
	case O_PROCS:
		rc = parse_u64(arg, 1, 4095, "--procs", &v, err, errlen);
		if (!rc && v != 1)
			rc = rb_fail(err, errlen, "--procs %s: the sequencer's server runs one point "
				     "at a time, so a point has 1 client process; give its clients "
				     "as --threads (up to %u)", arg, SEQ_MAX_CLIENT_THREADS);
		break;
	case 'q': o->quiet = true; break;
	default: return 1;
	}
	return rc;
}

/* The point's knobs (sent to the server in CONFIG) and its repetitions:
 * 0 taken, 1 not one of these, -1 error in err. */
static int parse_knob(int ch, const char *arg, struct seq_opts *o, char *err, size_t errlen)
{
	struct seq_cfg *c = &o->cfg;
	uint64_t v = 0;
	int rc = 0;

	switch (ch) {
	case O_VARIANT:
		rc = seq_variant_parse(arg, &c->variant, err, errlen) ? -1 : 0;
		o->variant_given = true;
		break;
	case O_STHREADS:
		rc = parse_u64(arg, 0, SEQ_MAX_SERVER_THREADS, "--server-threads", &c->server_threads,
			       err, errlen);
		o->server_threads_given = true;
		break;
	case O_THREADS:
		rc = parse_u64(arg, 1, SEQ_MAX_CLIENT_THREADS, "--threads", &c->client_threads, err,
			       errlen);
		break;
	case 'w': rc = parse_u64(arg, 1, SEQ_MAX_WINDOW, "--window", &c->window, err, errlen); break;
	case O_BATCH: rc = parse_pair(arg, "--batch", "on", "off", &c->batch, err, errlen); break;
	case O_IDLE: rc = parse_pair(arg, "--idle", "yield", "spin", &c->idle_yield, err, errlen); break;
	case O_UDQPS: rc = parse_u64(arg, 1, SEQ_MAX_UD_QPS, "--ud-qps", &c->ud_qps, err, errlen); break;
	case O_START: rc = parse_u64(arg, 0, UINT64_MAX / 2, "--start", &c->start, err, errlen); break;
	case 'D': rc = parse_secs(arg, "-D", 1, &c->duration_ms, err, errlen); break;
	case O_WARMUP: rc = parse_secs(arg, "--warmup", 0, &c->warmup_ms, err, errlen); break;
	case O_TIMEOUT: rc = parse_secs(arg, "--timeout", 1, &c->timeout_ms, err, errlen); break;
	case O_REPS: rc = parse_u64(arg, 1, 1000, "--reps", &v, err, errlen); o->reps = (unsigned)v; break;
	case O_REPFIRST:
		rc = parse_u64(arg, 0, 1000000, "--rep-first", &v, err, errlen);
		o->rep_first = (unsigned)v;
		break;
	case O_VALUES:
		rc = parse_u64(arg, 0, UINT64_C(1) << 28, "--values-cap", &o->values_cap, err, errlen);
		break;
	case O_KV:
		rc = kv_parse_opts(arg, &o->cfg.kv, err, errlen);
		o->kv_given = true;
		break;
	case O_DRTM:
		rc = drtm_parse_opts(arg, &o->cfg.drtm, err, errlen);
		o->drtm_given = true;
		break;
	case O_PUTFRAC:
		rc = drtm_parse_fraction("--put-fraction ", arg, &o->cfg.drtm.put_fraction, err, errlen);
		o->drtm_given = true;
		break;
	default: return 1;
	}
	return rc;
}

/* The options the server takes (-s): where it listens, which device, the
 * token, --once, -q. Every other option is the client's: the client sends
 * the point's configuration, so on the server it would have no effect. */
static bool server_option(int ch)
{
	switch (ch) {
	case 's': case 'p': case 'd': case 'i': case 'x': case 'q':
	case O_ONCE: case O_BIND: case O_TOKEN:
		return true;
	default:
		return false;
	}
}

/* A client-only option's long name, added once to o->client_only. */
static void note_client_only(int ch, struct seq_opts *o)
{
	char name[40] = "?";
	for (const struct option *lo = seq_longopts; lo->name; lo++)
		if (lo->val == ch) {
			snprintf(name, sizeof(name), "--%s", lo->name);
			break;
		}
	if (strstr(o->client_only, name))
		return;
	size_t used = strlen(o->client_only);
	snprintf(o->client_only + used, sizeof(o->client_only) - used, "%s%s", used ? " " : "",
		 name);
}

/* After the options: the role's rules (-s takes no client option, -c needs
 * --variant, each variant refuses the knobs it does not use). 0 or -1. */
static int check_role(struct seq_opts *o, char *err, size_t errlen)
{
	if (o->server == o->client)
		return rb_fail(err, errlen, "give -s (server) or -c HOST (client)");
	if (o->server && o->client_only[0])
		return rb_fail(err, errlen, "-s takes no client options, and %s %s given: the client "
			       "sends each point's configuration; give %s to rdma_seq -c",
			       o->client_only, strchr(o->client_only, ' ') ? "were" : "was",
			       strchr(o->client_only, ' ') ? "them" : "it");
	if (o->server)
		return 0;
	if (!o->variant_given)
		return rb_fail(err, errlen, "-c needs --variant atomics, herd-rpc, spec-s0, herd-kv or drtm-kv "
			       "(the sequencer to measure; there is no default)");
	if (o->kv_given && o->cfg.variant != SEQ_HERD_KV)
		return rb_fail(err, errlen, "--kv with --variant %s: only herd-kv uses --kv; drop it or "
			       "use --variant herd-kv", seq_variant_name(o->cfg.variant));
	if (o->drtm_given && o->cfg.variant != SEQ_DRTM_KV)
		return rb_fail(err, errlen, "--drtm/--put-fraction with --variant %s: only drtm-kv uses "
			       "them; drop them "
			       "or use --variant drtm-kv", seq_variant_name(o->cfg.variant));
	if ((o->cfg.variant == SEQ_ATOMICS || o->cfg.variant == SEQ_DRTM_KV) &&
	    !o->server_threads_given)
		o->cfg.server_threads = 0;
	return seq_cfg_validate(&o->cfg, 0, err, errlen);
}

/* 0 ok, 1 help printed, -1 error in err. */
static int parse_args(int argc, char **argv, struct seq_opts *o, char *err, size_t errlen)
{
	int ch;

	memset(o, 0, sizeof(*o));
	o->port = SEQ_DEFAULT_PORT;
	o->gid_index = -1;
	o->reps = 1;
	o->values_cap = SEQ_DEFAULT_VALUES;
	seq_cfg_defaults(&o->cfg);
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":sc:p:d:i:x:w:D:qh", seq_longopts, NULL)) != -1) {
		const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
		if (ch == 'h') {
			usage(stdout);
			return 1;
		}
		if (ch == ':')
			return rb_fail(err, errlen, "%s needs a value (rdma_seq --help)", name);
		int rc = parse_where(ch, optarg, o, err, errlen);
		if (rc == 1)
			rc = parse_knob(ch, optarg, o, err, errlen);
		if (rc == 1)
			return rb_fail(err, errlen, "unknown option %s (rdma_seq --help)", name);
		if (rc)
			return -1;
		if (ch != 'c' && !server_option(ch))
			note_client_only(ch, o);
	}
	if (optind < argc)
		return rb_fail(err, errlen, "unexpected argument '%s' (rdma_seq --help)", argv[optind]);
	return check_role(o, err, errlen);
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
		int rc = pthread_create(&r->th[i].tid, NULL, fn, &r->th[i]);
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

/* ---- server ------------------------------------------------------------- */

/* The client's HELLO; with a token (--token-file) it must carry the same
 * one (compared in constant time, guard.h). 0, or -1 with err (the client
 * is told why). */
static int take_hello(int fd, struct ctrl_rbuf *rb, const char *token, char *err, size_t errlen)
{
	struct ctrl_msg m;

	if (ctrl_recv(fd, rb, &m, CTRL_HELLO, 10000, "the client's HELLO", err, errlen))
		return -1;
	if (token[0] && !guard_token_equal(token, m.u.hello.token, RB_TOKEN_CAP)) {
		ctrl_send_error(fd, "wrong or missing token: give the client the server's "
				"--token-file");
		return rb_fail(err, errlen, "client %s (pid %u) sent a wrong or no token",
			       m.u.hello.host, m.u.hello.pid);
	}
	return 0;
}

static int serve_point(int fd, struct rb_dev *dev, const char *token, char *err, size_t errlen)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_msg m;
	struct seq_run r = { .role = RB_ROLE_SERVER, .dev = dev };
	const struct seq_variant_ops *ops;
	int rc = -1, tmo = 10000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char why[512];

	if (take_hello(fd, &rb, token, err, errlen) ||
	    ctrl_recv(fd, &rb, &m, 0, 10000, "the client's CONFIG", err, errlen))
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
	fprintf(stderr, "INFO point: %s, %llu server threads, %llu clients x window %llu, batch %s, "
		"%llu UD QPs per thread, start %llu\n", ops->name,
		(unsigned long long)r.cfg.server_threads, (unsigned long long)r.cfg.client_threads,
		(unsigned long long)r.cfg.window, r.cfg.batch ? "on" : "off",
		(unsigned long long)r.cfg.ud_qps, (unsigned long long)r.cfg.start);
	if (ops->create(&r, err, errlen) || send_setup(fd, &r, tmo, err, errlen))
		goto fail;
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
	fprintf(stderr, "INFO point done: %llu numbers handed out, %llu requests, %llu responses in "
		"%llu doorbells\n", (unsigned long long)d.counter_sum, (unsigned long long)d.recvs,
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

/* SIGINT and SIGTERM stop the server; without SA_RESTART, so a blocking
 * accept() returns EINTR at once. A signal ignored at start (nohup) stays
 * ignored. */
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
	struct rb_dev dev;
	char err[1024];
	int lfd;

	signal(SIGPIPE, SIG_IGN);
	server_signals();
	if (ctrl_bind_check(o->bind_addr, err, sizeof(err))) {
		fprintf(stderr, "ERROR %s\n", err);
		return 2;
	}
	if (dev_open(&dev, o->dev_name, o->ib_port, o->gid_index, err, sizeof(err))) {
		fprintf(stderr, "ERROR %s\n", err);
		return 2;
	}
	lfd = ctrl_listen(o->bind_addr, o->port, err, sizeof(err));
	if (lfd < 0) {
		fprintf(stderr, "ERROR %s\n", err);
		dev_close(&dev);
		return 2;
	}
	fprintf(stderr, "INFO rdma_seq server listening on TCP port %u (%s), device %s port %u; one point "
		"at a time\n", o->port, o->bind_addr[0] ? o->bind_addr : "all addresses", dev.name,
		dev.port);
	if (!o->bind_addr[0])
		fprintf(stderr, "WARN rdma_seq -s listens on all addresses and has no admission "
			"control: any host that reaches the port can make it allocate QPs and spin "
			"threads; give --bind ADDR on a shared network\n");
	int status = 0;
	while (!server_stop) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;   /* the loop's test: stopped by a signal? */
			fprintf(stderr, "ERROR accept: %s\n", strerror(errno));
			status = 2;
			break;
		}
		ctrl_nodelay(fd);
		if (serve_point(fd, &dev, o->token, err, sizeof(err))) {
			fprintf(stderr, "ERROR point failed, server goes on: %s\n", err);
			status = 1;
		} else {
			status = 0;
		}
		close(fd);
		if (o->once)
			break;
	}
	if (server_stop && !o->once) {
		fprintf(stderr, "INFO rdma_seq server stopped by a signal\n");
		status = 0;
	}
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

	row_set_u64(row, "schema_version", RB_SCHEMA_VERSION);
	row_set_text(row, "run_id", o->run_id);
	row_set_u64(row, "proc_index", o->proc_index);
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

/* One row of a point (schema: docs/csv.md, "rdma_seq rows"). */
static void build_row(struct row *row, const struct seq_opts *o, const struct rb_env *e,
		      const struct rb_dev *d, unsigned rep, const struct seq_result *res)
{
	row_init(row);
	row_config(row, o, e, rep);
	row_counts(row, &o->cfg, res);
	row_kv_counts(row, &o->cfg, res);
	row_drtm(row, res);
	row_latency_env(row, e, d, res);
}

/* HELLO: who the client is and the run's token (--token-file; "" = none).
 * The server checks the token before it reads the point's CONFIG. */
static int send_hello(int fd, const struct seq_opts *o, const struct rb_dev *dev, int tmo,
		      char *err, size_t errlen)
{
	struct ctrl_hello h = { .proc_index = o->proc_index, .pid = (uint32_t)getpid() };
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];

	if (gethostname(h.host, sizeof(h.host) - 1))
		snprintf(h.host, sizeof(h.host), "?");
	snprintf(h.run_id, sizeof(h.run_id), "%s", o->run_id);
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
	*fd = ctrl_connect(o->host, o->port, 10, err, errlen);
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
	int got = ctrl_recv(*fd, rb, m, CTRL_SETUP, tmo, "the server's SETUP", err, errlen);
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

/* Run one point; fills res. Returns 0 ok, 1 failed, 2 refused/setup. */
static int run_point(const struct seq_opts *o, struct rb_dev *dev, struct seq_result *res)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_msg m;
	struct seq_run r = { .role = RB_ROLE_CLIENT, .dev = dev, .cfg = o->cfg,
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
	snprintf(res->reason, sizeof(res->reason), "%s", err);
	if (fd >= 0)
		ctrl_send_error(fd, err);
	atomic_store(&r.go, -1);
	threads_join(&r, err, sizeof(err));
done:
	if (fd >= 0)
		close(fd);
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
	struct rb_dev dev;
	struct rb_env env;
	char err[1024];
	int status = 0, nrows = 0;

	signal(SIGPIPE, SIG_IGN);
	/* before the device and any point: a path that cannot be written is
	 * refused now, not after the points ran (output.h) */
	if ((o->csv[0] && output_path_writable("--csv", o->csv, err, sizeof(err))) ||
	    (o->json[0] && output_path_writable("--json", o->json, err, sizeof(err))) ||
	    output_paths_distinct(o->csv, o->json, err, sizeof(err))) {
		fprintf(stderr, "rdma_seq: error: %s\n", err);
		return 2;
	}
	env_collect(&env);
	if (dev_open(&dev, o->dev_name, o->ib_port, o->gid_index, err, sizeof(err))) {
		fprintf(stderr, "rdma_seq: error: %s\n", err);
		return 2;
	}
	for (unsigned rep = 0; rep < o->reps && nrows < SEQ_MAX_ROWS; rep++) {
		memset(&res, 0, sizeof(res));
		int rc = run_point(o, &dev, &res);
		build_row(&rows[nrows], o, &env, &dev, o->rep_first + rep, &res);
		if (rc)
			fprintf(stderr, "ERROR %s point rep %u %s: %s\n", seq_variant_name(o->cfg.variant),
				o->rep_first + rep, res.status, res.reason);
		if (o->csv[0] && csv_append(o->csv, &rows[nrows], err, sizeof(err))) {
			fprintf(stderr, "rdma_seq: error: %s\n", err);
			status = 2;
		}
		nrows++;
		if (rc > status)
			status = rc;
		if (rc == 2)
			break;
	}
	if (!o->quiet)
		table_print(stdout, rows, nrows, table_cols,
			    (int)(sizeof(table_cols) / sizeof(table_cols[0])));
	if (o->json[0] && json_write(o->json, rows, nrows, err, sizeof(err))) {
		fprintf(stderr, "rdma_seq: error: %s\n", err);
		status = 2;
	}
	dev_close(&dev);
	return status;
}

int main(int argc, char **argv)
{
	static struct seq_opts o;
	char err[1024];
	int rc = parse_args(argc, argv, &o, err, sizeof(err));

	if (rc > 0)
		return 0;
	if (rc == 0 && o.token_file[0])
		rc = guard_token_load(o.token_file, o.token, sizeof(o.token), RB_TOKEN_CAP, err,
				      sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdma_seq: error: %s\n", err);
		return 2;
	}
	return o.server ? server_main(&o) : client_main(&o);
}
