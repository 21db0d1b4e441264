/*
 * units.h - unit conversions and strict parsing of numbers and sizes.
 *
 * Conversions follow docs/csv.md (mops, gbps): throughput in Mops is 10^6
 * operations per second; Gb/s is 10^9 bits per second of payload. MB and
 * MiB are kept apart: MB = 10^6 bytes, MiB = 2^20 bytes.
 *
 * Parsers accept exactly what they document and reject everything else with
 * a message that names the value and says what would be accepted (a value
 * out of range is refused, never wrapped or clamped). Messages go into a caller buffer (err,
 * errlen); they are never printed here. On error *out is left unchanged.
 */
#ifndef RDMA_BENCH_UNITS_H
#define RDMA_BENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_KB  UINT64_C(1000)           /* decimal */
#define UNITS_MB  UINT64_C(1000000)
#define UNITS_GB  UINT64_C(1000000000)
#define UNITS_KIB UINT64_C(1024)           /* binary */
#define UNITS_MIB UINT64_C(1048576)
#define UNITS_GIB UINT64_C(1073741824)

#define UNITS_LIST_MAX 64  /* most entries units_parse_size_list accepts */

/* Millions of operations per second (10^6 ops/s); NAN if seconds <= 0 or not finite. */
double units_mops(uint64_t ops, double seconds);
/* Payload gigabits per second (10^9 bit/s, 8 bits a byte); NAN if seconds <= 0 or not finite. */
double units_gbps(uint64_t payload_bytes, double seconds);
/* Bytes in MB (10^6) and in MiB (2^20). */
double units_mb(uint64_t bytes);
double units_mib(uint64_t bytes);
/* Bytes per second in MB/s (10^6 B/s) and MiB/s (2^20 B/s); NAN if seconds <= 0 or not finite. */
double units_mb_per_s(uint64_t bytes, double seconds);
double units_mib_per_s(uint64_t bytes, double seconds);
/* bytes as text for messages, into buf, in the largest binary unit it
 * reaches: a whole number where that unit divides it ("512 KiB", "3 MiB",
 * "100 B"), else one decimal ("1.5 MiB"). Returns buf. */
const char *units_size_text(uint64_t bytes, char *buf, size_t len);
/* Nanoseconds to microseconds (the unit of the lat_*_us columns); NAN stays NAN. */
double units_ns_to_us(double ns);

/*
 * Parse a size in bytes: decimal digits, optionally followed directly (no
 * space) by a suffix, case-insensitive:
 *   (none) or B                 bytes
 *   K, KiB / M, MiB / G, GiB / T, TiB   1024-based: 4K = 4KiB = 4096
 *   KB / MB / GB / TB           1000-based: 4KB = 4000
 * Rejected, with err naming the value: empty string, sign (a minus is
 * reported as negative), leading or trailing spaces, anything not a digit
 * where the number starts, fractions (1.5K), unknown suffix or trailing
 * junk, a result above UINT64_MAX. 0 is accepted (header-only SEND); range
 * checks belong to the caller. Returns 0 with *out set, or -1.
 */
int units_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * units_parse_size for option optname (NULL reads as "value"), then check
 * min <= bytes <= max. err starts with the option name, e.g.
 *   --stride: size "4Q": unexpected "Q" after the number (...)
 *   --stride: 2G = 2147483648 bytes is above the maximum 1073741824 (use a size from 8 to 1073741824 bytes)
 * Returns 0 with *out set, or -1.
 */
int units_parse_size_opt(const char *s, uint64_t min, uint64_t max, const char *optname,
			 uint64_t *out, char *err, size_t errlen);

/*
 * Parse a decimal integer for option optname (e.g. "--iters"; NULL reads as
 * "value") and check min <= value <= max. Digits only: no sign, no spaces,
 * no suffix, no hex. err names the option, the value, the limit broken and
 * the range to use instead. Returns 0 with *out set, or -1.
 */
int units_parse_u64(const char *s, uint64_t min, uint64_t max, const char *optname,
		    uint64_t *out, char *err, size_t errlen);

/*
 * Parse a comma-separated list of sizes ("64,256,4096"), each item as in
 * units_parse_size, into out[0..*n-1], in the order given (duplicates
 * kept). max_bytes is the limit an item beyond 64 bits is told (the
 * caller's own limit, not 2^64 - 1); the range check itself is the
 * caller's (rdma_bench: test_validate, "above the limit"). At most max items, and never more than UNITS_LIST_MAX (64). An
 * empty list, an empty item (",64", "64,,256", "64,") or a bad item is
 * refused with err naming the list (its first 48 characters and its length
 * when longer than 64, so the reason always fits) and the item's position.
 * Returns 0 with *n set, or -1 (then *n and out are unspecified).
 */
int units_parse_size_list(const char *s, uint64_t max_bytes, uint64_t *out, int max, int *n,
			  char *err, size_t errlen);

#endif /* RDMA_BENCH_UNITS_H */
