/*
 * drtm.c - emulated DrTM-KV's pure parts (bench/apps/kv/drtm.h says the item
 * layout, the lock word and where they come from). No verbs, no I/O.
 */
#include "drtm.h"   /* first: the header stands on its own */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "zipf.h"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

void drtm_item_init(uint8_t *item, uint64_t key)
{
	memset(item, 0, DRTM_ITEM_BYTES);
	put64(item + DRTM_KEY_OFF, key);
	drtm_value_fill(item + DRTM_VALUE_OFF, key, 0);
}

void drtm_value_fill(uint8_t *value, uint64_t key, uint64_t version)
{
	memset(value, 0, DRTM_VALUE_BYTES);
	put64(value, key);
	put64(value + 8, version);
}

void drtm_item_view(const uint8_t *item, struct drtm_view *v)
{
	v->hdr = get64(item);
	v->key = get64(item + DRTM_KEY_OFF);
	v->stamp_key = get64(item + DRTM_VALUE_OFF);
	v->stamp_version = get64(item + DRTM_VALUE_OFF + 8);
}

bool drtm_get_ok(const struct drtm_view *v, uint64_t key, bool put_writes)
{
	if (v->key != key || v->stamp_key != key)
		return false;
	if (!put_writes)
		return v->stamp_version == 0;
	return v->stamp_version >= drtm_hdr_version(v->hdr);
}

void drtm_cfg_defaults(struct drtm_cfg *c)
{
	*c = (struct drtm_cfg){
		.put_fraction = 0.1,
		.items = DRTM_DEF_ITEMS,
		.zipf = 0,
		.theta = 0.99,
		.put_writes = 0,
		.validate = 0,
	};
}

int drtm_cfg_validate(const struct drtm_cfg *c, uint64_t client_threads, char *err,
		      size_t errlen)
{
	if (!(c->put_fraction >= 0 && c->put_fraction <= 1))
		return rb_fail(err, errlen, "--drtm put=%g is outside 0..1: give the share of "
			       "PUTs, e.g. 0.1 (10 %% PUTs) or 0 (GETs only)", c->put_fraction);
	if (c->items == 0)
		return rb_fail(err, errlen, "--drtm items=0: the store needs at least 1 item; "
			       "use items=1..%" PRIu64 " (the paper's hardware setting: %" PRIu64 ")",
			       DRTM_MAX_ITEMS, DRTM_PAPER_ITEMS);
	if (c->items > DRTM_MAX_ITEMS)
		return rb_fail(err, errlen, "--drtm items=%" PRIu64 " is above %" PRIu64 " (%" PRIu64
			       " bytes each in the server's memory); use fewer items", c->items,
			       DRTM_MAX_ITEMS, (uint64_t)DRTM_ITEM_BYTES);
	if (c->zipf && !(c->theta > 0 && c->theta < 10))
		return rb_fail(err, errlen, "--drtm theta=%g: give a number in (0, 10), e.g. 0.99",
			       c->theta);
	if (client_threads > DRTM_OWNER_MASK)
		return rb_fail(err, errlen, "--threads %" PRIu64 ": the lock word names at most %"
			       PRIu64 " owners", client_threads, DRTM_OWNER_MASK);
	return 0;
}

int drtm_parse_fraction(const char *opt, const char *v, double *f, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(x))
		return rb_fail(err, errlen, "%s'%s' is not a number: give a share in 0..1, e.g. 0.1",
			       opt, v);
	if (!(x >= 0 && x <= 1))
		return rb_fail(err, errlen, "%s%s is outside 0..1: give the share of PUTs, e.g. 0.1 "
			       "(10 %% PUTs) or 0 (GETs only)", opt, v);
	*f = x;
	return 0;
}

static int parse_item(char *item, void *cfg, char *err, size_t errlen)
{
	struct drtm_cfg *c = cfg;
	char *eq = strchr(item, '='), *end;
	const char *v = eq ? eq + 1 : NULL;
	if (eq)
		*eq = 0;
	if (!v && (strcmp(item, "validate") == 0 || strcmp(item, "put-writes") == 0)) {
		*(item[0] == 'v' ? &c->validate : &c->put_writes) = 1;
		return 0;
	}
	if (!v)
		return rb_fail(err, errlen, "--drtm %s: give NAME=VALUE (put, items, dist, theta), "
			       "put-writes or validate", item);
	if (strcmp(item, "put") == 0)
		return drtm_parse_fraction("--drtm put=", v, &c->put_fraction, err, errlen);
	if (strcmp(item, "items") == 0) {
		errno = 0;
		c->items = strtoull(v, &end, 10);
		if (end == v || *end || errno || *v == '-')
			return rb_fail(err, errlen, "--drtm items=%s: not a whole number", v);
		return 0;
	}
	int d = zipf_parse_dist("--drtm", item, v, &c->zipf, &c->theta, err, errlen);
	if (d)
		return d < 0 ? -1 : 0;
	return rb_fail(err, errlen, "--drtm %s: unknown knob; use put, items, dist, theta, "
		       "put-writes or validate", item);
}

int drtm_parse_opts(const char *list, struct drtm_cfg *c, char *err, size_t errlen)
{
	return zipf_list_each("--drtm", list, parse_item, c, err, errlen);
}

const char *drtm_describe(const struct drtm_cfg *c, char *buf, size_t len)
{
	int n = snprintf(buf, len, "put=%g,items=%" PRIu64 ",dist=%s", c->put_fraction, c->items,
			 c->zipf ? "zipf" : "uniform");
	if (c->zipf && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",theta=%g", c->theta);
	if (c->put_writes && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",put-writes");
	if (c->validate && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",validate");
	return buf;
}

int drtm_gen_init(struct drtm_gen *g, const struct drtm_cfg *c, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->rng = seed;
	g->items = c->items;
	g->put_fraction = c->put_fraction;
	g->zipf = c->zipf != 0;
	if (c->items == 0)
		return -1;
	return g->zipf ? zipf_init(&g->z, c->items, c->theta) : 0;
}

uint64_t drtm_next_key(struct drtm_gen *g)
{
	return g->zipf ? zipf_next(&g->z, &g->rng) : zipf_uniform(g->items, &g->rng);
}

bool drtm_next_is_put(struct drtm_gen *g)
{
	return zipf_u01(&g->rng) < g->put_fraction;
}

void drtm_scan(const uint8_t *items, uint64_t n, bool put_writes, struct drtm_tally *t)
{
	*t = (struct drtm_tally){ .items = n };
	for (uint64_t i = 0; i < n; i++) {
		struct drtm_view v;
		drtm_item_view(items + drtm_item_offset(i), &v);
		t->locked += drtm_hdr_owner(v.hdr) != 0;
		t->versions += drtm_hdr_version(v.hdr);
		if (put_writes && !drtm_hdr_owner(v.hdr) &&
		    v.stamp_version != drtm_hdr_version(v.hdr))
			t->stamp_stale++;
	}
}

bool drtm_check(const struct drtm_tally *t, const struct drtm_counts *c, char *why,
		size_t whylen)
{
	if (t->locked) {
		rb_fail(why, whylen, "%" PRIu64 " of %" PRIu64 " items left locked after the point",
			t->locked, t->items);
		return false;
	}
	if (t->versions != c->puts_done) {
		rb_fail(why, whylen, "the items' versions sum to %" PRIu64 ", the clients completed %"
			PRIu64 " PUTs", t->versions, c->puts_done);
		return false;
	}
	if (t->stamp_stale) {
		rb_fail(why, whylen, "%" PRIu64 " items hold a value stamped with another version "
			"than their header's", t->stamp_stale);
		return false;
	}
	if (c->bad_gets) {
		rb_fail(why, whylen, "%" PRIu64 " GETs read an item that is not the key's",
			c->bad_gets);
		return false;
	}
	return true;
}
