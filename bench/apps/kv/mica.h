/*
 * mica.h - the key-value store of case study 2 (Kalia et al., ATC 2016,
 * Section 4.3.1, "Key-value stores": HERD serving GET/PUT from a MICA-style
 * store). The store follows MICA's cache mode (Lim et al., NSDI 2014,
 * Section 4.3): pure C, no verbs, no I/O, unit-tested in
 * tests/unit/test_mica.c.
 *
 * One partition per server thread (EREW: only its thread touches it; a key
 * goes to the thread mica_thread_of() names). A partition is
 *
 *   a lossy hash index  nbuckets buckets of MICA_WAYS (8) entries; an entry
 *                       is one 64-bit word: a 16-bit tag (high bits of the
 *                       key's hash, never 0) and a 48-bit log offset; 0 is
 *                       an empty entry. A bucket is one 64-byte cache line.
 *   a circular log      log_bytes of items appended at `head` (a 48-bit
 *                       offset that only grows; the byte at offset o lies
 *                       at o % log_bytes). An item is a struct mica_item
 *                       header (key, value length) followed by the value,
 *                       padded to 8 bytes; an item never straddles the
 *                       log's end (the append skips to the start instead).
 *
 * Lossy semantics (MICA cache mode): PUT always appends; the entry of the
 * same key is pointed at the new item (overwrite), else a free entry or one
 * whose item the log has overwritten is taken, else the entry with the
 * oldest item is dropped (the key is lost from the index). As the log wraps,
 * items older than head - log_bytes are gone: a GET that finds such an
 * entry misses (and clears it). A GET may therefore miss a key that was PUT:
 * a cache, not a store of record.
 *
 * Keyed hash: XXH64 (xxHash, Yann Collet; Debian libxxhash-dev, used
 * header-only through XXH_INLINE_ALL) over the 16 key bytes with the
 * partition's seed. The bucket takes the low bits, the tag the top 16, the
 * thread bits 16..47 (mica_thread_of).
 *
 * Sizes: the paper's hardware setting is 8M keys per server thread (HERD);
 * the suite's VM default is MICA_DEF_KEYS keys in all with a log of
 * MICA_DEF_LOG_BYTES per thread (the knobs of the programs built on it).
 */
#ifndef RDMA_BENCH_MICA_H
#define RDMA_BENCH_MICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo.h"

#define MICA_WAYS           8u           /* entries per bucket (one cache line) */
#define MICA_KEY_BYTES      16u          /* HERD's and MICA's key size */
#define MICA_MAX_VALUE      64u          /* value bytes at most (fits a request slot) */
#define MICA_DEF_VALUE      32u          /* the paper's value size (Section 4.3.1) */
#define MICA_DEF_KEYS       (UINT64_C(1) << 16)   /* VM default keyspace */
#define MICA_DEF_LOG_BYTES  (UINT64_C(8) << 20)   /* VM default log per thread */
#define MICA_OFFSET_BITS    48u
#define MICA_OFFSET_MASK    ((UINT64_C(1) << MICA_OFFSET_BITS) - 1)

struct mica_key {
	uint64_t w[2];               /* 16 bytes, compared whole */
};

/* An item in the log: this header, then vlen value bytes padded to 8. */
struct mica_item {
	struct mica_key key;
	uint32_t vlen;
	uint32_t pad;
};

/* Bytes an item of vlen value bytes takes in the log (header + padded value). */
static inline uint64_t mica_item_bytes(uint32_t vlen)
{
	return sizeof(struct mica_item) + ((uint64_t)vlen + 7) / 8 * 8;
}

/* Counters of one partition (all since mica_init). */
struct mica_stats {
	uint64_t gets, hits, misses;
	uint64_t puts, overwrites;
	uint64_t index_evictions;    /* PUT into a full bucket dropped the oldest entry */
	uint64_t log_evictions;      /* entries found pointing at overwritten log bytes */
	uint64_t wraps;              /* appends that skipped to the log's start */
};

struct mica {
	uint64_t *index;             /* nbuckets * MICA_WAYS entries (= index_mem.p) */
	uint64_t nbuckets;           /* power of two */
	uint8_t *log;                /* = log_mem.p */
	struct rb_buf index_mem, log_mem; /* their mappings and pages (topo_buf_map) */
	uint64_t log_bytes;
	uint64_t head;               /* next append offset (grows; % log_bytes in the log) */
	uint64_t seed;               /* the hash's key */
	struct mica_stats st;
};

enum mica_rc { MICA_OK = 0, MICA_MISS = 1, MICA_EINVAL = -1 };

/* The bytes mica_init(keys, log_bytes) allocates: its index and its log
 * (saturates at UINT64_MAX). */
uint64_t mica_bytes(uint64_t keys, uint64_t log_bytes);

/*
 * A partition with room for `keys` at an index load of 1/2 at most
 * (buckets: the next power of two of ceil(2 keys / MICA_WAYS); a bucket
 * still overflows now and then: the index is lossy) and a log of log_bytes
 * (at least 2 * mica_item_bytes(MICA_MAX_VALUE), at most 2^47 so offsets fit
 * 48 bits with room). Allocates; returns 0, or -1 with err naming the value,
 * the limit and the fix (keys 0, log too small or too big, no memory).
 */
int mica_init(struct mica *m, uint64_t keys, uint64_t log_bytes, uint64_t seed, char *err,
	      size_t errlen);
/* mica_init with the index and the log on 2 MiB pages when huge
 * (topo_buf_map: hugetlb, else THP, else base pages; m->log_mem.source
 * says which, m->log_mem.why why not more); both mapped zero-filled and
 * first touched by the calling thread (their NUMA node is its CPU's). */
int mica_init_map(struct mica *m, uint64_t keys, uint64_t log_bytes, uint64_t seed, bool huge,
		  char *err, size_t errlen);
void mica_free(struct mica *m);

/* XXH64 of the 16 key bytes with seed. */
uint64_t mica_hash(const struct mica_key *k, uint64_t seed);

/* Server thread (0..threads-1) that owns key hash h: bits 16..47 mod threads. */
static inline unsigned mica_thread_of(uint64_t h, unsigned threads)
{
	return (unsigned)(((h >> 16) & UINT64_C(0xffffffff)) % threads);
}

/* The 16-byte key of key number id (0..keyspace-1): w[0] = id, w[1] = ~id. */
static inline struct mica_key mica_key_of(uint64_t id)
{
	return (struct mica_key){ .w = { id, ~id } };
}

/*
 * PUT: append (key, value[0..vlen)) to the log and point the index at it.
 * vlen <= MICA_MAX_VALUE. Returns MICA_OK, or MICA_EINVAL (vlen too big).
 */
int mica_put(struct mica *m, const struct mica_key *k, const void *value, uint32_t vlen);

/*
 * GET: copy the key's value into out (room cap bytes) and its length into
 * *vlen. Returns MICA_OK, MICA_MISS (not in the index, or its item evicted
 * from the log), or MICA_EINVAL (cap smaller than the stored value).
 */
int mica_get(struct mica *m, const struct mica_key *k, void *out, uint32_t cap,
	     uint32_t *vlen);

/*
 * Values that carry their identity (the programs' --validate): bytes 0..7
 * the key number, 8..15 the version (both little-endian), then bytes
 * (id + version + i) & 0xff. vlen >= MICA_VALUE_MIN_CHECKED.
 */
#define MICA_VALUE_MIN_CHECKED 16u
void mica_value_fill(void *buf, uint32_t vlen, uint64_t id, uint64_t version);
/*
 * Check a value made by mica_value_fill for key id: returns 0 and the
 * version in *version, or -1 with why naming the first wrong byte or key.
 */
int mica_value_check(const void *buf, uint32_t vlen, uint64_t id, uint64_t *version,
		     char *why, size_t whylen);

#endif /* RDMA_BENCH_MICA_H */
