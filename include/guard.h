/*
 * guard.h - what a server on a shared cluster checks before it gives a peer
 * anything: resource limits of a point, address admission (--allow), the
 * shared token (--token-file), clean peer strings, and random numbers for
 * PSNs.
 *
 * Why: `rdma_bench -s` is long-lived and every test parameter comes from
 * the client (ctrl.h), so the server itself must bound what one peer can
 * make it allocate, pin, spin or wait for (docs/rdma_bench.md, "Running a
 * server on a shared cluster").
 *
 * The checks are pure (no I/O, no globals) except guard_limits_defaults(),
 * guard_token_load() and guard_random(), which read the host.
 */
#ifndef RDMA_BENCH_GUARD_H
#define RDMA_BENCH_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "options.h"

/* What a point is charged beyond its registered buffer (upper estimates;
 * docs/rdma_bench.md "Running a server on a shared cluster" gives the
 * formula, tests/unit/test_guard.c one test per term): */
#define GUARD_WQE_BYTES   256u        /* per SQ and RQ entry of every QP: the provider's
				       * queue memory and our pre-built WRs and SGEs */
#define GUARD_CQE_BYTES   64u         /* per CQ entry: mlx5's CQE is 64 bytes, rxe's less */
#define GUARD_STACK_BYTES (8u << 20)  /* per worker thread: glibc's default stack
				       * (RLIMIT_STACK 8 MiB), reserved at pthread_create */
#define GUARD_STATE_BYTES (64u << 10) /* per point: the session's own state and
				       * control buffers (TEST, SETUP, DONE, rows) */
#define GUARD_QP_STATE_BYTES 128u     /* per QP: its SETUP entry and our per-QP state */

/* A point's charge to --max-mem, term by term (bytes; total saturates at
 * UINT64_MAX). */
struct guard_charge {
	uint64_t buffer;   /* the registered buffer (layout_compute, ctx.h) */
	uint64_t queues;   /* QPs x (SQ + RQ entries) x GUARD_WQE_BYTES */
	uint64_t cqs;      /* threads x (send CQ + receive CQ entries) x GUARD_CQE_BYTES */
	uint64_t stacks;   /* worker threads x GUARD_STACK_BYTES (none: a passive side) */
	uint64_t state;    /* GUARD_STATE_BYTES + QPs x GUARD_QP_STATE_BYTES */
	uint64_t total;
};

/*
 * Everything one point of t makes this side allocate, register or reserve
 * (struct guard_charge): server_active says whether this side runs worker
 * threads for the verb, max_cqe is the device's (the CQ sizes are
 * plan_cq_depths's; a receive CQ only for verbs that consume receives).
 */
void guard_point_charge(const struct rb_test *t, bool server_active, uint64_t max_cqe,
			struct guard_charge *c);

/* guard_point_charge's total. */
uint64_t guard_point_bytes(const struct rb_test *t, bool server_active, uint64_t max_cqe);

/* What running points hold of the server's limits (under the server's lock). */
struct guard_usage {
	uint64_t mem;      /* bytes of --max-mem */
	uint64_t qps;      /* QPs, against --max-qps */
	uint64_t threads;  /* worker threads, against --max-threads */
};

/*
 * The per-point limits of a server (struct rb_limits) against one TEST:
 * QPs (threads x qps-per-thread x emulated-peers), worker threads (only
 * when the server side runs threads for the verb: server_active), -D and
 * --warmup, and guard_point_bytes against --max-session-mem. Returns 0, or
 * -1 with err naming the value, the server flag that raises it and its
 * limit, in that order ("1002 QPs above the server's --max-qps 1000 ...":
 * a row's reason column keeps the first 95 bytes).
 */
int guard_check_point(const struct rb_test *t, bool server_active, uint64_t max_cqe,
		      const struct rb_limits *l, char *err, size_t errlen);

/*
 * Reserve need bytes of the server's --max-mem: *used + need <= max, then
 * *used += need and 0; else -1 with err naming the amounts and the flag.
 * The caller holds the lock that guards *used.
 */
int guard_mem_reserve(uint64_t *used, uint64_t need, uint64_t max, char *err, size_t errlen);

/*
 * A server's admission of one point, before it allocates anything:
 * guard_check_point, then its QPs and worker threads against what --max-qps
 * and --max-threads leave free over all sessions, and guard_point_bytes
 * reserved out of --max-mem (guard_mem_reserve). 0 with *got reserved and
 * added to *used (the caller gives them back when the point ends); -1 with
 * *got zero, *used unchanged and err "refused: <value> above the server's
 * --<flag> <limit> ...": the prefix RB_REFUSED_PREFIX (session.h) makes it
 * a refusal like any configuration refused before it is measured (the
 * client's row is skipped with reason "refused by the server: ...", exit
 * 2; docs/rdma_bench.md "Exit status"), and the value, flag and limit come
 * first because a row's reason column keeps only ~95 bytes. The caller
 * holds the lock that guards *used.
 */
int guard_admit_point(const struct rb_test *t, bool server_active, uint64_t max_cqe,
		      const struct rb_limits *l, struct guard_usage *used, struct guard_usage *got,
		      char *err, size_t errlen);

/*
 * The host's physical memory in bytes from sysconf's page count and page
 * size (_SC_PHYS_PAGES, _SC_PAGESIZE); 1 GiB when either is unknown (<= 0),
 * so that the --max-mem default is a modest one rather than 0.
 */
uint64_t guard_phys_bytes(long pages, long page_size);

/*
 * Defaults for the limits left at 0 in *l: --max-mem half of the host's
 * physical memory, and not above RLIMIT_MEMLOCK unless the process may
 * lock any amount (CAP_IPC_LOCK, or an unlimited RLIMIT_MEMLOCK);
 * --max-session-mem half of --max-mem; --max-threads the online CPUs.
 * why (may be NULL) says where the --max-mem default came from.
 */
void guard_limits_defaults(struct rb_limits *l, char *why, size_t whylen);

/*
 * The limits after guard_limits_defaults: --max-session-mem above
 * --max-mem is refused (one session could never get it), naming both and
 * where --max-mem came from (why, as guard_limits_defaults wrote it).
 * 0, or -1 with err.
 */
int guard_limits_check(const struct rb_limits *l, const char *why, char *err, size_t errlen);

/*
 * The limits banner both servers print when they listen, into buf:
 * every limit of l (after guard_limits_defaults; mem_why as it wrote),
 * the HELLO time, the admission table's caps, --allow (allow "" = any
 * address) and whether a token is set. Returns buf.
 */
const char *guard_limits_text(const struct rb_limits *l, const char *mem_why, unsigned hello_s,
			      const char *allow, bool token, char *buf, size_t len);

/* ---- --allow CIDR[,CIDR] ------------------------------------------------ */

#define GUARD_MAX_CIDRS 32

struct guard_cidr {
	int family;          /* AF_INET or AF_INET6 */
	uint8_t addr[16];    /* network order; IPv4 in the first 4 bytes */
	unsigned prefix;     /* bits: 0..32 (IPv4), 0..128 (IPv6) */
};

/*
 * Parse "10.0.0.0/8,192.168.1.7,fd00::/8" (a bare address is a /32 or
 * /128) into out[0..*n-1]. Host bits set beyond the prefix are refused
 * (10.1.2.3/8 is most likely a typo for 10.0.0.0/8). Returns 0, or -1 with
 * err naming the item and the fix.
 */
int guard_cidr_parse(const char *s, struct guard_cidr *out, int max, int *n,
		     char *err, size_t errlen);

/*
 * Whether the peer address sa is inside one of list[0..n-1]. An IPv4
 * address mapped into IPv6 (::ffff:a.b.c.d, what an IPv6 listener sees of
 * an IPv4 client) is matched as IPv4. n == 0 allows nothing.
 */
bool guard_cidr_allows(const struct guard_cidr *list, int n, const struct sockaddr *sa);

/* Same IP address (ports ignored; an IPv4-mapped IPv6 address equals its
 * IPv4 address). */
bool guard_same_ip(const struct sockaddr *a, const struct sockaddr *b);
/* 127.0.0.0/8, ::1, or ::ffff:127.x.y.z. */
bool guard_is_loopback(const struct sockaddr *sa);
/* The address of sa as text, without port, into out. */
void guard_ip_text(const struct sockaddr *sa, char *out, size_t outlen);

/* ---- peer strings and the token ----------------------------------------- */

/*
 * Index of the first byte of s (len bytes) that is below 0x20 or 0x7f (a
 * control character: newline, escape, ...), or -1 if there is none. Such
 * bytes in a peer's string would forge log lines or move the terminal.
 */
int guard_str_bad_byte(const char *s, size_t len);

/* Replace every byte guard_str_bad_byte finds by '?', in place (s is NUL-terminated). */
void guard_str_escape(char *s);

/*
 * a and b (NUL-terminated, each at most cap bytes) are the same string;
 * bytes 0..cap are compared, so a longer string is never equal to its
 * cap-byte prefix.
 * The time taken depends on cap only, never on where they differ (a peer
 * cannot find the token byte by byte by timing its refusals).
 */
bool guard_token_equal(const char *a, const char *b, size_t cap);

/*
 * Read the shared token from path (--token-file): a regular file (not a
 * symbolic link) that only its owner may read or write (mode 0600 or
 * 0400), its first line without the line end, 16..max printable bytes
 * (0x21..0x7e). Returns 0 with out filled (outlen > max), or -1 with err.
 */
int guard_token_load(const char *path, char *out, size_t outlen, size_t max,
		     char *err, size_t errlen);

/* ---- randomness ---------------------------------------------------------- */

/* Fill buf with n bytes from getrandom(2) (the kernel's CSPRNG). 0, or -1
 * with err (then buf is unspecified). */
int guard_random(void *buf, size_t n, char *err, size_t errlen);

#endif /* RDMA_BENCH_GUARD_H */
