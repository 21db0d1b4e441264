/*
 * kv.c - HERD-KV's request slot and knob checks (include/kv.h says the
 * layout and where it comes from). Pure: no verbs, no I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "kv.h"

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
		.zipf = false,
		.theta = 0.99,
		.log_bytes = MICA_DEF_LOG_BYTES,
		.validate = false,
	};
}

int kv_cfg_validate(const struct kv_cfg *c, uint64_t window, char *err, size_t errlen)
{
	if (!(c->get_fraction >= 0 && c->get_fraction <= 1))
		return rb_fail(err, errlen, "--get-fraction %g is outside 0..1: give the share of "
			       "GETs, e.g. 0.95 (5 %% PUTs) or 1 (GETs only)", c->get_fraction);
	if (c->keys == 0)
		return rb_fail(err, errlen, "--keys 0: the keyspace needs at least 1 key (default "
			       "%" PRIu64 ")", (uint64_t)MICA_DEF_KEYS);
	if (c->value_bytes == 0 || c->value_bytes > KV_MAX_VALUE)
		return rb_fail(err, errlen, "--value-size %" PRIu64 " is outside 1..%u: a request "
			       "slot (%u B) carries at most %u value bytes beside the key and the "
			       "control word; give %u or less", c->value_bytes, KV_MAX_VALUE,
			       KV_SLOT_BYTES, KV_MAX_VALUE, KV_MAX_VALUE);
	if (c->validate && c->value_bytes < MICA_VALUE_MIN_CHECKED)
		return rb_fail(err, errlen, "--validate with --value-size %" PRIu64 ": a checked "
			       "value holds its key and version, %u bytes at least; give "
			       "--value-size %u or more", c->value_bytes, MICA_VALUE_MIN_CHECKED,
			       MICA_VALUE_MIN_CHECKED);
	if (window == 0 || window > KV_MAX_WINDOW)
		return rb_fail(err, errlen, "--window %" PRIu64 " is outside 1..%u (slots per "
			       "server thread and client): give %u or less", window, KV_MAX_WINDOW,
			       KV_MAX_WINDOW);
	if (!(c->theta > 0))
		return rb_fail(err, errlen, "--zipf-theta %g must be above 0 (HERD uses 0.99)",
			       c->theta);
	return 0;
}

int kv_parse_fraction(const char *s, double *f, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (end == s || *end || errno || !isfinite(v))
		return rb_fail(err, errlen, "--get-fraction '%s' is not a number: give a share "
			       "in 0..1, e.g. 0.95", s);
	if (!(v >= 0 && v <= 1))
		return rb_fail(err, errlen, "--get-fraction %s is outside 0..1: give the share of "
			       "GETs, e.g. 0.95 (5 %% PUTs) or 1 (GETs only)", s);
	*f = v;
	return 0;
}
