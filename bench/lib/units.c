/*
 * units.c - unit conversions and strict number/size parsing.
 *
 * Numbers are parsed digit by digit here rather than with strtoull, which
 * skips leading spaces, accepts a sign (and negates "-1" to 2^64 - 1), reads
 * hex with base 0 and reports overflow only through errno. Every rejection
 * says which value was refused and what would be accepted.
 */
#include "units.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SIZE_HELP "expected bytes, e.g. 4096, or a number with a suffix: " \
	"K, KiB, M, MiB, G, GiB, T, TiB (1024-based) or KB, MB, GB, TB (1000-based)"

static int units_bad_seconds(double seconds)
{
	return !(seconds > 0.0) || !isfinite(seconds);
}

double units_mops(uint64_t ops, double seconds)
{
	if (units_bad_seconds(seconds))
		return NAN;
	return (double)ops / seconds / 1e6;
}

double units_gbps(uint64_t payload_bytes, double seconds)
{
	if (units_bad_seconds(seconds))
		return NAN;
	return (double)payload_bytes * 8.0 / seconds / 1e9;
}

double units_mb(uint64_t bytes)
{
	return (double)bytes / (double)UNITS_MB;
}

const char *units_size_text(uint64_t bytes, char *buf, size_t len)
{
	static const char *const name[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (u + 1 < 5 && bytes >= (UINT64_C(1) << (10 * (u + 1))))
		u++;
	if (bytes % (UINT64_C(1) << (10 * u)) == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> (10 * u)), name[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)(UINT64_C(1) << (10 * u)),
			 name[u]);
	return buf;
}

double units_mib(uint64_t bytes)
{
	return (double)bytes / (double)UNITS_MIB;
}

double units_mb_per_s(uint64_t bytes, double seconds)
{
	if (units_bad_seconds(seconds))
		return NAN;
	return units_mb(bytes) / seconds;
}

double units_mib_per_s(uint64_t bytes, double seconds)
{
	if (units_bad_seconds(seconds))
		return NAN;
	return units_mib(bytes) / seconds;
}

double units_ns_to_us(double ns)
{
	return ns / 1e3;
}

/*
 * Read the leading decimal digits of s into *v. Returns the number of digits
 * read (0 if s does not start with a digit), or -1 if the value does not fit
 * in uint64_t.
 */
static int units_digits(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int i = 0;

	for (; isdigit((unsigned char)s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return i;
}

struct units_suffix {
	const char *name;
	uint64_t mult;
};

static const struct units_suffix units_suffixes[] = {
	{ "", 1 },       { "B", 1 },
	{ "K", UNITS_KIB }, { "KiB", UNITS_KIB }, { "KB", UNITS_KB },
	{ "M", UNITS_MIB }, { "MiB", UNITS_MIB }, { "MB", UNITS_MB },
	{ "G", UNITS_GIB }, { "GiB", UNITS_GIB }, { "GB", UNITS_GB },
	{ "T", UNITS_GIB * 1024 }, { "TiB", UNITS_GIB * 1024 }, { "TB", UNITS_GB * 1000 },
};

/* units_parse_size, naming `limit` (the caller's maximum) where the
 * number does not fit in 64 bits. */
static int size_parse(const char *s, uint64_t limit, uint64_t *out, char *err, size_t errlen)
{
	uint64_t v;

	if (s == NULL || s[0] == '\0') {
		snprintf(err, errlen, "size \"\": empty (%s)", SIZE_HELP);
		return -1;
	}
	if (s[0] == '-') {
		snprintf(err, errlen, "size \"%s\": negative sizes are not allowed (%s)",
			 s, SIZE_HELP);
		return -1;
	}
	int nd = units_digits(s, &v);
	if (nd < 0) {
		snprintf(err, errlen, "size \"%s\": too large (the limit is %" PRIu64 " bytes)",
			 s, limit);
		return -1;
	}
	if (nd == 0) {
		snprintf(err, errlen, "size \"%s\": not a number (%s)", s, SIZE_HELP);
		return -1;
	}
	const char *suf = s + nd;
	if (suf[0] == '.' || suf[0] == ',') {
		snprintf(err, errlen, "size \"%s\": fractions are not supported "
			 "(write a whole number of bytes or of a smaller unit, e.g. 1536 for 1.5K)", s);
		return -1;
	}
	for (size_t i = 0; i < sizeof(units_suffixes) / sizeof(units_suffixes[0]); i++) {
		const struct units_suffix *u = &units_suffixes[i];
		if (strcasecmp(suf, u->name) != 0)
			continue;
		if (v > UINT64_MAX / u->mult) {
			snprintf(err, errlen, "size \"%s\": too large (the limit is %" PRIu64
				 " bytes)", s, limit);
			return -1;
		}
		*out = v * u->mult;
		return 0;
	}
	snprintf(err, errlen, "size \"%s\": unexpected \"%s\" after the number (%s)",
		 s, suf, SIZE_HELP);
	return -1;
}

int units_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	return size_parse(s, UINT64_MAX, out, err, errlen);
}

int units_parse_size_opt(const char *s, uint64_t min, uint64_t max, const char *optname,
			 uint64_t *out, char *err, size_t errlen)
{
	const char *opt = optname ? optname : "value";
	char why[320];
	uint64_t v;

	if (size_parse(s, max, &v, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: %s", opt, why);
		return -1;
	}
	if (v < min || v > max) {
		snprintf(err, errlen, "%s: %s = %" PRIu64 " bytes is %s %" PRIu64
			 " (use a size from %" PRIu64 " to %" PRIu64 " bytes)", opt, s, v,
			 v < min ? "below the minimum" : "above the maximum", v < min ? min : max,
			 min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_u64(const char *s, uint64_t min, uint64_t max, const char *optname,
		    uint64_t *out, char *err, size_t errlen)
{
	const char *opt = optname ? optname : "value";
	uint64_t v;

	if (s == NULL || s[0] == '\0') {
		snprintf(err, errlen, "%s: empty value (use an integer from %" PRIu64
			 " to %" PRIu64 ")", opt, min, max);
		return -1;
	}
	int nd = units_digits(s, &v);
	if (nd < 0) {
		snprintf(err, errlen, "%s: \"%s\" is above the maximum %" PRIu64
			 " (use an integer from %" PRIu64 " to %" PRIu64 ")",
			 opt, s, max, min, max);
		return -1;
	}
	/* a negative integer ("-5") is a value below the range: said as such,
	 * as 0 below a minimum of 1 is */
	if (nd == 0 && s[0] == '-') {
		uint64_t neg;
		int nn = units_digits(s + 1, &neg);
		if (nn < 0 || (nn > 0 && s[1 + nn] == '\0')) {
			snprintf(err, errlen, "%s: %s is below the minimum %" PRIu64
				 " (use an integer from %" PRIu64 " to %" PRIu64 ")",
				 opt, s, min, min, max);
			return -1;
		}
	}
	if (nd == 0 || s[nd] != '\0') {
		snprintf(err, errlen, "%s: \"%s\" is not a decimal integer "
			 "(use an integer from %" PRIu64 " to %" PRIu64 ", digits only)",
			 opt, s, min, max);
		return -1;
	}
	if (v < min) {
		snprintf(err, errlen, "%s: %s is below the minimum %" PRIu64
			 " (use an integer from %" PRIu64 " to %" PRIu64 ")",
			 opt, s, min, min, max);
		return -1;
	}
	if (v > max) {
		snprintf(err, errlen, "%s: %s is above the maximum %" PRIu64
			 " (use an integer from %" PRIu64 " to %" PRIu64 ")",
			 opt, s, max, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* The list as quoted in an error: whole when short, else its head and its
 * length, so that the reason after it is never cut off by the caller's
 * buffer (a list of 5000 sizes is 24 KB). */
static const char *list_quote(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n <= 64)
		snprintf(buf, len, "\"%s\"", s);
	else
		snprintf(buf, len, "\"%.48s...\" (%zu characters)", s, n);
	return buf;
}

int units_parse_size_list(const char *s, uint64_t max_bytes, uint64_t *out, int max, int *n,
			  char *err, size_t errlen)
{
	char item[64];
	char why[320]; /* size_parse on an item of 63 characters: 295 at most */
	char q[96];
	int count = 0;

	if (max > UNITS_LIST_MAX)
		max = UNITS_LIST_MAX;
	if (s == NULL || s[0] == '\0') {
		snprintf(err, errlen, "size list \"\": empty (write sizes separated by "
			 "commas, e.g. 64,256,4096)");
		return -1;
	}
	list_quote(s, q, sizeof(q));
	const char *p = s;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0) {
			snprintf(err, errlen, "size list %s: item %d is empty (write sizes "
				 "separated by single commas, e.g. 64,256,4096)", q, count + 1);
			return -1;
		}
		if (count >= max) {
			snprintf(err, errlen, "size list %s: more than %d sizes (give at "
				 "most %d per run; split the list across runs)", q, max, max);
			return -1;
		}
		if (len >= sizeof(item)) {
			snprintf(err, errlen, "size list %s: item %d is %zu characters long, "
				 "not a size (%s)", q, count + 1, len, SIZE_HELP);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (size_parse(item, max_bytes, &out[count], why, sizeof(why)) != 0) {
			snprintf(err, errlen, "size list %s: item %d: %s", q, count + 1, why);
			return -1;
		}
		count++;
		if (!end)
			break;
		p = end + 1;
	}
	*n = count;
	return 0;
}
