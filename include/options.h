/*
 * options.h - the rdma_bench command line and the test description.
 *
 * Two shapes:
 *  - struct rb_test: one measured point (verb, transport, size, every knob).
 *    The client fills it from its command line and sends it to the server
 *    over the control channel (ctrl.h, CTRL_TEST), so the server is given no
 *    test flags. Every field is a uint64_t so the wire form is a fixed list
 *    of big-endian u64 in RB_TEST_FIELDS order.
 *  - struct rb_opts: the whole command line (role, addresses, size list,
 *    output files, device selection) plus the rb_test template.
 *
 * Validation is pure (no device, no I/O) in test_validate(); the checks that
 * need the device's limits are in test_validate_device() with a struct
 * rb_caps the caller fills from ibv_query_device/ibv_query_port. Both write
 * a message naming the option, the value, the limit and the fix into err.
 */
#ifndef RDMA_BENCH_OPTIONS_H
#define RDMA_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "verb.h"   /* enum rb_verb, enum rb_transport and the verb table */

enum rb_testkind { RB_TEST_BW = 0, RB_TEST_LAT, RB_TEST_COUNT };
enum rb_inline { RB_INLINE_AUTO = 0, RB_INLINE_ON, RB_INLINE_OFF, RB_INLINE_COUNT };
enum rb_access { RB_ACCESS_SEQ = 0, RB_ACCESS_RANDOM, RB_ACCESS_COUNT };
/*
 * How a bw READ's completion is detected (--read-completion):
 *   cqe   by its signaled completion (every other test counts this way too);
 *         the window waits on CQEs, so it must cover every QP's unsignaled tail
 *   poll  by the last byte of its own destination slot changing from a
 *         sentinel (the original rc-swarm artifact): window and signal
 *         interval are independent, signaled WRs only free send queue slots
 */
enum rb_read_completion { RB_READ_CQE = 0, RB_READ_POLL, RB_READ_COUNT };
/*
 * Whether the client's worker threads count perf events (perf_event_open)
 * over their measured phase (--perf-counters):
 *   auto  only with --explain (which reports CPU ns per op): the events'
 *         bookkeeping at every context switch of the thread is inside the
 *         measurement, and on soft-RoCE every post is a system call that
 *         wakes ksoftirqd (one switch per op): 8 B READ p50 ~140 us with
 *         them, ~105 us without, as ib_read_lat; 32 B READ bw -w 16 lower
 *         too (docs/csv.md, "CPU and perf counters")
 *   on    always;  off  never (the perf columns empty, perf_reason says why)
 */
enum rb_perf_mode { RB_PERF_AUTO = 0, RB_PERF_ON, RB_PERF_OFF, RB_PERF_COUNT };

/* Limits of the command line (not of a device). */
#define RB_MAX_SIZE        (UINT64_C(1) << 30) /* 1 GiB per message */
#define RB_MAX_SECS_MS     UINT64_C(86400000)  /* 24 h, in ms: -D, --warmup, --timeout and
						 * the server's --max-duration, --max-warmup */
#define RB_MAX_THREADS     256u
#define RB_MAX_QPS_THREAD  65536u   /* qps_per_thread * emulated_peers */
#define RB_MAX_QPS_TOTAL   262144u  /* over all threads of one process */
#define RB_MAX_DEPTH       65536u
#define RB_MAX_SIZES       64
#define RB_MAX_BUFFER      (UINT64_C(64) << 30) /* registered bytes per process */
#define RB_MAX_CPUS        1024
#define RB_UD_GRH_BYTES    40u      /* GRH in front of every UD receive (IB spec 11.4.1.1) */
#define RB_DEFAULT_PORT    18515u

/*
 * The test description sent to the server (ctrl.h, CTRL_TEST): its fields
 * in wire order, X(name). Only the order lives here: every other fact of a
 * field that is a knob (option name, short flag, type, default, range, help
 * text, CSV column, whether the runner may sweep it) is its row of the knob
 * table, rb_knobs[] in bench/lib/options.c, and a row whose storage is a
 * struct rb_test field is a knob that travels to the server ("sent" in
 * --list-knobs). tests/unit/test_knobs.c checks that each sent knob
 * round-trips through the TEST encoding. Times are milliseconds on the
 * wire; the command line takes seconds. New fields go last: older ones keep
 * their wire place.
 */
#define RB_TEST_FIELDS(X)                                                   \
	X(verb) X(transport) X(test) X(size) X(iters) X(duration_ms)       \
	X(warmup_iters) X(warmup_ms) X(postlist) X(signal_interval)         \
	X(inline_mode) X(window) X(threads) X(qps_per_thread)               \
	X(emulated_peers) X(sq_depth) X(rq_depth) X(cq_depth) X(mtu)        \
	X(ack_timeout) X(retry_cnt) X(rnr_retry) X(min_rnr_timer)          \
	X(max_rd_atomic) X(validate) X(atomic_counters) X(stride) X(access) \
	X(recv_batch) X(use_cm)                                             \
	X(rep)                   /* repetition index of this point (no option) */ \
	X(seed) X(timeout_ms) X(read_completion)                            \
	X(tclass) X(sl) X(pkey_index)                                       \
	RB_TEST_FIELDS_DUMMY(X)

/* The new-knob recipe's field (docs/ARCHITECTURE.md), only in the binary
 * built with RB_KNOB_TEST_DUMMY (tests/unit/knob_dummy.c). */
#ifdef RB_KNOB_TEST_DUMMY
#define RB_TEST_FIELDS_DUMMY(X) X(dummy_knob)
#else
#define RB_TEST_FIELDS_DUMMY(X)
#endif

struct rb_test {
#define RB_X_FIELD(name) uint64_t name;
	RB_TEST_FIELDS(RB_X_FIELD)
#undef RB_X_FIELD
};

#define RB_X_COUNT(name) +1
enum { RB_TEST_NFIELDS = 0 RB_TEST_FIELDS(RB_X_COUNT) };
#undef RB_X_COUNT

/* Which knobs the user gave explicitly (defaults that depend on others). */
struct rb_given {
	bool window, signal_interval, postlist, size, inline_mode;
	bool atomic_counters, stride, access, recv_batch, mtu, iters, duration;
	bool warmup_iters, warmup;
	bool doorbell;   /* --doorbell: a fallback from it is a WARN, from the default an INFO */
};

enum rb_role { RB_ROLE_NONE = 0, RB_ROLE_SERVER, RB_ROLE_CLIENT };

/*
 * What one client may make a server spend (checked in guard.h before
 * anything is allocated; docs/rdma_bench.md, "Running a server on a shared
 * cluster"). 0 in max_mem, max_session_mem, max_threads and
 * max_peer_threads: the default
 * from the host (guard_limits_defaults).
 */
struct rb_limits {
	uint64_t max_mem;          /* bytes, all sessions (--max-mem) */
	uint64_t max_session_mem;  /* bytes, one session's point (--max-session-mem) */
	uint64_t max_threads;      /* server worker threads of one point (--max-threads) */
	uint64_t max_peer_threads; /* ... of one address's sessions together (--max-peer-threads) */
	uint64_t max_qps;          /* QPs of one point (--max-qps) */
	uint64_t max_duration_ms;  /* -D of a point (--max-duration) */
	uint64_t max_warmup_ms;    /* --warmup of a point (--max-warmup) */
	unsigned max_per_peer;     /* sessions from one address (--max-per-peer) */
	unsigned max_handshakes;   /* connections waiting for HELLO, all sources (admit.h) */
	unsigned handshakes_per_prefix; /* ... from one source prefix */
	unsigned prefix_v4, prefix_v6;  /* the source prefix: bits (/24, /64) */
	unsigned client_timeout_s; /* any wait for a client while holding a point (--client-timeout) */
};
#define RB_DEFAULT_MAX_QPS       4096u
#define RB_DEFAULT_MAX_DURATION  3600000u  /* ms: 1 h */
#define RB_DEFAULT_MAX_WARMUP    600000u   /* ms: 10 min */
#define RB_DEFAULT_MAX_PER_PEER  16u
#define RB_DEFAULT_MAX_HANDSHAKES 128u
#define RB_DEFAULT_HANDSHAKES_PER_PREFIX 16u
#define RB_DEFAULT_PREFIX_V4     24u
#define RB_DEFAULT_PREFIX_V6     64u
#define RB_DEFAULT_CLIENT_TIMEOUT 120u     /* s: the client's default --timeout */
#define RB_TOKEN_CAP             64u       /* bytes of a --token-file token */

struct rb_opts {
	enum rb_role role;
	/* where */
	char host[256];          /* client: server address */
	char bind_addr[256];     /* server: "" = all addresses (0.0.0.0 and ::) */
	uint16_t port;           /* TCP control port */
	char dev_name[64];       /* "" = first device with an ACTIVE port */
	unsigned ib_port;        /* 0 = first ACTIVE port */
	int gid_index;           /* -1 = auto (device.h: the rule) */
	char gid_ip[64];         /* --gid-ip: the GID equal to this address ("" none) */
	char netdev[32];         /* --netdev: a GID of this netdev ("" none) */
	/* server */
	bool once;
	unsigned max_sessions;
	struct rb_limits lim;
	char allow[1024];        /* --allow CIDR[,CIDR]; "" = any address */
	/* both roles: the shared token file ("" = none; read at start-up) */
	char token_file[1024];
	/* client */
	struct rb_test t;        /* template; size and rep set per point */
	struct rb_given given;
	uint64_t sizes[RB_MAX_SIZES];
	int nsizes;
	unsigned reps;
	unsigned rep_first;      /* --rep-first: rep of the first repetition (0) */
	char csv[1024];
	char json[1024];
	char run_id[64];
	uint64_t proc_index;
	unsigned procs;          /* --procs: client processes of this run id and point (1 = no start barrier) */
	char run_key_file[1024]; /* --run-key-file: the run's shared secret ("" = none) */
	int cpus[RB_MAX_CPUS];   /* --cpus list (ncpus of them; 0: no list) */
	int ncpus;
	bool cpus_spread;        /* --cpus spread: thread i on the i-th online CPU (mod their count) */
	bool cpus_none;          /* --cpus none: workers not pinned */
	int numa;                /* --numa NODE: the workers' CPUs are the node's; -1 = the
				  * device's own (topo.h) */
	bool hugepages;          /* --hugepages: the buffer on 2 MiB pages (topo.h) */
	uint64_t doorbell;       /* --doorbell: enum rb_doorbell */
	uint64_t atomic_order;   /* --atomic-order: enum rb_atomic_order */
	unsigned connect_timeout_s;
	bool quiet;
	bool explain;            /* --explain: an EXPLAIN line after each point (report_explain) */
	bool dry_run;            /* --dry-run: the options checked, nothing opened (main.c) */
	uint64_t perf_counters;  /* --perf-counters: enum rb_perf_mode */
	bool version;            /* --version given: opts_parse returned 1, the caller prints it */
	/* the options given more than once with different values, the last
	 * one taken ("" when none): the caller says it (WARN); see
	 * check_given and repeated_note in options.c */
	char repeated[512];
};

/* --doorbell: each worker's QPs on a thread domain of their own (a parent
 * domain over the PD with an ibv_alloc_td thread domain: on mlx5 a doorbell
 * register (UAR) of its own, no doorbell lock), all on the shared PD, or
 * (client) each worker on a device context of its own (ibv_open_device per
 * thread, as the original artifact's libhrd does: its own PD, MR, CQs and
 * QPs, so its doorbells are its context's; the server keeps one context and
 * takes ctx as td, since the client was sent the one rkey of its MR). */
enum rb_doorbell { RB_DOORBELL_TD, RB_DOORBELL_SHARED, RB_DOORBELL_CTX, RB_DOORBELL_COUNT };
/* --atomic-order: when the startup self-test sees an atomic reply in the
 * other byte order (post_req.c atomic_selftest): swap it back, or refuse. */
enum rb_atomic_order { RB_AORDER_SWAP, RB_AORDER_REFUSE, RB_AORDER_COUNT };

/* Names used on the command line and in CSV rows ("read", "rc", "bw" ...). */
const char *transport_name(uint64_t t);
const char *testkind_name(uint64_t t);
const char *inline_name(uint64_t m);
const char *access_name(uint64_t a);
const char *read_completion_name(uint64_t m);
const char *perf_mode_name(uint64_t m);
const char *doorbell_name(uint64_t m);
const char *atomic_order_name(uint64_t m);
/* Whether the client's workers count perf events (mode: enum rb_perf_mode;
 * explain: --explain given). */
bool perf_counting(uint64_t mode, bool explain);

/* QPs each thread drives: qps_per_thread * emulated_peers. */
uint64_t test_qps_per_thread(const struct rb_test *t);
/* A bw READ test whose completions are seen in the data (--read-completion poll). */
bool test_read_poll(const struct rb_test *t);

/* Fill *t with the defaults of RB_TEST_FIELDS. */
void test_defaults(struct rb_test *t);

/*
 * Defaults that depend on other knobs (window, signal interval), applied
 * only where the user gave none (given may be NULL: all defaults):
 *   bw: window = min(64, sq_depth * qps);
 *       signal_interval = largest s <= 16 with qps * (s - 1) + 1 <= window
 *   bw, --read-completion poll: window = min(64, sq_depth - (s - 1)) with the
 *       given s (else s = 1 for this bound); signal_interval = largest
 *       s <= 16 with window + s - 1 <= sq_depth (the rule in test_validate)
 *   lat: window = 1, signal_interval = 1.
 */
void test_resolve_defaults(struct rb_test *t, const struct rb_given *given);

/*
 * Pure checks of one point: every rule that needs no device. Returns 0, or
 * -1 with err naming option, value, limit and fix. Used by the client on
 * its command line and by the server on every CTRL_TEST it receives.
 */
int test_validate(const struct rb_test *t, char *err, size_t errlen);

/* What a device and port allow (from ibv_query_device / ibv_query_port). */
struct rb_caps {
	uint32_t max_qp_wr, max_cqe, max_qp, max_cq;
	uint32_t max_qp_rd_atom;       /* as responder */
	uint32_t max_qp_init_rd_atom;  /* as initiator */
	uint32_t max_msg_sz;
	uint32_t active_mtu;           /* bytes */
	bool atomics;                  /* atomic_cap != IBV_ATOMIC_NONE */
};

/* Checks that need the local device's limits; same contract as test_validate. */
int test_validate_device(const struct rb_test *t, const struct rb_caps *c,
			 char *err, size_t errlen);

/*
 * Parse argv into *o (getopt_long; resets optind). Applies defaults,
 * resolves dependent defaults and runs test_validate on the template with
 * each size. Environment: MSG_SIZES is the size list when -m is absent.
 * Returns 0 ok, 1 when help or version was printed (exit 0), -1 on error
 * with err set (exit non-zero).
 */
int opts_parse(int argc, char **argv, struct rb_opts *o, char *err, size_t errlen);

/* The --help text: derived from the knob table (each row's help line, its
 * default where the text says %D, its enum names where it says %E). */
void opts_usage(FILE *f);

/*
 * The knob table: one row per command-line option (bench/lib/options.c). The
 * parser (getopt_long's option array and short-option string), --help,
 * the range checks of the command line and of a TEST from the wire, the
 * defaults, the CSV column names of the knobs (report.c) and the runner's
 * column -> flag map (--list-knobs, read by experiments/lib/params.sh) all
 * come from it.
 */
enum rb_knob_type {
	RB_KT_NUM,   /* whole number lo..hi */
	RB_KT_SECS,  /* seconds with up to 3 decimals; stored (and lo, hi) in ms */
	RB_KT_SIZE,  /* bytes with a K/M/G/T suffix (units_parse_size) */
	RB_KT_ENUM,  /* one of names[]; stored as its index */
	RB_KT_FLAG,  /* no value: stores 1 */
	RB_KT_STR,   /* text into a char array of width bytes */
};
/* Where a row's value lives: rdma_bench's struct rb_test (sent in TEST),
 * struct rb_opts (the rows every program shares, and rdma_bench's local
 * ones), or the program's own struct (RB_KW_APP: opts_parse_cli's app). */
enum rb_knob_where { RB_KW_NONE, RB_KW_TEST, RB_KW_OPTS, RB_KW_APP };
struct rb_parse; /* what opts_parse keeps between options (bench/lib/options.c) */
enum {
	RB_KF_SERVER  = 1u << 0, /* a server option (the client ignores it unless RB_KF_LIMIT) */
	RB_KF_BOTH    = 1u << 1, /* an option of both roles */
	RB_KF_LIMIT   = 1u << 2, /* a server limit: refused on a client */
	RB_KF_ALIAS   = 1u << 3, /* a second option for a field another row owns */
	RB_KF_ZERO    = 1u << 4, /* 0 = automatic: only from the wire (or the default) */
	RB_KF_AUTO    = 1u << 5, /* the default is computed (--list-knobs says auto) */
	RB_KF_HELP2   = 1u << 6, /* a second help line of an option listed earlier */
	RB_KF_NOWIRE  = 1u << 7, /* its range check on a TEST is a rule of test_validate */
	RB_KF_SENT    = 1u << 8, /* an RB_KW_APP field its program sends to its server */
};
/* An option's own parsing of its argument arg (NULL for a flag) into o;
 * 0, or -1 with err (the command line is refused: exit 2). */
typedef int rb_knob_act(const char *arg, struct rb_opts *o, struct rb_parse *ps, char *err,
			size_t errlen);
struct rb_knob {
	const char *name;          /* long option, without "--" */
	char shortopt;             /* 0: none */
	const char *arg;           /* the value's name in --help; NULL: takes none */
	enum rb_knob_type type;
	enum rb_knob_where where;  /* struct rb_test (sent) or struct rb_opts */
	size_t off, width;         /* the field: offset and size in that struct */
	uint64_t lo, hi, def;      /* range and default (RB_KT_SECS: ms) */
	const char *const *names;  /* RB_KT_ENUM: the names, nnames of them, */
	const char *(*name_of)(uint64_t); /* or the table that owns them (verb.h) */
	unsigned nnames;
	unsigned flags;            /* RB_KF_* */
	size_t given;              /* offsetof(struct rb_given, x) + 1; 0: not recorded */
	const char *col;           /* CSV column of its (effective) value; NULL: none */
	const char *knob;          /* the runner's name when it is not col */
	const char *note;          /* appended to a wire range refusal */
	const char *hi_rule;       /* RB_KT_NUM whose real maximum depends on other
				    * options: a refused value's message gives the
				    * range as lo to this rule, not lo to hi */
	const char *section;       /* --help heading printed before it */
	const char *help;          /* --help text; NULL: not listed */
	/* its own parsing (role, -m, --cpus, --run-id, --help ...); NULL: by type */
	rb_knob_act *act;
};
/* The rows, in --help order; *n is set to their count. */
const struct rb_knob *opts_knobs(size_t *n);

/*
 * One program's command line: its knob table and the text around it. The
 * parser, --help, --list-knobs and the range checks are the same code for
 * every program (bench/lib/options.c); rdma_bench's is opts_cli(), an
 * application declares its own (bench/apps/seq/seq_opts.c). The rows every
 * program has are the RB_ROW_* macros below, so they are spelled, lettered
 * and ranged once.
 */
struct rb_cli {
	const char *prog;              /* "rdma_bench": messages, --help */
	const struct rb_knob *knobs;   /* its rows, in --help order (an array) */
	size_t nknobs;
	const char *synopsis;          /* --help's usage lines */
	const char *epilog;            /* --help's closing text (the exit status) */
	/* A client's own rules once every option is parsed (o and app hold the
	 * values, ps says what was given): 0, or -1 with err. NULL: none. */
	int (*client_finish)(struct rb_opts *o, void *app, const struct rb_parse *ps, char *err,
			     size_t errlen);
	/* A program with no server and no client (rb_model): no -s/-c rows,
	 * every command line goes to client_finish, and --list-knobs' role
	 * column is "-". */
	bool roleless;
};
#define RB_CLI_MAX_KNOBS 256u

/* rdma_bench's command line (the table above). */
const struct rb_cli *opts_cli(void);

/*
 * Parse argv for program cli into *o (the shared rows' fields, and
 * rdma_bench's) and *app (its RB_KW_APP rows' fields; NULL when it has
 * none), after filling both with the rows' defaults. A server (-s) refuses
 * any client row ("--X given to the server"). Returns 0 ok, 1 when --help
 * or --list-knobs was printed or --version given (o->version: the caller
 * prints it; exit 0), -1 on error with err (exit 2).
 */
int opts_parse_cli(const struct rb_cli *cli, int argc, char **argv, struct rb_opts *o, void *app,
		   char *err, size_t errlen);
/* --help and --list-knobs of program cli (the formats of opts_usage and
 * opts_list_knobs: docs/rdma_bench.md, "Knob list"). */
void opts_usage_cli(const struct rb_cli *cli, FILE *f);
void opts_list_knobs_cli(const struct rb_cli *cli, FILE *f);
/* Inside a row's act or a client_finish: the program's struct, and
 * whether the option named name (long, without "--") was given. */
void *opts_app(const struct rb_parse *ps);
bool opts_given(const struct rb_parse *ps, const char *name);

/* The shared rows' own parsers (role, run id, and the printing options). */
extern rb_knob_act opts_act_server, opts_act_client, opts_act_run_id, opts_act_help,
	opts_act_version, opts_act_list;
/* --cpus: LIST (opts_parse_cpus into o->cpus, o->ncpus), spread or none */
extern rb_knob_act opts_act_cpus;

/* A row's field: of struct rb_opts (shared rows) or struct rb_test. */
#define RB_AT_OPTS(f) .where = RB_KW_OPTS, .off = offsetof(struct rb_opts, f), \
		      .width = sizeof(((struct rb_opts *)0)->f)
#define RB_AT_TEST(f) .where = RB_KW_TEST, .off = offsetof(struct rb_test, f), \
		      .width = sizeof(((struct rb_test *)0)->f)

/*
 * The rows every program shares: one definition each (spelling, short
 * letter, range, help), perftest's spelling where it has one (-d/--ib-dev,
 * -i/--ib-port, -x/--gid-index, -p/--port). The arguments add what differs
 * by program: the --help section heading, a default (the TCP port), and
 * --timeout's field (it travels in each program's own message).
 */
#define RB_ROW_SERVER(...) { .name = "server", .shortopt = 's', .type = RB_KT_FLAG, .hi = 1, \
	.flags = RB_KF_SERVER, .act = opts_act_server, \
	.help = "be the server: serve clients until killed (takes no test options:\n" \
		"each client sends its point's configuration)", __VA_ARGS__ }
#define RB_ROW_PORT(...) { .name = "port", .shortopt = 'p', .arg = "N", .type = RB_KT_NUM, \
	RB_AT_OPTS(port), .lo = 1, .hi = 65535, .flags = RB_KF_BOTH, \
	.help = "TCP control port (default %D)", __VA_ARGS__ }
#define RB_ROW_BIND(...) { .name = "bind", .arg = "ADDR", .type = RB_KT_STR, \
	RB_AT_OPTS(bind_addr), .flags = RB_KF_SERVER, \
	.help = "listen on ADDR only (default: all addresses, IPv4 and IPv6)", __VA_ARGS__ }
#define RB_ROW_TOKEN_FILE(...) { .name = "token-file", .arg = "FILE", .type = RB_KT_STR, \
	RB_AT_OPTS(token_file), .flags = RB_KF_BOTH, \
	.help = "a shared token in FILE (mode 600, first line, 16-64 printable\n" \
		"bytes): the server refuses a client without it (constant-time\n" \
		"compare); the client sends it in HELLO", __VA_ARGS__ }
/* --allow and --max-mem: one row for both servers (rdma_bench -s, rdma_seq -s) */
#define RB_ROW_ALLOW(...) { .name = "allow", .arg = "CIDR,...", .type = RB_KT_STR, \
	RB_AT_OPTS(allow), .flags = RB_KF_SERVER | RB_KF_LIMIT, \
	.help = "accept control connections from these networks only\n" \
		"(e.g. 10.0.0.0/8,fd00::/8; default: any address)", __VA_ARGS__ }
#define RB_ROW_MAX_MEM(...) { .name = "max-mem", .arg = "SIZE", .type = RB_KT_SIZE, \
	RB_AT_OPTS(lim.max_mem), .lo = UINT64_C(1) << 20, .hi = UINT64_C(1) << 50, \
	.flags = RB_KF_SERVER | RB_KF_LIMIT | RB_KF_AUTO, __VA_ARGS__ } /* .help: each program's charge */
#define RB_ROW_ONCE(...) { .name = "once", .type = RB_KT_FLAG, .hi = 1, RB_AT_OPTS(once), \
	.flags = RB_KF_SERVER, .help = "exit after one session (status = that session's)", \
	__VA_ARGS__ }
#define RB_ROW_IB_DEV(...) { .name = "ib-dev", .shortopt = 'd', .arg = "NAME", \
	.type = RB_KT_STR, RB_AT_OPTS(dev_name), .flags = RB_KF_BOTH, \
	.help = "RDMA device (default: first with an ACTIVE port)", __VA_ARGS__ }
#define RB_ROW_IB_PORT(...) { .name = "ib-port", .shortopt = 'i', .arg = "N", .type = RB_KT_NUM, \
	RB_AT_OPTS(ib_port), .lo = 1, .hi = 255, .flags = RB_KF_BOTH | RB_KF_AUTO, \
	.help = "the device's port (default: first ACTIVE; the TCP port is -p)", __VA_ARGS__ }
#define RB_ROW_GID_INDEX(...) { .name = "gid-index", .shortopt = 'x', .arg = "N", \
	.type = RB_KT_NUM, RB_AT_OPTS(gid_index), .lo = 0, .hi = 65535, .def = (uint64_t)-1, \
	.flags = RB_KF_BOTH | RB_KF_AUTO, \
	.help = "GID index (default: the best GID of the netdev that routes to the\n" \
		"peer, or of --gid-ip / --netdev: RoCE v2, global, IPv4 first)", __VA_ARGS__ }
#define RB_ROW_CLIENT(...) { .name = "client", .shortopt = 'c', .arg = "HOST", \
	.type = RB_KT_STR, RB_AT_OPTS(host), .act = opts_act_client, \
	.help = "be the client of the server at HOST", __VA_ARGS__ }
#define RB_ROW_REPS(...) { .name = "reps", .arg = "R", .type = RB_KT_NUM, RB_AT_OPTS(reps), \
	.lo = 1, .hi = 100000, .def = 1, .help = "repetitions of every point (default %D)", \
	__VA_ARGS__ }
#define RB_ROW_REP_FIRST(...) { .name = "rep-first", .arg = "N", .type = RB_KT_NUM, \
	RB_AT_OPTS(rep_first), .hi = 1000000, \
	.help = "the rep column of the first repetition (default %D; a runner\n" \
		"that repeats the process gives its own repetition number)", __VA_ARGS__ }
#define RB_ROW_CONNECT_TIMEOUT(...) { .name = "connect-timeout", .arg = "S", .type = RB_KT_NUM, \
	RB_AT_OPTS(connect_timeout_s), .lo = 1, .hi = 3600, .def = 10, \
	.help = "retry the control connection for S s (%D)", __VA_ARGS__ }
#define RB_ROW_TIMEOUT(...) { .name = "timeout", .arg = "S", .type = RB_KT_SECS, .lo = 1000, \
	.hi = RB_MAX_SECS_MS, .def = 120000, \
	.help = "limit of every wait once connected, and of a point beyond its -D and\n" \
		"--warmup (%D; the connection itself: --connect-timeout)", __VA_ARGS__ }
#define RB_ROW_CSV(...) { .name = "csv", .arg = "FILE", .type = RB_KT_STR, RB_AT_OPTS(csv), \
	.help = "append rows (header written once)", __VA_ARGS__ }
#define RB_ROW_JSON(...) { .name = "json", .arg = "FILE", .type = RB_KT_STR, RB_AT_OPTS(json), \
	.help = "write all rows as JSON at the end", __VA_ARGS__ }
#define RB_ROW_RUN_ID(...) { .name = "run-id", .arg = "ID", .type = RB_KT_STR, \
	RB_AT_OPTS(run_id), .col = "run_id", .act = opts_act_run_id, \
	.help = "stored in every row", __VA_ARGS__ }
#define RB_ROW_PROC_INDEX(...) { .name = "proc-index", .arg = "K", .type = RB_KT_NUM, \
	RB_AT_OPTS(proc_index), .hi = 1000000, .col = "proc_index", \
	.help = "stored in every row (several clients of one run)", __VA_ARGS__ }
#define RB_ROW_QUIET(...) { .name = "quiet", .type = RB_KT_FLAG, .hi = 1, RB_AT_OPTS(quiet), \
	.flags = RB_KF_BOTH, .help = "no INFO lines (WARN and ERROR lines stay on stderr)", \
	__VA_ARGS__ }
#define RB_ROW_DRY_RUN(...) { .name = "dry-run", .type = RB_KT_FLAG, .hi = 1, \
	RB_AT_OPTS(dry_run), \
	.help = "check the options as a run would, say what it would\n" \
		"request, and exit (0; 2 with the reason when refused): no\n" \
		"device, no server (experiments/run --dry-run asks it per job)", __VA_ARGS__ }
#define RB_ROW_LIST_KNOBS(...) { .name = "list-knobs", .type = RB_KT_FLAG, .hi = 1, \
	.flags = RB_KF_BOTH, .act = opts_act_list, \
	.help = "every option as one tab-separated line (docs/rdma_bench.md)", __VA_ARGS__ }
/*
 * Where a program's worker threads run and its buffers live (topo.h, the
 * rules; ctx.h, ctx_placement): the same rows in rdma_bench and rdma_seq,
 * read by each side for its own threads (a server pins its threads too).
 */
#define RB_ROW_CPUS(...) { .name = "cpus", .arg = "LIST|spread|none", .type = RB_KT_STR, \
	RB_AT_OPTS(cpus), .flags = RB_KF_BOTH, .col = "cpus", .act = opts_act_cpus, \
	.help = "pin worker i to LIST[i % n] (e.g. 0,2-3), spread (all\n" \
		"online CPUs) or none (default: the device's local CPUs,\n" \
		"local_cpulist or its NUMA node's, SMT siblings last)", __VA_ARGS__ }
#define RB_ROW_NUMA(...) { .name = "numa", .arg = "NODE", .type = RB_KT_NUM, RB_AT_OPTS(numa), \
	.lo = 0, .hi = 4095, .def = (uint64_t)-1, .flags = RB_KF_BOTH | RB_KF_AUTO, \
	.help = "workers on this NUMA node's CPUs (default: the device's)", __VA_ARGS__ }
#define RB_ROW_HUGEPAGES(...) { .name = "hugepages", .type = RB_KT_FLAG, .hi = 1, \
	RB_AT_OPTS(hugepages), .flags = RB_KF_BOTH, \
	.help = "the buffer on 2 MiB pages: MAP_HUGETLB, else transparent\n" \
		"huge pages (page_source says which; a WARN when neither)", __VA_ARGS__ }
/*
 * The rows of an RDMA operation's configuration that rdma_bench and the
 * PCIe model (rb_model) both take: one spelling, letter and range; each
 * program gives the field, the default where it has one, and the help.
 */
#define RB_ROW_VERB(...) { .name = "verb", .arg = "V", .type = RB_KT_ENUM, .name_of = verb_name, \
	.nnames = RB_VERB_COUNT, .def = RB_DEFAULT_VERB, __VA_ARGS__ }
#define RB_ROW_TRANSPORT(...) { .name = "transport", .arg = "T", .type = RB_KT_ENUM, \
	.name_of = transport_name, .nnames = RB_TR_COUNT, .def = RB_TR_RC, __VA_ARGS__ }
#define RB_ROW_POSTLIST(...) { .name = "postlist", .shortopt = 'l', .arg = "N", \
	.type = RB_KT_NUM, .lo = 1, .hi = RB_MAX_DEPTH, .def = 1, __VA_ARGS__ }
#define RB_ROW_SIGNAL_INTERVAL(...) { .name = "signal-interval", .arg = "N", .type = RB_KT_NUM, \
	.lo = 1, .hi = RB_MAX_DEPTH, __VA_ARGS__ }
#define RB_ROW_HELP(...) { .name = "help", .shortopt = 'h', .type = RB_KT_FLAG, .hi = 1, \
	.flags = RB_KF_BOTH, .act = opts_act_help, .help = "this text", __VA_ARGS__ }
#define RB_ROW_VERSION(...) { .name = "version", .type = RB_KT_FLAG, .hi = 1, \
	.flags = RB_KF_BOTH, .act = opts_act_version, \
	.help = "the version: git revision and control protocol", __VA_ARGS__ }
/* The CSV column of the knob stored at offset off of struct rb_test
 * (RB_KW_TEST) or struct rb_opts (RB_KW_OPTS): its row's col ("?" if none: a bug that
 * tests/unit/test_knobs.c catches). */
const char *knob_col(enum rb_knob_where where, size_t off);
#define RB_TEST_COL(f) knob_col(RB_KW_TEST, offsetof(struct rb_test, f))
#define RB_OPTS_COL(f) knob_col(RB_KW_OPTS, offsetof(struct rb_opts, f))
/* --list-knobs: one line per option, tab-separated (docs/rdma_bench.md,
 * "Knob list"). */
void opts_list_knobs(FILE *f);

/* "LO..HI s" of a seconds option's range given in milliseconds, each number
 * as short as it is exact (0.001, 86400), HI in hours beside it from 1 h up
 * ("0.001..86400 s (24 h)", "1..5400 s (1.5 h)"); written into buf (len
 * bytes, cut at its end), which is returned. */
const char *opts_secs_range(uint64_t lo_ms, uint64_t hi_ms, char *buf, size_t len);

/* Parse a CPU list "0,2,4-7" into out[0..*n-1]; 0 or -1 with err. */
int opts_parse_cpus(const char *s, int *out, int max, int *n, char *err, size_t errlen);

#endif /* RDMA_BENCH_OPTIONS_H */
