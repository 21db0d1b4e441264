/*
 * admit.h - a server's admission before anything costs: the connections
 * that have not sent their HELLO yet are held by the accept loop itself
 * (no thread, no growing buffer, no session slot), in a fixed table capped
 * in total and per source prefix, and only a connection whose HELLO passed
 * --allow and --token-file is handed to the server (rdma_bench -s and
 * rdma_seq -s run the same code).
 *
 * Rules (docs/rdma_bench.md, "Running a server on a shared cluster"):
 * - at most max_handshakes connections wait for their HELLO, and at most
 *   per_prefix of them from one source prefix (IPv4 /bits4, IPv6 /bits6:
 *   /24 and /64 by default, since one host commonly owns a whole /64 and an
 *   attacker's several addresses share a /24). A new connection always gets
 *   in: when its prefix or the table is full, the connection of that prefix
 *   (or of any) that has been idle longest is dropped first. A token holder
 *   sends its HELLO at once, so an idle socket never starves it: to push it
 *   out, an attacker must open per_prefix (or max_handshakes) connections
 *   within its round trip.
 * - the receive buffer of a waiting connection is fixed: a header whose
 *   type is not HELLO (or ERROR), or whose length is above that type's
 *   limit (ctrl_max_payload), drops the connection before a payload byte
 *   is read.
 * - a peer's text is never logged before it authenticated: refusals,
 *   drops and timeouts are counted per source prefix, at most
 *   ADMIT_LOG_PER_SOURCE lines per source per ADMIT_LOG_INTERVAL_MS, then
 *   one summary line per interval.
 * - accept(2) failing for lack of descriptors or memory (EMFILE, ENFILE,
 *   ENOBUFS, ENOMEM) drops the oldest waiting connection, stops accepting
 *   for ADMIT_BACKOFF_MS and says so once per interval: never a busy loop.
 *
 * The table decisions (admit_prefix_key, admit_pick), the log limiter and
 * the escaping of a peer's text are pure, for unit tests.
 */
#ifndef RDMA_BENCH_ADMIT_H
#define RDMA_BENCH_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <sys/socket.h>

#include "ctrl.h"
#include "guard.h"

#define ADMIT_LOG_INTERVAL_MS 10000u /* log limiter and summary interval */
#define ADMIT_LOG_PER_SOURCE  3u     /* lines per source prefix per interval */
#define ADMIT_LOG_SOURCES     64u    /* sources tracked per interval (the rest: "others") */
#define ADMIT_BACKOFF_MS      200u   /* accept paused after EMFILE/ENFILE/ENOMEM */
#define ADMIT_TEXT_CAP        160u   /* bytes of a peer's text in a log line */

/* A source prefix: family byte (4 or 6) then the network's 16 bytes. */
#define ADMIT_KEY_LEN 17u

struct admit_conf {
	unsigned max_handshakes;     /* connections waiting for HELLO, all sources */
	unsigned per_prefix;         /* ... from one source prefix */
	unsigned bits4, bits6;       /* the source prefix length, IPv4 and IPv6 */
	unsigned hello_ms;           /* a connection's HELLO must arrive within */
	const struct guard_cidr *allow; /* --allow (nallow 0: any address) */
	int nallow;
	const char *token;           /* --token-file's token, "" = none */
};

/* One waiting connection (fd -1: free). */
struct admit_slot {
	int fd;
	uint8_t key[ADMIT_KEY_LEN];  /* its source prefix */
	uint64_t since_ns;           /* accepted */
	uint64_t last_ns;            /* its latest byte (or accept) */
	struct sockaddr_storage sa;
	socklen_t salen;
	size_t got;                  /* bytes of its HELLO so far */
	uint8_t buf[CTRL_HDR_LEN + (CTRL_HELLO_MAX > 2u + CTRL_REASON_CAP ? CTRL_HELLO_MAX :
						    2u + CTRL_REASON_CAP)];
};

/* Per-interval counters of one source prefix (the log limiter). */
struct admit_source {
	uint8_t key[ADMIT_KEY_LEN];
	unsigned events, logged;
};

struct admit_log {
	uint64_t start_ns;           /* this interval's start */
	struct admit_source src[ADMIT_LOG_SOURCES];
	unsigned nsrc;
	unsigned events, suppressed, others; /* others: sources beyond the table */
};

/* What admission counted (since start). */
struct admit_stats {
	uint64_t accepted, authenticated;
	uint64_t not_allowed, evicted, timed_out, bad_header, bad_hello, bad_token, peer_error;
	uint64_t accept_failures;
};

struct admit {
	struct admit_conf conf;
	struct admit_slot *slot;     /* conf.max_handshakes entries */
	struct pollfd *pfd;          /* 1 + max_handshakes: the listener, then the waiting slots */
	unsigned *pslot;             /* pfd[1 + k] is slot pslot[k] (only slots in use are
				      * polled: poll(2) refuses more entries than RLIMIT_NOFILE) */
	struct admit_log log;
	struct admit_stats st;
	uint64_t backoff_until_ns;   /* accept paused until */
	uint64_t backoff_logged_ns;  /* last "backing off" line */
	unsigned backoffs;           /* since that line */
	int nonblocking_lfd;         /* 1 + the listening socket made non-blocking, 0: none yet */
};

/* An authenticated connection: a blocking socket, its peer and its HELLO
 * (token wiped). The caller owns fd. */
struct admit_peer {
	int fd;
	struct sockaddr_storage sa;
	socklen_t salen;
	struct ctrl_hello hello;
};

/*
 * The source prefix of sa into key (ADMIT_KEY_LEN bytes): IPv4 (also
 * IPv4-mapped IPv6) cut to bits4, IPv6 to bits6. 0, or -1 for another
 * family (key zeroed: such peers share one prefix).
 */
int admit_prefix_key(const struct sockaddr *sa, unsigned bits4, unsigned bits6, uint8_t *key);

/* The prefix of key as text ("10.1.2.0/24", "fd00::/64") into out. */
void admit_key_text(const uint8_t *key, unsigned bits4, unsigned bits6, char *out, size_t len);

/*
 * Where a new connection from prefix key goes among s[0..n-1] (fd -1 =
 * free) under c's caps: returns the slot to use; *evict is that same slot
 * when its connection must be dropped first (the longest idle, by last_ns
 * then since_ns, of key's prefix when that prefix has per_prefix slots,
 * else of all when no slot is free), or -1. Never fails while n >= 1.
 */
int admit_pick(const struct admit_slot *s, unsigned n, const struct admit_conf *c,
	       const uint8_t *key, int *evict);

/*
 * The log limiter: an event of source key at now_ns. Returns true when a
 * line may be written (at most ADMIT_LOG_PER_SOURCE per source per
 * interval). *summary (len bytes) is filled, and true returned in
 * *has_summary, when this event starts a new interval after one that
 * suppressed lines: "N events from M sources in the last S s, K lines
 * suppressed (most from PREFIX: E)".
 */
bool admit_log_event(struct admit_log *l, const uint8_t *key, uint64_t now_ns,
		     unsigned bits4, unsigned bits6, char *summary, size_t len, bool *has_summary);

/*
 * A peer's text for a log line: bytes below 0x20, 0x7f and above 0x7e as
 * \xHH, a backslash as \\, at most cap bytes of in (then "..."); out is
 * always NUL-terminated. Returns strlen(out).
 */
size_t admit_escape(const char *in, size_t cap, char *out, size_t outlen);

/* Allocate the table for c (copied; c->allow and c->token must outlive a).
 * 0, or -1 with err. */
int admit_init(struct admit *a, const struct admit_conf *c, char *err, size_t errlen);
void admit_free(struct admit *a);

/*
 * Run admission on the listening socket lfd for at most timeout_ms: accept,
 * read HELLOs, drop what the rules above drop. Returns 1 with *out an
 * authenticated connection (its HELLO decoded, the token checked), 0 when
 * none is ready yet (call again), -1 only for a failure of lfd itself
 * (logged).
 */
int admit_next(struct admit *a, int lfd, int timeout_ms, struct admit_peer *out);

/* Send ERROR reason on fd without waiting (a full socket buffer drops it):
 * what admission tells a peer it refuses. */
void admit_send_error_nowait(int fd, const char *reason);

#endif /* RDMA_BENCH_ADMIT_H */
