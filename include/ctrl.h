/*
 * ctrl.h - the control channel: small versioned messages over plain TCP.
 *
 * Wire format (all integers big-endian, no padding):
 *
 *   header, 12 bytes:  u32 magic 0x52424331 ("RBC1") | u16 version (CTRL_VERSION)
 *                      | u16 type | u32 payload length (bytes after header)
 *   payload:           type-specific, fixed order, described per type below.
 *   strings:           u16 length + bytes (no NUL), length <= the field cap.
 *
 * Version 2 added the token to HELLO and the nonce to SETUP. A header's length is checked against
 * its type's own limit (ctrl_max_payload) before any payload byte is read or
 * any buffer grown. Peer strings never reach a log, the table or a CSV row
 * with control bytes (below 0x20, or 0x7f): HELLO strings holding one are
 * refused, an ERROR reason or DONE note has them replaced by '?'.
 *
 * Every message is checked on receipt: magic, version, known type, payload
 * length within CTRL_MAX_PAYLOAD and exactly equal to what the type's fields
 * need (a SETUP's QP count must match its length), strings within their cap.
 * A failure is a clear message in err and the session is closed; a server
 * keeps serving others.
 *
 * ctrl_decode() is pure: no allocation, no I/O, no globals; the QP list of a
 * SETUP is left in the caller's buffer and read with ctrl_setup_qp(). It is
 * the entry point for fuzzing.
 *
 * Session (client C, server S):
 *   C->S HELLO, S->C HELLO
 *   per point: C->S TEST; S->C SETUP (or ERROR); C->S SETUP; S->C READY;
 *              the test runs; C->S DONE (client counts); S->C DONE (server
 *              counts and checks); S->C CPU (the server's CPU counters)
 *   with --procs N > 1 (N client processes share the run id), after READY
 *   and the client's warm-up: C->S GATE (ready at the start barrier); the
 *   server answers GO when all N processes of that run id and point have
 *   sent GATE (or ERROR when they did not within the point's --timeout);
 *   every process starts its measured window at GO (bench/lib/gate.c). Before
 *   GATE, and after the window before DONE, the client may send TIME probes,
 *   each answered at once with TIME (the server's clock), to learn the
 *   offset of the two clocks.
 * Version 2 added GATE, GO and TIME (version 1 had types 1..7 only);
 * version 3 added CPU (a version 2 peer is refused at its HELLO); version 4
 * added GATE's go_us (the adaptive lead of the start barrier, gate.h);
 * version 5 added DONE's arrive_ns and send_ns; version 6 added CONFIG
 * (an application program's point: rdma_seq's configuration, which
 * earlier versions carried in TEST fields of other meanings); version 7
 * added HELLO's run_key (the start barrier's key, gate.h) and DONE's
 * foreign_recvs.
 *   C->S BYE.  Either side may send ERROR (reason) at any time, then closes.
 */
#ifndef RDMA_BENCH_CTRL_H
#define RDMA_BENCH_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "cpustat.h"
#include "options.h"
#include "perfcount.h"

#define CTRL_MAGIC        UINT32_C(0x52424331)
#define CTRL_VERSION      7u
#define CTRL_HDR_LEN      12u
#define CTRL_MAX_QPS      RB_MAX_QPS_TOTAL
#define CTRL_SETUP_FIXED  76u                     /* SETUP bytes before the QP list */
#define CTRL_QP_LEN       8u                      /* u32 qpn, u32 psn */
#define CTRL_MAX_PAYLOAD  (CTRL_SETUP_FIXED + CTRL_MAX_QPS * CTRL_QP_LEN)
#define CTRL_STR_CAP      64u                     /* host, run_id, device */
#define CTRL_REASON_CAP   1024u                   /* ERROR reason, DONE note */
#define CTRL_TOKEN_CAP    RB_TOKEN_CAP            /* HELLO token */

enum ctrl_type {
	CTRL_HELLO = 1,
	CTRL_TEST = 2,
	CTRL_SETUP = 3,
	CTRL_READY = 4,
	CTRL_DONE = 5,
	CTRL_ERROR = 6,
	CTRL_BYE = 7,
	CTRL_GATE = 8,
	CTRL_GO = 9,
	CTRL_TIME = 10,
	CTRL_CPU = 11,
	CTRL_CONFIG = 12,
};
#define CTRL_TYPE_LAST CTRL_CONFIG   /* types are 1..CTRL_TYPE_LAST */

/*
 * The programs that speak this protocol. rdma_bench's point is TEST (its
 * fields: RB_TEST_FIELDS in options.h); every other program sends its point
 * as CONFIG with its own id and its own configuration version, so that no
 * field of one program's message carries another's meaning. Ids are
 * assigned here, once, so two programs never share one: a new program is
 * one line of CTRL_PROGRAMS(X): X(NAME, next id, "its name").
 */
#define CTRL_PROGRAMS(X)                                                  \
	X(RDMA_BENCH, 1, "rdma_bench")  /* its point is TEST, not CONFIG */ \
	X(RDMA_SEQ, 2, "rdma_seq")      /* SEQ_CFG_FIELDS (bench/apps/seq/seq.h) */
enum ctrl_program {
#define CTRL_X_PROG(id, n, name) CTRL_PROG_##id = n,
	CTRL_PROGRAMS(CTRL_X_PROG)
#undef CTRL_X_PROG
};
/* Ids are 1, 2, ... in CTRL_PROGRAMS order: the last is their count. */
#define CTRL_X_COUNT(id, n, name) +1
enum { CTRL_PROG_LAST = 0 CTRL_PROGRAMS(CTRL_X_COUNT) };
#undef CTRL_X_COUNT
/* "rdma_bench", "rdma_seq"; "?" for an id not assigned. */
const char *ctrl_program_name(uint16_t program);

/*
 * CONFIG (client -> server, protocol version 6): one point of an
 * application program, in place of TEST.
 *   u16 program | u16 version | u32 nfields | nfields x u64
 * program: enum ctrl_program (not rdma_bench's, whose point is TEST);
 * version: that program's own configuration version (1 and up); nfields
 * 1..CTRL_CONFIG_MAX_FIELDS, the payload exactly 8 + 8 * nfields bytes.
 * The fields' names and meaning are the program's alone (its X-macro, e.g.
 * SEQ_CFG_FIELDS); the decoder checks only this shape, and the receiving
 * program checks the id, version and count (ctrl_config_expect) before it
 * reads a field.
 */
#define CTRL_CONFIG_MAX_FIELDS 64u
#define CTRL_CONFIG_FIXED      8u
struct ctrl_config {
	uint16_t program, version;
	uint32_t nfields;
	uint64_t f[CTRL_CONFIG_MAX_FIELDS];
};
/*
 * The receiver's check of a decoded CONFIG: it is program's (else "a
 * <name> point, and this server is <program's name>: ..."), its version is
 * version, and it has nfields fields. 0, or -1 with err naming what differs
 * and the fix (the same program and version at both ends).
 */
int ctrl_config_expect(const struct ctrl_config *c, uint16_t program, uint16_t version,
		       uint32_t nfields, char *err, size_t errlen);

/*
 * A configuration refused before anything is measured (a value above a
 * device cap, below what the point needs, or a mismatch of the two ends)
 * is a usage error whichever side detects it: the server's ERROR reason
 * starts with this prefix; the client's row says "refused by the client: "
 * or "refused by the server: " and the reason, status "skipped", and the
 * run exits 2 (docs/rdma_bench.md, "Exit status"). Every program's server
 * and client keep this convention.
 */
#define RB_REFUSED_PREFIX "refused: "

/* Client processes one start barrier can hold (--procs). */
#define CTRL_MAX_PROCS    4096u

/*
 * GATE (client -> server, 16 bytes): u64 point | u32 procs | u32 go_us.
 * The client's setup and warm-up are done; it waits at the start barrier of
 * (its HELLO's run_id, point) until procs processes are there. point: the
 * client's point number in its session order (size x repetition, from 0),
 * the same in every process of the run; procs 2..CTRL_MAX_PROCS. go_us:
 * how long this session's previous GO can have been on its way, in us,
 * rounded up: the client's time from sending that GATE to having its GO
 * minus the server's hold (GO's release_ns - arrive_ns), i.e. both one-way
 * delays (an upper bound of GO's); at the session's first GATE, the longest
 * round trip of its clock probes (TIME) instead; 0 = neither. The server
 * sizes the next lead from it (gate_lead_ns).
 */
struct ctrl_gate {
	uint64_t point;
	uint32_t procs;
	uint32_t go_us;
};

/*
 * GO (server -> client, 28 bytes): u64 arrive_ns | u64 release_ns |
 * u64 start_ns | u32 procs.
 * The barrier released: arrive_ns is the server's clock (CLOCK_MONOTONIC_RAW,
 * ns) when this client's GATE arrived, release_ns when this GO was sent (the
 * last of procs processes had arrived), start_ns when every process's
 * measured window starts (a lead after the release, so that GO reaches
 * every process first); arrive_ns <= release_ns <= start_ns. The client's
 * own send and receive times with arrive_ns and release_ns give one sample
 * of the offset of the two clocks (gate_clock_offset in gate.h).
 */
struct ctrl_go {
	uint64_t arrive_ns, release_ns, start_ns;
	uint32_t procs;
};

/*
 * TIME (8 bytes): u64 ns. Client -> server: a clock probe (the client's
 * clock, for its own logs); server -> client: the server's clock
 * (CLOCK_MONOTONIC_RAW, ns) when the probe arrived. The probe with the
 * shortest round trip gives the best offset (gate_clock_offset).
 */
struct ctrl_time {
	uint64_t ns;
};

/*
 * HELLO: u64 proc_index | u32 pid | str host | str run_id | str device |
 *        str token (<= CTRL_TOKEN_CAP; "" = none; the server's reply sends "") |
 *        str run_key (<= CTRL_TOKEN_CAP; "" = none; the server's reply sends "")
 * run_key (protocol version 7): the secret the processes of one run share
 * (--run-key-file): the server keys a start barrier by (run_id, run_key,
 * point), so a peer that knows a run's id but not its key never joins (or
 * fails) that run's barrier (gate.h). Never logged.
 */
struct ctrl_hello {
	uint64_t proc_index;
	uint32_t pid;
	char host[CTRL_STR_CAP + 1];
	char run_id[CTRL_STR_CAP + 1];
	char device[CTRL_STR_CAP + 1];
	char token[CTRL_TOKEN_CAP + 1];
	char run_key[CTRL_TOKEN_CAP + 1];
};
#define CTRL_HELLO_MAX    (8u + 4u + 3u * (2u + CTRL_STR_CAP) + 2u * (2u + CTRL_TOKEN_CAP))

/*
 * SETUP: one side's endpoint for a point, 76 fixed bytes then the QPs:
 *   u8 port | u8 link_layer (1 IB, 2 Ethernet) | u8 gid_type (0 IB, 1 RoCE v1,
 *   2 RoCE v2) | u8 reserved (0) | u32 gid_index | u16 lid | u16 reserved (0) |
 *   u8 gid[16] | u32 active_mtu (bytes) | u32 max_qp_rd_atom |
 *   u32 max_qp_init_rd_atom | u64 buf_addr | u32 rkey | u32 qkey |
 *   u64 buf_len | u64 nonce | u32 nqp | nqp x (u32 qpn | u32 psn)
 * psn < 2^24, active_mtu one of 256..4096, nqp <= CTRL_MAX_QPS. nonce: 64
 * random bits per point and side (getrandom); with -R the server's is in
 * every connect request's private data (cm.h).
 */
struct ctrl_setup {
	uint8_t port, link_layer, gid_type;
	uint32_t gid_index;
	uint16_t lid;
	uint8_t gid[16];
	uint32_t active_mtu;
	uint32_t max_qp_rd_atom, max_qp_init_rd_atom;
	uint64_t buf_addr;
	uint32_t rkey, qkey;
	uint64_t buf_len;
	uint64_t nonce;
	uint32_t nqp;
	const uint8_t *qps;  /* decode: points into the caller's buffer; encode: unused */
};

struct ctrl_qp_ep {
	uint32_t qpn, psn;
};

/*
 * DONE: u64 ops | u64 sends | u64 recvs | u64 bad_payloads | u64 counter_sum |
 *       u64 atomic_success | u64 active_ns | u64 arrive_ns | u64 send_ns |
 *       u32 checked (0 not checked, 1 passed, 2 failed) | str note
 *       (<= CTRL_REASON_CAP) | u64 ctr_span_ns | u16 nctr (<= CTRL_MAX_CTRS) |
 *       nctr x (u16 index < CTRL_MAX_CTRS | u64 delta) | u64 foreign_recvs
 * Client: ops completed over all phases, sends posted and completed, atomic
 * successes. Server: receives seen, payloads that failed the check, sum of
 * atomic counters, time from first to last receive, and on its clock
 * (CLOCK_MONOTONIC_RAW ns) when the client's DONE arrived and when it sent
 * its own: the round trip of the two DONEs is a clock-offset sample as a
 * TIME probe's is, its hold send_ns - arrive_ns left out (gate.h
 * gate_clock_offset; protocol version 5). The client sends 0 in both.
 * The last fields (appended after version 5): the server's port counters
 * over the common window (read when the start barrier released this
 * process, or at READY without one, and when its DONE arrived, ctr_span_ns
 * apart; CLOCK_MONOTONIC_RAW ns): nctr deltas, each an index into dev_counter_names (device.h; an index this
 * side does not know is ignored by the reader) and after - before. The
 * client sends ctr_span_ns 0 and nctr 0. foreign_recvs (protocol 7): the
 * server's UD receives whose source QP is not the client's QP of that
 * QP pair (another host's or session's SENDs that passed the point's Q_Key:
 * not counted in recvs); the client sends 0.
 */
#define CTRL_MAX_CTRS 64u
#define CTRL_DONE_MAX (9u * 8u + 4u + 2u + CTRL_REASON_CAP + 8u + 2u + CTRL_MAX_CTRS * 10u + 8u)
struct ctrl_done {
	uint64_t ops, sends, recvs, bad_payloads, counter_sum, atomic_success, active_ns;
	uint64_t arrive_ns, send_ns;
	uint32_t checked;
	char note[CTRL_REASON_CAP + 1];
	uint64_t ctr_span_ns;
	uint16_t nctr;
	uint16_t ctr_idx[CTRL_MAX_CTRS];
	uint64_t ctr_delta[CTRL_MAX_CTRS];
	uint64_t foreign_recvs;
};

/*
 * CPU (server -> client, right after the server's DONE): the server's own
 * CPU counters over its served span, so that one row holds both ends.
 *   u64 span_ns | u32 threads | PC_NEVENTS x (u8 state | u64 value) |
 *   u32 ncpus | u64 user | u64 system | u64 irq | u64 softirq | u64 total |
 *   str reason (<= CTRL_CPU_REASON_CAP)
 * span_ns: from the server's READY to the client's DONE arriving (the
 * client's warm-up and window; CLOCK_MONOTONIC_RAW ns). threads: the
 * threads whose perf counters are summed (the session's control thread and
 * its workers), 1..RB_MAX_THREADS + 1. Per event in enum pc_event order:
 * state bit 0 counted, bit 1 scaled (multiplexed), bit 2 user space only;
 * an event not counted has state 0 and value 0. ncpus .. total: the
 * /proc/stat ticks of the server's CPUs over the span (struct cs_delta;
 * ncpus 0: not measured, every tick field 0; else user + system + irq +
 * softirq <= total). reason: why the first uncounted event, or the CPU
 * ticks, are missing ("" when nothing is); control bytes replaced by '?'.
 */
#define CTRL_CPU_REASON_CAP 256u
#define CTRL_CPU_MAX_CPUS   65536u
#define CTRL_CPU_STATE_COUNTED   1u
#define CTRL_CPU_STATE_SCALED    2u
#define CTRL_CPU_STATE_USER_ONLY 4u
#define CTRL_CPU_LEN(reason_len) \
	(8u + 4u + PC_NEVENTS * 9u + 4u + 5u * 8u + 2u + (reason_len))
struct ctrl_cpu {
	uint64_t span_ns;
	uint32_t threads;
	uint8_t state[PC_NEVENTS];
	uint64_t value[PC_NEVENTS];
	struct cs_delta stat;
	char reason[CTRL_CPU_REASON_CAP + 1];
};

/* A summed perf sample into c's events (state, value; the first invalid
 * event's reason into c->reason when it is empty), and back: a sample
 * whose invalid events carry c->reason prefixed "server: ". Pure. */
void ctrl_cpu_from_sample(struct ctrl_cpu *c, const struct pc_sample *s);
void ctrl_cpu_to_sample(const struct ctrl_cpu *c, struct pc_sample *s);

/* Copy a decoded SETUP (whose qps point into the receive buffer, which a
 * later receive reuses) to *dst, its QP list into *qps (nqp x CTRL_QP_LEN
 * bytes, malloc'd here, freed by the caller; dst->qps points at it).
 * 0, or -1 with err (out of memory). */
int ctrl_setup_copy(struct ctrl_setup *dst, const struct ctrl_setup *src, uint8_t **qps,
		    char *err, size_t errlen);

/* ERROR: str reason (<= CTRL_REASON_CAP). */
struct ctrl_error {
	char reason[CTRL_REASON_CAP + 1];
};

struct ctrl_msg {
	uint16_t type;
	uint32_t len;          /* payload length */
	union {
		struct ctrl_hello hello;
		struct rb_test test;   /* TEST: RB_TEST_NFIELDS x u64 in RB_TEST_FIELDS order */
		struct ctrl_setup setup;
		struct ctrl_done done;
		struct ctrl_error error;
		struct ctrl_gate gate;
		struct ctrl_go go;
		struct ctrl_time time;
		struct ctrl_cpu cpu;
		struct ctrl_config config;
	} u;
};

const char *ctrl_type_name(uint16_t type);

/* The largest payload a message of this type can have (bytes); the header
 * check refuses a longer one before anything is allocated. */
uint32_t ctrl_max_payload(uint16_t type);

/*
 * Check a 12-byte header: magic, version, known type, payload length <=
 * ctrl_max_payload(type). Returns 0 with *type, *len set, or -1 with err.
 */
int ctrl_decode_header(const uint8_t *buf, size_t len, uint16_t *type, uint32_t *plen,
		       char *err, size_t errlen);

/*
 * Decode one whole message (header + payload, exactly len bytes). Pure, no
 * allocation. Returns 0 with *out filled, or -1 with err naming what is
 * wrong (bad magic/version, truncated, oversized, trailing bytes, field out
 * of range, string too long, QP count inconsistent with length).
 */
int ctrl_decode(const uint8_t *buf, size_t len, struct ctrl_msg *out, char *err, size_t errlen);

/* QP i (< m->u.setup.nqp) of a decoded SETUP. */
void ctrl_setup_qp(const struct ctrl_setup *s, uint32_t i, struct ctrl_qp_ep *out);

/*
 * Encoders: write header + payload into buf (cap bytes); return the total
 * length, or 0 if cap is too small or a field cannot be encoded (string
 * longer than its cap is truncated to it; nqp above CTRL_MAX_QPS fails).
 */
size_t ctrl_encode_hello(uint8_t *buf, size_t cap, const struct ctrl_hello *h);
size_t ctrl_encode_test(uint8_t *buf, size_t cap, const struct rb_test *t);
size_t ctrl_encode_setup(uint8_t *buf, size_t cap, const struct ctrl_setup *s,
			 const struct ctrl_qp_ep *qps);
size_t ctrl_encode_done(uint8_t *buf, size_t cap, const struct ctrl_done *d);
size_t ctrl_encode_error(uint8_t *buf, size_t cap, const char *reason);
size_t ctrl_encode_empty(uint8_t *buf, size_t cap, uint16_t type); /* READY, BYE */
size_t ctrl_encode_gate(uint8_t *buf, size_t cap, const struct ctrl_gate *g);
size_t ctrl_encode_go(uint8_t *buf, size_t cap, const struct ctrl_go *g);
size_t ctrl_encode_time(uint8_t *buf, size_t cap, uint64_t ns);
size_t ctrl_encode_cpu(uint8_t *buf, size_t cap, const struct ctrl_cpu *c);
/* CONFIG; 0 also for program rdma_bench or an id not assigned, version 0,
 * or nfields outside 1..CTRL_CONFIG_MAX_FIELDS. */
size_t ctrl_encode_config(uint8_t *buf, size_t cap, const struct ctrl_config *c);
/* Bytes a SETUP with nqp QPs needs. */
size_t ctrl_setup_size(uint32_t nqp);

/* ---- socket side (bench/lib/ctrl_sock.c) ---------------------------------- */

/*
 * Turn Nagle's algorithm off on a control socket (TCP_NODELAY; errors
 * ignored: it only costs time). Both ends need it: the server answers a
 * DONE with two messages (DONE, then CPU), and with Nagle on the second
 * waited for the ACK of the first, which the client's delayed ACK held
 * back ~40 ms (the client timeline's done stage: 59 ms, DONE itself 10).
 * ctrl_connect sets it; a server calls it on every accepted socket.
 */
void ctrl_nodelay(int fd);

/*
 * Connect to host:port, retrying refused/unreachable attempts every 200 ms
 * for up to timeout_s seconds (a server that is still starting: a runner
 * starts both ends at once); after the first failed attempt an INFO line
 * names host:port, the error and the wait. Returns the socket or -1 with
 * err saying what was tried and the last error.
 */
int ctrl_connect(const char *host, uint16_t port, unsigned timeout_s, char *err, size_t errlen);

/*
 * Before a server opens its device: does bind_addr ("" = all addresses,
 * always fine) resolve, and to an address of this host (a test bind to
 * port 0)? 0, or -1 with err naming the value and the fix. Errors other
 * than "not an address of this host" are left to ctrl_listen.
 */
int ctrl_bind_check(const char *bind_addr, char *err, size_t errlen);

/* Listen on bind_addr ("" = all: IPv6 any with IPv4-mapped, else IPv4 any). */
int ctrl_listen(const char *bind_addr, uint16_t port, char *err, size_t errlen);

/* Write all of buf within timeout_ms. 0 or -1 with err. */
int ctrl_send(int fd, const uint8_t *buf, size_t len, int timeout_ms, char *err, size_t errlen);

/*
 * Receiving: buffer owned by the caller, grown as needed (up to the max
 * message) and reused between calls.
 */
struct ctrl_rbuf {
	uint8_t *buf;
	size_t cap;
};
void ctrl_rbuf_free(struct ctrl_rbuf *rb);

/*
 * Receive one message within timeout_ms, waiting for `what` (named in the
 * timeout message). Returns:
 *   0  message decoded into *out (out->u.setup.qps points into rb)
 *  -1  error: err says what (timeout, peer closed, bad message)
 *  -2  the peer sent ERROR: err holds "peer: <reason>"
 * If expect != 0 and another type arrives (other than ERROR), that is -1.
 */
int ctrl_recv(int fd, struct ctrl_rbuf *rb, struct ctrl_msg *out, uint16_t expect,
	      int timeout_ms, const char *what, char *err, size_t errlen);

/* Best effort: send ERROR with reason (ignores failures). */
void ctrl_send_error(int fd, const char *reason);

/* Send a message built by one of the encoders into a stack buffer. */
int ctrl_send_simple(int fd, uint16_t type, int timeout_ms, char *err, size_t errlen);

#endif /* RDMA_BENCH_CTRL_H */
