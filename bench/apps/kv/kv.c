/*
 * kv.c - HERD-KV's request slot and knob checks (bench/apps/kv/kv.h says the
 * layout and where it comes from). Pure: no verbs, no I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "kv.h"
#include "zipf.h"

#define CTRL_OP    0u
#define CTRL_VLEN  1u
#define CTRL_MARK  7u

int kv_req_encode(uint8_t *slot, uint8_t op, const struct mica_key *key, const void *value,
		  uint8_t vlen, uint8_t mark, uint32_t *off, uint32_t *len)
{
	uint8_t *ctrl = slot + KV_CTRL_OFF;

	if ((op != KV_GET && op != KV_PUT) || (op == KV_GET && vlen) || vlen > KV_MAX_VALUE ||
	    mark == 0)
		return -1;
	if (vlen)
		memcpy(slot + KV_VALUE_END - vlen, value, vlen);
	memcpy(slot + KV_KEY_OFF, key, MICA_KEY_BYTES);
	memset(ctrl, 0, 8);
	ctrl[CTRL_OP] = op;
	ctrl[CTRL_VLEN] = vlen;
	ctrl[CTRL_MARK] = mark;
	*off = KV_VALUE_END - vlen;
	*len = KV_CTRL_OFF + 8 - *off;
	return 0;
}

int kv_req_decode(const uint8_t *slot, struct kv_req *req)
{
	const uint8_t *ctrl = slot + KV_CTRL_OFF;

	if (__atomic_load_n(&ctrl[CTRL_MARK], __ATOMIC_ACQUIRE) == 0)
		return KV_SLOT_EMPTY;
	uint8_t op = ctrl[CTRL_OP], vlen = ctrl[CTRL_VLEN];
	for (unsigned i = 2; i < CTRL_MARK; i++)
		if (ctrl[i])
			return KV_SLOT_BAD;
	if ((op != KV_GET && op != KV_PUT) || (op == KV_GET && vlen) || vlen > KV_MAX_VALUE)
		return KV_SLOT_BAD;
	req->op = op;
	req->vlen = vlen;
	memcpy(&req->key, slot + KV_KEY_OFF, MICA_KEY_BYTES);
	req->value = slot + KV_VALUE_END - vlen;
	return KV_SLOT_REQ;
}

void kv_req_clear(uint8_t *slot)
{
	memset(slot + KV_CTRL_OFF, 0, 8);
}

void kv_cfg_defaults(struct kv_cfg *c)
{
	*c = (struct kv_cfg){
		.get_fraction = 0.95,
		.keys = MICA_DEF_KEYS,
		.value_bytes = MICA_DEF_VALUE,
		.zipf = 0,
		.theta = 0.99,
		.validate = 0,
	};
}

int kv_cfg_validate(const struct kv_cfg *c, uint64_t window, char *err, size_t errlen)
{
	if (!(c->get_fraction >= 0 && c->get_fraction <= 1))
		return rb_fail(err, errlen, "--kv get=%g is outside 0..1: give the share of "
			       "GETs, e.g. 0.95 (5 %% PUTs) or 1 (GETs only)", c->get_fraction);
	if (c->keys == 0)
		return rb_fail(err, errlen, "--kv keys=0: the keyspace needs at least 1 key (default "
			       "%" PRIu64 ")", (uint64_t)MICA_DEF_KEYS);
	if (c->keys > KV_MAX_KEYS)
		return rb_fail(err, errlen, "--kv keys=%" PRIu64 " is above %" PRIu64 " (the paper's 8M "
			       "keys per server thread x 16 threads; each key costs its server about "
			       "100 bytes): give fewer keys", c->keys, KV_MAX_KEYS);
	if (c->value_bytes == 0 || c->value_bytes > KV_MAX_VALUE)
		return rb_fail(err, errlen, "--kv value=%" PRIu64 " is outside 1..%u: a request "
			       "slot (%u B) carries at most %u value bytes beside the key and the "
			       "control word; give %u or less", c->value_bytes, KV_MAX_VALUE,
			       KV_SLOT_BYTES, KV_MAX_VALUE, KV_MAX_VALUE);
	if (c->validate && c->value_bytes < MICA_VALUE_MIN_CHECKED)
		return rb_fail(err, errlen, "--kv validate with value=%" PRIu64 ": a checked "
			       "value holds its key and version, %u bytes at least; give "
			       "value=%u or more", c->value_bytes, MICA_VALUE_MIN_CHECKED,
			       MICA_VALUE_MIN_CHECKED);
	if (window == 0 || window > KV_MAX_WINDOW)
		return rb_fail(err, errlen, "--window %" PRIu64 " is outside 1..%u (slots per "
			       "server thread and client): give %u or less", window, KV_MAX_WINDOW,
			       KV_MAX_WINDOW);
	if (c->zipf && !(c->theta > 0))
		return rb_fail(err, errlen, "--kv theta=%g must be above 0 (HERD uses 0.99)",
			       c->theta);
	return 0;
}

int kv_parse_fraction(const char *s, double *f, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (end == s || *end || errno || !isfinite(v))
		return rb_fail(err, errlen, "--kv get='%s' is not a number: give a share "
			       "in 0..1, e.g. 0.95", s);
	if (!(v >= 0 && v <= 1))
		return rb_fail(err, errlen, "--kv get=%s is outside 0..1: give the share of "
			       "GETs, e.g. 0.95 (5 %% PUTs) or 1 (GETs only)", s);
	*f = v;
	return 0;
}

static int parse_u64(const char *item, const char *v, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (end == v || *end || errno || *v == '-')
		return rb_fail(err, errlen, "--kv %s: '%s' is not a whole number", item, v);
	*out = x;
	return 0;
}

static int parse_item(char *item, void *cfg, char *err, size_t errlen)
{
	struct kv_cfg *c = cfg;
	char *eq = strchr(item, '=');
	const char *v = eq ? eq + 1 : NULL;
	if (eq)
		*eq = 0;
	if (strcmp(item, "validate") == 0 && !v) {
		c->validate = 1;
		return 0;
	}
	if (!v)
		return rb_fail(err, errlen, "--kv %s: give NAME=VALUE (get, keys, value, dist, theta) "
			       "or validate", item);
	if (strcmp(item, "get") == 0)
		return kv_parse_fraction(v, &c->get_fraction, err, errlen);
	if (strcmp(item, "keys") == 0)
		return parse_u64("keys", v, &c->keys, err, errlen);
	if (strcmp(item, "value") == 0)
		return parse_u64("value", v, &c->value_bytes, err, errlen);
	int d = zipf_parse_dist("--kv", item, v, &c->zipf, &c->theta, err, errlen);
	if (d)
		return d < 0 ? -1 : 0;
	return rb_fail(err, errlen, "--kv %s: unknown knob; use get, keys, value, dist, theta or "
		       "validate", item);
}

int kv_parse_opts(const char *list, struct kv_cfg *c, char *err, size_t errlen)
{
	return zipf_list_each("--kv", list, parse_item, c, err, errlen);
}

const char *kv_describe(const struct kv_cfg *c, char *buf, size_t len)
{
	int n = snprintf(buf, len, "get=%g,keys=%" PRIu64 ",value=%" PRIu64 ",dist=%s",
			 c->get_fraction, c->keys, c->value_bytes, c->zipf ? "zipf" : "uniform");
	if (c->zipf && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",theta=%g", c->theta);
	if (c->validate && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",validate");
	return buf;
}
