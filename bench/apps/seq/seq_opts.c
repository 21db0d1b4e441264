/*
 * seq_opts.c - rdma_seq's knob table (seq_opts.h): one row per option, in
 * --help order; the shared rows are the library's RB_ROW_* (options.h).
 * A row whose field is in struct seq_cfg is sent to the server in
 * rdma_seq's CONFIG message (RB_KF_SENT; seq.h, SEQ_CFG_FIELDS).
 */
#include <string.h>

#include "errbuf.h"
#include "kv.h"
#include "seq_opts.h"

/* Where a row's value lives: a field of struct seq_opts. */
#define A(f) .where = RB_KW_APP, .off = offsetof(struct seq_opts, f), \
	     .width = sizeof(((struct seq_opts *)0)->f)
#define SENT .flags = RB_KF_SENT

static const char *const batch_names[] = { "off", "on" };
static const char *const idle_names[] = { "spin", "yield" };

static rb_knob_act act_kv, act_drtm, act_put_fraction;

static const struct rb_knob seq_knobs[] = {
	RB_ROW_SERVER(.section = "Server:"),
	RB_ROW_PORT(.def = SEQ_DEFAULT_PORT),
	RB_ROW_BIND(),
	RB_ROW_ALLOW(),
	RB_ROW_MAX_MEM(.help = "memory of a point: its registered buffer (MR), the\n"
			       "HERD/MICA and DrTM stores, the server threads' stacks\n"
			       "(default: half the host's memory, and RLIMIT_MEMLOCK\n"
			       "without CAP_IPC_LOCK); a client's --kv keys or --drtm\n"
			       "items above it are refused"),
	RB_ROW_ONCE(),
	RB_ROW_TOKEN_FILE(.section = "Both roles:"),
	RB_ROW_IB_DEV(.section = "Device (both roles):"),
	RB_ROW_IB_PORT(),
	RB_ROW_GID_INDEX(),
	RB_ROW_CPUS(.section = "Placement (both roles; each side's own threads and buffer):"),
	RB_ROW_NUMA(),
	RB_ROW_HUGEPAGES(),
	RB_ROW_CLIENT(.section = "Client (each point's configuration goes to the server in CONFIG):"),
	{ .name = "variant", .arg = "V", .type = RB_KT_ENUM, .name_of = seq_variant_name,
	  .nnames = SEQ_VARIANT_COUNT, A(cfg.variant), .def = SEQ_SPEC_S0, SENT, .col = "variant",
	  .help = "%E: the sequencer to measure\n"
		  "(atomics: NIC fetch-and-add); --variant is required (no default)" },
	{ .name = "server-threads", .arg = "T", .type = RB_KT_NUM, A(cfg.server_threads),
	  .hi = SEQ_MAX_SERVER_THREADS, .def = 1, SENT, .col = "server_threads",
	  .help = "server polling threads (herd-rpc, spec-s0, herd-kv; default\n"
		  "%D; atomics, drtm-kv: 0, no server CPU)" },
	{ .name = "threads", .arg = "C", .type = RB_KT_NUM, A(cfg.client_threads), .lo = 1,
	  .hi = SEQ_MAX_CLIENT_THREADS, .def = 1, SENT, .col = "client_threads",
	  .knob = "threads", .help = "client threads (clients) of this process (default %D)" },
	{ .name = "window", .shortopt = 'w', .arg = "W", .type = RB_KT_NUM, A(cfg.window),
	  .lo = 1, .hi = SEQ_MAX_WINDOW, .def = SEQ_DEFAULT_WINDOW, SENT, .col = "window",
	  .help = "requests outstanding per client (default %D)" },
	{ .name = "batch", .arg = "on|off", .type = RB_KT_ENUM, .names = batch_names, .nnames = 2,
	  A(cfg.batch), .def = 1, SENT, .col = "batch",
	  .help = "responses of a poll pass in one doorbell (default %D;\nnot atomics)" },
	{ .name = "ud-qps", .arg = "N", .type = RB_KT_NUM, A(cfg.ud_qps), .lo = 1,
	  .hi = SEQ_MAX_UD_QPS, .def = 1, SENT, .col = "ud_qps",
	  .help = "response UD QPs per server thread (default %D; not atomics)" },
	{ .name = "idle", .arg = "spin|yield", .type = RB_KT_ENUM, .names = idle_names,
	  .nnames = 2, A(cfg.idle_yield), .def = 1, SENT, .col = "idle",
	  .help = "a poll that finds nothing: poll again, or sched_yield()\n"
		  "first (default %D: on soft-RoCE the kernel work that moves\n"
		  "each message needs the CPU a spinning thread holds)" },
	{ .name = "start", .arg = "S", .type = RB_KT_NUM, A(cfg.start), .hi = UINT64_MAX / 2,
	  SENT, .col = "start",
	  .help = "the counter's first value (default %D; e.g. 4294967200\n"
		  "to cross 2^32 with spec-s0's 32-bit immediates)" },
	{ .name = "duration", .shortopt = 'D', .arg = "SECS", .type = RB_KT_SECS,
	  A(cfg.duration_ms), .lo = 1, .hi = RB_MAX_SECS_MS, .def = 1000, SENT,
	  .knob = "duration_s", .help = "measured window (default %D)" },
	{ .name = "warmup", .arg = "SECS", .type = RB_KT_SECS, A(cfg.warmup_ms),
	  .hi = RB_MAX_SECS_MS, .def = 200, SENT, .knob = "warmup_s",
	  .help = "before the window (default %D)" },
	RB_ROW_TIMEOUT(A(cfg.timeout_ms), SENT),
	RB_ROW_CONNECT_TIMEOUT(),
	{ .name = "values-cap", .arg = "N", .type = RB_KT_NUM, A(values_cap),
	  .hi = UINT64_C(1) << 28, .def = SEQ_DEFAULT_VALUES,
	  .help = "values stored per client for the exact uniqueness check\n"
		  "(default %D; beyond it the check compares sums)" },
	{ .name = "kv", .arg = "LIST", .type = RB_KT_STR, A(cfg.kv), SENT, .col = "kv",
	  .act = act_kv,
	  .help = "herd-kv only: its knobs, comma-separated: get=F (GET\n"
		  "fraction 0..1, 0.95), keys=N (65536), value=B (1..64 bytes,\n"
		  "32), dist=uniform|zipf, theta=X (0.99), validate" },
	{ .name = "drtm", .arg = "LIST", .type = RB_KT_STR, A(cfg.drtm), SENT, .col = "drtm",
	  .act = act_drtm,
	  .help = "drtm-kv only (GET = READ, PUT = CAS lock + FETCH_AND_ADD\n"
		  "release): put=F (PUT fraction 0..1, 0.1), items=N (65536;\n"
		  "16777216 on hardware), dist=uniform|zipf, theta=X (0.99),\n"
		  "put-writes (WRITE the value between the atomics), validate" },
	{ .name = "put-fraction", .arg = "F", .type = RB_KT_STR, A(cfg.drtm.put_fraction), SENT,
	  .col = "put_fraction", .act = act_put_fraction,
	  .help = "drtm-kv: the same as --drtm put=F (one word, for sweeps)" },
	RB_ROW_REPS(),
	RB_ROW_REP_FIRST(),
	RB_ROW_CSV(),
	RB_ROW_JSON(),
	RB_ROW_RUN_ID(),
	RB_ROW_PROC_INDEX(),
	{ .name = "procs", .arg = "N", .type = RB_KT_NUM, RB_AT_OPTS(procs), .lo = 1,
	  .hi = CTRL_MAX_PROCS, .def = 1, .col = "procs",
	  .help = "client processes of a point: 1 (the server runs one point at a\n"
		  "time; give more clients as --threads)" },
	RB_ROW_QUIET(),
	RB_ROW_DRY_RUN(),
	RB_ROW_LIST_KNOBS(),
	RB_ROW_HELP(),
	RB_ROW_VERSION(),
};
#undef A
#undef SENT

static int act_kv(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		  size_t errlen)
{
	struct seq_opts *so = opts_app(ps);
	(void)o;
	return kv_parse_opts(a, &so->cfg.kv, err, errlen) ? -1 : 0;
}

static int act_drtm(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
		    size_t errlen)
{
	struct seq_opts *so = opts_app(ps);
	(void)o;
	return drtm_parse_opts(a, &so->cfg.drtm, err, errlen) ? -1 : 0;
}

static int act_put_fraction(const char *a, struct rb_opts *o, struct rb_parse *ps, char *err,
			    size_t errlen)
{
	struct seq_opts *so = opts_app(ps);
	(void)o;
	return drtm_parse_fraction("--put-fraction ", a, &so->cfg.drtm.put_fraction, err,
				   errlen) ? -1 : 0;
}

/* The client's rules once every option is known (0, or -1 with err). */
static int seq_client_finish(struct rb_opts *o, void *app, const struct rb_parse *ps, char *err,
			     size_t errlen)
{
	struct seq_opts *so = app;
	struct seq_cfg *c = &so->cfg;

	if (!opts_given(ps, "variant"))
		return rb_fail(err, errlen, "-c needs --variant atomics, herd-rpc, spec-s0, herd-kv "
			       "or drtm-kv (the sequencer to measure; there is no default)");
	if (opts_given(ps, "kv") && c->variant != SEQ_HERD_KV)
		return rb_fail(err, errlen, "--kv with --variant %s: only herd-kv uses --kv; drop it "
			       "or use --variant herd-kv", seq_variant_name(c->variant));
	if ((opts_given(ps, "drtm") || opts_given(ps, "put-fraction")) &&
	    c->variant != SEQ_DRTM_KV)
		return rb_fail(err, errlen, "--drtm/--put-fraction with --variant %s: only drtm-kv "
			       "uses them; drop them or use --variant drtm-kv",
			       seq_variant_name(c->variant));
	if (o->procs != 1)
		return rb_fail(err, errlen, "--procs %u: the sequencer's server runs one point at a "
			       "time, so a point has 1 client process; give its clients as "
			       "--threads (up to %u)", o->procs, SEQ_MAX_CLIENT_THREADS);
	if (o->reps > SEQ_MAX_ROWS)
		return rb_fail(err, errlen, "--reps %u: rdma_seq keeps at most %u rows per run; "
			       "run it again with --rep-first for more", o->reps, SEQ_MAX_ROWS);
	if ((c->variant == SEQ_ATOMICS || c->variant == SEQ_DRTM_KV) &&
	    !opts_given(ps, "server-threads"))
		c->server_threads = 0;
	return seq_cfg_validate(c, 0, err, errlen);
}

static const struct rb_cli cli = {
	.prog = "rdma_seq",
	.knobs = seq_knobs,
	.nknobs = sizeof(seq_knobs) / sizeof(seq_knobs[0]),
	.synopsis =
		"usage: rdma_seq -s [-p PORT] [--bind ADDR] [--allow CIDR,...] [--token-file F]\n"
		"                   [--max-mem SIZE] [-d DEV] [-i PORT] [-x GID] [--once]\n"
		"       rdma_seq -c HOST --variant atomics|herd-rpc|spec-s0|herd-kv|drtm-kv "
		"[options]\n",
	.epilog =
		"Exit status: 0 every point ok; 1 a point failed (its row says why; a server:\n"
		"the last point it served failed); 2 usage or setup error: the command line,\n"
		"no device, no server, or a point's configuration refused by either end\n"
		"before it was measured (row status skipped, reason 'refused by the client:\n"
		"...' or 'refused by the server: ...'). A server stopped by SIGINT or SIGTERM\n"
		"exits 0.\n",
	.client_finish = seq_client_finish,
};

const struct rb_cli *seq_cli(void)
{
	return &cli;
}

int seq_opts_parse(int argc, char **argv, struct seq_opts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	seq_cfg_defaults(&o->cfg);
	return opts_parse_cli(&cli, argc, argv, &o->rb, o, err, errlen);
}
