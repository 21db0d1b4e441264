/*
 * kv.h - HERD-KV's pure parts (case study 2 of Kalia et al., ATC 2016,
 * Section 4.3.1; HERD, Kalia et al. SIGCOMM 2014, Section 3): the request
 * slot a client WRITEs (UC) into the server's request region, the region's
 * layout over server threads and clients, the slot rings a client keeps,
 * and the checks of a point's key-value knobs. No verbs, no I/O
 * (bench/apps/kv/kv.c, tests/unit/test_kv.c); the store is mica.h.
 *
 * Request slot (KV_SLOT_BYTES, two cache lines), laid out so that one
 * WRITE covers only what the request needs and ends with its arrival mark:
 *
 *   [KV_VALUE_END - vlen, KV_VALUE_END)  PUT value, right-aligned (GET: none)
 *   [KV_KEY_OFF, KV_KEY_OFF + 16)        the 16-byte key
 *   [KV_CTRL_OFF, KV_CTRL_OFF + 8)       control word: op (byte 0), vlen
 *                                        (byte 1), bytes 2..6 zero, arrival
 *                                        byte 7 (non-zero)
 *
 * The WRITE spans [KV_VALUE_END - vlen or KV_KEY_OFF, KV_CTRL_OFF + 8): its
 * last byte is the arrival byte, which the server polls (HERD relies on the
 * NIC placing a WRITE's bytes in address order, as its paper states for
 * ConnectX; soft-RoCE copies them in order). The server zeroes the control
 * word before it answers, so the slot reads empty until the next request.
 *
 * Request region: server thread t (0..T-1), client thread c (0..C-1), ring
 * slot k (0..W-1) at ((t * C + c) * W + k) * KV_SLOT_BYTES: a key goes to
 * the server thread that owns its partition (mica_thread_of), into a free
 * slot of that thread's ring for the client.
 */
#ifndef RDMA_BENCH_KV_H
#define RDMA_BENCH_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica.h"

#define KV_SLOT_BYTES  128u
#define KV_VALUE_END   64u                       /* the value ends where the key starts */
#define KV_KEY_OFF     KV_VALUE_END
#define KV_CTRL_OFF    (KV_KEY_OFF + MICA_KEY_BYTES)
#define KV_MAX_VALUE   KV_VALUE_END              /* value bytes a slot carries (= MICA_MAX_VALUE) */
#define KV_MAX_KEYS    (UINT64_C(1) << 27)       /* keyspace at most: the paper's 8M keys per
                                                    thread x 16 threads */
#define KV_MAX_WINDOW  64u                       /* ring slots per (server thread, client): one
                                                    64-bit free mask */

enum kv_op { KV_GET = 1, KV_PUT = 2 };

struct kv_req {
	uint8_t op;                  /* enum kv_op */
	uint8_t vlen;                /* PUT: value bytes; GET: 0 */
	struct mica_key key;
	const uint8_t *value;        /* PUT: points into the slot */
};

/*
 * Write a request into slot (KV_SLOT_BYTES, the client's staging copy of
 * the remote slot): key, value (PUT; vlen <= KV_MAX_VALUE), control word
 * with arrival byte `mark` (non-zero). Sets *off and *len to the span the
 * WRITE must carry (slot offsets). Returns 0, or -1 for a bad op, vlen or
 * mark 0.
 */
int kv_req_encode(uint8_t *slot, uint8_t op, const struct mica_key *key, const void *value,
		  uint8_t vlen, uint8_t mark, uint32_t *off, uint32_t *len);

/* Result of kv_req_decode. */
enum kv_slot_state { KV_SLOT_EMPTY = 0, KV_SLOT_REQ = 1, KV_SLOT_BAD = -1 };
/*
 * Read the slot the server polls: KV_SLOT_EMPTY (arrival byte 0),
 * KV_SLOT_REQ (req filled), or KV_SLOT_BAD (unknown op, GET with a value,
 * vlen above KV_MAX_VALUE, non-zero reserved bytes).
 */
int kv_req_decode(const uint8_t *slot, struct kv_req *req);
/* The server's "slot is free again": zero the control word. */
void kv_req_clear(uint8_t *slot);

/* Byte offset of ring slot k of client c at server thread t. */
static inline uint64_t kv_slot_offset(uint64_t clients, uint64_t window, uint64_t t, uint64_t c,
				      uint64_t k)
{
	return ((t * clients + c) * window + k) * KV_SLOT_BYTES;
}
static inline uint64_t kv_region_bytes(uint64_t threads, uint64_t clients, uint64_t window)
{
	return threads * clients * window * KV_SLOT_BYTES;
}

/*
 * A client's free slots in one server thread's ring: bit k set = slot k
 * free. kv_ring_init sets the low `window` bits (window 1..KV_MAX_WINDOW);
 * kv_ring_take returns the lowest free slot and clears it, or -1 when none
 * is free; kv_ring_put frees slot k again.
 */
static inline uint64_t kv_ring_init(unsigned window)
{
	return window >= 64 ? UINT64_MAX : (UINT64_C(1) << window) - 1;
}
static inline int kv_ring_take(uint64_t *ring)
{
	if (*ring == 0)
		return -1;
	int k = __builtin_ctzll(*ring);
	*ring &= *ring - 1;
	return k;
}
static inline void kv_ring_put(uint64_t *ring, unsigned k)
{
	*ring |= UINT64_C(1) << k;
}

/*
 * The key-value knobs of a point (rdma_seq --kv). No padding: a
 * configuration compares bytewise after its trip through a CONFIG message.
 * The log of each partition is sized by the server (seq_kv.c).
 */
struct kv_cfg {
	double get_fraction;         /* 0..1; default 0.95 (HERD's read-intensive mix) */
	uint64_t keys;               /* keyspace, >= 1 */
	uint64_t value_bytes;        /* 1..KV_MAX_VALUE; default MICA_DEF_VALUE */
	uint64_t zipf;               /* key choice: 1 Zipf(theta), 0 uniform */
	double theta;                /* default 0.99 */
	uint64_t validate;           /* 1: values carry key and version; needs >= 16 B */
};
void kv_cfg_defaults(struct kv_cfg *c);
/*
 * Checks of a configuration: GET fraction outside 0..1 (or not a number),
 * keyspace 0 or above KV_MAX_KEYS, value size 0 or above the slot's KV_MAX_VALUE bytes,
 * --validate with values under MICA_VALUE_MIN_CHECKED bytes, window above
 * KV_MAX_WINDOW, theta <= 0 with Zipf keys. Returns 0, or -1 with err naming the option,
 * the value, the limit and the fix.
 */
int kv_cfg_validate(const struct kv_cfg *c, uint64_t window, char *err, size_t errlen);
/* "0.95" -> 0.95: a decimal number in 0..1; 0, or -1 with err (--kv get=). */
int kv_parse_fraction(const char *s, double *f, char *err, size_t errlen);

/*
 * --kv LIST: comma-separated get=F, keys=N, value=B, dist=uniform|zipf,
 * theta=X, validate; each sets its field of c (the others keep theirs).
 * 0, or -1 with err naming the item (values are checked by kv_cfg_validate).
 */
int kv_parse_opts(const char *list, struct kv_cfg *c, char *err, size_t errlen);
/* The knobs as such a list (the row's kv column); returns buf. */
const char *kv_describe(const struct kv_cfg *c, char *buf, size_t len);

#endif /* RDMA_BENCH_KV_H */
