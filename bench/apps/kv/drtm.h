/*
 * drtm.h - emulated DrTM-KV (case study 2 of Kalia et al., ATC 2016,
 * Section 5.2, Figure 10; DrTM: Wei et al., SOSP 2015): a key-value store
 * whose items lie in the server's registered memory and whose clients use
 * one-sided verbs only, so the server's CPU does nothing during a point:
 *
 *   GET  one RDMA READ of the whole item (DRTM_ITEM_BYTES)
 *   PUT  lock: CMP_AND_SWAP on the item's header word (unlocked -> owned);
 *        [--drtm put-writes: a WRITE of the value];
 *        release: FETCH_AND_ADD on the header word (owned -> unlocked, the
 *        version one higher): the paper's "two atomics" per PUT
 *
 * The pure parts are here (bench/apps/kv/drtm.c, tests/unit/test_drtm.c): the
 * item layout, the lock word, the key and operation choice, the knobs and
 * their checks, their place in rdma_seq's CONFIG message and the end-of-point check.
 * The verbs side is bench/apps/kv/drtm_kv.c (rdma_seq --variant drtm-kv).
 *
 * Item i (0..items-1) at byte i * DRTM_ITEM_BYTES of the server's buffer:
 *
 *   [0, 8)    header word (the lock word, host byte order as the NIC's
 *             atomics see it): version << DRTM_OWNER_BITS | owner;
 *             owner 0 = unlocked, else the client thread holding it (1..)
 *   [8, 16)   the item's key (= i)
 *   [16, 64)  the value (DRTM_VALUE_BYTES); its first 16 bytes are a stamp:
 *             the key, then the version of the PUT that wrote it (0 at
 *             start; put-writes WRITEs key and the new version)
 *
 * Lock word: a CMP_AND_SWAP compares all 64 bits, so a client must name the
 * version it expects. Each client thread keeps a direct-mapped cache of
 * header words (drtm_cache_slots entries, at most DRTM_CACHE_MAX), filled
 * by its GETs, its PUTs and the old values its failed CAS return: the first
 * CAS of a PUT uses the cached word. A CAS that returns another word fails
 * and is retried (drtm_cas_retry): at once with the returned word when the
 * item is unlocked (a stale cache entry), with that word's version + 1
 * when another client holds it (its release will leave that version). The
 * release adds DRTM_RELEASE_ADD(owner): owner + (2^16 - owner) carries into
 * the version field, so one FETCH_AND_ADD frees the lock and counts the PUT.
 */
#ifndef RDMA_BENCH_DRTM_H
#define RDMA_BENCH_DRTM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "zipf.h"

#define DRTM_ITEM_BYTES   64u                     /* one cache line per item */
#define DRTM_KEY_OFF      8u
#define DRTM_VALUE_OFF    16u
#define DRTM_VALUE_BYTES  (DRTM_ITEM_BYTES - DRTM_VALUE_OFF)
#define DRTM_OWNER_BITS   16u
#define DRTM_OWNER_MASK   ((UINT64_C(1) << DRTM_OWNER_BITS) - 1)
#define DRTM_MAX_ITEMS    (UINT64_C(1) << 25)     /* 2 GiB of items; the paper's hardware
                                                     setting is 16M (DRTM_PAPER_ITEMS) */
#define DRTM_PAPER_ITEMS  (UINT64_C(1) << 24)
#define DRTM_DEF_ITEMS    (UINT64_C(1) << 16)     /* VM default: 4 MiB on the server */
#define DRTM_CACHE_MAX    (UINT64_C(1) << 20)     /* header words cached per client thread */

/* ---- the lock word ------------------------------------------------------- */
static inline uint64_t drtm_hdr(uint64_t version, uint64_t owner)
{
	return version << DRTM_OWNER_BITS | (owner & DRTM_OWNER_MASK);
}
static inline uint64_t drtm_hdr_owner(uint64_t h)
{
	return h & DRTM_OWNER_MASK;
}
static inline uint64_t drtm_hdr_version(uint64_t h)
{
	return h >> DRTM_OWNER_BITS;
}
/* The CAS of a lock: compare = the unlocked word expected, swap = it owned. */
static inline uint64_t drtm_lock_swap(uint64_t compare, uint64_t owner)
{
	return compare | (owner & DRTM_OWNER_MASK);
}
/* The FETCH_AND_ADD of a release by owner (1..DRTM_OWNER_MASK). */
#define DRTM_RELEASE_ADD(owner) ((UINT64_C(1) << DRTM_OWNER_BITS) - (uint64_t)(owner))
/* After a CAS that returned old (!= compare): the next compare to try. */
static inline uint64_t drtm_cas_retry(uint64_t old)
{
	return drtm_hdr_owner(old) ? drtm_hdr(drtm_hdr_version(old) + 1, 0) : old;
}
/* Owner word of client thread i (0..): i + 1. */
static inline uint64_t drtm_owner_of(unsigned thread)
{
	return (uint64_t)thread + 1;
}

/* ---- the items ----------------------------------------------------------- */
static inline uint64_t drtm_item_offset(uint64_t key)
{
	return key * DRTM_ITEM_BYTES;
}
static inline uint64_t drtm_region_bytes(uint64_t items)
{
	return items * DRTM_ITEM_BYTES;
}
/* Item key's starting bytes: header 0, key, stamp (key, version 0), the rest 0. */
void drtm_item_init(uint8_t *item, uint64_t key);
/* The value a PUT writes (DRTM_VALUE_BYTES): stamp (key, version). */
void drtm_value_fill(uint8_t *value, uint64_t key, uint64_t version);
/* Read an item (a GET's copy or the server's own): header, key, stamp. */
struct drtm_view {
	uint64_t hdr, key, stamp_key, stamp_version;
};
void drtm_item_view(const uint8_t *item, struct drtm_view *v);
/*
 * Check a GET of key: the item names key (key field and stamp); with
 * put_writes the stamp's version is not older than the header's (the READ
 * sees the header first, so a PUT that wrote after it can only be newer).
 * Without put_writes the stamp keeps version 0. true when it holds.
 */
bool drtm_get_ok(const struct drtm_view *v, uint64_t key, bool put_writes);

/* Cache entries of a client thread for items (min(items, DRTM_CACHE_MAX)). */
static inline uint64_t drtm_cache_slots(uint64_t items)
{
	return items < DRTM_CACHE_MAX ? items : DRTM_CACHE_MAX;
}

/* ---- the knobs ------------------------------------------------------------ */
/* rdma_seq --drtm LIST. No padding: compared bytewise after a CONFIG trip. */
struct drtm_cfg {
	double put_fraction;   /* 0..1: share of operations that are PUTs (default 0.1) */
	uint64_t items;        /* 1..DRTM_MAX_ITEMS (default DRTM_DEF_ITEMS) */
	uint64_t zipf;         /* key choice: 1 Zipf(theta), 0 uniform (default) */
	double theta;          /* default 0.99 */
	uint64_t put_writes;   /* 1: a PUT WRITEs its value between lock and release */
	uint64_t validate;     /* 1: every GET's item is checked (drtm_get_ok) */
};
void drtm_cfg_defaults(struct drtm_cfg *c);
/*
 * Checks: PUT fraction outside 0..1 (or not a number), items 0 or above
 * DRTM_MAX_ITEMS, theta outside (0, 10) with Zipf keys, client threads
 * above DRTM_OWNER_MASK (owner ids). 0, or -1 with err naming the option,
 * the value, the limit and the fix.
 */
int drtm_cfg_validate(const struct drtm_cfg *c, uint64_t client_threads, char *err,
		      size_t errlen);
/*
 * --drtm LIST: comma-separated put=F, items=N, dist=uniform|zipf, theta=X,
 * put-writes, validate; each sets its field of c. 0, or -1 with err naming
 * the item (ranges are drtm_cfg_validate's).
 */
int drtm_parse_opts(const char *list, struct drtm_cfg *c, char *err, size_t errlen);
/* A PUT fraction v in 0..1; opt prefixes the value in the message
 * ("--drtm put=", "--put-fraction "). 0, or -1 with err. */
int drtm_parse_fraction(const char *opt, const char *v, double *f, char *err, size_t errlen);
/* The knobs as such a list (the row's drtm column); returns buf. */
const char *drtm_describe(const struct drtm_cfg *c, char *buf, size_t len);
/* Its place on the wire: the drtm_* fields of rdma_seq's CONFIG (seq.h). */

/* ---- the choice of each operation ----------------------------------------- */
/* A client thread's generator: its random state and, with Zipf, the sampler. */
struct drtm_gen {
	uint64_t rng;
	uint64_t items;
	double put_fraction;
	bool zipf;
	struct zipf z;         /* with Zipf keys (zipf.h) */
};
/* 0, or -1 for items 0 or theta <= 0 with Zipf. seed: any (the thread's). */
int drtm_gen_init(struct drtm_gen *g, const struct drtm_cfg *c, uint64_t seed);
/* The next key, 0..items-1 (Zipf: 0 the hottest). */
uint64_t drtm_next_key(struct drtm_gen *g);
/* The next operation: true = PUT (probability put_fraction; 0 never, 1 always). */
bool drtm_next_is_put(struct drtm_gen *g);

/* ---- the end of a point ---------------------------------------------------- */
/* The server's scan of its items after the point (drtm_scan). */
struct drtm_tally {
	uint64_t items;          /* items scanned */
	uint64_t locked;         /* items whose owner is not 0 */
	uint64_t versions;       /* sum of the versions: PUTs released */
	uint64_t stamp_stale;    /* put_writes: unlocked items whose stamp is not their version */
};
void drtm_scan(const uint8_t *items, uint64_t n, bool put_writes, struct drtm_tally *t);
/* The clients' side of a point, summed over threads. */
struct drtm_counts {
	uint64_t gets, puts;     /* completed inside the measured window */
	uint64_t puts_done;      /* releases completed, whole point */
	uint64_t cas_failures;   /* CAS that returned another word (each one retried) */
	uint64_t cas_locked;     /* of them: the item was held by another client */
	uint64_t bad_gets;       /* GETs that failed drtm_get_ok (validate) */
};
/*
 * The counters add up: no item left locked, the versions sum to the PUTs
 * the clients completed, no stale stamp, no bad GET. true, or false with
 * why naming the first that does not.
 */
bool drtm_check(const struct drtm_tally *t, const struct drtm_counts *c, char *why,
		size_t whylen);

#endif /* RDMA_BENCH_DRTM_H */
