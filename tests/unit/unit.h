/*
 * unit.h - what the unit tests share: cmocka with the standard headers it
 * needs before it (its documented order), the C library headers most tests
 * use, and the suite's assertions and fixtures:
 *
 *   assert_close(actual, expected, rel)  |actual - expected| <= rel * |expected|
 *                                        (both NaN counts as equal)
 *   assert_err_has(err, needle)          the message err contains needle
 *   unit_parse(line, o, err, errlen)     opts_parse of "rdma_bench LINE", the
 *                                        line split on single spaces
 *   unit_ctr_put(c, name, val)           one more counter in a snapshot
 *   unit_point_base(o, e, t)             a point's options, environment and
 *                                        test as the row builder gets them:
 *                                        one process, no clock figure,
 *                                        defaults with 100 iterations
 *
 * Header-only (static inline), included by each test program first.
 */
#ifndef RB_UNIT_H
#define RB_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "options.h"
#include "report.h"

#define assert_close(actual, expected, rel) \
	assert_close_at((actual), (expected), (rel), #actual, __FILE__, __LINE__)

static inline void assert_close_at(double a, double e, double rel, const char *what,
				   const char *file, int line)
{
	if (isnan(a) && isnan(e))
		return;
	if (fabs(a - e) <= rel * fabs(e))
		return;
	print_error("%s:%d: %s = %.17g, expected %.17g within relative %.3g\n",
		    file, line, what, a, e, rel);
	fail();
}

#define assert_err_has(err, needle) \
	do { \
		if (strstr((err), (needle)) == NULL) { \
			print_error("message \"%s\" lacks \"%s\"\n", (err), (needle)); \
			fail(); \
		} \
	} while (0)

/* opts_parse(argc, argv) of "rdma_bench LINE" (at most 63 words, 1023
 * bytes); err is emptied first. Its return value. */
static inline int unit_parse(const char *line, struct rb_opts *o, char *err, size_t errlen)
{
	char buf[1024];
	char *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "rdma_bench %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	err[0] = '\0';
	return opts_parse(argc, argv, o, err, errlen);
}

/* Add name=val to a counter snapshot. */
static inline void unit_ctr_put(struct rb_counters *c, const char *name, uint64_t val)
{
	snprintf(c->name[c->n], sizeof(c->name[c->n]), "%s", name);
	c->val[c->n++] = val;
}

/* o, e, t for a row: one process, clock_read_ns NaN, the test's defaults
 * resolved with 100 iterations (the caller sets verb, transport, ...). */
static inline void unit_point_base(struct rb_opts *o, struct rb_env *e, struct rb_test *t)
{
	memset(o, 0, sizeof(*o));
	memset(e, 0, sizeof(*e));
	o->procs = 1;
	e->clock_read_ns = NAN;
	test_defaults(t);
	t->iters = 100;
	test_resolve_defaults(t, NULL);
}

#endif
