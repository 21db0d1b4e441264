/*
 * verb.h - the verb table: one row per verb, every fact about it in one
 * place. Parsing (--verb NAME), validation, QP setup, WR building, the
 * posting loops, the end-of-test checks and the CSV columns read the row;
 * none of them names a verb.
 *
 * Adding a verb: an RB_VERB_* code below (before RB_VERB_COUNT) and its
 * row in bench/lib/verb.c; tests/unit/test_verb.c then checks the row against
 * the IB spec's verb x transport matrix and that --verb NAME reaches it.
 * tests/unit/verb_dummy.c walks this recipe: built with RB_VERB_TEST_DUMMY,
 * the table has one more row, which the parser and validation take with
 * no other change.
 *
 * Sources: IB spec vol. 1 r1.4 section 9.4 (operations), table 9.7.1 /
 * "transport service types" (which transport has which operation: the
 * paper's Table 1, RC all, UC SEND and WRITE, UD SEND only), 10.6.3.2
 * (memory access rights), 11.4.1.1 (post send: opcodes, immediate data,
 * inline).
 */
#ifndef RDMA_BENCH_VERB_H
#define RDMA_BENCH_VERB_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

enum rb_verb {
	RB_VERB_READ = 0,
	RB_VERB_WRITE,
	RB_VERB_WRITE_IMM,
	RB_VERB_SEND,
	RB_VERB_SEND_IMM,
	RB_VERB_FETCH_ADD,
	RB_VERB_CMP_SWAP,
#ifdef RB_VERB_TEST_DUMMY
	RB_VERB_DUMMY,      /* only in tests/unit/verb_dummy.c's build: the recipe walked */
#endif
	RB_VERB_COUNT
};

/* --verb's default (the knob table's row reads it) */
#define RB_DEFAULT_VERB RB_VERB_WRITE

enum rb_transport { RB_TR_RC = 0, RB_TR_UC, RB_TR_UD, RB_TR_COUNT };

/* Which slot of a QP's region (ctx.h) the local SGE of a send WR points at. */
enum rb_verb_slot {
	RB_SLOT_SEND = 0,   /* the payload leaves from the send slot (WRITE, SEND) */
	RB_SLOT_RECV,       /* the data lands in the local slot (READ's destination) */
	RB_SLOT_RESULT,     /* 8-byte atomic results, a ring of sq_depth in the send slot */
};

/* What the server's worker threads do during a point (none: the server's
 * CPU stays out of the data path, as with READ and atomics). */
enum rb_verb_serve {
	RB_SERVE_NONE = 0,
	RB_SERVE_RECVS,      /* repost and check every receive (verbs consuming a RECV) */
	RB_SERVE_PONG_LAT,   /* lat only: answer each WRITE by a WRITE (ping-pong on a byte) */
};

enum rb_verb_lat { RB_LAT_RTT = 0, RB_LAT_ONE_WAY };

struct rb_verb_row {
	const char *name;          /* --verb NAME and the CSV "verb" column */
	enum ibv_wr_opcode opcode; /* IB spec 11.4.1.1 */
	bool on[RB_TR_COUNT];      /* transports that have it: RC, UC, UD (IB spec 9.4) */
	bool atomic;               /* 8-byte atomic on a remote counter (IB spec 9.4.5) */
	bool consumes_recv;        /* the responder consumes a receive WR */
	bool imm;                  /* carries 32 bits of immediate data */
	bool rdma;                 /* names a remote address + rkey, data to the remote region */
	bool inline_ok;            /* a local payload the WQE may carry (IBV_SEND_INLINE) */
	bool rd_atomic;            /* the responder returns data: takes max_rd_atomic resources */
	bool lat_polls_byte;       /* lat ping-pong polls the payload's last byte (no CQE) */
	uint64_t min_size;         /* smallest --size that moves anything */
	int server_access;         /* IBV_ACCESS_* the server's MR and QPs grant */
	int client_lat_access;     /* ...and the client's in lat (target of WRITE replies) */
	enum rb_verb_lat lat;      /* "rtt": one op is a round trip; "one_way": rtt / 2 */
	enum rb_verb_serve serve;  /* what the server's workers do */
	enum rb_verb_slot slot;    /* local slot of its SGE */
	/* Hooks (NULL: the verb has none). */
	/* Per post: the atomic operands of wr for the counter's expected value. */
	void (*atomic_operands)(struct ibv_send_wr *wr, uint64_t expect);
	/* End of test: bytes of the peer's pattern this side's region must hold
	 * (server: the server's side; lat: a lat test; size: --size); false
	 * when this side has nothing to check in its region. */
	bool (*region_check)(bool server, bool lat, uint64_t size, uint64_t *len);
	/* End of test: the sum the remote counters must have, from the
	 * completed ops and the successful compares; counter_what names it. */
	uint64_t (*counter_want)(uint64_t ops, uint64_t successes);
	const char *counter_what;
	bool counts_success;       /* compares: the old value tells success (CMP_SWAP) */
};

/* The table, indexed by RB_VERB_* (bench/lib/verb.c). */
extern const struct rb_verb_row rb_verb_rows[RB_VERB_COUNT];

/* The row of verb v; NULL for v >= RB_VERB_COUNT. Inline: the posting and
 * polling loops ask it per WR. */
static inline const struct rb_verb_row *verb_row(uint64_t v)
{
	return v < RB_VERB_COUNT ? &rb_verb_rows[v] : NULL;
}

/* Verb code of a --verb name, or -1 for an unknown name. */
int verb_by_name(const char *name);

/* The row's name, "?" for an unknown code. */
const char *verb_name(uint64_t v);

/* Does transport tr (RB_TR_*) have verb v? Out-of-range codes: false. */
bool verb_on_transport(uint64_t v, uint64_t tr);

/* The names of the verbs transport tr has, in table order, joined by '|'
 * ("send|send_imm" for UD), into buf (cut after the last name that fits in len); returns buf. */
const char *verb_names_on(uint64_t tr, char *buf, size_t len);

/* Remote access this side's MR and QPs grant (IB spec 10.6.3.2 memory
 * access rights, 11.2.8.1 QP access flags): the server what the verb needs,
 * the client only what the lat ping-pong replies need. IBV_ACCESS_* bits. */
int verb_access(uint64_t v, bool server, bool lat);

/* Does a worker of this side get a receive CQ and receive WRs? Verbs that
 * consume a receive, on the server always and on the client in lat tests
 * (the ping-pong replies). */
bool verb_has_recv(uint64_t v, bool server, bool lat);

/* Does the server run worker threads for this verb and test kind? */
bool verb_server_works(uint64_t v, bool lat);

/* Short forms the loops ask per WR (the row's fields). */
static inline bool verb_is_atomic(uint64_t v)
{
	return v < RB_VERB_COUNT && rb_verb_rows[v].atomic;
}
bool verb_needs_recv(uint64_t v);      /* consumes a receive WR */
bool verb_is_rdma(uint64_t v);         /* needs remote addr + rkey */
/* Latency kind: "rtt" (READ, atomics) or "one_way" (SEND, WRITE ping-pong:
 * rtt / 2); "?" for an unknown code. */
const char *verb_lat_kind(uint64_t v);

/* --list-verbs: the table, one line per verb in table order, 7
 * tab-separated fields: name; the transports that have it, comma-separated
 * (rc,uc,ud; the paper's Table 1, IB spec 9.4); kind (rdma: names a remote
 * address and rkey; atomic: an 8-byte atomic on a remote counter; message:
 * consumes the peer's RECV); imm (carries 32 bits of immediate) or -; recv
 * (the responder consumes a RECV) or -; inline (a local payload the WQE may
 * carry) or -; latency kind (rtt or one_way). docs/rdma_bench.md, "Verb
 * list". Writes to f; no error is reported (a stdio stream's). */
void verb_list(FILE *f);

#endif /* RDMA_BENCH_VERB_H */
