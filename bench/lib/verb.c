/*
 * verb.c - the verb table (verb.h) and its hooks: what each verb is,
 * written once. Every other file asks a row; a new verb is a code in
 * verb.h and a row here.
 */
#include <stdio.h>
#include <string.h>

#include "verb.h"

/* ---- hooks ---------------------------------------------------------------- */

/* FETCH_ADD adds 1 to the counter (IB spec 9.4.5.2). */
static void fetch_add_operands(struct ibv_send_wr *wr, uint64_t expect)
{
	(void)expect;
	wr->wr.atomic.compare_add = 1;
}

/* CMP_SWAP: expect -> expect + 1, so a success adds exactly 1 (9.4.5.1). */
static void cmp_swap_operands(struct ibv_send_wr *wr, uint64_t expect)
{
	wr->wr.atomic.compare_add = expect;
	wr->wr.atomic.swap = expect + 1;
}

static uint64_t want_ops(uint64_t ops, uint64_t successes)
{
	(void)successes;
	return ops;
}

static uint64_t want_successes(uint64_t ops, uint64_t successes)
{
	(void)ops;
	return successes;
}

/* READ: the client's slots hold the server's send slot. */
static bool read_check(bool server, bool lat, uint64_t size, uint64_t *len)
{
	(void)lat;
	*len = size;
	return !server;
}

/* WRITE: the server's receive slot holds the client's payload; in lat the
 * client's too (the server's replies), the last byte being the ping-pong
 * tag, not the pattern. */
static bool write_check(bool server, bool lat, uint64_t size, uint64_t *len)
{
	*len = lat ? size - 1 : size;
	return server || lat;
}

/* WRITE_IMM: as WRITE, but the immediate carries the ping-pong, so every
 * byte is pattern. */
static bool write_imm_check(bool server, bool lat, uint64_t size, uint64_t *len)
{
	*len = size;
	return server || lat;
}

/* ---- the table ------------------------------------------------------------ */

#define RW IBV_ACCESS_REMOTE_WRITE

const struct rb_verb_row rb_verb_rows[RB_VERB_COUNT] = {
	[RB_VERB_READ] = {
		.name = "read", .opcode = IBV_WR_RDMA_READ, .on = { true, false, false },
		.rdma = true, .rd_atomic = true, .min_size = 1,
		.server_access = IBV_ACCESS_REMOTE_READ, .lat = RB_LAT_RTT,
		.serve = RB_SERVE_NONE, .slot = RB_SLOT_RECV, .region_check = read_check,
	},
	[RB_VERB_WRITE] = {
		.name = "write", .opcode = IBV_WR_RDMA_WRITE, .on = { true, true, false },
		.rdma = true, .inline_ok = true, .lat_polls_byte = true,
		.server_access = RW, .client_lat_access = RW, .lat = RB_LAT_ONE_WAY,
		.serve = RB_SERVE_PONG_LAT, .slot = RB_SLOT_SEND, .region_check = write_check,
	},
	[RB_VERB_WRITE_IMM] = {
		.name = "write_imm", .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.on = { true, true, false }, .consumes_recv = true, .imm = true, .rdma = true,
		.inline_ok = true, .server_access = RW, .client_lat_access = RW,
		.lat = RB_LAT_ONE_WAY, .serve = RB_SERVE_RECVS, .slot = RB_SLOT_SEND,
		.region_check = write_imm_check,
	},
	[RB_VERB_SEND] = {
		.name = "send", .opcode = IBV_WR_SEND, .on = { true, true, true },
		.consumes_recv = true, .inline_ok = true, .lat = RB_LAT_ONE_WAY,
		.serve = RB_SERVE_RECVS, .slot = RB_SLOT_SEND,
	},
	[RB_VERB_SEND_IMM] = {
		.name = "send_imm", .opcode = IBV_WR_SEND_WITH_IMM, .on = { true, true, true },
		.consumes_recv = true, .imm = true, .inline_ok = true, .lat = RB_LAT_ONE_WAY,
		.serve = RB_SERVE_RECVS, .slot = RB_SLOT_SEND,
	},
	[RB_VERB_FETCH_ADD] = {
		.name = "fetch_add", .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.on = { true, false, false }, .atomic = true, .rd_atomic = true,
		.server_access = IBV_ACCESS_REMOTE_ATOMIC, .lat = RB_LAT_RTT,
		.serve = RB_SERVE_NONE, .slot = RB_SLOT_RESULT,
		.atomic_operands = fetch_add_operands, .counter_want = want_ops,
		.counter_what = "fetch_adds completed",
	},
	[RB_VERB_CMP_SWAP] = {
		.name = "cmp_swap", .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.on = { true, false, false }, .atomic = true, .rd_atomic = true,
		.server_access = IBV_ACCESS_REMOTE_ATOMIC, .lat = RB_LAT_RTT,
		.serve = RB_SERVE_NONE, .slot = RB_SLOT_RESULT,
		.atomic_operands = cmp_swap_operands, .counter_want = want_successes,
		.counter_what = "successful cmp_swaps", .counts_success = true,
	},
#ifdef RB_VERB_TEST_DUMMY
	[RB_VERB_DUMMY] = {   /* a SEND by another name, RC only (tests/unit/verb_dummy.c) */
		.name = "dummy", .opcode = IBV_WR_SEND, .on = { true, false, false },
		.consumes_recv = true, .inline_ok = true, .lat = RB_LAT_ONE_WAY,
		.serve = RB_SERVE_RECVS, .slot = RB_SLOT_SEND,
	},
#endif
};

#undef RW

/* ---- lookups -------------------------------------------------------------- */

/* Each lookup goes through verb_row, the one bound check of the table: a verb
 * code from the wire or a caller past the table is "no such verb", never a
 * read past its end. */

int verb_by_name(const char *name)
{
	for (int v = 0; v < RB_VERB_COUNT; v++)
		if (strcmp(rb_verb_rows[v].name, name) == 0)
			return v;
	return -1;
}

const char *verb_name(uint64_t v)
{
	const struct rb_verb_row *r = verb_row(v);
	return r ? r->name : "?";
}

bool verb_on_transport(uint64_t v, uint64_t tr)
{
	const struct rb_verb_row *r = verb_row(v);
	return r && tr < RB_TR_COUNT && r->on[tr];
}

const char *verb_names_on(uint64_t tr, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned v = 0; v < RB_VERB_COUNT && len; v++)
		if (verb_on_transport(v, tr)) {
			int k = snprintf(buf + n, len - n, "%s%s", n ? "|" : "", rb_verb_rows[v].name);
			if (k < 0 || (size_t)k >= len - n) {
				buf[n] = '\0'; /* cut at a name: no part of one */
				break;
			}
			n += (size_t)k;
		}
	return buf;
}

int verb_access(uint64_t v, bool server, bool lat)
{
	const struct rb_verb_row *r = verb_row(v);
	if (!r)
		return 0;
	if (server)
		return r->server_access;
	return lat ? r->client_lat_access : 0;
}

bool verb_has_recv(uint64_t v, bool server, bool lat)
{
	return verb_needs_recv(v) && (server || lat);
}

bool verb_server_works(uint64_t v, bool lat)
{
	const struct rb_verb_row *r = verb_row(v);
	if (!r)
		return false;
	return r->serve == RB_SERVE_RECVS || (lat && r->serve == RB_SERVE_PONG_LAT);
}

bool verb_needs_recv(uint64_t v)
{
	const struct rb_verb_row *r = verb_row(v);
	return r && r->consumes_recv;
}

bool verb_is_rdma(uint64_t v)
{
	const struct rb_verb_row *r = verb_row(v);
	return r && r->rdma;
}

const char *verb_lat_kind(uint64_t v)
{
	const struct rb_verb_row *r = verb_row(v);
	if (!r)
		return "?";
	return r->lat == RB_LAT_RTT ? "rtt" : "one_way";
}

/* ---- --list-verbs --------------------------------------------------------- */

void verb_list(FILE *f)
{
	static const char *const tr_names[RB_TR_COUNT] = { "rc", "uc", "ud" };

	for (unsigned v = 0; v < RB_VERB_COUNT; v++) {
		const struct rb_verb_row *r = &rb_verb_rows[v];
		char trs[16] = "";
		size_t n = 0;

		for (unsigned t = 0; t < RB_TR_COUNT; t++)
			if (r->on[t])
				n += (size_t)snprintf(trs + n, sizeof(trs) - n, "%s%s", n ? "," : "",
						      tr_names[t]);
		fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r->name, n ? trs : "-",
			r->atomic ? "atomic" : r->rdma ? "rdma" : "message", r->imm ? "imm" : "-",
			r->consumes_recv ? "recv" : "-", r->inline_ok ? "inline" : "-",
			verb_lat_kind(v));
	}
}
