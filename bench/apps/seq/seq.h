/*
 * seq.h - case study 1 of the paper (Kalia et al., ATC 2016, Section 4.2,
 * "Networked sequencer"): a counter on a server that hands out unique,
 * increasing 64-bit numbers to many clients, built three ways. The program
 * is rdma_seq (bench/apps/seq/seq_main.c), one file per variant:
 *
 *   atomics   bench/apps/seq/seq_atomics.c  clients FETCH_AND_ADD one 8-byte
 *             counter in the server's memory over RC (no server CPU)
 *   herd-rpc  bench/apps/seq/seq_herd.c     clients WRITE (UC) a request into
 *             their own slot of the server's request region; server threads
 *             poll the slots, take numbers from the counter and answer with
 *             a UD SEND (8-byte payload: the number) to the client's UD QP
 *   spec-s0   bench/apps/seq/seq_spec.c     clients send header-only UD
 *             SEND_WITH_IMMs; server threads answer each with a header-only
 *             UD SEND_WITH_IMM whose immediate is the number's low 32 bits
 *   herd-kv   bench/apps/kv/seq_kv.c       case study 2 (Section 4.3.1): herd-rpc's
 *             pattern carrying GET/PUT requests (kv.h) that server threads
 *             run against their MICA-style partitions (mica.h); each
 *             response also carries a number, so the uniqueness check
 *             proves every request was answered once
 *   drtm-kv   bench/apps/kv/drtm_kv.c      case study 2's emulated DrTM-KV (drtm.h):
 *             GET = one READ of the item, PUT = CMP_AND_SWAP lock and
 *             FETCH_AND_ADD release on its header word (no server CPU)
 *
 * This header holds the pure parts (bench/apps/seq/seq.c: no verbs, no I/O,
 * unit-tested in tests/unit/test_seq.c) and the shapes the variant files
 * share (bench/apps/rt/seq_rt.h).
 */
#ifndef RDMA_BENCH_SEQ_H
#define RDMA_BENCH_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"
#include "drtm.h"
#include "kv.h"
#include "options.h"

/* Limits of the command line (not of a device). */
#define SEQ_MAX_WINDOW          1024u  /* requests outstanding per client thread */
#define SEQ_DEFAULT_WINDOW      4u
#define SEQ_MAX_SERVER_THREADS  64u
#define SEQ_MAX_CLIENT_THREADS  64u
#define SEQ_MAX_UD_QPS          16u    /* response QPs per server thread */
#define SEQ_BATCH_MAX           32u    /* --batch on: responses per doorbell at most
                                          (one poll pass; RB_POLL_BATCH receives) */
/* The schema_version of rdma_seq's rows (docs/csv.md, "rdma_seq rows"):
 * its own, as its columns are. */
#define SEQ_SCHEMA_VERSION      1u
#define SEQ_SLOT_BYTES          64u    /* herd-rpc request slot: one cache line */

enum seq_variant { SEQ_ATOMICS = 0, SEQ_HERD_RPC, SEQ_SPEC_S0, SEQ_HERD_KV, SEQ_DRTM_KV,
		   SEQ_VARIANT_COUNT };

/* "atomics", "herd-rpc", "spec-s0"; "?" for an unknown value. */
const char *seq_variant_name(uint64_t v);
/* Name -> value; 0, or -1 with err naming the value and the known names. */
int seq_variant_parse(const char *s, uint64_t *v, char *err, size_t errlen);

/* One point of the sequencer: everything the client sends the server. */
struct seq_cfg {
	uint64_t variant;          /* enum seq_variant */
	uint64_t server_threads;   /* herd-rpc, spec-s0: polling threads (0 for atomics) */
	uint64_t client_threads;   /* clients of this process: one QP set each */
	uint64_t window;           /* requests outstanding per client thread */
	uint64_t batch;            /* 1: one doorbell per poll pass; 0: one per response */
	uint64_t ud_qps;           /* herd-rpc/spec-s0: response QPs per server thread */
	uint64_t start;            /* the counter's first value */
	uint64_t duration_ms, warmup_ms, timeout_ms;
	uint64_t idle_yield;       /* 1: a poll that finds nothing calls sched_yield() */
	struct kv_cfg kv;          /* herd-kv: the key-value knobs (kv.h; seq_kv.c) */
	struct drtm_cfg drtm;      /* drtm-kv: its knobs (drtm.h; drtm_kv.c) */
};

void seq_cfg_defaults(struct seq_cfg *c);

/*
 * Pure checks of a configuration; online_cpus > 0 also bounds the server
 * threads (the server passes its own count; the client passes 0). Returns 0,
 * or -1 with err naming the option, the value, the limit and the fix.
 */
int seq_cfg_validate(const struct seq_cfg *c, long online_cpus, char *err, size_t errlen);

/*
 * The configuration on the wire: rdma_seq's own CONFIG message (ctrl.h,
 * program CTRL_PROG_RDMA_SEQ, version SEQ_CFG_VERSION), whose fields are
 * these, X(name), in wire order, each a u64 of struct seq_wire. Fractions
 * and Zipf thetas travel as parts per million (kv_get_ppm 950000 = 0.95).
 * Nothing here is a field of rdma_bench's TEST. A new field goes last and
 * raises SEQ_CFG_VERSION (a server of another version refuses the point,
 * naming both); tests/unit/test_seq.c round-trips every field.
 */
#define SEQ_CFG_VERSION 1u
#define SEQ_CFG_FIELDS(X)                                                  \
	X(variant) X(server_threads) X(client_threads) X(window) X(batch)  \
	X(ud_qps) X(start) X(duration_ms) X(warmup_ms) X(timeout_ms)       \
	X(idle_yield)                                                      \
	X(kv_get_ppm) X(kv_keys) X(kv_value_bytes) X(kv_zipf)              \
	X(kv_theta_ppm) X(kv_validate)                                     \
	X(drtm_put_ppm) X(drtm_items) X(drtm_zipf) X(drtm_theta_ppm)       \
	X(drtm_put_writes) X(drtm_validate)

struct seq_wire {
#define SEQ_X_FIELD(name) uint64_t name;
	SEQ_CFG_FIELDS(SEQ_X_FIELD)
#undef SEQ_X_FIELD
};
#define SEQ_X_COUNT(name) +1
enum { SEQ_CFG_NFIELDS = 0 SEQ_CFG_FIELDS(SEQ_X_COUNT) };
#undef SEQ_X_COUNT

/* seq_cfg <-> its wire fields (fractions rounded to parts per million). */
void seq_cfg_to_wire(const struct seq_cfg *c, struct seq_wire *w);
void seq_cfg_from_wire(const struct seq_wire *w, struct seq_cfg *c);
/* The CONFIG message of a point, and back: seq_cfg_from_config refuses
 * another program's CONFIG, another version or field count
 * (ctrl_config_expect), a flag above 1, a fraction above 1 or a theta of
 * 10 or more (0, or -1 with err naming the field); the rest is checked
 * after, by seq_cfg_validate. */
void seq_cfg_to_config(const struct seq_cfg *c, struct ctrl_config *m);
int seq_cfg_from_config(const struct ctrl_config *m, struct seq_cfg *c, char *err, size_t errlen);

/*
 * herd-rpc request region on the server (HERD, Kalia et al. SIGCOMM 2014):
 * client thread c (0..clients-1) owns `window` slots of SEQ_SLOT_BYTES,
 * slot k of client c at byte (c * window + k) * SEQ_SLOT_BYTES. The first 8
 * bytes of a slot are the request word: non-zero = a request is waiting (the
 * client writes k + 1), the server zeroes it before answering. Client c is
 * served by server thread c % server_threads.
 */
uint64_t seq_slot_offset(uint64_t window, uint64_t client, uint64_t k);
uint64_t seq_region_bytes(uint64_t window, uint64_t clients);
static inline uint64_t seq_server_thread_of(uint64_t client, uint64_t server_threads)
{
	return client % server_threads;
}
/* Client threads served by server thread t: ceil((clients - t) / threads). */
uint64_t seq_clients_of_thread(uint64_t t, uint64_t clients, uint64_t server_threads);

/*
 * Spec-S0: the response carries only the low 32 bits of the number (the
 * immediate). The client keeps the last full value it saw (ref, at first
 * the counter's start) and takes the 64-bit value with those low bits that
 * is nearest to ref: correct across the 2^32 wrap as long as the true value
 * lies within 2^31 of ref (numbers handed out to other clients between two
 * responses to this one: far fewer in any run). After each response the
 * client sets ref to the larger of ref and the value.
 */
static inline uint64_t seq_s0_reconstruct(uint64_t ref, uint32_t low)
{
	int32_t d = (int32_t)(low - (uint32_t)ref);
	return ref + (uint64_t)(int64_t)d;
}

/*
 * Doorbell batching (the paper's Sections 3.1 and 4.2): a server thread finds
 * n responses in one poll pass; with batch on it posts them as linked lists
 * of at most cap WRs per ibv_post_send (one doorbell each), with batch off
 * one ibv_post_send per response. Returns the doorbells the pass rings.
 */
static inline unsigned seq_doorbells(unsigned n, bool batch, unsigned cap)
{
	return batch ? (n + cap - 1) / cap : n;
}

/* Responses and doorbells of a server thread; average = responses / doorbells. */
struct seq_batch {
	uint64_t responses, doorbells;
};
static inline void seq_batch_add(struct seq_batch *b, unsigned n, unsigned doorbells)
{
	b->responses += n;
	b->doorbells += doorbells;
}
/* Average responses per doorbell; NAN when no doorbell rang. */
double seq_batch_avg(const struct seq_batch *b);

/*
 * What one client thread received: every value (up to cap, in v) and a
 * summary of all (count, sum, sum of squares mod 2^64, min, max). The
 * storage is allocated before the run (seq_vals_init), never in the loop.
 */
struct seq_vals {
	uint64_t *v;
	uint64_t n, cap;          /* stored / room */
	uint64_t count;           /* received (>= n) */
	uint64_t sum, sumsq;      /* mod 2^64 */
	uint64_t min, max;
};
int seq_vals_init(struct seq_vals *s, uint64_t cap);   /* 0 or -1 (ENOMEM) */
void seq_vals_free(struct seq_vals *s);
static inline void seq_vals_add(struct seq_vals *s, uint64_t x)
{
	if (s->n < s->cap)
		s->v[s->n++] = x;
	if (s->count == 0 || x < s->min)
		s->min = x;
	if (s->count == 0 || x > s->max)
		s->max = x;
	s->count++;
	s->sum += x;
	s->sumsq += x * x;
}

/* Verdict of seq_check_unique. */
enum seq_check { SEQ_CHECK_EXACT = 0, SEQ_CHECK_SUMMARY = 1, SEQ_CHECK_FAILED = -1 };
/* "exact", "summary", "failed". */
const char *seq_check_name(int verdict);

/*
 * Nothing handed out twice, nothing lost: the values of all nlists clients
 * must be exactly [start, start + total) (total: the numbers the server
 * handed out). With every value stored: each is marked in a bitmap of total
 * bits; a value outside the range, a value seen twice or a value never seen
 * fails, naming the first (SEQ_CHECK_EXACT on success). When a client
 * stored fewer values than it received, the summaries are compared with
 * those of the range (count, min, max, sum and sum of squares mod 2^64;
 * SEQ_CHECK_SUMMARY on success). Returns the verdict, with why filled on
 * SEQ_CHECK_FAILED ("value 12 handed out twice", "value 7 missing", ...).
 */
int seq_check_unique(const struct seq_vals *lists, unsigned nlists, uint64_t start,
		     uint64_t total, char *why, size_t whylen);

#endif /* RDMA_BENCH_SEQ_H */
