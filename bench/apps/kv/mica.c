/*
 * mica.c - the MICA-style partition of case study 2 (bench/apps/kv/mica.h says
 * the layout and the lossy rules; MICA, Lim et al. NSDI 2014, Section 4.3,
 * cache mode). Pure: no verbs, no I/O, no locks (one thread per partition);
 * its index and log are anonymous mappings (topo_buf_map, --hugepages).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "errbuf.h"
#include "mica.h"

/* buckets of a partition of keys: the next power of two of 2 keys / MICA_WAYS */
static uint64_t mica_buckets(uint64_t keys)
{
	uint64_t nb = 1;
	while (nb * MICA_WAYS < 2 * keys && nb < (UINT64_C(1) << 56))   /* load factor 1/2 at most */
		nb *= 2;
	return nb;
}

uint64_t mica_bytes(uint64_t keys, uint64_t log_bytes)
{
	uint64_t index = mica_buckets(keys) * MICA_WAYS * sizeof(uint64_t);
	return log_bytes > UINT64_MAX - index ? UINT64_MAX : index + log_bytes;
}

int mica_init(struct mica *m, uint64_t keys, uint64_t log_bytes, uint64_t seed, char *err,
	      size_t errlen)
{
	return mica_init_map(m, keys, log_bytes, seed, false, err, errlen);
}

int mica_init_map(struct mica *m, uint64_t keys, uint64_t log_bytes, uint64_t seed, bool huge,
		  char *err, size_t errlen)
{
	uint64_t min_log = 2 * mica_item_bytes(MICA_MAX_VALUE);
	uint64_t nb;

	memset(m, 0, sizeof(*m));
	if (keys == 0)
		return rb_fail(err, errlen, "keyspace 0: the store needs at least 1 key "
			       "(give --keys 1 or more)");
	if (log_bytes < min_log || log_bytes > (UINT64_C(1) << 47))
		return rb_fail(err, errlen, "log size %" PRIu64 " bytes is outside %" PRIu64
			       "..2^47 (two items of the largest value at least; offsets are 48 "
			       "bits): give a log size in that range", log_bytes, min_log);
	nb = mica_buckets(keys);
	if (topo_buf_map(&m->index_mem, nb * MICA_WAYS * sizeof(*m->index), huge) == 0)
		m->index = (uint64_t *)(void *)m->index_mem.p;
	if (topo_buf_map(&m->log_mem, log_bytes, huge) == 0)
		m->log = m->log_mem.p;
	if (!m->index || !m->log) {
		mica_free(m);
		return rb_fail(err, errlen, "out of memory for a partition of %" PRIu64
			       " buckets and a %" PRIu64 "-byte log: give fewer keys or a "
			       "smaller log", nb, log_bytes);
	}
	m->nbuckets = nb;
	m->log_bytes = log_bytes;
	m->seed = seed;
	return 0;
}

void mica_free(struct mica *m)
{
	topo_buf_unmap(&m->index_mem);
	topo_buf_unmap(&m->log_mem);
	m->index = NULL;
	m->log = NULL;
}

uint64_t mica_hash(const struct mica_key *k, uint64_t seed)
{
	return XXH64(k->w, sizeof(k->w), seed);
}

static uint64_t tag_of(uint64_t h)
{
	uint64_t t = h >> MICA_OFFSET_BITS;
	return t ? t : 1;   /* 0 would make an entry of offset 0 look empty */
}

static uint64_t entry_tag(uint64_t e)
{
	return e >> MICA_OFFSET_BITS;
}

static uint64_t entry_off(uint64_t e)
{
	return e & MICA_OFFSET_MASK;
}

/* Bytes appended since the item at offset o (mod 2^48: offsets wrap there). */
static uint64_t age(const struct mica *m, uint64_t o)
{
	return (m->head - o) & MICA_OFFSET_MASK;
}

/* The item at o is intact: no append since it reached its first byte again. */
static bool alive(const struct mica *m, uint64_t o)
{
	return age(m, o) <= m->log_bytes;
}

static struct mica_item *item_at(const struct mica *m, uint64_t o)
{
	return (struct mica_item *)(void *)(m->log + o % m->log_bytes);
}

/* Append an item; returns its offset. An item never straddles the end. */
static uint64_t append(struct mica *m, const struct mica_key *k, const void *v, uint32_t vlen)
{
	uint64_t sz = mica_item_bytes(vlen), pos = m->head % m->log_bytes;

	if (pos + sz > m->log_bytes) {
		m->head += m->log_bytes - pos;   /* the tail bytes stay unused this lap */
		m->st.wraps++;
	}
	uint64_t o = m->head & MICA_OFFSET_MASK;
	struct mica_item *it = item_at(m, o);
	it->key = *k;
	it->vlen = vlen;
	it->pad = 0;
	memcpy(it + 1, v, vlen);
	m->head += sz;
	return o;
}

static bool same_key(const struct mica_key *a, const struct mica_key *b)
{
	return a->w[0] == b->w[0] && a->w[1] == b->w[1];
}

int mica_put(struct mica *m, const struct mica_key *k, const void *value, uint32_t vlen)
{
	if (vlen > MICA_MAX_VALUE)
		return MICA_EINVAL;
	uint64_t h = mica_hash(k, m->seed), tag = tag_of(h);
	uint64_t *b = &m->index[(h & (m->nbuckets - 1)) * MICA_WAYS];
	uint64_t o = append(m, k, value, vlen);
	int match = -1, spare = -1, oldest = 0;

	m->st.puts++;
	for (int i = 0; i < (int)MICA_WAYS; i++) {
		if (b[i] && !alive(m, entry_off(b[i]))) {
			b[i] = 0;   /* its item was overwritten as the log wrapped */
			m->st.log_evictions++;
		}
		if (b[i] == 0) {
			if (spare < 0)
				spare = i;
			continue;
		}
		if (entry_tag(b[i]) == tag && same_key(&item_at(m, entry_off(b[i]))->key, k))
			match = i;
		if (age(m, entry_off(b[i])) > age(m, entry_off(b[oldest])) || b[oldest] == 0)
			oldest = i;
	}
	int slot = match >= 0 ? match : spare >= 0 ? spare : oldest;
	if (match >= 0)
		m->st.overwrites++;
	else if (spare < 0)
		m->st.index_evictions++;
	b[slot] = (tag << MICA_OFFSET_BITS) | o;
	return MICA_OK;
}

int mica_get(struct mica *m, const struct mica_key *k, void *out, uint32_t cap, uint32_t *vlen)
{
	uint64_t h = mica_hash(k, m->seed), tag = tag_of(h);
	uint64_t *b = &m->index[(h & (m->nbuckets - 1)) * MICA_WAYS];

	m->st.gets++;
	for (unsigned i = 0; i < MICA_WAYS; i++) {
		if (b[i] == 0 || entry_tag(b[i]) != tag)
			continue;
		if (!alive(m, entry_off(b[i]))) {
			b[i] = 0;
			m->st.log_evictions++;
			continue;
		}
		const struct mica_item *it = item_at(m, entry_off(b[i]));
		if (!same_key(&it->key, k))
			continue;   /* a tag collision: another key of this bucket */
		if (it->vlen > cap)
			return MICA_EINVAL;
		memcpy(out, it + 1, it->vlen);
		*vlen = it->vlen;
		m->st.hits++;
		return MICA_OK;
	}
	m->st.misses++;
	return MICA_MISS;
}

static void put_le64(uint8_t *p, uint64_t x)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t x = 0;
	for (unsigned i = 0; i < 8; i++)
		x |= (uint64_t)p[i] << (8 * i);
	return x;
}

void mica_value_fill(void *buf, uint32_t vlen, uint64_t id, uint64_t version)
{
	uint8_t *p = buf;

	put_le64(p, id);
	put_le64(p + 8, version);
	for (uint32_t i = 16; i < vlen; i++)
		p[i] = (uint8_t)(id + version + i);
}

int mica_value_check(const void *buf, uint32_t vlen, uint64_t id, uint64_t *version,
		     char *why, size_t whylen)
{
	const uint8_t *p = buf;

	if (vlen < MICA_VALUE_MIN_CHECKED)
		return rb_fail(why, whylen, "value of %u bytes is too short to check (%u at least)",
			       vlen, MICA_VALUE_MIN_CHECKED);
	if (get_le64(p) != id)
		return rb_fail(why, whylen, "value of key %" PRIu64 " names key %" PRIu64, id,
			       get_le64(p));
	uint64_t v = get_le64(p + 8);
	for (uint32_t i = 16; i < vlen; i++)
		if (p[i] != (uint8_t)(id + v + i))
			return rb_fail(why, whylen, "value of key %" PRIu64 " version %" PRIu64
				       ": byte %u is 0x%02x, expected 0x%02x", id, v, i, p[i],
				       (uint8_t)(id + v + i));
	*version = v;
	return 0;
}
